"""Clean and deploy steps of the fake-hardware driver, as Ironic runs them.

A manual cleaning runs the clean steps a request names, in its order; a
deployment runs the deploy steps of the deploy templates its instance
asks for (by traits) and of the request (1.69), with the deploy
interface's own ``deploy`` step, by priority. The steps a node's
interfaces have are those of Ironic's fake interfaces; those that change
what a node records (its RAID configuration) do so, the others only pass.
"""
import collections

from pool_conductor.baremetal import raid
from pool_conductor import exception

# (interface, step) -> the args a step needs.
CLEAN_STEPS = {
    ('raid', raid.CREATE): (),
    ('raid', raid.DELETE): (),
    ('bios', 'apply_configuration'): ('settings',),
    ('bios', 'factory_reset'): (),
}
DEPLOY_STEPS = {
    ('deploy', 'deploy'): (),
    ('raid', 'apply_configuration'): ('raid_config',),
    ('raid', raid.DELETE): (),
    ('bios', 'apply_configuration'): ('settings',),
    ('bios', 'factory_reset'): (),
}
# The deploy steps that run with no template asking for them.
CORE_DEPLOY_STEP = {'interface': 'deploy', 'step': 'deploy', 'args': {},
                    'priority': 100}
# Of two deploy steps of the same priority, the one of the interface
# named first here runs first, as in Ironic.
DEPLOY_INTERFACES = ('vendor', 'power', 'management', 'firmware', 'deploy',
                     'bios', 'raid')


def _name(step: dict) -> str:
    return '%s.%s' % (step['interface'], step['step'])


def _check(step: dict, known: dict, kind: str) -> None:
    key = (step['interface'], step['step'])
    if key not in known:
        raise exception.InvalidParameterValue(
            err='%s is not a %s step of the fake-hardware driver; its %s '
                'steps are: %s.' % (_name(step), kind, kind, ', '.join(
                    sorted('%s.%s' % k for k in known))))
    missing = [a for a in known[key] if a not in (step.get('args') or {})]
    if missing:
        raise exception.InvalidParameterValue(
            err='%s step %s needs the argument(s) %s.'
                % (kind.capitalize(), _name(step), ', '.join(missing)))


def check_deploy_steps(steps: list, what: str = 'deploy steps') -> None:
    """Deploy steps a template or a request names: each a step of the
    fake-hardware driver with the args it needs, none twice.

    :raises: InvalidParameterValue
    """
    counts = collections.Counter((s['interface'], s['step']) for s in steps)
    duplicates = sorted('%s.%s' % k for k, n in counts.items() if n > 1)
    if duplicates:
        raise exception.InvalidParameterValue(
            err='Duplicate deploy steps in %s: a step may be named once. '
                'Duplicates: %s' % (what, ', '.join(duplicates)))
    for step in steps:
        _check(step, DEPLOY_STEPS, 'deploy')


def clean_steps(requested: list) -> list:
    """The clean steps of a manual cleaning as the node records them."""
    return [{'interface': s['interface'], 'step': s['step'],
             'args': s.get('args') or {}, 'priority': 0}
            for s in requested]


def deploy_steps(template_steps: list, requested: list) -> list | None:
    """The deploy steps a deployment runs, in order: the deploy
    interface's deploy step, overridden by the templates' steps, those by
    the request's (a priority of 0 leaves a step out); by priority, the
    highest first. None when neither templates nor the request name a
    step (the node is deployed at once).
    """
    if not template_steps and not requested:
        return None
    chosen = {(CORE_DEPLOY_STEP['interface'], CORE_DEPLOY_STEP['step']):
              CORE_DEPLOY_STEP}
    for step in list(template_steps) + list(requested):
        chosen[(step['interface'], step['step'])] = {
            'interface': step['interface'], 'step': step['step'],
            'args': step.get('args') or {},
            'priority': int(step['priority'])}
    return sorted((s for s in chosen.values() if s['priority'] > 0),
                  key=lambda s: (-s['priority'],
                                 DEPLOY_INTERFACES.index(s['interface'])))


def check_clean_step(step: dict) -> None:
    """:raises: InvalidParameterValue for a step the fake-hardware driver
        does not have"""
    _check(step, CLEAN_STEPS, 'clean')


def run(node, step: dict, now) -> dict:
    """The fields a step that has run changes on a node.

    :raises: InvalidParameterValue where the step fails (creating a RAID
        configuration with no target one)
    """
    key = (step['interface'], step['step'])
    if key in (('raid', raid.CREATE), ('raid', raid.DELETE)):
        return raid.apply_step(node, step['step'], now)
    if key == ('raid', 'apply_configuration'):
        config = step['args']['raid_config']
        raid.check_root_volumes(config)
        return {'target_raid_config': config,
                'raid_config': {**config, 'last_updated': str(now)}}
    return {}

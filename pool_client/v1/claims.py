"""``openstack pool claim create|list|show|set|unset|delete``."""
import argparse
import logging

from osc_lib.command import command
from osc_lib import exceptions

from pool_client import utils

FIELDS = ('uuid', 'name', 'owner', 'state', 'last_error', 'resources',
          'allocations', 'lifespan_end', 'created_at', 'updated_at')
LIST_FIELDS = ('uuid', 'name', 'state', 'owner', 'lifespan_end')
SORT_KEYS = ('uuid', 'name', 'state', 'owner', 'lifespan_end',
             'created_at', 'updated_at')
STATES = ('pending', 'bound', 'ready', 'error', 'expired')
# What a claim is in once bound; any other end of a wait is a failure.
BOUND = ('bound', 'ready')
ERROR = 'error'


def resource(text: str) -> dict:
    """A resource of ``<provider>[=<template JSON>]``.

    :raises: CommandError for a template that is not a JSON object
    """
    provider, sep, template = text.partition('=')
    if not provider:
        raise exceptions.CommandError(
            'Expected --resource <provider>[=<template JSON>], not "%s"'
            % text)
    if not sep:
        return {'provider': provider}
    try:
        return {'provider': provider,
                'template': utils.json_object(template)}
    except argparse.ArgumentTypeError as exc:
        raise exceptions.CommandError(
            'The template of resource "%s": %s' % (provider, exc)) from None


def resource_param(text: str, with_value: bool) -> tuple:
    """(index, key, value) of ``<index>:<key>=<value>``, or (index, key,
    None) of ``<index>:<key>`` without with_value; the value is
    JSON-decoded when it parses.

    :raises: CommandError for anything else
    """
    index, sep, rest = text.partition(':')
    expected = '<index>:<key>=<value>' if with_value else '<index>:<key>'
    if not sep or not index.isdigit() or not rest:
        raise exceptions.CommandError(
            'Expected --resource-param %s, not "%s"' % (expected, text))
    if not with_value:
        return int(index), rest, None
    key, value = utils.split_and_deserialize(rest)
    return int(index), key, value


def _resources(client, claim: str, indexes) -> list:
    """The resources of a claim, checking that the indexes are in it.

    :raises: CommandError naming an index the claim does not have
    """
    resources = client.claim_get(claim, fields=['resources']).get(
        'resources') or []
    for index in indexes:
        if index >= len(resources):
            raise exceptions.CommandError(
                'Claim %s has %d resource(s): there is no resource %d'
                % (claim, len(resources), index))
    return resources


def _add_wait_argument(parser):
    parser.add_argument(
        '--wait', type=int, dest='wait_timeout', default=None,
        metavar='<time-out>', const=0, nargs='?',
        help='Wait for the claim to be bound. An error is returned if the '
             'claim fails. Optionally takes a timeout in seconds; the '
             'default, 0, waits indefinitely.')


class CreateClaim(command.ShowOne):
    """Create a claim: machines of providers, all of them or none."""

    log = logging.getLogger(__name__ + '.CreateClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='<name>', nargs='?',
                            help='Unique name of the claim.')
        parser.add_argument(
            '--resource', metavar='<provider>[=<template JSON>]',
            dest='resources', action='append', required=True,
            help='A machine of the provider, with its request template '
                 '(resource_class, traits, params, profiles, workflow) '
                 'merged over the provider\'s defaults. Repeat option for '
                 'several machines.')
        parser.add_argument('--uuid', metavar='<uuid>',
                            help='UUID of the claim.')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', metavar='<time>',
            help='When the claim\'s machines are released (ISO 8601, UTC '
                 'unless an offset is given), within its providers\' '
                 'lifespan (default: their shortest default).')
        _add_wait_argument(parser)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        wait = parsed_args.wait_timeout
        if wait is not None and wait < 0:
            raise exceptions.CommandError(
                'Expected a non-negative --wait time-out, got %s' % wait)
        fields = {k: getattr(parsed_args, k)
                  for k in ('name', 'uuid', 'lifespan_end')
                  if getattr(parsed_args, k) is not None}
        fields['resources'] = [resource(r) for r in parsed_args.resources]
        claim = client.claim_create(**fields)
        if wait is not None:
            claim = client.claim_wait(
                claim['uuid'], timeout=wait,
                progress=utils.Progress('Claim %s' % claim['uuid']))
            if claim.get('state') == ERROR:
                raise exceptions.CommandError(
                    'Claim %s failed: %s'
                    % (claim['uuid'], claim.get('last_error')
                       or 'unknown error'))
            if claim.get('state') not in BOUND:
                raise exceptions.CommandError(
                    'Claim %s is %s, not bound'
                    % (claim['uuid'], claim.get('state')))
        return utils.show(claim)


class ListClaim(command.Lister):
    """List claims."""

    log = logging.getLogger(__name__ + '.ListClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        utils.add_list_arguments(
            parser, 'claim',
            marker_help='Claim UUID (of the last claim of a previous list): '
                        'list the claims after it.')
        parser.add_argument('--state', metavar='<state>', choices=STATES,
                            help='Only list claims in this state (%s).'
                                 % ', '.join(STATES))
        parser.add_argument('--owner', metavar='<owner>',
                            help='Only list claims with this owner.')
        utils.add_display_arguments(parser, 'claim', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        columns, params = utils.list_query(parsed_args, FIELDS, LIST_FIELDS,
                                           SORT_KEYS)
        params.update({k: getattr(parsed_args, k) for k in ('state', 'owner')
                       if getattr(parsed_args, k) is not None})
        return utils.list_rows(self.app.client_manager.pool.claim_list,
                               parsed_args, columns, params)


class ShowClaim(command.ShowOne):
    """Show the details of a claim."""

    log = logging.getLogger(__name__ + '.ShowClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('claim', metavar='<claim>',
                            help='Name or UUID of the claim.')
        utils.add_fields_argument(parser, 'claim', FIELDS)
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        fields = utils.flatten(parsed_args.fields) or None
        return utils.show(self.app.client_manager.pool.claim_get(
            parsed_args.claim, fields=fields))


class SetClaim(command.Command):
    """Set the lifespan end of a claim, or params of its machines.

    --resource-param reads the claim first, to check the index and to
    create the params of a template that has none.
    """

    log = logging.getLogger(__name__ + '.SetClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('claim', metavar='<claim>',
                            help='Name or UUID of the claim.')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', metavar='<time>',
            help='Set when the claim\'s machines are released (ISO 8601), '
                 'within its providers\' lifespan.')
        parser.add_argument(
            '--resource-param', dest='resource_params',
            metavar='<index>:<key>=<value>', action='append',
            help='Set a param of the template of the claim\'s resource '
                 'at this index (from 0); the value is JSON when it parses. '
                 'Its provider\'s update filters must allow it. Repeat '
                 'option for several.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.set_patch(parsed_args, ('lifespan_end',))
        params = [resource_param(p, True)
                  for p in parsed_args.resource_params or ()]
        if params:
            resources = _resources(client, parsed_args.claim,
                                   [i for i, _, _ in params])
            missing = {}
            for index, key, value in params:
                template = resources[index].get('template') or {}
                if 'params' in template:
                    patch.append({'op': 'add', 'path': utils.json_pointer(
                        'resources', index, 'template', 'params', key),
                        'value': value})
                else:
                    missing.setdefault(index, {})[key] = value
            patch.extend({'op': 'add', 'path': utils.json_pointer(
                'resources', index, 'template', 'params'), 'value': value}
                for index, value in missing.items())
        utils.send_patch(self.log, client.claim_update, parsed_args.claim,
                         patch)


class UnsetClaim(command.Command):
    """Unset the lifespan end of a claim, or params of its machines."""

    log = logging.getLogger(__name__ + '.UnsetClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('claim', metavar='<claim>',
                            help='Name or UUID of the claim.')
        parser.add_argument(
            '--lifespan-end', dest='lifespan_end', action='store_true',
            default=False,
            help='Let the claim live until it is deleted (only where its '
                 'providers\' lifespan has no maximum).')
        parser.add_argument(
            '--resource-param', dest='resource_params',
            metavar='<index>:<key>', action='append',
            help='Remove a param of the template of the claim\'s resource '
                 'at this index (from 0); its provider\'s update filters '
                 'must allow it. Repeat option for several.')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        client = self.app.client_manager.pool
        patch = utils.unset_patch(parsed_args, ('lifespan_end',))
        params = [resource_param(p, False)
                  for p in parsed_args.resource_params or ()]
        claim_read = False
        if params:
            resources = _resources(client, parsed_args.claim,
                                   [i for i, _, _ in params])
            claim_read = True
            for index, key, _ in params:
                template = resources[index].get('template') or {}
                if key in (template.get('params') or {}):
                    patch.append({'op': 'remove', 'path': utils.json_pointer(
                        'resources', index, 'template', 'params', key)})
        # Nothing to send when the templates have none of the params.
        if patch or not claim_read:
            utils.send_patch(self.log, client.claim_update,
                             parsed_args.claim, patch, 'unset')


class DeleteClaim(command.Command):
    """Delete claims, releasing their machines.

    The API releases the machines before it answers: there is nothing to
    wait for.
    """

    log = logging.getLogger(__name__ + '.DeleteClaim')

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument('claims', metavar='<claim>', nargs='+',
                            help='Claims to delete (name or UUID).')
        return parser

    def take_action(self, parsed_args):
        self.log.debug('take_action(%s)', parsed_args)
        utils.delete_each(self.app, 'claim', parsed_args.claims,
                          self.app.client_manager.pool.claim_delete)

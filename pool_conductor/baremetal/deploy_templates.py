"""Deploy templates: deploy steps an instance asks for by a trait named as
the template, each change recorded with Ironic's
baremetal.deploy_template.* event."""
from pool_conductor.baremetal import steps
from pool_conductor.db import api as db_api
from pool_conductor.db import deploy_templates as templates_db
from pool_conductor.db import models
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads


def _event(template: models.DeployTemplate, action: str,
           message: str | None = None) -> events.Event:
    return events.Event(
        'deploy_template', template.uuid,
        event_types.resource_change('deploy_template', action),
        object_name=template.name, message=message,
        payload=payloads.deploy_template(template))


def create(context, values: dict) -> models.DeployTemplate:
    """Create a deploy template.

    :raises: InvalidParameterValue for steps the driver does not have,
        DeployTemplateAlreadyExists, DeployTemplateDuplicateName
    """
    steps.check_deploy_steps(values['steps'], 'deploy template %s'
                             % values['name'])
    with db_api.writer(context) as session:
        template = templates_db.create(context, values)
        events.record(session, [_event(template, 'create')])
    return template


def update(context, template: models.DeployTemplate,
           values: dict) -> models.DeployTemplate:
    """Change fields of a deploy template read before.

    :raises: InvalidParameterValue, ConcurrentUpdate,
        DeployTemplateNotFound, DeployTemplateDuplicateName
    """
    if 'steps' in values:
        steps.check_deploy_steps(values['steps'], 'deploy template %s'
                                 % values.get('name', template.name))
    with db_api.writer(context) as session:
        template = templates_db.update(context, template, values)
        events.record(session, [_event(template, 'update', (
            'Changed: %s' % ', '.join(sorted(values))))])
    return template


def delete(context, template: models.DeployTemplate) -> None:
    """:raises: ConcurrentUpdate, DeployTemplateNotFound"""
    with db_api.writer(context) as session:
        templates_db.delete(context, template)
        events.record(session, [_event(template, 'delete')])


def deploy_steps(context, node, requested: list | None = None
                 ) -> list | None:
    """The deploy steps a deployment of node runs: those of the templates
    named as the instance's traits (instance_info traits, as Ironic reads
    them) and those requested, with the deploy step; None when there is
    none but the deploy step.

    :raises: InvalidParameterValue for requested steps the driver does
        not have
    """
    requested = list(requested or ())
    if requested:
        steps.check_deploy_steps(requested, 'the request')
    traits = (node.instance_info or {}).get('traits') or ()
    found = templates_db.by_names(context, traits) if traits else []
    return steps.deploy_steps([s for t in found for s in t.steps or ()],
                              requested)

"""Workflows: /v1/workflows, named ordered lists of stages."""
import flask

from pool_api import named
from pool_api import policy
from pool_api.schemas import pools as schema
from pool_api import validation
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor import named as named_objects

FIELDS = ('name', 'description', 'stages')
PATCHABLE = FIELDS[1:]


def to_dict(workflow: models.Workflow) -> dict:
    body = named.representation('workflows', workflow, FIELDS)
    body['stages'] = body['stages'] or []
    return body


def list_workflows():
    policy.authorize('pool:workflow:list')
    workflows = pools_db.list_all(flask.g.context, models.Workflow)
    return flask.jsonify(workflows=[to_dict(p) for p in workflows])


def create_workflow():
    policy.authorize('pool:workflow:create')
    body = validation.json_body()
    validation.validate(schema.WORKFLOW_CREATE, body)
    return named.created(to_dict(named_objects.create(flask.g.context,
                                                 models.Workflow, body)))


def get_workflow(workflow_name):
    policy.authorize('pool:workflow:get')
    return flask.jsonify(to_dict(pools_db.get(
        flask.g.context, models.Workflow, workflow_name)))


def update_workflow(workflow_name):
    """Change a workflow (JSON Patch); its name is fixed."""
    policy.authorize('pool:workflow:update')
    return named.patched(models.Workflow, to_dict, workflow_name,
                         schema.WORKFLOW_UPDATE, PATCHABLE, {'stages': []})


def delete_workflow(workflow_name):
    """Delete a workflow no node runs."""
    policy.authorize('pool:workflow:delete')
    named_objects.delete(flask.g.context, models.Workflow, workflow_name)
    return '', 204

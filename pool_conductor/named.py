"""Create, change and delete the named objects (pools, brokers, profiles,
workflows, providers), each with its event in the same transaction."""
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor.db import pools as pools_db
from pool_conductor.db import providers as providers_db
from pool_conductor import event_types
from pool_conductor import events
from pool_conductor import payloads

# The object type of each model's events.
OBJECT_TYPES = {models.Pool: 'pool', models.Broker: 'broker',
                models.Profile: 'profile', models.Workflow: 'workflow',
                models.Provider: 'provider',
                models.ExternalManager: 'external_manager'}


def event(model, action: str, obj, changes: dict | None = None,
          message: str | None = None) -> events.Event:
    """The event of creating, updating or deleting a named object
    (pool.<type>.<action>.end): its object_uuid is made of its name
    (events.name_uuid()), which object_name holds."""
    kind = OBJECT_TYPES[model]
    return events.Event(
        kind, events.name_uuid(kind, obj.name),
        event_types.named_change(kind, action), object_name=obj.name,
        message=message, payload=payloads.named(kind, obj, changes))


def create(context, model, values: dict):
    """Create a named object and record pool.<type>.create.end.

    :raises: ObjectAlreadyExists
    """
    with db_api.writer(context) as session:
        if model is models.Provider:
            obj = providers_db.create(context, values)
        else:
            obj = pools_db.create(context, model, values)
        events.record(session, [event(model, 'create', obj)])
    return obj


def update(context, model, name: str, values: dict):
    """Change fields of a named object and record
    pool.<type>.update.end, whose message names the fields changed.

    :raises: ObjectNotFound
    """
    with db_api.writer(context) as session:
        if model is models.Provider:
            obj = providers_db.update(context, name, values)
        else:
            obj = pools_db.update(context, model, name, values)
        events.record(session, [event(model, 'update', obj, message=(
            'Changed: %s' % ', '.join(sorted(values))))])
    return obj


def delete(context, model, name: str) -> None:
    """Delete a named object nothing refers to and record
    pool.<type>.delete.end.

    :raises: ObjectNotFound, ObjectInUse
    """
    with db_api.writer(context) as session:
        if model is models.Provider:
            obj = providers_db.delete(context, name)
        else:
            obj = pools_db.delete(context, model, name)
        events.record(session, [event(model, 'delete', obj)])

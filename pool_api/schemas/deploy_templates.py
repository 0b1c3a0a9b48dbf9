"""Request schemas of deploy templates and of deploy steps."""
from pool_conductor.baremetal import steps

# A deploy step, as Ironic's DEPLOY_STEP_SCHEMA takes it (a priority may
# be a string of digits).
DEPLOY_STEP = {
    'type': 'object',
    'properties': {
        'interface': {'type': 'string', 'enum': list(steps.DEPLOY_INTERFACES)},
        'step': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'args': {'type': 'object'},
        'priority': {'anyOf': [
            {'type': 'integer', 'minimum': 0, 'maximum': 2 ** 31 - 1},
            {'type': 'string', 'minLength': 1, 'maxLength': 10,
             'pattern': '^[0-9]+$'}]},
    },
    'required': ['interface', 'step', 'args', 'priority'],
    'additionalProperties': False,
}
DEPLOY_STEPS = {'type': 'array', 'minItems': 1, 'maxItems': 100,
                'items': DEPLOY_STEP}

# A template's name is a trait: standard, or custom (checked by the
# handler, as node traits are).
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_EXTRA = {'type': ['object', 'null']}

CREATE = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'steps': DEPLOY_STEPS,
        'extra': _EXTRA,
        'uuid': {'type': ['string', 'null'], 'maxLength': 36},
    },
    'required': ['name', 'steps'],
    'additionalProperties': False,
}

# What a patched template must be.
UPDATE = {
    'type': 'object',
    'properties': {'name': _NAME, 'steps': DEPLOY_STEPS, 'extra': _EXTRA},
    'required': ['name', 'steps'],
    'additionalProperties': False,
}

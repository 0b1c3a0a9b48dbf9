"""Request schemas of pools, profiles, workflows and node params."""
from pool_api.schemas import common
from pool_conductor import lifespans

TEXT = {'type': ['string', 'null'], 'maxLength': 65536}
# Params: a JSON map of parameter names to any JSON value, as in Digital
# Rebar ("inventory/data/CPUS": 3).
PARAM_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}
PARAMS = {'type': 'object', 'propertyNames': PARAM_NAME,
          'maxProperties': 1000}
PARAM_NAMES = {'type': 'array', 'maxItems': 1000, 'items': PARAM_NAME}

# What a transition (enter, allocate, release, exit) does to a node.
TRANSITION_ACTIONS = {
    'type': 'object',
    'properties': {
        'workflow': common.NULLABLE_NAME,
        'add_profiles': common.NAMES,
        'remove_profiles': common.NAMES,
        'add_parameters': PARAMS,
        'remove_parameters': PARAM_NAMES,
        # The stage the node must reach before the transition is over:
        # Joining, Building, Destroying or Leaving until then.
        'wait_for_stage': common.NULLABLE_NAME,
    },
    'additionalProperties': False,
}
ACTION_SETS = ('enter_actions', 'allocate_actions', 'release_actions',
               'exit_actions')

# A duration such as "4h" or "1d12h" (pool_conductor.lifespans).
DURATION = {'type': ['string', 'null'], 'maxLength': 64,
            'pattern': lifespans.DURATION_PATTERN}
# How long the allocations of a pool live (Poolboy's lifespan).
LIFESPAN = {
    'type': 'object',
    'properties': dict.fromkeys(lifespans.KEYS, DURATION),
    'additionalProperties': False,
}
# A point in time, ISO 8601 (UTC without an offset).
TIMESTAMP = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 64}

# How a pool keeps itself filled: Digital Rebar's AutoFill in snake_case,
# with Poolboy's max_unready and delete_unhealthy
# (pool_conductor.autofill).
COUNT = {'type': 'integer', 'minimum': 0, 'maximum': 100000}
AUTOFILL = {
    'type': 'object',
    'properties': {
        'use_autofill': {'type': 'boolean'},
        'min_free': COUNT,
        'max_free': {**COUNT, 'type': ['integer', 'null']},
        'acquire_pool': common.NULLABLE_NAME,
        'return_pool': common.NULLABLE_NAME,
        # What the broker is asked for a machine; its params are the
        # new node's (Digital Rebar's CreateParameters).
        'create_parameters': {'type': 'object', 'maxProperties': 100,
                              'properties': {'params': PARAMS}},
        'max_unready': {**COUNT, 'type': ['integer', 'null'],
                        'minimum': 1},
        'delete_unhealthy': {'type': 'boolean'},
        # Seconds ahead windows are looked at (null: [windows]
        # autofill_horizon; 0: none).
        'horizon': {'type': ['integer', 'null'], 'minimum': 0,
                    'maximum': 10 * 365 * 86400},
    },
    'additionalProperties': False,
}

# Seconds a node is held before and after a window (null: the
# [windows] options).
MARGIN = {'type': ['integer', 'null'], 'minimum': 0, 'maximum': 86400}
# Free-form metadata, strings by strings, as Digital Rebar's Meta; color,
# icon and title are the keys user interfaces know.
META_KEYS = ('color', 'icon', 'title')
META = {'type': 'object', 'maxProperties': 100,
        'propertyNames': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
        'additionalProperties': {'type': 'string', 'maxLength': 4096}}

_POOL_FIELDS = {
    'meta': META,
    'lifespan': LIFESPAN,
    'reservation_pre_margin': MARGIN,
    'reservation_post_margin': MARGIN,
    'broker': common.NULLABLE_NAME,
    'autofill': AUTOFILL,
    'description': TEXT,
    'documentation': TEXT,
    'parent_pool': common.NULLABLE_NAME,
    **dict.fromkeys(ACTION_SETS, TRANSITION_ACTIONS),
    # Keep the params and profiles allocations and claims set on the
    # pool's machines when they end.
    'keep_params': {'type': 'boolean'},
}
POOL_CREATE = {
    'type': 'object',
    'properties': {'name': common.NAME, **_POOL_FIELDS},
    'required': ['name'],
    'additionalProperties': False,
}
POOL_UPDATE = {
    'type': 'object',
    'properties': {'name': common.NAME, **_POOL_FIELDS},
    'required': ['name'],
}

PROFILE_CREATE = {
    'type': 'object',
    'properties': {'name': common.NAME, 'description': TEXT, 'params': PARAMS,
                   'secret_params': {**PARAM_NAMES, 'uniqueItems': True}},
    'required': ['name'],
    'additionalProperties': False,
}
PROFILE_UPDATE = {**PROFILE_CREATE, 'additionalProperties': True}

WORKFLOW_CREATE = {
    'type': 'object',
    'properties': {
        'name': common.NAME,
        'description': TEXT,
        'stages': {'type': 'array', 'maxItems': 100, 'items': common.NAME},
    },
    'required': ['name'],
    'additionalProperties': False,
}
WORKFLOW_UPDATE = {**WORKFLOW_CREATE, 'additionalProperties': True}

NODE_PARAMS = PARAMS
# Query parameters of GET /v1/nodes/<node>/params.
PARAMS_QUERY = {'aggregate': {'type': 'boolean'}}

# The body of a pool action: Digital Rebar's pool/... parameters in
# snake_case.
MACHINE = {'type': 'string', 'minLength': 1, 'maxLength': 512}
ACTION = {
    'type': 'object',
    'properties': {
        'machine_list': {'type': 'array', 'maxItems': 10000,
                         'items': MACHINE},
        'all_machines': {'type': 'boolean'},
        'count': {'type': 'integer', 'minimum': 1},
        'partial_success': {'type': 'boolean'},
        'filter': {'type': 'object', 'maxProperties': 50,
                   'additionalProperties': {'type': 'string',
                                            'maxLength': 1024}},
        'new_workflow': common.NULLABLE_NAME,
        'add_profiles': common.NAMES,
        'remove_profiles': common.NAMES,
        'add_parameters': PARAMS,
        'remove_parameters': PARAM_NAMES,
        'wait_for_stage': common.NULLABLE_NAME,
        'blocking': {'type': 'boolean'},
        'wait_timeout': {'type': 'integer', 'minimum': 0},
        'force': {'type': 'boolean'},
        'lifespan_end': TIMESTAMP,
    },
    'additionalProperties': False,
}

"""Conductors: /v1/conductors, to see which are alive."""
import flask

from pool_api import links
from pool_api import microversion
from pool_api import params
from pool_api import policy
from pool_api import render
from pool_conductor.conf import CONF
from pool_conductor.db import conductors as conductors_db
from pool_conductor import drivers
from pool_conductor import exception

FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers', 'created_at',
          'updated_at', 'links')
SHORT_FIELDS = ('hostname', 'conductor_group', 'alive', 'links')


def _require_conductors_api() -> None:
    microversion.require(microversion.CONDUCTORS)
    policy.authorize('baremetal:conductor:get')


def to_dict(conductor, fields) -> dict:
    values = {
        'hostname': conductor.hostname,
        'conductor_group': conductor.conductor_group or '',
        'alive': conductors_db.is_alive(conductor,
                                        CONF.conductor.heartbeat_timeout),
        # Every conductor serves every enabled hardware type.
        'drivers': drivers.hardware_types(),
        'created_at': render.timestamp(conductor.created_at),
        'updated_at': render.timestamp(conductor.updated_at),
        'links': links.resource_links('conductors', conductor.hostname),
    }
    return render.select(values, fields)


def list_conductors():
    """Every conductor that ever registered, alive or not."""
    _require_conductors_api()
    fields = params.get_fields(FIELDS)
    detail = params.get_bool('detail')
    if detail and fields is not None:
        raise exception.InvalidParameterValue(
            err='Can not specify ?detail=True and fields in the same '
                'request.')
    fields = fields or (FIELDS if detail else SHORT_FIELDS)
    conductors = conductors_db.list_conductors(flask.g.context)
    return flask.jsonify(conductors=[to_dict(c, fields)
                                     for c in conductors])


def get_conductor(hostname):
    _require_conductors_api()
    fields = params.get_fields(FIELDS) or FIELDS
    return flask.jsonify(to_dict(
        conductors_db.get_conductor(flask.g.context, hostname), fields))

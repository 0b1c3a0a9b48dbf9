"""Version discovery: GET / and GET /v1."""
import flask

from pool_api import links
from pool_api import microversion


def _version() -> dict:
    return {
        'id': 'v1',
        'links': [links.link('/v1/')],
        'status': 'CURRENT',
        'min_version': microversion.to_string(microversion.MIN_VERSION),
        'version': microversion.to_string(microversion.MAX_VERSION),
    }


def get_root():
    return flask.jsonify(
        name='OpenStack Ironic API',
        description='pool is an asynchronous, highly available allocation '
                    'service for a fleet of machines. Its /v1 API is '
                    'compatible with the Ironic API.',
        default_version=_version(),
        versions=[_version()])


def get_v1():
    body = {
        'id': 'v1',
        'links': [links.link('/v1/'),
                  {'href': 'https://docs.openstack.org/ironic/latest/'
                           'contributor/webapi.html',
                   'rel': 'describedby', 'type': 'text/html'}],
        'media_types': [{'base': 'application/json',
                         'type': 'application/vnd.openstack.ironic.v1+json'}],
        'nodes': [links.link('/v1/nodes/'),
                  links.link('/nodes/', 'bookmark')],
        'ports': [links.link('/v1/ports/'),
                  links.link('/ports/', 'bookmark')],
        'drivers': [links.link('/v1/drivers/'),
                    links.link('/drivers/', 'bookmark')],
        'version': _version(),
    }
    if microversion.at_least(microversion.ALLOCATIONS):
        body['allocations'] = [links.link('/v1/allocations/'),
                               links.link('/allocations/', 'bookmark')]
    return flask.jsonify(body)

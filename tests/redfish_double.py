"""A small Redfish composition service for tests: resource blocks that
systems are composed of (DMTF ResourceBlock, ComputerSystem), the subset
the redfish_composition external manager speaks, and a control endpoint
for the other users of the blocks.

    POST /control/compose {"block": <Id>, "name": <system name>}
    POST /control/reserve {"block": <Id>, "reserved": true|false}
    POST /control/remove {"block": <Id>}

``make_app(blocks, expand=True)`` builds it; ``expand`` says whether it
answers ``$expand`` (ProtocolFeaturesSupported.ExpandQuery); ``requests``
counts the requests it served.
"""
import itertools

import flask

ROOT = '/redfish/v1'
BLOCKS = ROOT + '/CompositionService/ResourceBlocks'
SYSTEMS = ROOT + '/Systems'


def make_app(blocks, expand: bool = True) -> flask.Flask:
    app = flask.Flask(__name__)
    state = {'blocks': {b: {'reserved': False, 'state': 'Unused'}
                        for b in blocks},
             'systems': {}, 'requests': 0}
    ids = itertools.count(1)
    app.config['STATE'] = state

    @app.before_request
    def count():
        state['requests'] += 1

    def block_body(ident):
        block = state['blocks'][ident]
        systems = [uri for uri, s in state['systems'].items()
                   if ident in s['blocks']]
        return {
            '@odata.id': '%s/%s' % (BLOCKS, ident),
            '@odata.type': '#ResourceBlock.v1_4_0.ResourceBlock',
            'Id': ident, 'Name': 'Block %s' % ident,
            'Description': 'A compute block',
            'ResourceBlockType': ['Compute'],
            'Status': {'State': 'Enabled', 'Health': 'OK'},
            'CompositionStatus': {
                'CompositionState': 'Composed' if systems else block['state'],
                'Reserved': block['reserved'],
                'SharingCapable': False, 'MaxCompositions': 1,
                'NumberOfCompositions': len(systems)},
            'Links': {'ComputerSystems': [{'@odata.id': uri}
                                          for uri in systems]},
        }

    def system_body(uri):
        system = state['systems'][uri]
        return {'@odata.id': uri,
                '@odata.type': '#ComputerSystem.v1_20_0.ComputerSystem',
                'Id': uri.rsplit('/', 1)[-1], 'Name': system['name'],
                'SystemType': 'Composed',
                'Links': {'ResourceBlocks': [
                    {'@odata.id': '%s/%s' % (BLOCKS, b)}
                    for b in system['blocks']]}}

    def collection(path, members, body):
        args = flask.request.args
        if expand and args.get('$expand', '').startswith('.'):
            items = [body(m) for m in members]
        else:
            items = [{'@odata.id': m if m.startswith('/')
                      else '%s/%s' % (path, m)} for m in members]
        return flask.jsonify({'@odata.id': path, 'Name': path,
                              'Members': items,
                              'Members@odata.count': len(items)})

    @app.get(ROOT)
    def root():
        return flask.jsonify({
            '@odata.id': ROOT, 'Id': 'RootService', 'Name': 'Root',
            'RedfishVersion': '1.15.0',
            'Systems': {'@odata.id': SYSTEMS},
            'CompositionService': {
                '@odata.id': ROOT + '/CompositionService'},
            'ProtocolFeaturesSupported': {'ExpandQuery': {
                'ExpandAll': expand, 'Levels': expand, 'MaxLevels': 1,
                'NoLinks': expand}}})

    @app.get(BLOCKS)
    def list_blocks():
        return collection(BLOCKS, sorted(state['blocks']), block_body)

    @app.get(BLOCKS + '/<ident>')
    def get_block(ident):
        if ident not in state['blocks']:
            flask.abort(404)
        return flask.jsonify(block_body(ident))

    @app.get(SYSTEMS)
    def list_systems():
        return collection(SYSTEMS, sorted(state['systems']), system_body)

    @app.get(SYSTEMS + '/<ident>')
    def get_system(ident):
        uri = '%s/%s' % (SYSTEMS, ident)
        if uri not in state['systems']:
            flask.abort(404)
        return flask.jsonify(system_body(uri))

    def compose(name, links):
        wanted = [link['@odata.id'].rsplit('/', 1)[-1] for link in links]
        for ident in wanted:
            block = state['blocks'].get(ident)
            if block is None:
                flask.abort(400)
            if block['reserved'] or block_body(ident)['CompositionStatus'][
                    'CompositionState'] != 'Unused':
                flask.abort(409)
        uri = '%s/composed-%d' % (SYSTEMS, next(ids))
        state['systems'][uri] = {'name': name, 'blocks': wanted}
        return uri

    @app.post(SYSTEMS)
    def create_system():
        body = flask.request.get_json()
        uri = compose(body.get('Name'),
                      (body.get('Links') or {}).get('ResourceBlocks') or [])
        response = flask.jsonify(system_body(uri))
        response.status_code = 201
        response.headers['Location'] = flask.request.host_url.rstrip(
            '/') + uri
        return response

    @app.delete(SYSTEMS + '/<ident>')
    def delete_system(ident):
        uri = '%s/%s' % (SYSTEMS, ident)
        if state['systems'].pop(uri, None) is None:
            flask.abort(404)
        return '', 204

    @app.post('/control/compose')
    def control_compose():
        body = flask.request.get_json()
        uri = compose(body['name'], [{'@odata.id': '%s/%s' % (
            BLOCKS, body['block'])}])
        return flask.jsonify({'system': uri})

    @app.post('/control/reserve')
    def control_reserve():
        body = flask.request.get_json()
        state['blocks'][body['block']]['reserved'] = body['reserved']
        return '', 204

    @app.post('/control/remove')
    def control_remove():
        state['blocks'].pop(flask.request.get_json()['block'], None)
        return '', 204

    return app

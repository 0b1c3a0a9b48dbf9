"""Provider templates and schemas that cost a server dearly, and a schema
server that records what it is asked for, for the unit and the functional
tests."""
import http.server
import threading

import fixtures

# Each takes seconds of CPU time inside one C call (sum took 17 s), which
# no watchdog thread of the server can interrupt.
SLOW_SUM = '{{ ([range(1000)|list]*2000)|sum(start=[])|length }}'
SLOW_TOJSON = '{{ (["a" * 65536] * 16000)|tojson|length }}'
# Builds a string of 1 GiB.
HUGE_JOIN = '{{ (["a" * 65536] * 16384)|join|length }}'
# Rendered values no database stores as text.
NUL = '{{ "a\\x00b" }}'
LONE_SURROGATE = '{{ "\\ud800" }}'

# jsonschema compares every pair of items: 3,000 distinct objects (48 KB
# of JSON) took 11 s of CPU time.
UNIQUE_ITEMS = {'properties': {'params': {'properties': {
    'list': {'type': 'array', 'uniqueItems': True}}}}}
UNIQUE_CLAIM = {'params': {'list': [{'k%d' % i: i} for i in range(3000)]}}


def any_of_chain(depth: int = 18) -> dict:
    """A validation whose params/list is an anyOf of two alike branches at
    each of depth levels (local references keep it small): 2^depth paths
    to try for a value that fails at the end, such as
    any_of_claim(depth)."""
    levels = {'l0': {'type': 'string'}}
    for i in range(1, depth + 1):
        levels['l%d' % i] = {'anyOf': [
            {'type': 'array', 'items': {'$ref': '#/$defs/l%d' % (i - 1)}}
        ] * 2}
    return {'$defs': levels, 'properties': {'params': {'properties': {
        'list': {'$ref': '#/$defs/l%d' % depth}}}}}


def any_of_claim(depth: int = 18) -> dict:
    """A template whose params/list is a number in depth lists."""
    value = 1
    for _ in range(depth):
        value = [value]
    return {'params': {'list': value}}


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a JSON schema, and records its path."""

    def do_GET(self):
        self.server.paths.append(self.path)
        body = b'{"type": "object"}'
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class SchemaServer(fixtures.Fixture):
    """An HTTP server on 127.0.0.1 serving a JSON schema at ``url``;
    ``paths`` are those it was asked for."""

    def _setUp(self):
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Recorder)
        server.paths = self.paths = []
        self.url = 'http://127.0.0.1:%d/s.json' % server.server_port
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(thread.join)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)

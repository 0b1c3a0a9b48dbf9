"""Links to resources, built from the public endpoint."""
import flask

from pool_conductor.conf import CONF


def base_url() -> str:
    """The root URL of the API as clients reach it."""
    return (CONF.api.public_endpoint or flask.request.host_url).rstrip('/')


def resource_links(collection: str, ident: str) -> list[dict]:
    base = base_url()
    return [{'href': '%s/v1/%s/%s' % (base, collection, ident),
             'rel': 'self'},
            {'href': '%s/%s/%s' % (base, collection, ident),
             'rel': 'bookmark'}]


def link(href_path: str, rel: str = 'self') -> dict:
    return {'href': base_url() + href_path, 'rel': rel}

"""The WSGI entry point for WSGI servers such as uWSGI or mod_wsgi."""
from pool_api import app
from pool_conductor.cmd import common


def initialize_wsgi_app(argv: list[str] | None = None):
    """Parse the configuration (default files) and build the application.

    :param argv: command line arguments such as ``--config-file``; the
        server's own arguments are not pool's, so none by default.
    """
    common.prepare(argv or [])
    return app.create_app()

"""Sphinx configuration of pool's documentation."""
import pathlib
import re

project = 'pool'
copyright = 'The pool developers'
extensions = [
    'cliff.sphinxext',
    'oslo_config.sphinxext',
    'oslo_policy.sphinxext',
    'reno.sphinxext',
]
root_doc = 'index'
exclude_patterns = []
html_theme = 'alabaster'
html_static_path = []
# The CLI reference documents the commands of pool's plugin as the
# openstack program runs them.
autoprogram_cliff_application = 'openstack'

# README.rst links to the pages of this tree by their paths in the
# repository, which is right on a repository's web page; pages that include
# parts of the README link to the documents instead.
_README_LINK = re.compile(r'`([^`<]+?)\s*<doc/source/([\w-]+)\.rst>`_')


def _readme_links(app, relative_path: pathlib.Path, parent_docname: str,
                  content: list[str]) -> None:
    if relative_path.name == 'README.rst':
        content[0] = _README_LINK.sub(r':doc:`\1 <\2>`', content[0])


def setup(app) -> None:
    app.connect('include-read', _readme_links)

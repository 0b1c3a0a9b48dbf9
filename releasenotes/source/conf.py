"""Sphinx configuration of pool's release notes (reno)."""
project = 'pool release notes'
copyright = 'The pool developers'
extensions = ['reno.sphinxext']
master_doc = 'index'
exclude_patterns = []
html_static_path = []

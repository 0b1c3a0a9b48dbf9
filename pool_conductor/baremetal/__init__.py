"""The Ironic node surface pool emulates.

Nodes and their updates, provisioning (the provision state verbs), clean
and deploy steps, RAID, ports, port groups, VIFs, volumes, chassis,
deploy templates, deploy checks and consoles: what exists because pool
speaks Ironic's node API. It changes who holds a node only through the
binding writer (pool_conductor.binding).
"""

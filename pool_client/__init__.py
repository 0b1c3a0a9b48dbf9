"""The ``openstack pool`` command line client of the pool API."""

"""The commands of ``openstack pool`` for version 1 of the API."""

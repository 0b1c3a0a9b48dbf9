"""pool: the HTTP API of the fleet allocation service."""

"""pool: the conductor side of the fleet allocation service."""

"""The operator's dashboard: a page over GET /v1/fleet, and its login."""

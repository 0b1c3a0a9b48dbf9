"""Database layer of pool: models, queries and migrations."""

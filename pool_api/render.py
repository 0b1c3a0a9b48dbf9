"""Rendering of resources: timestamps and field selection."""


def timestamp(value) -> str | None:
    """ISO 8601 in UTC, as Ironic renders it (stored values are UTC)."""
    return value.isoformat() + '+00:00' if value is not None else None


def select(values: dict, fields) -> dict:
    """The chosen fields of a representation; as in Ironic, links come
    with any selection."""
    if 'links' not in fields:
        fields = [*fields, 'links']
    return {f: values[f] for f in fields}

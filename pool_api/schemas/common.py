"""Schema pieces shared by resources: names, UUIDs, traits."""
import functools
import re

import os_traits
from oslo_utils import uuidutils

from pool_conductor import exception

# The names of every object (nodes, allocations, pools, profiles,
# workflows, brokers, providers, claims): Ironic's logical names, RFC
# 3986 unreserved characters, but not "." or "..", which clients remove
# from a URL's path. (?!\n) stops "$" matching before a last newline.
NAME_PATTERN = r'^(?!\.\.?$)[A-Za-z0-9._~-]+$(?!\n)'
NAME_RULE = ("A name is 1 to 255 of the characters A-Z a-z 0-9 - . _ ~ "
             "and may not be '.' or '..'.")
NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': NAME_PATTERN}
NULLABLE_NAME = {**NAME, 'type': ['string', 'null']}
NAMES = {'type': 'array', 'maxItems': 100, 'items': NAME,
         'uniqueItems': True}
UUID = {'type': 'string', 'minLength': 36, 'maxLength': 36}
TRAIT = {'type': 'string', 'minLength': 1, 'maxLength': 255}
TRAITS = {'type': 'array', 'maxItems': 50, 'items': TRAIT}
# Node names and UUIDs, as a request may give them.
IDENT = {'type': 'string', 'minLength': 1, 'maxLength': 255}
RESOURCE_CLASS = {'type': 'string', 'minLength': 1, 'maxLength': 80}
PROJECT = {'type': ['string', 'null'], 'maxLength': 255}
# Free-form maps (extra, properties, ...): bounded keys, and how many.
MAX_MAP_KEYS = 256
MAP = {'type': 'object', 'maxProperties': MAX_MAP_KEYS,
       'propertyNames': {'maxLength': 255}}
EXTRA = MAP


def nullable(schema: dict) -> dict:
    """schema, also accepting null."""
    types = schema['type'] if isinstance(schema['type'], list) else [
        schema['type']]
    return {**schema, 'type': [*types, 'null']}


def check_name(name: str | None, what: str) -> None:
    """:raises: Invalid for a name that is a UUID (it could not be told
    apart from the resource's UUID)"""
    if name is not None and uuidutils.is_uuid_like(name):
        raise exception.Invalid('Cannot use "%s" as the name of a %s: a '
                                'name must not be a UUID.' % (name, what))


def check_uuid(value: str | None, field: str) -> None:
    """:raises: Invalid unless value is a UUID (or None)"""
    if value is not None and not uuidutils.is_uuid_like(value):
        raise exception.Invalid('Invalid input for field/attribute %s. '
                                'Value: "%s" is not a valid UUID.'
                                % (field, value))


def check_traits(traits) -> None:
    """:raises: Invalid for a trait that is neither standard nor custom"""
    for trait in traits or ():
        if not (_CUSTOM_TRAIT.match(trait)
                or trait in _standard_traits()):
            raise exception.Invalid(
                'Invalid trait "%s". A valid trait must be no longer than '
                '255 characters. Standard traits are defined in the '
                'os_traits library. A custom trait must start with the '
                'prefix CUSTOM_ and use only the characters A-Z, 0-9 and '
                '_.' % trait)


_CUSTOM_TRAIT = re.compile(r'^CUSTOM_[A-Z0-9_]{1,248}$')


@functools.cache
def _standard_traits() -> frozenset:
    return frozenset(os_traits.get_traits())

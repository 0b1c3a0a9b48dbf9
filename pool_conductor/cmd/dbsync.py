"""pool-dbsync: create and upgrade the database schema."""
import sys

from oslo_config import cfg

from pool_conductor.cmd import common
from pool_conductor.conf import CONF
from pool_conductor import context
from pool_conductor.db import consistency
from pool_conductor.db import migration


def _upgrade() -> None:
    migration.upgrade(CONF.command.revision)


def _stamp() -> None:
    migration.stamp(CONF.command.revision)


def _version() -> None:
    print(migration.version() or 'None')


def _check() -> None:
    problems = consistency.find_problems(
        context.get_admin_context(), CONF.conductor.heartbeat_timeout,
        CONF.command.stuck_after)
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print('No problems found.')


def _add_parsers(subparsers) -> None:
    parser = subparsers.add_parser(
        'upgrade', help='Upgrade the schema to a revision (default: head).')
    parser.add_argument('--revision', default='head')
    parser.set_defaults(func=_upgrade)
    parser = subparsers.add_parser(
        'stamp', help='Record a revision as current without migrating.')
    parser.add_argument('--revision', default='head')
    parser.set_defaults(func=_stamp)
    parser = subparsers.add_parser(
        'version', help='Print the current schema revision.')
    parser.set_defaults(func=_version)
    parser = subparsers.add_parser(
        'check', help='Check that no node is held twice, every allocation '
                      'and node agree, a node with an instance or an '
                      'allocation is allocated in its pool, every node is '
                      'in a pool that exists and every parent pool exists, '
                      'no node is locked or driven by a dead conductor and '
                      'no allocation is stuck; exit 1 and print the '
                      'problems otherwise.')
    parser.add_argument('--stuck-after', type=int, default=120,
                        help='Seconds after which an allocation still '
                             'allocating counts as stuck.')
    parser.set_defaults(func=_check)


def main() -> None:
    CONF.register_cli_opt(cfg.SubCommandOpt(
        'command', title='Commands', help='Available commands',
        handler=_add_parsers))
    common.prepare()
    try:
        CONF.command.func()
    except Exception as exc:
        sys.exit('pool-dbsync %s failed: %s' % (CONF.command.name, exc))

"""A check on the unit tests' engine: a committed transaction that
changes nodes, allocations, pools, claims, ports or external managers
without inserting an event is a change without its event."""
import contextlib
import re

import fixtures
import sqlalchemy as sa

WATCHED = frozenset(('nodes', 'allocations', 'pools', 'claims', 'ports',
                     'external_managers'))
# Writes that change no state a user watches, by table: the columns an
# UPDATE may set alone. Locks (a conductor's reservation of a node) and
# the conductor that works on a row (given to a row without one; taking
# one from a dead conductor is recorded as a takeover).
NOT_STATE = {
    'nodes': frozenset(('reservation', 'pool_conductor_affinity',
                        'updated_at')),
    'allocations': frozenset(('conductor_affinity', 'updated_at')),
    'claims': frozenset(('conductor_affinity', 'updated_at')),
    'pools': frozenset(('autofill_conductor', 'updated_at')),
    # A round of a manager's reconciler that found it answering as
    # before.
    'external_managers': frozenset(('conductor_affinity', 'last_sync_at',
                                    'updated_at')),
}
_WRITE = re.compile(r'^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+"?(\w+)"?',
                    re.I)
_SET = re.compile(r'\bSET\s+(.*?)\s+WHERE\b', re.I | re.S)
_COLUMN = re.compile(r'(?:^|,)\s*"?(\w+)"?\s*=')


def _change(statement: str) -> str | None:
    """The watched table a statement changes the state of, else None."""
    found = _WRITE.match(statement)
    if found is None:
        return None
    verb, table = found.group(1).upper(), found.group(2).lower()
    if table not in WATCHED:
        return None
    if verb == 'UPDATE':
        sets = _SET.search(statement)
        columns = set(_COLUMN.findall(sets.group(1))) if sets else set()
        if columns and columns <= NOT_STATE.get(table, frozenset()):
            return None
    return '%s %s' % (verb, table)


class UnrecordedChanges(fixtures.Fixture):
    """Collects, in found, the changes (statements that changed rows) of
    each committed transaction of an engine that inserted no event, while
    it is not paused."""

    def __init__(self, engine: sa.engine.Engine):
        super().__init__()
        self.engine = engine
        self.found: list[list[str]] = []
        self._paused = 0

    def _setUp(self):
        listeners = (('after_cursor_execute', self._execute),
                     ('commit', self._commit), ('rollback', self._forget))
        for name, listener in listeners:
            sa.event.listen(self.engine, name, listener)
            self.addCleanup(sa.event.remove, self.engine, name, listener)

    @contextlib.contextmanager
    def paused(self):
        """Writes of the test itself (its data) are not checked."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1

    def _execute(self, conn, cursor, statement, parameters, context,
                 executemany):
        if _WRITE.match(statement) and _WRITE.match(statement).group(
                2).lower() == 'events':
            conn.info['pool_event_recorded'] = True
            return
        change = _change(statement)
        # A statement that changed no row (a compare-and-swap that lost)
        # changed nothing; -1 is an unknown count.
        if change is not None and cursor.rowcount and not self._paused:
            conn.info.setdefault('pool_changes', []).append(change)

    def _commit(self, conn):
        changes = conn.info.pop('pool_changes', None)
        recorded = conn.info.pop('pool_event_recorded', False)
        if changes and not recorded:
            self.found.append(changes)

    def _forget(self, conn):
        conn.info.pop('pool_changes', None)
        conn.info.pop('pool_event_recorded', None)

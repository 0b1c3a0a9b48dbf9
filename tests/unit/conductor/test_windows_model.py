"""The interval rules of windows against a brute-force model: a minute
grid in which a slot is the set of minutes it covers."""
import datetime
import types

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
import sqlalchemy as sa

from pool_conductor.booking import availability
from pool_conductor.booking import windows
from pool_conductor.db import api as db_api
from pool_conductor.db import models
from pool_conductor import exception
from tests import base

T0 = datetime.datetime(2030, 1, 1)
MINUTE = datetime.timedelta(minutes=1)
GRID = 120


def at(minute: int) -> datetime.datetime:
    return T0 + minute * MINUTE


def covered(start: int, end: int) -> set:
    return set(range(start, end))


_SPAN = st.tuples(st.integers(0, GRID), st.integers(1, 40)).map(
    lambda t: (t[0], t[0] + t[1]))


def _disjoint(spans):
    kept, used = [], set()
    for s, e in spans:
        if not covered(s, e) & used:
            kept.append((s, e))
            used |= covered(s, e)
    return kept


class IntervalRulesTestCase(base.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(slots=st.lists(_SPAN, max_size=6).map(_disjoint),
           holder=st.one_of(st.none(), st.integers(0, GRID),
                            st.just('forever')),
           start=st.integers(0, GRID), length=st.integers(1, 40),
           pre=st.integers(0, 10), post=st.integers(0, 30))
    def test_free_for_and_latest_end_match_the_grid(
            self, slots, holder, start, length, pre, post):
        margins = windows.Margins(pre * MINUTE, post * MINUTE)
        if holder is None:
            node = types.SimpleNamespace(free=True, allocation_id=None,
                                         instance_uuid=None)
            held = -10 ** 6
        elif holder == 'forever':
            node = types.SimpleNamespace(
                free=False, allocation_id=1, instance_uuid='i',
                bound_uuid='a', bound_end=None, bound_claim=None)
            held = 10 ** 6
        else:
            node = types.SimpleNamespace(
                free=False, allocation_id=1, instance_uuid='i',
                bound_uuid='a', bound_end=at(holder), bound_claim=None)
            held = holder + post
        rows = [types.SimpleNamespace(busy_from=at(s), busy_until=at(e))
                for s, e in slots]
        # A minute is busy when the holder still holds the node (from
        # before any window on) or a slot covers it.
        def busy(minute):
            return minute < held or any(s <= minute < e for s, e in slots)
        win = windows.window(at(start), at(start + length), margins)

        def grid_free(end):
            return not any(map(busy, range(start - pre, end + post)))

        self.assertEqual(grid_free(start + length),
                         windows.free_for(node, rows, win, margins.post))
        latest = windows.latest_end(node, rows, win, margins)
        if busy(start - pre):
            self.assertIsNone(latest)
            return
        self.assertIsNotNone(latest)
        if latest >= windows.FOREVER:
            self.assertTrue(grid_free(start + 10 * GRID))
            return
        minutes = int((latest - T0) / MINUTE)
        # The latest end fits (when it is after the start), one more
        # minute does not.
        if minutes > start:
            self.assertTrue(grid_free(minutes))
        self.assertFalse(grid_free(minutes + 1))


_OP = st.one_of(
    st.tuples(st.just('book'), _SPAN),
    st.tuples(st.just('delete'), st.integers(0, 50)))


class BookingModelTestCase(base.TestCase):
    """Sequences of bookings and deletions on two nodes through the
    booking path (SQLite) against the grid: a booking succeeds exactly
    when a node is free for it in the model, and the slots written are
    the model's."""

    def setUp(self):
        super().setUp()
        self.config(pre_margin=0, post_margin=300, group='windows')
        self.nodes = [self.create_node(name='n-%d' % i).uuid
                      for i in range(2)]
        self.patch(windows.db_api, 'utcnow', lambda: T0 - MINUTE)

    def _clear(self):
        with db_api.writer(self.context) as session:
            session.execute(sa.delete(models.NodeSlot))
            session.execute(sa.update(models.Node).values(booked_from=None))
            session.execute(sa.delete(models.Allocation))

    @settings(max_examples=40, deadline=None)
    @given(ops=st.lists(_OP, max_size=12))
    def test_bookings_follow_the_model(self, ops):
        from pool_conductor import allocations
        self._clear()
        model = {u: {} for u in self.nodes}   # node -> alloc uuid -> span
        post = 5
        for op, arg in ops:
            if op == 'book':
                s, e = arg
                wanted = covered(s, e + post)
                fits = [n for n, spans in model.items()
                        if not any(covered(*span) & wanted
                                   for span in spans.values())]
                try:
                    alloc = windows.book(self.context,
                                         {'resource_class': 'baremetal'},
                                         None, at(s), at(e))
                except exception.WindowConflict:
                    self.assertEqual([], fits, arg)
                    continue
                self.assertIn(alloc.slot_node_uuid, fits)
                model[alloc.slot_node_uuid][alloc.uuid] = (s, e + post)
            else:
                booked = [(n, a) for n, spans in model.items()
                          for a in spans]
                if not booked:
                    continue
                node, uuid = booked[arg % len(booked)]
                allocations.destroy(self.context, uuid)
                del model[node][uuid]
        with db_api.reader(self.context) as session:
            rows = session.execute(sa.select(
                models.Node.uuid, models.NodeSlot.busy_from,
                models.NodeSlot.busy_until).join(
                models.Node, models.Node.id == models.NodeSlot.node_id)
            ).all()
            booked_from = dict(session.execute(sa.select(
                models.Node.uuid, models.Node.booked_from)).all())
        self.assertEqual(
            sorted((n, at(s), at(e)) for n, spans in model.items()
                   for s, e in spans.values()),
            sorted(tuple(r) for r in rows))
        for node, spans in model.items():
            self.assertEqual(
                at(min(s for s, _ in spans.values())) if spans else None,
                booked_from[node])


class EarliestStartTestCase(base.TestCase):

    @settings(max_examples=300, deadline=None)
    @given(nodes=st.lists(st.lists(_SPAN, max_size=4).map(_disjoint),
                          min_size=1, max_size=4),
           length=st.integers(1, 30), count=st.integers(1, 3),
           after=st.integers(0, 30), pre=st.integers(0, 5),
           post=st.integers(0, 10))
    def test_earliest_start_matches_the_grid(self, nodes, length, count,
                                             after, pre, post):
        margins = windows.Margins(pre * MINUTE, post * MINUTE)
        free = types.SimpleNamespace(free=True, allocation_id=None,
                                     instance_uuid=None)
        periods = [availability.free_periods(
            free, [types.SimpleNamespace(busy_from=at(s), busy_until=at(e))
                   for s, e in spans], at(after), margins.post)
            for spans in nodes]
        found = availability.earliest_start(periods, length * MINUTE, count,
                                       at(after), margins)

        def fits(spans, t):
            wanted = covered(t - pre, t + length + post)
            return t - pre >= after and not any(
                covered(s, e) & wanted for s, e in spans)

        # Past every slot, every node is free: the grid ends there.
        horizon = GRID + 100
        expected = next((t for t in range(after, horizon)
                         if sum(fits(spans, t) for spans in nodes)
                         >= count), None)
        if expected is None:
            self.assertTrue(found is None or count > len(nodes), found)
            if count > len(nodes):
                self.assertIsNone(found)
        else:
            self.assertEqual(at(expected), found)

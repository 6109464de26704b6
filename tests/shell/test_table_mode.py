"""``table`` result mode stopped mid-update: the final table never shows half an update.

An update arrives as a -U/+U pair. These tests script the changelog (a stand-in query whose
-U is followed by its +U only after the user has pressed Q) so the cut is always in the
worst place, which a live query only hits now and then.
"""

from __future__ import annotations

import re
import threading

from streamsql.core.elements import RowKind
from streamsql.environment import StreamEnvironment

INS, UB, UA = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER


class _Job:
    job_id = "scripted"
    status = "RUNNING"
    last_checkpoint: dict = {}

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self.done = False

    def cancel(self) -> None:
        self.cancelled.set()


class _Result:
    """A running query whose changelog is ``before``, then (once cancelled) ``after``."""

    kind = "query"
    columns = ["k", "n"]
    column_types: list = []  # untyped: cells shown as they are
    time_zone = None

    def __init__(self, before: list, after: list) -> None:
        self.job = _Job()
        self.before, self.after = before, after

    def collect(self):
        yield from self.before
        self.job.cancelled.wait(10)  # the query runs on until the user stops it
        yield from self.after
        self.job.done = True


def _scripted_env(before: list, after: list) -> StreamEnvironment:
    class Env(StreamEnvironment):
        def execute_parsed(self, tree, sql):
            if "scripted" in sql:
                return _Result(before, after)
            return super().execute_parsed(tree, sql)

    return Env()


def _stop_table_view(sh) -> None:
    sh.send("SET 'sql-client.execution.result-mode' = 'table';\n")
    m = sh.mark()
    sh.send("SELECT k, n FROM scripted;\n")
    sh.expect(r"Q or Ctrl-C to stop", after=m)
    sh.send("q")
    sh.expect(r"Query terminated after \d+ changes?\.\nstreamsql> ", after=m)


def test_stop_between_minus_u_and_plus_u_waits_for_the_plus_u(shell):
    # Stopped after the -U of k=0's update: the pump reads on to its +U.
    before = [(INS, (0, 1)), (INS, (1, 1)), (INS, (2, 1)), (UB, (0, 1))]
    sh = shell(env=_scripted_env(before, [(UA, (0, 2))]))
    _stop_table_view(sh)
    out = sh.screen()[sh.screen().rindex("rows in set") - 400:]
    assert "3 rows in set" in out, out
    assert re.search(r"\|\s+0 \|\s+2 \|", out) and re.search(r"\|\s+1 \|\s+1 \|", out), out


def test_a_minus_u_cut_off_from_its_plus_u_is_not_applied(shell):
    # The job ends (cancelled) without the +U: the table stays as it was before the update.
    before = [(INS, (0, 1)), (INS, (1, 1)), (INS, (2, 1)), (UB, (1, 1))]
    sh = shell(env=_scripted_env(before, []))
    _stop_table_view(sh)
    out = sh.screen()[sh.screen().rindex("rows in set") - 400:]
    assert "3 rows in set" in out, out
    for k in range(3):
        assert re.search(rf"\|\s+{k} \|\s+1 \|", out), out


def test_a_trailing_minus_u_of_a_finished_query_is_applied():
    from streamsql.shell.results import MaterializedTable

    t = MaterializedTable()
    t.feed([(INS, (0, 1)), (INS, (1, 1)), (UB, (1, 1))])  # e.g. a WHERE dropped the +U
    assert sorted(t.rows()) == [(0, 1), (1, 1)]  # held back while the query runs
    t.finish(complete=True)
    assert t.rows() == [(0, 1)]
    t = MaterializedTable()
    t.feed([(INS, (0, 1)), (UB, (0, 1))])
    t.feed([(UA, (0, 2))])
    t.finish(complete=False)
    assert t.rows() == [(0, 2)] and len(t) == 1

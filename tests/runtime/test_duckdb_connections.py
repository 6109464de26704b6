"""How many DuckDB databases a job opens: each in-memory database costs ~4-8 MiB and threads.

An evaluator opens its connection at the first batch that needs SQL (a projection of plain
columns never does), and planning uses one database per process with a cursor per thread.
"""

from __future__ import annotations

import threading

import duckdb
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch
from streamsql.functions import python_functions
from streamsql.plan.query import compile_query
from streamsql.runtime.evaluator import BatchQuery


@pytest.fixture
def databases(monkeypatch):
    """Counts the in-memory databases opened (``duckdb.connect`` calls) from now on."""
    opened = []
    real = duckdb.connect

    def counting(*args, **kwargs):
        con = real(*args, **kwargs)
        opened.append(con)
        return con

    monkeypatch.setattr(duckdb, "connect", counting)
    return opened


SCHEMA = pa.schema([("a", pa.int64()), ("b", pa.string())])
BATCH = Batch(pa.table({"a": [1, 2], "b": ["x", "y"]}, schema=SCHEMA))


def test_a_projection_of_plain_columns_opens_no_database(databases):
    spec = compile_query([("b", '"b"'), ("a", '"a"')], None, SCHEMA)
    planned = len(databases)
    out = BatchQuery(spec).run(BATCH)
    assert out.table.column("a").to_pylist() == [1, 2]
    assert len(databases) == planned


def test_an_expression_opens_one_database_at_its_first_batch_and_keeps_it(databases):
    spec = compile_query([("a2", '"a" * 2')], None, SCHEMA)
    q = BatchQuery(spec)
    planned = len(databases)
    assert q.run(BATCH).table.column("a2").to_pylist() == [2, 4]
    assert q.run(BATCH).table.column("a2").to_pylist() == [2, 4]
    assert len(databases) == planned + 1


def test_threads_plan_in_one_database_each_with_its_own_cursor(databases):
    python_functions.planning_connection()  # this thread's, opening the process's database if needed
    before = len(databases)
    cursors = {}

    def plan(name: str) -> None:
        cursors[name] = python_functions.planning_connection()
        compile_query([("a", '"a" + 1')], '"b" <> \'z\'', SCHEMA)

    threads = [threading.Thread(target=plan, args=(f"t{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(databases) == before  # no database of their own
    assert len({id(c) for c in cursors.values()}) == 3  # but a connection each

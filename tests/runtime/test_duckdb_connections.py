"""How many DuckDB databases a job opens: each in-memory database costs ~35 ms of CPU, ~4-8 MiB and threads.

An evaluator opens its connection at the first batch that needs SQL (a projection of plain
columns never does); planning and evaluation use one database per process, a cursor each, and
what one cursor registers or sets (its input table, CURRENT_WATERMARK's variable) the others do
not see.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import duckdb
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch
from streamsql.functions import python_functions
from streamsql.functions.scalars.clock import WATERMARK_VARIABLE
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


def test_an_expression_opens_no_database_of_its_own(databases):
    spec = compile_query([("a2", '"a" * 2')], None, SCHEMA)
    q = BatchQuery(spec)
    planned = len(databases)
    assert q.run(BATCH).table.column("a2").to_pylist() == [2, 4]
    assert q.run(BATCH).table.column("a2").to_pylist() == [2, 4]
    assert len(databases) == planned  # a cursor of the process's database


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


def test_threads_evaluating_at_once_see_only_their_own_input_and_watermark():
    """Each thread's evaluator registers its batch as ``__in`` and sets CURRENT_WATERMARK's variable
    on its own cursor of the one database: interleaved, each still computes over its own."""
    spec = compile_query([("a", '"a"'), ("w", f"getvariable('{WATERMARK_VARIABLE}')")], '"a" > 0', SCHEMA)
    errors, ready = [], threading.Barrier(4)

    def evaluate(i: int) -> None:
        q = BatchQuery(spec)
        q.keep_watermark()
        batch = Batch(pa.table({"a": list(range(1, i + 2)), "b": ["x"] * (i + 1)}, schema=SCHEMA))
        ready.wait(30)
        try:
            for _ in range(50):
                q.set_watermark(1000 * i)
                out = q.run(batch).table
                if (out.column("a").to_pylist() != list(range(1, i + 2))
                        or set(out.column("w").to_pylist()) != {str(1000 * i)}):  # the variable, as text
                    errors.append((i, out.to_pylist()))
                    return
        except Exception as e:  # reported by the test, not lost in the thread
            errors.append((i, e))

    threads = [threading.Thread(target=evaluate, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


def test_a_cursor_outlives_the_database_a_new_function_replaces():
    """Registering a function opens a new shared database; a job's cursor of the old one still calls
    Python functions. (DuckDB segfaults when the old database's first connection was collected:
    hence a process of its own.)"""
    code = """if True:
        import gc
        from streamsql.functions import python_functions as pf
        import streamsql.plan.planner  # registers the built-in functions
        old = pf.cursor()
        pf.register(pf.VectorFunction("__test_identity", "IDENTITY", lambda a: a, ("BIGINT",), "BIGINT"))
        new = pf.cursor()
        assert pf.shared_database()[0] is not None
        gc.collect()
        print(old.execute("SELECT __streamsql_utf16_lpad_3('ab', 5, 'x')").fetchone()[0],
              new.execute("SELECT __test_identity(7)").fetchone()[0])
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [duckdb.sql("SELECT lpad('ab', 5, 'x')").fetchall()[0][0], "7"]


def test_join_key_typing_uses_a_cursor_not_duckdbs_module_connection(monkeypatch):
    """``Scope.type_of`` (a join key's DuckDB type at planning) types in a cursor of the process's
    database: ``duckdb.sql``'s module connection is one connection every thread shares (two jobs
    planned at once), and it lacks StreamSQL's functions."""
    import streamsql.plan.planner  # noqa: F401  (registers the built-in functions)
    from streamsql.core.types import SqlType
    from streamsql.plan.scope import Scope, ScopeColumn

    used = []
    monkeypatch.setattr(duckdb, "sql", lambda *a, **kw: used.append(a))
    scope = Scope([ScopeColumn("t", "a", "__a", SqlType.parse("BIGINT")),
                   ScopeColumn("t", "s", "__s", SqlType.parse("STRING"))])
    assert scope.type_of('"__a" * 2') == "BIGINT"
    assert scope.type_of("__streamsql_utf16_lpad_3(\"__s\", 5, 'x')") == "VARCHAR"
    assert used == []

"""A savepoint of StreamSQL 735568b restores into calls that now share their argument's column.

Up to 735568b the Calc before an aggregate gave each call a column of its own (``AVG(v), MAX(v)``:
``Calc(select=[k, v, v])``, where Flink's is ``Calc(select=[k, v])``), and the state signatures
recorded in every checkpoint named arguments by those positions: sharing the column (8dffeca,
reverted) made the unchanged job refuse its own checkpoints. Now signatures name arguments by what
they compute (streamsql/plan/state_signature.py) and read old ones in that form.

``shared_arguments/`` holds a statement set's savepoint written by 735568b after 203 of its 400
input rows (``scripts/shared_argument_savepoint.py``, run with that version): GROUP BY calls over
one argument (``AVG(v), MAX(v)``, ``MAX(v), MAX(DISTINCT v)``, two DISTINCT calls, FILTER clauses,
calls of the key: ``MAX(k), COUNT(DISTINCT k)``, which now read the key's column),
calls of several argument columns among them (a Python aggregate's, LISTAGG's), a ROLLUP whose
call reads a key (``MIN(g)``), a tumbling window pending at the cut and an OVER aggregate. The
same statement set restores it here and reads the rest; what it emits must be DuckDB's answer over
all 400 rows, so every accumulator of the savepoint was restored into the call it belongs to.
"""

from __future__ import annotations

import importlib
import json
import shutil
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from streamsql.checkpoint.operators import StateMappingError
from streamsql.core.elements import RowKind
from streamsql.functions.udf import udaf
from tests.runtime import query_fuzz_savepoint as fuzz
from tests.runtime.oracle import make_env

FIXTURE = Path(__file__).parent / "shared_arguments"
JOB = json.loads((FIXTURE / "job.json").read_text())
#: Flink's AVG of an INT is an INT, the quotient truncated (Java's long division).
AVG = "CAST(trunc(avg(v)) AS INTEGER)"
DUCK = {
    "group": f"SELECT 'group', k, {AVG}, max(v) FROM t GROUP BY k",
    "wide": f"SELECT 'wide', k, count(*), {AVG}, max(v), max(DISTINCT v), sum(v) FILTER (WHERE v > 0), "
            "count(v) FILTER (WHERE v > 0), count(DISTINCT v), sum(DISTINCT v), max(k), count(DISTINCT k) "
            "FROM t GROUP BY k",
    "rollup": f"SELECT 'rollup', k, g, count(*), {AVG}, max(v), min(g) FROM t GROUP BY ROLLUP (k, g)",
    "window": f"SELECT 'window', k, time_bucket(INTERVAL 10 SECOND, ts) AS ws, {AVG}, max(v), max(k) FROM t "
              "GROUP BY k, ws",
    "over": "SELECT 'over', k, v, ts, CAST(trunc(avg(v) OVER w) AS INTEGER), max(v) OVER w FROM t "
            "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
    # wavg(value, weight): SUM(value * weight) // SUM(weight) over the rows with a value (udf_flink/udfs.py)
    "rowwise": "SELECT 'rowwise', k, CAST(floor(sum(v * g) / nullif(sum(g) FILTER (WHERE v IS NOT NULL), 0)) "
               "AS BIGINT), max(v), CAST(floor(sum(g * coalesce(v, 1)) / nullif(sum(coalesce(v, 1)), 0)) "
               "AS BIGINT), string_agg(CAST(v AS VARCHAR), '-' ORDER BY ts), min(g) FROM t GROUP BY k",
}
#: The updating results' keys: the columns after the INSERT's name.
KEYS = {"group": 1, "wide": 1, "rollup": 2, "rowwise": 1}


def _duck() -> dict[str, Counter]:
    """DuckDB's answer to each INSERT over all the input, as a multiset of rows."""
    con = duckdb.connect()
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_json('{FIXTURE / 't.json'}', columns = "
                "{'k': 'VARCHAR', 'g': 'INTEGER', 'v': 'INTEGER', 'ts': 'TIMESTAMP'})")
    return {q: Counter(tuple(r) for r in con.execute(sql).fetchall()) for q, sql in DUCK.items()}


def _run(tmp_path: Path, backend: str, inserts: dict[str, str] | None = None,
         more: dict[str, str] | None = None, extra: tuple[str, str] | None = None) -> tuple[object, list]:
    """Run the fixture's statement set (or ``inserts``) from its savepoint; the job and its changes.

    ``more``: settings of the job besides its name and savepoint; ``extra``: a table's DDL and an
    INSERT into it, run after the fixture's INSERTs.
    """
    savepoint = tmp_path / "savepoint"
    shutil.copytree(FIXTURE / "savepoint", savepoint)  # a restore leaves its claim in the folder
    inserts = list((inserts or JOB["inserts"]).values()) + ([extra[1]] if extra else [])
    sql = "EXECUTE STATEMENT SET BEGIN " + " ".join(f"{s};" for s in inserts) + " END"
    with fuzz.connectors():
        fuzz.GATES.clear()  # no gate: to the end
        fuzz.OPENED.clear()
        fuzz.WRITTEN.clear()
        settings = {"pipeline.name": "shared-arguments-restored",
                    "execution.savepoint.path": str(tmp_path / JOB["savepoint"]), **(more or {})}
        with make_env(tmp_path / "run", backend, None, settings) as env:
            for name, (module, cls, result, inputs) in JOB["functions"].items():
                impl = getattr(importlib.import_module(module), cls)()
                env.create_temporary_function(name, udaf(impl, result_type=result, input_types=inputs))
            for ddl in JOB["ddl"]:
                env.execute_sql(ddl.format(source=JOB["source"], sink=JOB["sink"], path=FIXTURE / "t.json"))
            if extra:
                env.execute_sql(extra[0])
            job = env.execute_sql(sql).job
            try:
                job.wait(240)
            finally:
                written = list(fuzz.WRITTEN)
    return job, written


def _final(changes: list[tuple[RowKind, tuple]], width: int) -> Counter:
    """The table an updating INSERT's changes leave, per key (its first ``width`` columns after the name)."""
    table: dict[tuple, tuple] = {}
    for kind, row in changes:
        key = row[:1 + width]
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
            table[key] = row
        elif kind == RowKind.DELETE:
            del table[key]
    return Counter(table.values())


def check_updating_inserts(written: list[tuple[RowKind, tuple]]) -> tuple[dict[str, list], dict]:
    """Assert the updating INSERTs' final tables are DuckDB's, each key restored.

    Returns: the changes by INSERT, and DuckDB's answers (multisets of rows by INSERT).
    """
    expected = _duck()
    by_insert: dict[str, list] = {q: [] for q in JOB["inserts"]}
    for kind, row in written:
        by_insert[row[0]].append((kind, row))
    for q, width in KEYS.items():
        changes = by_insert[q]
        # every key had rows before the cut: restored, its first change retracts the savepoint's result
        assert RowKind.INSERT not in {k for k, _ in changes}, q
        assert _final(changes, width) == expected[q], q
    return by_insert, expected


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_the_unchanged_job_restores_735568bs_savepoint_and_answers_as_duckdb(tmp_path, backend):
    assert JOB["written_by"].startswith("735568b")
    job, written = _run(tmp_path, backend)
    assert job.status == "FINISHED"
    assert job.runner.restored_from is not None
    by_insert, expected = check_updating_inserts(written)
    # the window [100 s, 110 s) had 3 of its rows before the cut; no window ending after the
    # watermark at the cut (row 202's ts - 1 s = 100 s) could fire before the savepoint
    start = datetime(2026, 1, 1)
    cut = start + timedelta(milliseconds=500 * (JOB["cut"] - 1)) - timedelta(seconds=1)
    windows = Counter(r for _, r in by_insert["window"])
    assert not windows - expected["window"]
    size = timedelta(seconds=10)
    assert windows == Counter({r: n for r, n in expected["window"].items() if r[2] + size > cut})
    assert any(r[2] == start + timedelta(seconds=100) for r in windows)
    over = Counter(r for _, r in by_insert["over"])
    assert not over - expected["over"]
    assert over >= Counter({r: n for r, n in expected["over"].items() if r[3] > cut})


def test_a_changed_argument_still_refuses_the_savepoint(tmp_path):
    """Arguments named by what they compute are compared: MAX(g) for MAX(v) is other state."""
    changed = {**JOB["inserts"], "group": JOB["inserts"]["group"].replace("MAX(v)", "MAX(g)")}
    with pytest.raises(StateMappingError) as err:
        _run(tmp_path, "hashmap", changed)
    assert "operator group-agg-3" in str(err.value)
    assert "t.g INT" in str(err.value)


#: Slight changes of the fixture's calls that read other state than the savepoint's: each refused.
CHANGED = {
    "same-type argument": ("group", "AVG(v)", "AVG(g)"),
    "calls swapped": ("group", "AVG(v), MAX(v)", "MAX(v), AVG(v)"),
    "filter changed": ("wide", "COUNT(v) FILTER (WHERE v > 0)", "COUNT(v) FILTER (WHERE v >= 0)"),
    "distinct calls swapped": ("wide", "SUM(v) FILTER (WHERE v > 0), COUNT(v) FILTER (WHERE v > 0), "
                               "COUNT(DISTINCT v), SUM(DISTINCT v)", "SUM(DISTINCT v), COUNT(v) FILTER "
                               "(WHERE v > 0), COUNT(DISTINCT v), SUM(v) FILTER (WHERE v > 0)"),
    "python aggregate's arguments swapped": ("rowwise", "wavg(v, g)", "wavg(g, v)"),
    "OVER calls swapped": ("over", "AVG(v) OVER w, MAX(v) OVER w", "MAX(v) OVER w, AVG(v) OVER w"),
    "window argument": ("window", "AVG(v)", "AVG(g)"),
    "key call for an argument call": ("wide", "COUNT(DISTINCT k)", "COUNT(DISTINCT v)"),
}


@pytest.mark.parametrize("change", list(CHANGED))
def test_a_slightly_changed_call_refuses_735568bs_savepoint(tmp_path, change):
    insert, before, after = CHANGED[change]
    assert before in JOB["inserts"][insert]
    changed = {**JOB["inserts"], insert: JOB["inserts"][insert].replace(before, after, 1)}
    with pytest.raises(StateMappingError, match="Cannot map checkpoint/savepoint state"):
        _run(tmp_path, "hashmap", changed)


@pytest.mark.parametrize(("insert", "before", "after"), [("group", "MAX(v)", "MAX(DISTINCT v)"),
                                                        ("rollup", "MIN(g)", "MIN(DISTINCT g)")])
def test_max_distinct_for_max_restores_the_same_state_and_answers_as_duckdb(tmp_path, insert, before, after):
    """MAX(DISTINCT v) is MAX(v), MIN(DISTINCT g) MIN(g) (the planner calls one function): the same state,
    DuckDB's answer. Flink 2.3 plans them alike too (Calcite ignores DISTINCT for MIN and MAX: its
    EXPLAIN of ``MAX(DISTINCT v)`` is ``MAX(v)``), so it restores such a savepoint as well."""
    changed = {**JOB["inserts"], insert: JOB["inserts"][insert].replace(before, after)}
    assert changed[insert] != JOB["inserts"][insert]
    job, written = _run(tmp_path, "hashmap", changed)
    assert job.status == "FINISHED"
    changes = [(kind, row) for kind, row in written if row[0] == insert]
    assert RowKind.INSERT not in {k for k, _ in changes}
    assert _final(changes, KEYS[insert]) == _duck()[insert]

"""Temporal sort (``ORDER BY rowtime [, ...]`` without LIMIT), against Flink's own output and DuckDB.

The compat cases check the final table; here the order of the rows is checked too: Flink runs
the sort and the print sink at parallelism 1, so the order of ``expected.json``'s rows (the print
sink's lines in order) is the order Flink emitted them in. At the operator level, a snapshot →
restore mid-stream gives the uninterrupted output row for row, on both backends, and that output
is DuckDB's ORDER BY over the rows kept.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK
from streamsql.core.errors import SqlError
from streamsql.runtime.operators.temporal_sort import TemporalSortOperator
from tests.compat.changelog import fold
from tests.runtime.harness import open_operator, play_steps, replay_across_restore
from tests.runtime.oracle import make_env

CASES = Path(__file__).resolve().parents[1] / "compat" / "cases"
BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms


@pytest.mark.parametrize("case", ["flinkdocs_orderby_time_then_id", "temporal_sort_late_rows_secondary_keys"])
def test_rows_come_in_flinks_order(tmp_path, case):
    folder = CASES / case
    script = tmp_path / "case.sql"
    script.write_text((folder / "case.sql").read_text().replace("${CASE_DIR}", str(folder)))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    expected = json.loads((folder / "expected.json").read_text())["rows"]
    assert fold(run.stdout.splitlines()) == expected  # same rows, same order


def _env(tmp_path):
    env = make_env(tmp_path)
    env.execute_sql(f"CREATE TABLE ev (id INT, k STRING, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts "
                    f"AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = "
                    f"'{tmp_path}/none.json', 'format' = 'json')")
    return env


def test_explain_shows_flinks_temporal_sort(tmp_path):
    env = _env(tmp_path)
    text = env.execute_sql("EXPLAIN SELECT id FROM ev ORDER BY ts, k DESC").message
    assert "TemporalSort(orderBy=[ts ASC, k DESC])" in text, text
    # the hidden keys are dropped after the sort: only id is selected
    assert text.index("Calc(select=[id])") < text.index("TemporalSort"), text


@pytest.mark.parametrize(("sql", "message", "caret_at"), [
    ("SELECT id FROM ev ORDER BY ts DESC", "Sort on a non-time-attribute field is not supported", "ts DESC"),
    ("SELECT id, ts FROM ev ORDER BY id, ts", "Sort on a non-time-attribute field is not", "id, ts"),
    ("SELECT k, MAX(ts) AS m FROM ev GROUP BY k ORDER BY m", "non-time-attribute", "m"),
    ("SELECT id FROM ev ORDER BY pt DESC", "Sort on a non-time-attribute field is not", "pt DESC"),
    ("SELECT id FROM sorted_view", "ORDER BY without LIMIT in a view is not supported yet", "ORDER BY ts"),
])
def test_refused_at_the_first_key(tmp_path, sql, message, caret_at):
    env = _env(tmp_path)
    view = "CREATE VIEW sorted_view AS SELECT * FROM ev ORDER BY ts"
    env.execute_sql(view)
    with pytest.raises(SqlError, match=message) as err:
        env.execute_sql(sql)
    e = err.value
    text = view if "sorted_view" in sql else sql  # a view's error points into its own statement
    assert e.line == 1 and text[e.col - 1:].startswith(caret_at), (e.col, str(e))


# -- operator level ---------------------------------------------------------------------------

SCHEMA = pa.schema([("id", pa.int32()), ("k", pa.string()), ("v", pa.int32()), ("ts", pa.timestamp("ms"))])


def _script(seed: int) -> list:
    """Batches of rows out of order by up to 2 s, each followed by a watermark 1.5 s behind; ids count up."""
    rnd = random.Random(seed)
    t, n, steps = 0, 0, []
    for _ in range(30):
        rows = []
        for _ in range(rnd.randint(1, 6)):
            t += rnd.randint(0, 900)
            n += 1
            rows.append((n, rnd.choice(["a", "b", None]), rnd.choice([1, 2, None]),
                         BASE + (t - rnd.randint(0, 2000)) // 500 * 500))  # ties on the rowtime
        steps.append(("batch", rows))
        steps.append(("wm", BASE + t - 1500))
    steps.append(("wm", MAX_WATERMARK))
    return steps


def _play(op, steps) -> list[tuple]:
    return play_steps(op, steps, SCHEMA)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_snapshot_restore_gives_the_uninterrupted_rows_in_order(tmp_path, backend_name):
    def open_op(workdir):  # ORDER BY ts, k DESC (NULLS LAST), v (NULLS FIRST): Flink's null order
        return open_operator(TemporalSortOperator(3, [1, 2], [True, False], [False, True], SCHEMA),
                             backend_name, workdir, "temporal-sort-1", metrics={})

    steps = _script(5)
    expected, actual, metrics, pending = replay_across_restore(open_op, _play, steps, 31, tmp_path)
    assert pending > 0, "the cut must leave rows pending"
    assert actual == expected
    sent = sum(len(arg) for what, arg in steps if what == "batch")
    assert metrics.get("late_records", 0) > 0 and len(expected) + metrics["late_records"] == sent
    rows = pa.Table.from_pylist([dict(zip(SCHEMA.names, r)) for r in expected], schema=SCHEMA)
    kept = duckdb.from_arrow(rows)
    duck = kept.order("ts, k DESC NULLS LAST, v ASC NULLS FIRST, id").fetchall()
    assert [tuple(r) for r in duck] == expected

"""Regular and interval joins, checked against DuckDB over the same rows.

Streaming side: ``filesystem`` JSON-lines (or debezium-json) tables read with small
``'execution.batch-size'`` values, so one key's rows spread over many batches of both inputs;
the folded changelog must equal DuckDB's batch join of the same rows (of the final snapshot, for
a changelog input). Interval joins read rows out of order by less than the watermark delay, so
no row is late and the result must equal the batch join with the same time bounds. State
cleanup and snapshot → restore of the interval join are checked at the operator level.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, RowKind, Watermark
from streamsql.core.errors import SqlError
from streamsql.runtime.operators.join import IntervalJoinOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import assert_same, duck_con, duck_rows, fold, make_env, write_debezium, write_jsonl

BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms

L_COLS = [("id", "INT", "INTEGER"), ("k", "INT", "INTEGER"), ("v", "INT", "INTEGER"),
          ("s", "STRING", "VARCHAR")]
R_COLS = [("id", "INT", "INTEGER"), ("k", "BIGINT", "BIGINT"), ("w", "INT", "INTEGER"),
          ("t", "STRING", "VARCHAR")]


def _rows(seed: int, n: int, cols) -> list[dict]:
    """Rows with a small key domain (many matches per key, some NULL keys, duplicate rows)."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        r = {"id": i, cols[1][0]: rnd.choice([1, 2, 3, 4, 5, 6, None]),
             cols[2][0]: rnd.choice([None, rnd.randint(-5, 5)]), cols[3][0]: rnd.choice(["x", "y", None])}
        out.append(r)
        if rnd.random() < 0.1:
            out.append(dict(r))  # an exact duplicate row
    return out


def _table(env, name: str, path: Path, cols, fmt: str = "json", extra: str = "") -> None:
    spec = ", ".join(f"{c} {t}" for c, t, _ in cols)
    env.execute_sql(f"CREATE TABLE {name} ({spec}{extra}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', "
                    f"'format' = '{fmt}')")


def _stream(env, sql: str, timeout: float = 30) -> tuple[Counter, list]:
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=timeout))
    assert res.job.done, f"query did not finish: {sql}"
    return fold(changelog), changelog


def _duck(paths: dict[str, tuple[Path, list]], sql: str) -> Counter:
    con = duck_con({}, [])
    for name, (path, cols) in paths.items():
        spec = "{" + ", ".join(f"'{c}': '{t}'" for c, _, t in cols) + "}"
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_json('{path}', format = 'newline_delimited', "
                    f"columns = {spec})")
    return duck_rows(con, sql)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("joins")
    return write_jsonl(d / "l.json", _rows(1, 120, L_COLS)), write_jsonl(d / "r.json", _rows(2, 90, R_COLS))


REGULAR = [
    "SELECT l.id, l.k, r.id, r.w FROM l JOIN r ON l.k = r.k",
    "SELECT l.id, r.id, r.t FROM l, r WHERE l.k = r.k AND l.v < r.w",
    "SELECT l.id, l.v, r.id, r.w FROM l LEFT JOIN r ON l.k = r.k",
    "SELECT l.id, r.id, r.w FROM l LEFT JOIN r ON l.k = r.k AND r.w > l.v",
    "SELECT l.id, r.id FROM l RIGHT JOIN r ON r.k = l.k AND l.s = 'x'",
    "SELECT l.id, l.s, r.id, r.t FROM l FULL OUTER JOIN r ON l.k = r.k AND l.s = r.t",
    "SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k AND l.v > 0 AND r.w < 3",
    "SELECT a.id, b.id, a.k FROM l AS a JOIN l b ON a.k = b.k AND a.id < b.id",
    "SELECT l.k, COUNT(*), SUM(r.w) FROM l LEFT JOIN r ON l.k = r.k GROUP BY l.k",
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [3, None], ids=["batch3", "batch-default"])
@pytest.mark.parametrize("sql", REGULAR)
def test_regular_join_equals_duckdb(tmp_path, files, backend, batch_size, sql):
    lp, rp = files
    env = make_env(tmp_path, backend, batch_size)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    actual, changelog = _stream(env, sql)
    assert_same(actual, _duck({"l": (lp, L_COLS), "r": (rp, R_COLS)}, sql), sql)
    if sql in REGULAR[:2] or sql == REGULAR[7]:
        assert all(k == RowKind.INSERT for k, _ in changelog), "inner join of insert-only inputs: insert-only"
    elif ("LEFT" in sql or "FULL" in sql) and "GROUP BY" not in sql:
        assert any(k == RowKind.DELETE for k, _ in changelog), "padded rows are retracted when matches come"


def test_select_star_names_and_explain(tmp_path, files):
    lp, rp = files
    env = make_env(tmp_path, "hashmap", 5)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    res = env.execute_sql("SELECT * FROM l JOIN r ON l.k = r.k")
    assert res.columns == ["id", "k", "v", "s", "id0", "k0", "w", "t"]
    rows = list(res.collect(timeout=30))
    assert rows and all(len(r) == 8 for _, r in rows)
    plan = env.execute_sql("EXPLAIN SELECT l.*, r.t FROM l LEFT JOIN r ON l.k = r.k AND r.w > 0").message
    assert "Join(joinType=[LeftOuterJoin]" in plan and "changelog=[retract]" in plan, plan
    plan = env.execute_sql("EXPLAIN SELECT * FROM l JOIN r ON l.k = r.k").message
    assert "Join(joinType=[InnerJoin]" in plan and "changelog=[insert-only]" in plan, plan
    assert 'CAST("k" AS BIGINT)' in plan  # INT = BIGINT keys are compared as BIGINT


def test_outer_join_changelog_is_flinks(tmp_path):
    """LEFT JOIN: a padded row first, then -D of it and +I of the joined row when a match comes;
    the last match retracted → the padded row comes back."""
    lp = write_jsonl(tmp_path / "l.json", [{"id": 1, "k": 7, "v": 1, "s": "a"}])
    events = [("c", None, {"id": 10, "k": 7, "w": 5, "t": "m"}),
              ("c", None, {"id": 11, "k": 7, "w": 6, "t": "n"}),
              ("d", {"id": 10, "k": 7, "w": 5, "t": "m"}, None),
              ("u", {"id": 11, "k": 7, "w": 6, "t": "n"}, {"id": 11, "k": 8, "w": 6, "t": "n"})]
    rp = write_debezium(tmp_path / "r.json", events)
    env = make_env(tmp_path, "hashmap", 1)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS, fmt="debezium-json")
    _, changelog = _stream(env, "SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = r.k")
    got = [(k.short, tuple(r)) for k, r in changelog]
    # The left row arrives first (sources take turns, the left file is read first).
    assert got == [("+I", (1, None)), ("-D", (1, None)), ("+I", (1, 10)), ("+I", (1, 11)), ("-D", (1, 10)),
                   ("-D", (1, 11)), ("+I", (1, None))], got


# -- changelog inputs (debezium-json) -----------------------------------------------------------------

def _cdc(seed: int, n: int) -> tuple[list, list[dict]]:
    """Random create/update/delete events over R rows; returns (events, final rows)."""
    rnd = random.Random(seed)
    table: dict[int, dict] = {}
    events = []
    next_id = 0
    for _ in range(n):
        p = rnd.random()
        if p < 0.5 or len(table) < 4:
            r = {"id": next_id, "k": rnd.choice([1, 2, 3, 4, None]), "w": rnd.randint(-5, 5),
                 "t": rnd.choice("xy")}
            next_id += 1
            table[r["id"]] = r
            events.append(("c", None, dict(r)))
        elif p < 0.8:
            old = table[rnd.choice(list(table))]
            new = dict(old, k=rnd.choice([1, 2, 3, 4, None]), w=rnd.randint(-5, 5))
            table[new["id"]] = new
            events.append(("u", dict(old), dict(new)))
        else:
            old = table.pop(rnd.choice(list(table)))
            events.append(("d", dict(old), None))
    return events, sorted(table.values(), key=lambda r: r["id"])


CDC_QUERIES = [
    "SELECT l.id, c.id, c.w FROM l JOIN c ON l.k = c.k",
    "SELECT l.id, c.id, c.w FROM l LEFT JOIN c ON l.k = c.k",
    "SELECT l.id, c.id FROM l RIGHT JOIN c ON l.k = c.k AND c.w > l.v",
    "SELECT l.id, c.id, c.t FROM l FULL JOIN c ON l.k = c.k AND c.t = l.s",
    "SELECT c.id, d.id FROM c JOIN c AS d ON c.k = d.k AND c.id <> d.id",
    "SELECT c.id, d.id FROM c FULL JOIN c AS d ON c.k = d.k AND c.w < d.w",
]


def _with_changelog(tmp_path, files, backend: str, seed: int):
    """An env (batches of 4) with tables l, r (JSON lines) and c (debezium-json from :func:`_cdc`).

    Returns:
        The env, and per table its file and columns for :func:`_duck` (c's: its final rows).
    """
    lp, rp = files
    events, final = _cdc(seed, 150)
    cp = write_debezium(tmp_path / "c.json", events)
    snap = write_jsonl(tmp_path / "snap.json", final)
    env = make_env(tmp_path, backend, 4)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    _table(env, "c", cp, R_COLS, fmt="debezium-json")
    return env, {"l": (lp, L_COLS), "r": (rp, R_COLS), "c": (snap, R_COLS)}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sql", CDC_QUERIES)
def test_join_over_changelog_input(tmp_path, files, backend, sql):
    env, paths = _with_changelog(tmp_path, files, backend, 5)
    actual, changelog = _stream(env, sql)
    assert_same(actual, _duck(paths, sql), sql)
    assert any(k in (RowKind.DELETE, RowKind.UPDATE_BEFORE) for k, _ in changelog), "updates retract rows"


# -- IS NOT DISTINCT FROM keys (NULL matches NULL, as Flink's join key with filterNulls false) -----------

NULL_SAFE = [  # l.k is INT, r.k and c.k BIGINT: Flink 2.3 casts neither side of a NULL-safe key
    "SELECT l.id, l.k, r.id, r.w FROM l JOIN r ON CAST(l.k AS BIGINT) IS NOT DISTINCT FROM r.k",
    "SELECT l.id, r.id, r.w FROM l LEFT JOIN r ON CAST(l.k AS BIGINT) IS NOT DISTINCT FROM r.k AND r.w > l.v",
    "SELECT l.id, r.id FROM l RIGHT JOIN r ON r.k IS NOT DISTINCT FROM CAST(l.k AS BIGINT)",
    "SELECT l.id, r.t FROM l FULL JOIN r ON l.s = r.t AND (r.k IS NOT DISTINCT FROM CAST(l.k AS BIGINT))",
    "SELECT l.id, c.id, c.w FROM l JOIN c ON CAST(l.k AS BIGINT) IS NOT DISTINCT FROM c.k",
    "SELECT l.id, c.id, c.t FROM l FULL JOIN c ON c.t = l.s AND CAST(l.k AS BIGINT) IS NOT DISTINCT FROM c.k",
    "SELECT c.id, d.id FROM c LEFT JOIN c AS d ON c.k IS NOT DISTINCT FROM d.k AND c.id <> d.id",
    # the form Flink's planner turns into the same key (its EXPLAIN: IS NOT DISTINCT FROM(k, k0))
    "SELECT c.id, d.id, d.w FROM c FULL JOIN c AS d ON c.k = d.k OR (c.k IS NULL AND d.k IS NULL)",
    # (keys of two types: a condition, as in Flink)
    "SELECT l.id, c.id FROM l LEFT JOIN c ON l.s = c.t AND (c.k IS NULL AND l.k IS NULL OR l.k = c.k)",
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sql", NULL_SAFE)
def test_is_not_distinct_from_key_equals_duckdb(tmp_path, files, backend, sql):
    env, paths = _with_changelog(tmp_path, files, backend, 7)
    actual, _ = _stream(env, sql)
    expected = _duck(paths, sql)
    assert_same(actual, expected, sql)
    # NULL keys are in the data, and matched: the answer differs from the one with `=`
    plain = sql.replace("IS NOT DISTINCT FROM", "=").replace("IS NULL AND", "IS NULL AND FALSE AND")
    assert expected != _duck(paths, plain)


def test_is_not_distinct_from_is_a_join_key_in_explain(tmp_path, files):
    env = make_env(tmp_path)
    _table(env, "l", files[0], L_COLS)
    _table(env, "r", files[1], R_COLS)
    for on in ("l.id IS NOT DISTINCT FROM r.id", "l.id = r.id OR (r.id IS NULL AND l.id IS NULL)"):
        plan = env.execute_sql(f"EXPLAIN SELECT l.v, r.w FROM l LEFT JOIN r ON {on}").message
        assert "Join(joinType=[LeftOuterJoin], where=[IS NOT DISTINCT FROM(" in plan, plan
    # keys of two types: Flink 2.3 refuses IS NOT DISTINCT FROM, keeps the OR form a condition
    with pytest.raises(SqlError) as ei:
        env.execute_sql("SELECT l.id, r.id\nFROM l JOIN r ON l.v = r.w AND l.k IS NOT DISTINCT FROM r.k")
    assert "Equality join predicate on incompatible types" in ei.value.message
    assert ei.value.line == 2 and ei.value.col == 34, (ei.value.line, ei.value.col)  # under l.k
    plan = env.execute_sql("EXPLAIN SELECT l.id FROM l LEFT JOIN r ON l.v = r.w AND "
                           "(l.k = r.k OR (l.k IS NULL AND r.k IS NULL))").message
    assert "IS NOT DISTINCT FROM" not in plan and "IS NULL" in plan, plan


# -- planning ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sql", [
    "SELECT l.id, r.id FROM l, r WHERE l.id < 30 AND r.id < 20",
    "SELECT l.id, r.id FROM l LEFT JOIN r ON l.k = 1",
    "SELECT l.id, r.id, r.t FROM l CROSS JOIN r WHERE r.t = 'x' AND l.id < 40",
    "SELECT l.id, r.id FROM l JOIN r ON TRUE WHERE l.v = 3",
    "SELECT l.id, r.id FROM l FULL JOIN r ON r.w = 7",
    "SELECT l.id, r.id FROM l RIGHT JOIN r ON l.id = 5 AND r.w > 0",
])
def test_join_without_condition_over_both_runs_keyless(tmp_path, files, sql):
    """No condition over both inputs (a comma, CROSS JOIN, ON TRUE, conditions on one side): every
    row meets every row on one task, as Flink 2.3 plans it (a singleton exchange; its answers for
    small inputs: ``tests/sql/test_flink_query_gaps.py``), here against DuckDB over 120 x 90 rows."""
    lp, rp = files
    env = make_env(tmp_path, "hashmap", 7)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    changelog = list(env.execute_sql(sql).collect(timeout=60))
    assert_same(fold(changelog), _duck({"l": (lp, L_COLS), "r": (rp, R_COLS)}, sql), sql)


@pytest.mark.parametrize("sql", [
    "SELECT l.id, r.id FROM l JOIN r ON l.k < r.k",
    "SELECT l.id, r.id, r.w FROM l LEFT JOIN r ON l.v > r.w AND r.t = 'x'",
    "SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k + 1 OR l.v < r.w - 900",
])
def test_join_without_equality_runs_keyless(tmp_path, files, sql):
    """A condition over both inputs without an equality: every row meets every row, as Flink 2.3
    plans it (a singleton exchange; its answers: query fuzz v4 seeds 300157, 300174, 300181)."""
    lp, rp = files
    env = make_env(tmp_path, "hashmap", 5)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=60))
    assert_same(fold(changelog), _duck({"l": (lp, L_COLS), "r": (rp, R_COLS)}, sql), sql)


def test_unknown_and_ambiguous_columns(tmp_path, files):
    env = make_env(tmp_path)
    _table(env, "l", files[0], L_COLS)
    _table(env, "r", files[1], R_COLS)
    with pytest.raises(SqlError, match="ambiguous"):
        env.execute_sql("SELECT id FROM l JOIN r ON l.k = r.k")
    with pytest.raises(SqlError, match="Unknown table or alias 'x'"):
        env.execute_sql("SELECT x.id FROM l JOIN r ON l.k = r.k")


# -- interval joins ---------------------------------------------------------------------------------------

E_COLS = [("id", "INT", "INTEGER"), ("k", "INT", "INTEGER"), ("ts", "TIMESTAMP(3)", "TIMESTAMP")]


def _fmt(ms: int | None) -> str | None:
    if ms is None:
        return None
    return (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _events(path: Path, seed: int, n: int, disorder: int = 4000, step=(0, 100, 250, 1000, 1500)) -> Path:
    """Rows (id, k, ts) with ts out of order by less than ``disorder`` ms, some exactly on whole
    seconds (to hit bounds to the millisecond), a few NULL keys (no NULL rowtime: a filesystem
    table fails on one, as Flink, ``test_null_rowtime.py``)."""
    rnd = random.Random(seed)
    t = BASE
    with path.open("w") as f:
        for i in range(n):
            t += rnd.choice(step)
            ts = t - rnd.randint(0, disorder - 1)
            if rnd.random() < 0.3:
                ts = ts // 1000 * 1000
            rnd.random()  # was a 2% chance of a NULL rowtime: kept, so the rows stay the same
            k = rnd.choice([1, 2, 3, None]) if rnd.random() > 0.03 else None
            f.write(json.dumps({"id": i, "k": k, "ts": _fmt(ts)}) + "\n")
    return path


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    d = tmp_path_factory.mktemp("interval")
    return _events(d / "a.json", 11, 300), _events(d / "b.json", 12, 250)


def _timed_env(tmp_path, paths, backend="hashmap", batch_size=None, delay="5"):
    env = make_env(tmp_path, backend, batch_size)
    for name, p in zip(("a", "b"), paths):
        _table(env, name, p, E_COLS, extra=f", WATERMARK FOR ts AS ts - INTERVAL '{delay}' SECOND")
    return env


INTERVAL = [
    # plain and mirrored spellings of the same bounds (strict lower, non-strict upper)
    "SELECT a.id, b.id FROM a, b WHERE a.k = b.k AND b.ts > a.ts - INTERVAL '1' SECOND AND b.ts <= a.ts",
    "SELECT a.id, b.id FROM a, b WHERE a.k = b.k AND a.ts - INTERVAL '1' SECOND < b.ts AND a.ts >= b.ts",
    # non-strict lower, strict upper, via JOIN ... ON, bounds on both sides of a.ts
    "SELECT a.id, b.id FROM a JOIN b ON a.k = b.k AND b.ts >= a.ts - INTERVAL '1500' MILLISECOND "
    "AND b.ts < a.ts + INTERVAL '2' SECOND",
    "SELECT a.id, b.id, b.ts FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '3' SECOND",
    # a window that does not contain 0 (b strictly before a), plus a residual condition
    "SELECT a.id, b.id FROM a JOIN b ON b.k = a.k AND a.ts > b.ts + INTERVAL '1' SECOND "
    "AND a.ts <= b.ts + INTERVAL '4' SECOND WHERE a.id % 3 <> b.id % 3",
]

INTERVAL_OUTER = [
    "SELECT a.id, b.id FROM a LEFT JOIN b ON a.k = b.k AND b.ts > a.ts - INTERVAL '1' SECOND "
    "AND b.ts <= a.ts",
    "SELECT a.id, b.id FROM a RIGHT JOIN b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts",
    "SELECT a.id, b.id FROM a FULL JOIN b ON a.k = b.k AND b.ts >= a.ts "
    "AND b.ts < a.ts + INTERVAL '2' SECOND "
    "AND a.id % 2 = b.id % 2",
]


def _duck_timed(paths, sql):
    return _duck({"a": (paths[0], E_COLS), "b": (paths[1], E_COLS)}, sql)


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 4), ("hashmap", None)],
                         ids=["rocksdb-batch4", "hashmap-batch-default"])
@pytest.mark.parametrize("sql", INTERVAL + INTERVAL_OUTER)
def test_interval_join_equals_duckdb(tmp_path, timed, backend, batch_size, sql):
    env = _timed_env(tmp_path, timed, backend, batch_size)
    plan = env.execute_sql("EXPLAIN " + sql).message
    assert "IntervalJoin(" in plan, plan
    actual, changelog = _stream(env, sql)
    assert all(k == RowKind.INSERT for k, _ in changelog), "an interval join is insert-only"
    assert_same(actual, _duck_timed(timed, sql), sql)


def test_interval_bounds_are_exact_to_the_millisecond(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps({"id": 1, "k": 1, "ts": _fmt(BASE + 3_600_000)}) + "\n")
    b.write_text("".join(json.dumps({"id": i, "k": 1, "ts": _fmt(BASE + 3_600_000 + d)}) + "\n"
                         for i, d in enumerate([-3_600_001, -3_600_000, -3_599_999, -1, 0, 1])))
    env = _timed_env(tmp_path, (a, b), batch_size=1, delay="0")
    got = {}
    for name, cond in {
        "strict_lower": "b.ts > a.ts - INTERVAL '1' HOUR AND b.ts <= a.ts",
        "mirrored": "a.ts - INTERVAL '1' HOUR < b.ts AND a.ts >= b.ts",
        "closed": "b.ts >= a.ts - INTERVAL '1' HOUR AND b.ts <= a.ts",
        "strict_upper": "b.ts >= a.ts - INTERVAL '1' HOUR AND b.ts < a.ts",
        "between": "b.ts BETWEEN a.ts - INTERVAL '1' HOUR AND a.ts",
    }.items():
        actual, _ = _stream(env, f"SELECT b.id FROM a, b WHERE a.k = b.k AND {cond}")
        got[name] = sorted(r[0] for r in actual.elements())
    assert got == {"strict_lower": [2, 3, 4], "mirrored": [2, 3, 4], "closed": [1, 2, 3, 4],
                   "strict_upper": [1, 2, 3], "between": [1, 2, 3, 4]}


def test_interval_join_output_keeps_time_attributes(tmp_path, timed):
    """A window aggregate over an interval join's output: its watermark is held back, so no joined
    row is late."""
    env = _timed_env(tmp_path, timed, batch_size=5)
    env.execute_sql("CREATE VIEW j AS SELECT a.id, a.ts FROM a, b WHERE a.k = b.k AND "
                    "b.ts BETWEEN a.ts - INTERVAL '2' SECOND AND a.ts + INTERVAL '1' SECOND")
    sql = ("SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
           "GROUP BY window_start, window_end")
    res = env.execute_sql(sql)
    actual = fold(res.collect(timeout=30))
    assert res.job.metrics.get("late_records", 0) == 0
    expected = _duck_timed(timed, "SELECT epoch_ms(epoch_ms(a.ts) // 10000 * 10000), COUNT(*) FROM a, b "
                                  "WHERE a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '2' SECOND "
                                  "AND a.ts + INTERVAL '1' SECOND GROUP BY 1")
    assert_same(actual, expected, sql)


def test_interval_join_needs_both_bounds_else_regular(tmp_path, timed):
    """With one time bound only it is a regular join whose condition compares the times."""
    env = _timed_env(tmp_path, timed, batch_size=50)
    sql = "SELECT a.id, b.id FROM a JOIN b ON a.k = b.k AND b.ts <= a.ts"
    plan = env.execute_sql("EXPLAIN " + sql).message
    assert "IntervalJoin" not in plan and "Join(joinType=[InnerJoin]" in plan, plan
    actual, _ = _stream(env, sql)
    assert_same(actual, _duck_timed(timed, sql), sql)


# -- state cleanup and restore (operator level) -----------------------------------------------------------

SIDE_SCHEMA = pa.schema([("k", pa.int32()), ("ts", pa.timestamp("ms")), ("v", pa.string())])
OUT = pa.schema(list(SIDE_SCHEMA) + [pa.field(f"{f.name}0", f.type) for f in SIDE_SCHEMA])


def _batch(rows) -> Batch:
    k, ts, v = zip(*rows)
    times = pa.array(ts, pa.int64()).cast(pa.timestamp("ms"))
    return Batch(pa.Table.from_arrays([pa.array(k, pa.int32()), times, pa.array(v, pa.string())],
                                      schema=SIDE_SCHEMA))


def _interval_op(tmp_path, backend_name, join_type="INNER", name="ij"):
    # a.ts - b.ts ∈ [0, 999]: b in (a.ts - 1 s, a.ts]
    op = IntervalJoinOperator(join_type, [0], [0], 1, 1, 0, 999, SIDE_SCHEMA, SIDE_SCHEMA, OUT)
    return open_operator(op, backend_name, tmp_path / name, "ij-1")


def _out(elements):
    rows, wms = [], []
    for el in elements:
        if isinstance(el, Batch):
            rows += [(r["v"], r["v0"]) for r in el.table.to_pylist()]
        elif isinstance(el, Watermark):
            wms.append(el.timestamp)
    return rows, wms


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_interval_join_state_is_cleaned_up_by_the_watermark(tmp_path, backend_name):
    op, backend = _interval_op(tmp_path, backend_name, "LEFT")
    for i in range(50):  # 50 keys, one row per side each
        op.process_batch(_batch([(i, BASE + i * 10, f"a{i}")]), 0)
        if i % 2:
            op.process_batch(_batch([(i, BASE + i * 10 - 500, f"b{i}")]), 1)
    assert op.live_rows() == 75
    size_before = sum(1 for _ in backend.keyed_state("ij-1").items())
    first_rows, wms = _out(op.process_watermark(Watermark(BASE + 250)))
    assert wms == [BASE + 250 - 1000]  # watermark held back by max bound + 1
    # left rows with ts <= 249 expired (a row at t lives while wm <= t), right rows live 1 s longer
    assert op.live_rows() == 75 - 25
    rows, wms = _out(op.process_watermark(Watermark(BASE + 10_000)))
    assert op.live_rows() == 0
    assert sum(1 for _ in backend.keyed_state("ij-1").items()) < size_before
    assert not [k for k, _ in backend.keyed_state("ij-1").items() if k[2:3] in (b"L", b"R")]
    # the left rows of even keys never matched: they came out padded when their range expired
    padded = sorted(r for r in first_rows + rows if r[1] is None)
    assert padded == sorted((f"a{i}", None) for i in range(0, 50, 2))
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_interval_join_late_row_is_not_kept_and_outer_padded(tmp_path, backend_name):
    op, backend = _interval_op(tmp_path, backend_name, "FULL")
    op.process_watermark(Watermark(BASE + 5000))
    rows, _ = _out(op.process_batch(_batch([(1, BASE + 1000, "late")]), 0))  # its range has passed
    assert rows == [("late", None)] and op.live_rows() == 0
    rows, _ = _out(op.process_batch(_batch([(1, BASE + 6000, "a")]), 0))
    assert rows == [] and op.live_rows() == 1
    rows, _ = _out(op.process_batch(_batch([(1, BASE + 5500, "b"), (1, BASE + 6001, "c")]), 1))
    assert rows == [("a", "b")]
    rows, _ = _out(op.process_watermark(Watermark(MAX_WATERMARK)))
    assert rows == [(None, "c")] and op.live_rows() == 0  # a and b matched: not padded
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_interval_join_snapshot_restore(tmp_path, backend_name):
    rnd = random.Random(3)
    steps, t = [], BASE
    for _ in range(40):
        rows = []
        for _ in range(rnd.randint(1, 4)):
            t += rnd.randint(0, 400)
            rows.append((rnd.randint(1, 3), t - rnd.randint(0, 300), f"r{len(steps)}_{len(rows)}"))
        steps.append(("batch", rnd.randint(0, 1), rows))
        steps.append(("wm", None, t - 300))
    steps.append(("wm", None, MAX_WATERMARK))

    def play(op, part):
        out = []
        for what, side, arg in part:
            if what == "batch":
                out += op.process_batch(_batch(arg), side)
            else:
                out += op.process_watermark(Watermark(arg))
        return _out(out)[0]

    ref, rb = _interval_op(tmp_path, backend_name, "FULL", "ref")
    expected = play(ref, steps)
    rb.close()
    first, b1 = _interval_op(tmp_path, backend_name, "FULL", "first")
    before = play(first, steps[:41])
    assert first.live_rows() > 0
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    b1.close()
    second, b2 = _interval_op(tmp_path, backend_name, "FULL", "second")
    b2.restore(str(tmp_path / "snap"))
    after = play(second, steps[41:])
    b2.close()
    assert Counter(before + after) == Counter(expected)
    assert any(r[0] is None for r in expected) and any(r[1] is None for r in expected)
    assert any(None not in r for r in expected)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_join_state_of_another_format_is_refused_clearly(tmp_path, backend_name):
    from streamsql.state.layout import StateFormatError

    op, backend = _interval_op(tmp_path, backend_name)
    op.process_batch(_batch([(1, BASE, "a")]), 0)
    state = backend.keyed_state("ij-1")
    rows = [k for k, _ in state.items() if k[2:3] == b"L"]
    assert rows
    state.write([(k, b"\x80\x05pickled-by-an-older-version") for k in rows])
    with pytest.raises(StateFormatError, match="expected 'interval-join/rows' v1.*start the job afresh"):
        op.process_batch(_batch([(1, BASE + 1, "b")]), 0)
    backend.close()

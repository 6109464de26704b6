"""Event-time temporal joins (``FOR SYSTEM_TIME AS OF``), checked against DuckDB's ASOF JOIN.

Streaming side: a probe table (JSON lines, out of order within its watermark delay) joined with
a versioned table (debezium-json with a PRIMARY KEY and a WATERMARK: creates, updates, deletes,
out of order within its own delay), read in small batches so both inputs interleave. The batch
oracle is DuckDB's ``ASOF LEFT JOIN`` over the versions (each event's row at its rowtime, a
delete as a tombstone version): the version with the greatest rowtime ``<=`` the probe row's,
no match when it is a tombstone. Cleanup, retraction versions, same-rowtime versions and
snapshot → restore are checked at the operator level through the harness.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, RowKind, Watermark
from streamsql.core.errors import SqlError
from streamsql.runtime.operators.temporal_join import TemporalJoinOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import assert_same, duck_con, duck_rows, fold, make_env, write_debezium, write_jsonl
from tests.runtime.test_joins import _fmt

BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
PROBE_DDL = ("CREATE TABLE o (id INT, k INT, v INT, ts TIMESTAMP(3), "
             "WATERMARK FOR ts AS ts - INTERVAL '3' SECOND) "
             "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
VERSIONED_DDL = ("CREATE TABLE r (pk INT, rate INT, tag STRING, ts TIMESTAMP(3), "
                 "PRIMARY KEY (pk) NOT ENFORCED, "
                 "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) "
                 "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'debezium-json')")


def _probe(seed: int, n: int) -> list[dict]:
    """Probe rows out of order by < 3 s, keys 1..5 and a few NULL keys."""
    rnd = random.Random(seed)
    t, out = BASE, []
    for i in range(n):
        t += rnd.choice([0, 200, 700, 1500])
        ts = t - rnd.randint(0, 2999)
        k = rnd.choice([1, 2, 3, 4, 5]) if rnd.random() > 0.05 else None
        out.append({"id": i, "k": k, "v": rnd.randint(-3, 3), "ts": _fmt(ts)})
    return out


def _versions(seed: int, n: int) -> tuple[list, list[dict]]:
    """Debezium events over keys 1..4 (rowtimes out of order by < 2 s); returns (events, versions).

    An update is its +U (the -U is dropped); a delete's before image carries the delete's rowtime
    (as a source timestamp would): a tombstone version at that time.
    ``versions`` rows are ``{pk, rate, tag, ts, dead}`` for DuckDB.
    """
    rnd = random.Random(seed)
    t, live, events, versions, used = BASE + 500, {}, [], [], set()
    for _ in range(n):
        t += rnd.choice([300, 900, 2500])
        ts = t - rnd.randint(0, 1999)
        pk = rnd.randint(1, 4)
        if (pk, ts) in used:
            continue  # one version per key and rowtime (a same-time overwrite is tested below)
        used.add((pk, ts))
        row = {"pk": pk, "rate": rnd.randint(1, 20), "tag": rnd.choice(["x", "y", None]), "ts": _fmt(ts)}
        if pk in live and rnd.random() < 0.25:
            events.append(("d", dict(live.pop(pk), ts=_fmt(ts)), None))
            versions.append(dict(live.get(pk, row), pk=pk, ts=_fmt(ts), dead=True))
        elif pk in live:
            events.append(("u", dict(live[pk]), row))  # the before image keeps its old rowtime
            live[pk] = row
            versions.append(dict(row, dead=False))
        else:
            events.append(("c", None, row))
            live[pk] = row
            versions.append(dict(row, dead=False))
    return events, versions


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("temporal")
    events, versions = _versions(7, 60)
    return (write_jsonl(d / "o.json", _probe(3, 150)), write_debezium(d / "r.json", events),
            write_jsonl(d / "v.json", versions))


def _env(tmp_path, files, backend="hashmap", batch_size=3):
    env = make_env(tmp_path, backend, batch_size)
    env.execute_sql(PROBE_DDL.format(path=files[0]))
    env.execute_sql(VERSIONED_DDL.format(path=files[1]))
    return env


def _duck(files, select: str, where: str = "") -> Counter:
    """``select`` over ``o ASOF LEFT JOIN`` the version table ``r`` (``r.dead``: a tombstone)."""
    con = duck_con({}, [])
    con.execute(f"CREATE VIEW o AS SELECT * FROM read_json('{files[0]}', format = 'newline_delimited', "
                "columns = {'id': 'INTEGER', 'k': 'INTEGER', 'v': 'INTEGER', 'ts': 'TIMESTAMP'})")
    con.execute(f"CREATE VIEW r AS SELECT * FROM read_json('{files[2]}', format = 'newline_delimited', "
                "columns = {'pk': 'INTEGER', 'rate': 'INTEGER', 'tag': 'VARCHAR', 'ts': 'TIMESTAMP', "
                "'dead': 'BOOLEAN'})")
    return duck_rows(con, f"SELECT {select} FROM o ASOF LEFT JOIN r ON o.k = r.pk AND o.ts >= r.ts {where}")


# (streaming query, DuckDB select over the ASOF join, DuckDB WHERE)
_LIVE = "r.pk IS NOT NULL AND NOT r.dead"
CASES = [
    ("SELECT o.id, r.rate, r.tag FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.pk",
     "o.id, r.rate, r.tag", f"WHERE {_LIVE}"),
    ("SELECT o.id, r.rate, r.ts FROM o LEFT JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.pk",
     f"o.id, CASE WHEN {_LIVE} THEN r.rate END, CASE WHEN {_LIVE} THEN r.ts END", ""),
    # a condition on the versioned side is a join condition, never a filter of the versions
    ("SELECT o.id, r.rate FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts AS r ON r.pk = o.k AND r.rate > 10",
     "o.id, r.rate", f"WHERE {_LIVE} AND r.rate > 10"),
    ("SELECT o.id, r.rate FROM o LEFT JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.pk AND r.rate > o.v + 8",
     f"o.id, CASE WHEN {_LIVE} AND r.rate > o.v + 8 THEN r.rate END", ""),
    ("SELECT o.id, r.tag FROM o, r FOR SYSTEM_TIME AS OF o.ts WHERE o.k = r.pk AND o.v >= 0",
     "o.id, r.tag", f"WHERE {_LIVE} AND o.v >= 0"),
]


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 3), ("hashmap", 7), ("hashmap", None)],
                         ids=["rocksdb-batch3", "hashmap-batch7", "hashmap-batch-default"])
@pytest.mark.parametrize(("sql", "select", "where"), CASES)
def test_temporal_join_equals_duckdb_asof(tmp_path, files, backend, batch_size, sql, select, where):
    env = _env(tmp_path, files, backend, batch_size)
    plan = env.execute_sql("EXPLAIN " + sql).message
    assert "TemporalJoin(" in plan and "changelog=[insert-only]" in plan, plan
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=30))
    assert res.job.done
    assert all(k == RowKind.INSERT for k, _ in changelog), "an insert-only probe side gives insert-only rows"
    expected = _duck(files, select, where)
    assert_same(fold(changelog), expected, sql)
    if "LEFT" in sql:
        assert any(r[1] is None for r in expected) and any(r[1] is not None for r in expected)


def _appended_rates(seed: int, n: int) -> list[dict]:
    """Append-only rate rows over keys 1..4, rowtimes out of order by < 2 s, some sharing a rowtime."""
    rnd = random.Random(seed)
    t, out = BASE + 500, []
    for i in range(n):
        t += rnd.choice([0, 300, 900, 2500])
        out.append({"i": i, "pk": rnd.randint(1, 4), "rate": rnd.randint(1, 20),
                    "ts": _fmt(t - rnd.choice([0, 0, 700, 1999]))})
    return out


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 3), ("hashmap", 7), ("hashmap", None)],
                         ids=["rocksdb-batch3", "hashmap-batch7", "hashmap-batch-default"])
def test_versioned_view_equals_duckdb_asof(tmp_path, files, backend, batch_size):
    """A deduplicating view (last row per key by rowtime) as the versioned side, as Flink plans it.

    Flink deduplicates row by row: a row is a version when its rowtime is at or after every
    earlier row's of its key (a later row at the same rowtime replaces it); an older one is
    dropped. So a row replaced within one batch is still a version, whatever the batch size.
    """
    rates = write_jsonl(tmp_path / "rates.json", _appended_rates(11, 80))
    env = make_env(tmp_path, backend, batch_size)
    env.execute_sql(PROBE_DDL.format(path=files[0]))
    env.execute_sql("CREATE TABLE ra (i INT, pk INT, rate INT, ts TIMESTAMP(3), "
                    "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{rates}', 'format' = 'json')")
    env.execute_sql("CREATE VIEW rv AS SELECT pk, rate, ts FROM (SELECT *, ROW_NUMBER() OVER "
                    "(PARTITION BY pk ORDER BY ts DESC) AS rn FROM ra) WHERE rn = 1")
    res = env.execute_sql("SELECT o.id, rv.rate, rv.ts FROM o LEFT JOIN rv FOR SYSTEM_TIME AS OF o.ts "
                          "ON o.k = rv.pk")
    actual = fold(res.collect(timeout=30))
    con = duck_con({}, [])
    con.execute(f"CREATE VIEW o AS SELECT * FROM read_json('{files[0]}', format = 'newline_delimited', "
                "columns = {'id': 'INTEGER', 'k': 'INTEGER', 'v': 'INTEGER', 'ts': 'TIMESTAMP'})")
    con.execute(f"CREATE VIEW ra AS SELECT * FROM read_json('{rates}', format = 'newline_delimited', "
                "columns = {'i': 'INTEGER', 'pk': 'INTEGER', 'rate': 'INTEGER', 'ts': 'TIMESTAMP'})")
    con.execute("CREATE VIEW kept AS SELECT * FROM ra QUALIFY ts >= COALESCE(MAX(ts) OVER (PARTITION BY pk "
                "ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), ts)")
    con.execute("CREATE VIEW r AS SELECT * FROM kept QUALIFY i = MAX(i) OVER (PARTITION BY pk, ts)")
    expected = duck_rows(con, "SELECT o.id, r.rate, r.ts FROM o ASOF LEFT JOIN r "
                              "ON o.k = r.pk AND o.ts >= r.ts")
    assert_same(actual, expected)
    dropped = duck_rows(con, "SELECT i FROM ra EXCEPT SELECT i FROM r")
    assert dropped, "the data has rows the deduplication drops (older than their key's latest)"


def test_temporal_join_output_keeps_the_probe_rowtime(tmp_path, files):
    """A window aggregate over the join: the probe's rowtime is still a time attribute, no row late."""
    env = _env(tmp_path, files)
    env.execute_sql("CREATE VIEW j AS SELECT o.ts, r.rate FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts "
                    "ON o.k = r.pk")
    res = env.execute_sql("SELECT window_start, SUM(rate) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), "
                          "INTERVAL '10' SECOND)) GROUP BY window_start, window_end")
    actual = fold(res.collect(timeout=30))
    assert res.job.metrics.get("late_records", 0) == 0
    expected = _duck(files, "time_bucket(INTERVAL 10 SECOND, o.ts), SUM(r.rate)", f"WHERE {_LIVE} GROUP BY 1")
    assert_same(actual, expected)


# -- planning -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("sql", "message", "col"), [
    ("SELECT * FROM o RIGHT JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.k = r.pk",
     "A temporal join (FOR SYSTEM_TIME AS OF) can be INNER or LEFT, not RIGHT", 28),
    ("SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.v ON o.k = r.pk",
     "'v' is not an event-time attribute of the left input", 48),
    ("SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts + INTERVAL '1' SECOND ON o.k = r.pk",
     "FOR SYSTEM_TIME AS OF must name the left table's event-time attribute", None),
    ("SELECT * FROM o JOIN p FOR SYSTEM_TIME AS OF o.ts ON o.k = p.pk",
     "Table 'p' has no PRIMARY KEY: a temporal join needs a versioned table", 22),
    ("SELECT * FROM o JOIN q FOR SYSTEM_TIME AS OF o.ts ON o.k = q.pk",
     "Table 'q' has no WATERMARK", 22),
    ("SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts ON o.v = r.rate",
     "must cover the primary key of 'r' (pk); missing: pk", None),
    ("SELECT * FROM o JOIN nk FOR SYSTEM_TIME AS OF o.ts ON o.k = nk.k",
     "Temporal Table Join requires primary key in versioned table, but no primary key can be found.", 22),
    ("SELECT * FROM o JOIN nr FOR SYSTEM_TIME AS OF o.ts ON o.k = nr.pk",
     "but no row time attribute can be found.", 22),
    ("SELECT * FROM r FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'",
     "FOR SYSTEM_TIME AS OF is supported only on the table joined in a temporal join", 21),
])
def test_temporal_join_errors_are_positioned(tmp_path, files, sql, message, col):
    env = _env(tmp_path, files)
    env.execute_sql(f"CREATE TABLE p (pk INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{files[0]}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE q (pk INT, ts TIMESTAMP(3), PRIMARY KEY (pk) NOT ENFORCED) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{files[0]}', 'format' = 'json')")
    env.execute_sql("CREATE VIEW nk AS SELECT * FROM o")  # a rowtime, no key
    env.execute_sql("CREATE VIEW nr AS SELECT pk, rate FROM r")  # a key, no rowtime
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert message in ei.value.message, ei.value.message
    assert ei.value.line == 1
    if col is not None:
        assert ei.value.col == col, ei.value


# -- the operator: versions, retractions, cleanup, restore -----------------------------------------------

SIDE = pa.schema([("k", pa.int32()), ("ts", pa.timestamp("ms")), ("v", pa.string())])
OUT = pa.schema(list(SIDE) + [pa.field(f"{f.name}0", f.type) for f in SIDE])


def _batch(rows, kinds=None) -> Batch:
    k, ts, v = zip(*rows)
    times = pa.array(ts, pa.int64()).cast(pa.timestamp("ms"))
    table = pa.Table.from_arrays([pa.array(k, pa.int32()), times, pa.array(v, pa.string())], schema=SIDE)
    return Batch(table, None if kinds is None else np.array(kinds, np.int8))


def _op(tmp_path, backend_name, join_type="LEFT", name="tj", insert_only=True):
    op = TemporalJoinOperator(join_type, [0], [0], 1, 1, SIDE, SIDE, OUT, insert_only=insert_only)
    return open_operator(op, backend_name, tmp_path / name, "tj-1")


def _out(elements):
    rows = []
    for el in elements:
        if isinstance(el, Batch):
            kinds = el.kind_array().tolist()
            rows += [(RowKind(kd).short, r["v"], r["v0"]) for kd, r in zip(kinds, el.table.to_pylist())]
    return rows


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_versions_out_of_order_same_time_and_retractions(tmp_path, backend_name):
    op, backend = _op(tmp_path, backend_name)
    # versions of key 1 out of order; two at t=20 (the later one wins); a delete at 40
    op.process_batch(_batch([(1, BASE + 20, "v20a"), (1, BASE + 10, "v10"), (1, BASE + 20, "v20b")]), 1)
    op.process_batch(_batch([(1, BASE + 40, "v20b"), (1, BASE + 20, "v20b")],
                            [RowKind.DELETE, RowKind.UPDATE_BEFORE]), 1)  # -U: dropped
    probes = [(1, BASE + 5, "p5"), (1, BASE + 10, "p10"), (1, BASE + 25, "p25"), (1, BASE + 45, "p45"),
              (2, BASE + 30, "p30")]
    assert _out(op.process_batch(_batch(probes), 0)) == []  # nothing before the watermark
    assert _out(op.process_watermark(Watermark(BASE + 9))) == [("+I", "p5", None)]
    assert op.kept() == (4, 3)
    got = _out(op.process_watermark(Watermark(BASE + 50)))
    assert got == [("+I", "p10", "v10"), ("+I", "p25", "v20b"), ("+I", "p45", None), ("+I", "p30", None)]
    assert op.kept() == (0, 0), "versions below the watermark are gone; a trailing delete too"
    assert not [k for k, _ in backend.keyed_state("tj-1").items()], "no entries left: no timers either"
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_inner_join_keeps_the_version_still_valid(tmp_path, backend_name):
    op, backend = _op(tmp_path, backend_name, "INNER")
    op.process_batch(_batch([(1, BASE + 10, "v10"), (1, BASE + 30, "v30")]), 1)
    assert _out(op.process_watermark(Watermark(BASE + 35))) == []
    assert op.kept() == (0, 1), "only the latest version at or below the watermark is kept"
    # a late probe row still joins at the next watermark, against what is kept (as Flink 2.3)
    op.process_batch(_batch([(1, BASE + 33, "p33"), (1, BASE + 20, "late"), (None, BASE + 40, "null")]), 0)
    assert _out(op.process_watermark(Watermark(BASE + 36))) == [("+I", "p33", "v30")]
    assert _out(op.process_watermark(Watermark(MAX_WATERMARK))) == []
    assert op.kept() == (0, 1)
    backend.close()


def test_probe_row_kinds_are_kept(tmp_path):
    op, backend = _op(tmp_path, "hashmap", "LEFT", insert_only=False)
    op.process_batch(_batch([(1, BASE + 10, "v10")]), 1)
    op.process_batch(_batch([(1, BASE + 12, "a"), (1, BASE + 12, "a"), (1, BASE + 5, "b")],
                            [RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_AFTER]), 0)
    got = _out(op.process_watermark(Watermark(MAX_WATERMARK)))
    assert got == [("+I", "a", "v10"), ("-D", "a", "v10"), ("+U", "b", None)]
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_temporal_join_snapshot_restore(tmp_path, backend_name):
    rnd = random.Random(5)
    steps, t = [], BASE
    for i in range(60):
        side = rnd.randint(0, 1)
        rows = []
        for j in range(rnd.randint(1, 3)):
            t += rnd.randint(0, 300)
            rows.append((rnd.randint(1, 3), t - rnd.randint(0, 200), f"{'pv'[side]}{i}_{j}"))
        steps.append(("batch", side, rows))
        steps.append(("wm", None, t - 400))
    steps.append(("wm", None, MAX_WATERMARK))

    def play(op, part):
        out = []
        for what, side, arg in part:
            if what == "batch":
                out += op.process_batch(_batch(arg), side)
            else:
                out += op.process_watermark(Watermark(arg))
        return _out(out)

    ref, rb = _op(tmp_path, backend_name, name="ref")
    expected = play(ref, steps)
    rb.close()
    first, b1 = _op(tmp_path, backend_name, name="first")
    before = play(first, steps[:61])
    assert first.kept()[0] > 0
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    b1.close()
    second, b2 = _op(tmp_path, backend_name, name="second")
    b2.restore(str(tmp_path / "snap"))
    after = play(second, steps[61:])
    b2.close()
    assert Counter(before + after) == Counter(expected)
    assert any(r[2] is None for r in expected) and any(r[2] is not None for r in expected)


def test_debezium_update_before_is_dropped(tmp_path):
    """An update whose before image keeps the old rowtime does not retract that version: Flink
    drops the -U of a versioned source, so a probe row between the two times joins the old one."""
    o = write_jsonl(tmp_path / "o.json", [{"id": 1, "k": 1, "v": 0, "ts": _fmt(BASE + 5000)},
                                          {"id": 2, "k": 1, "v": 0, "ts": _fmt(BASE + 12000)}])
    r = tmp_path / "r.json"
    old = {"pk": 1, "rate": 10, "tag": "a", "ts": _fmt(BASE + 1000)}
    r.write_text("\n".join(json.dumps(e) for e in [
        {"before": None, "after": old, "op": "c"},
        {"before": old, "after": dict(old, rate=11, ts=_fmt(BASE + 10000)), "op": "u"}]) + "\n")
    env = _env(tmp_path, (o, r, None), batch_size=1)
    got = fold(env.execute_sql("SELECT o.id, r.rate FROM o LEFT JOIN r FOR SYSTEM_TIME AS OF o.ts "
                               "ON o.k = r.pk").collect(timeout=30))
    assert got == Counter({(1, 10): 1, (2, 11): 1})

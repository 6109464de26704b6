"""OVER aggregates ordered by a non-time column: Flink's changelogs, DuckDB's tables, restore, p=2.

``over_nontime_flink.json`` is written by ``scripts/flink_over_changelog.py`` (PyFlink 2.3): per
scenario its source rows, its query and the changelog Flink emitted, which StreamSQL must emit
row for row and kind for kind (or, where Flink adds no-op updates, fold to the same table), or
Flink's refusal. The final tables are compared with DuckDB's window functions too, and the
operator's state is snapshotted and restored mid-stream on both backends.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ExecutionError, SqlError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.operators import over_nontime
from streamsql.runtime.operators.over_nontime import NonTimeOverOperator
from streamsql.state.layout import StateFormatError, ValueFormat, encode_keys, with_key_groups
from tests.runtime.harness import open_operator
from tests.runtime.oracle import fold, make_env

FLINK = json.loads((Path(__file__).with_name("over_nontime_flink.json")).read_text())
BACKENDS = ["hashmap", "rocksdb"]


KINDS = {k.short: k for k in RowKind}


def _source(env, tmp_path: Path, name: str, scenario: dict) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in scenario["rows"]))
    key = f", PRIMARY KEY ({scenario['key']}) NOT ENFORCED" if scenario.get("key") else ""
    env.execute_sql(f"CREATE TABLE ev ({scenario['columns']}{key}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = '{scenario['format']}')")


def _changelog(env, query: str) -> list[list]:
    return [[kind.short, *row] for kind, row in env.execute_sql(query)]


def _nan_text(changelog: list[list]) -> list[list]:
    """``changelog`` with each NaN as the text ``'NaN'`` (a NaN equals no other, even in a list)."""
    return [[c if c == c else "NaN" for c in row] for row in changelog]


def _table(changelog: list[list]) -> Counter:
    """The final table of a changelog (``[kind, cells...]`` rows)."""
    return fold([(KINDS[r[0]], tuple(r[1:])) for r in changelog])


@pytest.mark.parametrize("name", sorted(FLINK))
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("blocks", ["one block", "blocks of 2"])
def test_changelog_is_flinks(tmp_path, monkeypatch, name, backend, blocks):
    """Also with a partition cut into blocks of 2 rows and one cached partition (write-back, reread)."""
    scenario = FLINK[name]
    settings = None
    if blocks == "blocks of 2":
        monkeypatch.setattr(over_nontime, "BLOCK_ROWS", 2)
        settings = {"state.cache.max-entries": "1"}
    env = make_env(tmp_path, backend, settings=settings)
    _source(env, tmp_path, name, scenario)
    if scenario["compare"] == "duckdb":  # Flink's job fails by its own fault: test_final_table_is_duckdbs
        assert "NullPointerException" in scenario["flink_error"] or "Cannot invoke" in scenario["flink_error"]
        return
    if "flink_error" in scenario:
        with pytest.raises(SqlError):
            env.execute_sql(scenario["query"])
        return
    if scenario["compare"] == "refused":  # NaN in the ORDER BY column: Flink's order is its arrival's
        with pytest.raises(ExecutionError, match="got NaN: Flink 2.3's comparator takes NaN for equal"):
            _changelog(env, scenario["query"])
        return
    ours = _changelog(env, scenario["query"])
    if scenario["compare"] == "changelog":
        assert _nan_text(ours) == _nan_text(scenario["changelog"])
    else:  # Flink adds no-op -U/+U pairs for AVG (docs/windows.md): same table, fewer rows here
        assert _table(ours) == _table(scenario["changelog"])
        assert len(ours) < len(scenario["changelog"])


#: Scenarios whose input is insert-only with ``id`` in arrival order, and DuckDB's window for them.
DUCK = {
    "rows_count_sum_min": "SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w FROM ev "
                          "WINDOW w AS (PARTITION BY k ORDER BY p NULLS FIRST, id ROWS UNBOUNDED PRECEDING)",
    "range_count_sum": "SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w FROM ev WINDOW w AS "
                       "(PARTITION BY k ORDER BY p NULLS FIRST RANGE UNBOUNDED PRECEDING)",
    "range_no_partition": "SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w FROM ev WINDOW w AS "
                          "(ORDER BY p NULLS FIRST RANGE UNBOUNDED PRECEDING)",
    "rows_avg_max": "SELECT id, k, p, trunc(AVG(v) OVER w)::BIGINT, MAX(v) OVER w, COUNT(v) OVER w FROM ev "
                    "WINDOW w AS (PARTITION BY k ORDER BY p NULLS FIRST, id ROWS UNBOUNDED PRECEDING)",
    "order_by_string": "SELECT id, k, COUNT(*) OVER w, MAX(v) OVER w FROM ev WINDOW w AS (ORDER BY k)",
    # -0.0 and 0.0 are peers (Flink's comparator; its job fails on this input, see the script)
    "order_by_negative_zero_range": "SELECT id, d, COUNT(*) OVER w, SUM(id) OVER w FROM ev "
                                    "WINDOW w AS (ORDER BY d)",
}


@pytest.mark.parametrize("name", sorted(DUCK))
def test_final_table_is_duckdbs(tmp_path, name):
    scenario = FLINK[name]
    env = make_env(tmp_path)
    _source(env, tmp_path, name, scenario)
    ours = _table(_changelog(env, scenario["query"]))
    con = duckdb.connect()
    columns = [c.split() for c in scenario["columns"].split(", ")]
    types = {"INT": pa.int32(), "STRING": pa.string(), "BIGINT": pa.int64(), "DOUBLE": pa.float64()}
    schema = pa.schema([(n, types[t]) for n, t in columns])
    con.register("ev", pa.Table.from_pylist(scenario["rows"], schema=schema))
    assert ours == Counter(con.execute(DUCK[name]).fetchall())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("frame", ["ROWS", "RANGE"])
def test_many_blocks_final_table_is_duckdbs(tmp_path, monkeypatch, backend, frame):
    """600 rows in random ORDER BY order (ties, NULLs) over partitions of many 8-row blocks."""
    monkeypatch.setattr(over_nontime, "BLOCK_ROWS", 8)
    rnd = random.Random(27)
    rows = [{"id": i, "k": f"k{rnd.randrange(3)}", "v": rnd.randrange(-50, 100),
             "p": rnd.choice([None, *range(60)])} for i in range(600)]
    env = make_env(tmp_path, backend, batch_size=37, settings={"state.cache.max-entries": "2"})
    _source(env, tmp_path, "many", {"rows": rows, "columns": "id INT, k STRING, v BIGINT, p INT",
                                    "format": "json"})
    frame_sql = f"{frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    select = "SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w FROM ev WINDOW w AS "
    ours = _table(_changelog(env, f"{select}(PARTITION BY k ORDER BY p {frame_sql})"))
    con = duckdb.connect()
    con.register("ev", pa.Table.from_pylist(rows, schema=pa.schema(
        [("id", pa.int32()), ("k", pa.string()), ("v", pa.int64()), ("p", pa.int32())])))
    ties = ", id" if frame == "ROWS" else ""  # ROWS: peers in arrival order, as Flink
    expected = con.execute(f"{select}(PARTITION BY k ORDER BY p NULLS FIRST{ties} {frame_sql})").fetchall()
    assert ours == Counter(expected)


# -- operator level: snapshot → restore ------------------------------------------------------------

IN_SCHEMA = pa.schema([("k", pa.string()), ("p", pa.int32()), ("v", pa.int64()), ("id", pa.int64())])
OUT_SCHEMA = pa.schema(list(IN_SCHEMA) + [("n", pa.int64()), ("s", pa.int64()), ("lo", pa.int64())])


def _operator(kind: str) -> NonTimeOverOperator:
    aggs = [AggSpec("count_star", None, SqlType("BIGINT")), AggSpec("sum", 2, SqlType("BIGINT")),
            AggSpec("min", 2, SqlType("BIGINT"))]
    return NonTimeOverOperator(OverSpec(kind), 1, 1, aggs, IN_SCHEMA, OUT_SCHEMA)


def _script(seed: int) -> list[Batch]:
    """Batches of inserts and retractions of rows inserted before (a changelog input)."""
    rnd = random.Random(seed)
    live: list[tuple] = []
    batches = []
    for b in range(40):
        rows, kinds = [], []
        for _ in range(rnd.randrange(1, 6)):
            if live and rnd.random() < 0.3:
                rows.append(live.pop(rnd.randrange(len(live))))
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
            else:
                row = (f"k{rnd.randrange(4)}", rnd.choice([None, *range(5)]), rnd.randrange(-9, 30),
                       b * 10 + len(rows))
                live.append(row)
                rows.append(row)
                kinds.append(RowKind.INSERT)
        table = pa.Table.from_pylist([dict(zip(IN_SCHEMA.names, r)) for r in rows], schema=IN_SCHEMA)
        batches.append(Batch(table, pa.array(kinds, pa.int8()).to_numpy()))
    return batches


def _play(op, batches) -> list[tuple]:
    out = []
    for b in batches:
        for el in op.process_batch(b, 0):
            kinds = el.kind_array().tolist()
            out += [(RowKind(k), tuple(r.values())) for k, r in zip(kinds, el.table.to_pylist())]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["ROWS", "RANGE"])
@pytest.mark.parametrize("block_rows", [512, 2])
def test_snapshot_restore_gives_the_uninterrupted_changelog(tmp_path, monkeypatch, backend, kind, block_rows):
    monkeypatch.setattr(over_nontime, "BLOCK_ROWS", block_rows)
    steps = _script(5)
    ref, rb = open_operator(_operator(kind), backend, tmp_path / "ref", "over-agg-nontime-1")
    expected = _play(ref, steps)
    rb.close()
    cut = 23
    first, b1 = open_operator(_operator(kind), backend, tmp_path / "first", "over-agg-nontime-1",
                              config={"state.cache.max-entries": "1"})
    before = _play(first, steps[:cut])
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    _play(first, steps[cut:])  # the first attempt goes on, then "fails": its later output is lost
    b1.close()
    second, b2 = open_operator(_operator(kind), backend, tmp_path / "second", "over-agg-nontime-1")
    b2.restore(str(tmp_path / "snap"))
    after = _play(second, steps[cut:])
    b2.close()
    assert before + after == expected  # the changelog itself, in order: the state held every row
    assert fold(expected)  # something is left to compare


# -- refusals -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("sql", "message", "caret_at"), [
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY p ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev",
     "Non-time attribute sort is not supported for bounded OVER window", "p ROWS"),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY p DESC) FROM ev",
     "The window can only be ordered in ASCENDING mode", "p DESC"),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY p, v) FROM ev",
     "The window can only be ordered by a single time column", "p, v)"),
    ("SELECT COUNT(DISTINCT v) OVER (PARTITION BY k ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND "
     "CURRENT ROW) FROM ev",
     "over a ROWS frame ordered by a column that is no time attribute fails Flink", "COUNT(DISTINCT"),
    ("SELECT LAG(v) OVER (PARTITION BY k ORDER BY p) FROM ev",
     "ordered by a column that is no time attribute fails Flink 2.3's job", "LAG(v)"),
    ("SELECT LISTAGG(k) OVER (PARTITION BY k ORDER BY p) FROM ev",
     "not supported yet; supported there: COUNT, SUM, AVG, MIN, MAX, ROW_NUMBER, RANK", "LISTAGG(k)"),
])
def test_refused_with_a_caret(tmp_path, sql, message, caret_at):
    env = make_env(tmp_path)
    _source(env, tmp_path, "none", {"rows": [], "columns": "id INT, k STRING, v BIGINT, p INT",
                                    "format": "json"})
    with pytest.raises(SqlError, match=message) as err:
        env.execute_sql(sql)
    e = err.value
    assert e.line == 1 and sql[e.col - 1:].startswith(caret_at), (e.col, str(e))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["ROWS", "RANGE"])
def test_a_checkpoint_of_the_one_value_layout_restores(tmp_path, monkeypatch, backend, kind):
    """A partition written whole (session 26's layout) is read as blocks: the changelog goes on."""
    monkeypatch.setattr(over_nontime, "BLOCK_ROWS", 2)
    steps, cut = _script(5), 23
    ref, rb = open_operator(_operator(kind), backend, tmp_path / "ref", "over-agg-nontime-1")
    expected = _play(ref, steps)
    rb.close()
    first, b1 = open_operator(_operator(kind), backend, tmp_path / "first", "over-agg-nontime-1")
    before = _play(first, steps[:cut])
    first.snapshot_state(1)
    # each partition as the one value session 26 wrote: [sort keys, [[row, partials, result, accs]]]
    old_layout = []
    for k in ("k0", "k1", "k2", "k3"):
        key = encode_keys([pa.array([k])], 1)[0]
        directory = with_key_groups([key])[0]
        (raw,) = first.ctx.state.get_many([directory])
        if raw is None:
            continue
        _, ids = over_nontime.OVER_BLOCKS.decode(raw)
        prefix = over_nontime._prefixes([key])[0]
        rows = [e for b in first.ctx.state.get_many([prefix + i.to_bytes(8, "big") for i in ids])
                for e in over_nontime.OVER_ROWS.decode(b)]
        assert len(ids) > 1  # cut into blocks: the conversion joins them
        old_layout.append((directory, ValueFormat("over-nontime/rows", 1).encode(
            [[e[0] for e in rows], [e[1:] for e in rows]])))
    b1.close()
    assert old_layout
    second, b2 = open_operator(_operator(kind), backend, tmp_path / "second", "over-agg-nontime-1",
                               config={"state.cache.max-entries": "1"})
    second.ctx.state.write(old_layout)
    after = _play(second, steps[cut:])
    b2.close()
    assert before + after == expected


def test_a_value_of_another_format_is_refused(tmp_path):
    """A partition directory in a format the operator does not know must not read as empty."""
    op, be = open_operator(_operator("ROWS"), "hashmap", tmp_path / "b", "over-agg-nontime-1")
    key = with_key_groups(encode_keys([pa.array(["k0"])], 1))[0]
    op.ctx.state.write([(key, ValueFormat("over-nontime/test-other", 1).encode([1]))])
    batch = pa.Table.from_pylist([{"k": "k0", "p": 2, "v": 3, "id": 1}], schema=IN_SCHEMA)
    with pytest.raises(StateFormatError):
        op.process_batch(Batch(batch), 0)
    be.close()

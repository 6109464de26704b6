"""The BITMAP type and its 18 functions against Apache Flink 2.3's answers, and their state across restores.

``bitmap_flink.json`` is written by ``scripts/flink_bitmap.py`` (PyFlink, never by hand): per
script, each statement with Flink's kind-tagged rows, the lines its ``print`` sink wrote, or its
error. Each script runs here in one environment, statement by statement: a query's changelog
folded into its final table must equal Flink's folded the same way (each value as the script
writes it: BYTES as ``x'..'`` hex, so BITMAP_TO_BYTES is compared byte for byte); an error where
Flink fails, containing Flink's cause unless ``OURS`` says what ours says instead (and why);
``DIFFERENT`` lists the statements answered otherwise on purpose. The GROUP BY operator with the
BITMAP aggregates, checkpointed and restored on both backends, must give the changelog of an
uninterrupted run, whose final table is the Python oracle's over the rows still live.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from pyroaring import BitMap

from streamsql import StreamEnvironment
from streamsql.core import bitmap
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import StreamSQLError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type
from streamsql.functions.bitmap_aggregates import BITMAP_FUNCTIONS
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.state.layout import decode_value, encode_value
from tests.functions.bitmap_oracle import TSRC_ROWS, collected_text
from tests.runtime.oracle import fold
from tests.runtime.test_group_agg_cache import _run, checkpointed_run, open_group_agg

FLINK = json.loads((Path(__file__).parent / "bitmap_flink.json").read_text())
#: Where ours refuses with other words than Flink's cause: a substring of ours (the why in a comment).
OURS: dict[str, str] = {
    # a string literal is VARCHAR here, CHAR(n) NOT NULL in Calcite (docs/types.md)
    "SELECT CAST('{1,2}' AS BITMAP)":
        "Cast function cannot convert value of type VARCHAR(2147483647) to type BITMAP NOT NULL",
    "SELECT BITMAP_TO_STRING(BITMAP_FROM_BYTES('abc'))":
        "Expected type of family 'BINARY_STRING' but actual type was 'STRING'",
    # Flink's parser stops at the parenthesis; ours names the type
    "CREATE TABLE ddl2 (id INT, bm BITMAP(3)) WITH ('connector' = 'datagen')":
        "Type BITMAP takes no parameters",
    # a ROW's unknown field, in our words (no BITMAP matter: the statement asks whether a ROW holds one)
    "SELECT k, ROW(x, k).k FROM b": "Column 'k' not found in ROW<`EXPR$0` BITMAP, `EXPR$1` INT>",
    # Calcite's 'No match found for function signature BITMAP_BUILD_AGG(<NUMERIC>, <NUMERIC>)'
    "SELECT BITMAP_BUILD_AGG(i, i) FROM g": "Invalid number of arguments to function 'BITMAP_BUILD_AGG'",
    # Flink's job fails in the JVM's ByteBuffer; ours says so, naming the function and the value
    **dict.fromkeys([s["sql"] for s in FLINK["scalars"]
                     if s.get("error") == "java.nio.BufferUnderflowException"],
                    "BITMAP_FROM_BYTES failed on"),
}
#: Where ours answers and Flink's answer differs on purpose: the reason.
DIFFERENT: dict[str, str] = {
    # PyFlink's collect has no Python type for BITMAP ("it is not supported yet in current python type
    # system"); ours collects a BITMAP value as its bytes (BITMAP_TO_BYTES's), docs/types.md "BITMAP"
    **dict.fromkeys([s["sql"] for script in FLINK.values() for s in script
                     if "current python type system" in s.get("error", "")], "PyFlink collects no BITMAP"),
    # a VALUES column is nullable here, NOT NULL in Flink (docs/types.md "Differences from Flink")
    "DESCRIBE bv": "VALUES columns are nullable",
    # TYPEOF takes a view's column only when its type is certain (docs/functions.md TYPEOF)
    next(s["sql"] for s in FLINK["scalars"] if s["sql"].startswith("SELECT TYPEOF(x)")):
        "TYPEOF of a view column",
}


def _fold(rows: list[list]) -> Counter:
    out: Counter = Counter()
    for kind, *values in rows:
        out[tuple(values)] += -1 if kind in ("-U", "-D") else 1
    return +out


def _cause(error: str) -> str:
    """Flink's cause without its exception class (``...Exception: Invalid ...`` → ``Invalid ...``)."""
    head, sep, rest = error.partition(": ")
    while sep and "." in head and " " not in head:  # java.io.IOException: org.roaringbitmap.X: ...
        error = rest
        head, sep, rest = error.partition(": ")
    return error


def _nullable(text: str) -> str:
    return text.replace(" NOT NULL", "")


def _cases():
    for name, statements in FLINK.items():
        for i, st in enumerate(statements):
            yield pytest.param(name, i, id=f"{name}-{i}")


@pytest.mark.parametrize(("script", "index"), list(_cases()))
def test_as_flink(tmp_path, capfd, script, index):
    """Statement ``index`` of ``script`` answers as Flink 2.3 (after the statements before it)."""
    (tmp_path / "tsrc.json").write_text("\n".join(TSRC_ROWS) + "\n")
    env = StreamEnvironment()
    statements = FLINK[script]
    for st in statements[:index]:  # the script's earlier statements: views, tables, sinks
        if st["sql"].startswith(("CREATE", "INSERT")) and "error" not in st:
            _execute(env, st["sql"], tmp_path)
    want = statements[index]
    sql = want["sql"]
    if sql in DIFFERENT:
        pytest.skip(DIFFERENT[sql])
    if "error" in want:
        with pytest.raises(StreamSQLError) as ei:
            result = _execute(env, sql, tmp_path)
            if result is not None:
                list(result.collect(timeout=60))  # a job's failure
        expected = OURS.get(sql, _cause(want["error"]))
        # nullability aside: a VALUES column is nullable here (BITMAP where Flink says BITMAP NOT NULL)
        assert _nullable(expected.rstrip(".")) in _nullable(str(ei.value)), (str(ei.value), want["error"])
        return
    capfd.readouterr()
    result = _execute(env, sql, tmp_path)
    if "print" in want:
        printed = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith(("+", "-"))]
        assert sorted(printed) == want["print"]
    elif "files" in want:
        sub = tmp_path / sql.split()[2].split("_")[1]
        files = sorted(p for p in sub.rglob("*") if p.is_file() and not p.name.startswith("."))
        text = "".join(p.read_text() for p in files)
        assert sorted(text.splitlines()) == want["files"]
    elif result is not None:
        rows = [[kind.short] + [collected_text(v) for v in row] for kind, row in result.collect(timeout=60)]
        if sql.startswith(("CREATE", "SET")):
            return
        assert _fold(rows) == _fold(want["rows"]), sql


def _execute(env: StreamEnvironment, sql: str, folder: Path):
    result = env.execute_sql(sql.replace("${DIR}", str(folder)))
    if sql.startswith("INSERT"):
        result.wait(timeout=120)
        return None
    return result


# -- the codec -------------------------------------------------------------------------------------


def test_bytes_are_flinks_and_read_back():
    """BITMAP_TO_BYTES of Flink's 30-value run (a run container) and of five sparse values, byte for byte."""
    runs = {s["sql"]: s["rows"][0][1] for s in FLINK["scalars"]
            if s["sql"].startswith("SELECT BITMAP_TO_BYTES(BITMAP_BUILD")}
    dense = next(v for q, v in runs.items() if "29, 30" in q)
    sparse = next(v for q, v in runs.items() if "2147483647" in q)
    assert f"x'{bitmap.to_bytes(BitMap(range(1, 31))).hex()}'" == dense
    values = [2147483647, -2147483648, 65535, 65536, 0]
    assert f"x'{bitmap.to_bytes(BitMap(bitmap.element(v) for v in values)).hex()}'" == sparse
    data = bytes.fromhex(sparse[2:-1])
    assert bitmap.from_bytes(data + b"\xff\x00") == BitMap(bitmap.element(v) for v in values)  # tail ignored
    assert bitmap.portable_size(data) == len(data)
    with pytest.raises(bitmap.BitmapFormatError, match="BufferUnderflowException"):
        bitmap.from_bytes(data[:-1])
    with pytest.raises(bitmap.BitmapFormatError, match="right cookies"):
        bitmap.from_bytes(b"\x00" * 8)


def test_text_is_cut_as_roaring_bitmaps_to_string():
    """RoaringBitmap.toString stops past 524,288 characters with ``...``."""
    big = bitmap.text(BitMap(range(10**6, 2 * 10**6)))
    assert big.endswith(",...}") and 0x80000 < len(big) < 0x80000 + 20
    assert bitmap.text(BitMap()) == "{}"


def test_state_keeps_a_bitmap_exactly():
    bm = BitMap([0, 7, 2**32 - 1, *range(100, 5000)])
    acc = [3, bm, {7: 2}]
    back = decode_value(encode_value(acc))
    assert back == acc and isinstance(back[1], BitMap)


# -- checkpoints -----------------------------------------------------------------------------------

_FUNCS = ("bitmap_build_agg", "bitmap_build_cardinality_agg", "bitmap_and_agg", "bitmap_or_cardinality_agg",
          "bitmap_xor_agg", "bitmap_and_cardinality_agg", "bitmap_or_agg", "bitmap_xor_cardinality_agg",
          "bitmap_xor_agg_distinct")
_IN = pa.schema([("k", pa.string()), ("i", pa.int32()), ("b", pa.binary())])


def _bits(i: int) -> bytes:
    return bitmap.to_bytes(BitMap(bitmap.element(v) for v in (i, i + 1, 2 * i, -i)))


def _script(changelog: bool, seed: int, n_batches: int = 24):
    """Batches of (k, i, a bitmap of i); with ``changelog`` also retractions of rows still live."""
    rnd = random.Random(seed)
    live, batches = [], []
    for _ in range(n_batches):
        rows, kinds = [], []
        for _ in range(rnd.randint(1, 20)):
            if changelog and live and rnd.random() < 0.35:
                rows.append(live.pop(rnd.randrange(len(live))))
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
                continue
            i = rnd.choice([None, *range(-4, 12)])
            row = (rnd.choice(["a", "b", "c", "d"]), i, None if i is None or rnd.random() < 0.1 else _bits(i))
            live.append(row)
            rows.append(row)
            ins = [RowKind.INSERT, RowKind.UPDATE_AFTER] if changelog else [RowKind.INSERT]
            kinds.append(rnd.choice(ins))
        table = pa.Table.from_pylist([dict(zip(_IN.names, r)) for r in rows], schema=_IN)
        batches.append(Batch(table, np.array(kinds, np.int8) if changelog else None))
    return batches, live


def _operator(changelog: bool, backend_name: str, workdir, cache_entries):
    aggs = [AggSpec(f + ("_retract" if changelog else ""), 1 if "build" in f else 2,
                    agg_output_type(f, SqlType("INT") if "build" in f else SqlType("BITMAP")))
            for f in _FUNCS]  # XOR(DISTINCT b): its distinct view's counts are state too
    out = pa.schema([("k", pa.string())] + [(f"a{n}", a.out_type.to_arrow()) for n, a in enumerate(aggs)])
    return open_group_agg(GroupAggOperator(1, aggs, _IN, out), backend_name, workdir, cache_entries)


def _oracle(live: list) -> set:
    """Per key, each aggregate's final value from the live rows (bitmaps as sorted tuples)."""
    out = set()
    for k in sorted({r[0] for r in live}):
        values = {bitmap.element(r[1]) for r in live if r[0] == k and r[1] is not None}
        maps = [bitmap.from_bytes(r[2]) for r in live if r[0] == k and r[2] is not None]
        built = tuple(sorted(values)) or None
        inter = tuple(BitMap.intersection(*maps)) if maps else None
        union = tuple(BitMap.union(*maps)) if maps else None
        xor = BitMap()
        for m in maps:
            xor ^= m
        xored = tuple(xor) if maps else None
        distinct = BitMap()
        for data in {r[2] for r in live if r[0] == k and r[2] is not None}:
            distinct ^= bitmap.from_bytes(data)
        size = lambda t: None if t is None else len(t)  # noqa: E731
        out.add((k, built, size(built), inter, size(union), xored, size(inter), union, size(xored),
                 tuple(distinct) if maps else None))
    return out


def _readable(row: tuple) -> tuple:
    return tuple(tuple(bitmap.from_bytes(v)) if isinstance(v, bytes) else v for v in row)


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("cache_entries", [0, None], ids=["no-cache", "default-cache"])
@pytest.mark.parametrize("changelog", [False, True], ids=["insert-only", "changelog"])
def test_bitmap_aggregates_checkpoint_and_restore_exactly(tmp_path, backend_name, cache_entries, changelog):
    batches, live = _script(changelog, seed=11 + changelog)

    def make(workdir):
        return _operator(changelog, backend_name, workdir, cache_entries)

    ref, backend = make(tmp_path / "ref")
    expected = _run(ref, batches)
    backend.close()
    final = {_readable(r) for r in fold([e for batch in expected for e in batch])}
    assert final == _oracle(live)
    assert checkpointed_run(make, batches, tmp_path) == expected


def test_jdbc_refuses_a_bitmap_column_at_planning():
    """No JDBC dialect of Flink 2.3 maps a BITMAP: refused before any connection, naming the column."""
    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE j (k INT, b BITMAP) WITH ('connector' = 'jdbc', "
                    "'url' = 'jdbc:mysql://127.0.0.1:1/none', 'table-name' = 't')")
    with pytest.raises(StreamSQLError, match="doesn't support type: BITMAP \\(column 'b'\\)"):
        env.execute_sql("INSERT INTO j SELECT 1, BITMAP_BUILD(ARRAY[1])").wait(timeout=60)


def test_a_bitmap_inside_a_row_keeps_its_type_through_a_view():
    """A ROW's BITMAP field stays a BITMAP past a view (the Arrow field's metadata carries it)."""
    env = StreamEnvironment()
    env.execute_sql("CREATE TEMPORARY VIEW r AS SELECT k, ROW(BITMAP_BUILD(a), k) AS rr "
                    "FROM (VALUES (1, ARRAY[1, 2, -1])) AS v(k, a)")
    described = {row[0]: row[1] for _, row in env.execute_sql("DESCRIBE r").collect()}
    assert described["rr"] == "ROW<`EXPR$0` BITMAP, `EXPR$1` INT>"
    rows = [row for _, row in env.execute_sql("SELECT BITMAP_TO_STRING(rr.`EXPR$0`) FROM r").collect()]
    assert rows == [("{1,2,4294967295}",)]


# Flink 2.3's own retraction cases (flink-table-planner BitmapAggFunctionITCase, "with retraction"):
# per key, the changelog rows in order ("+" accumulate, "-" retract) and Flink's final value. A
# retraction of a value never added (count below zero) is among them.
_B = [(+1, [1, 3, 5]), (-1, [1, 3, 5]), (+1, None), (+1, [-1, 0, 2, 3, 4]), (-1, [2, 4, 6]),
      (+1, [2, 3, 4, 5, 6]), (+1, [2, 4, 6]), (+1, [2, 4, 6]),
      (+1, [1, 4, 7]), (-1, [1, 4, 7]), (-1, [2, 4, 6]), (+1, [3, 4, 5])]
_C = [(+1, [2, 3, 11]), (+1, [1, 5, 13]), (+1, [-1, -3, 0]), (+1, None), (-1, [-1, -3, 0]),
      (-1, [1, 5, 13]), (-1, None), (-1, [2, 3, 11]), (+1, [1, 2])]
_A = [(+1, [1, 2, 3]), (+1, None), (-1, [1, 2, 3])]
FLINK_RETRACTIONS = {
    "BITMAP_AND_AGG": {"A": None, "B": [3, 4], "C": [1, 2]},
    "BITMAP_OR_AGG": {"A": None, "B": [0, 2, 3, 4, 5, 6, -1], "C": [1, 2]},
    "BITMAP_XOR_AGG": {"A": None, "B": [0, 3, 4, 6, -1], "C": [1, 2]},
}
_BUILD_ROWS = {"A": [(+1, 1), (+1, None), (-1, 1)],
               "B": [(+1, 1), (-1, 1), (+1, None), (+1, 3), (-1, 2), (+1, -1), (+1, 2), (+1, 2), (+1, 1),
                     (-1, 1), (-1, 3), (+1, 1)],
               "C": [(+1, 2), (+1, 1), (+1, -1), (+1, None), (-1, 1), (-1, -1), (-1, None), (-1, 2), (+1, 1)]}


def _fold_rows(func: str, rows: list):
    impl = next(c for c in BITMAP_FUNCTIONS if c.func == func).function.impl
    acc = impl.create_accumulator()
    for sign, v in rows:
        (impl.accumulate if sign > 0 else impl.retract)(acc, v)
    return impl.get_value(acc)


@pytest.mark.parametrize("name", sorted(FLINK_RETRACTIONS))
def test_retractions_as_flinks_own_cases(name):
    for key, rows in (("A", _A), ("B", _B), ("C", _C)):
        args = [(s, None if v is None else _bytes_of(v)) for s, v in rows]
        want = FLINK_RETRACTIONS[name][key]
        got = _fold_rows(name.lower() + "_retract", args)
        assert (None if got is None else [bitmap.signed(v) for v in bitmap.from_bytes(got)]) == \
            (None if want is None else sorted(want, key=bitmap.element)), (name, key)
        card = _fold_rows(name.lower().replace("_agg", "_cardinality_agg") + "_retract", args)
        assert card == (None if want is None else len(want))


def test_build_retractions_as_flinks_own_cases():
    want = {"A": None, "B": [-1, 1, 2], "C": [1]}
    for key, rows in _BUILD_ROWS.items():
        got = _fold_rows("bitmap_build_agg_retract", rows)
        expected = None if want[key] is None else sorted(want[key], key=bitmap.element)
        assert (None if got is None else [bitmap.signed(v) for v in bitmap.from_bytes(got)]) == expected, key
        assert _fold_rows("bitmap_build_cardinality_agg_retract", rows) == (None if expected is None
                                                                             else len(expected))


def _bytes_of(values: list) -> bytes:
    return bitmap.to_bytes(BitMap(bitmap.element(v) for v in values))

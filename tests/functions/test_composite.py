"""ROW, ARRAY and MAP: types, JSON decoding, nested access, constructors, printing, errors.

Expected texts are Flink 2.3's (its print sink and CAST output for the same values, recorded
with PyFlink while writing tests/compat/cases/composite_*); whole queries are compared with Flink
by those compat cases.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.print_sink import format_rows

from streamsql import StreamEnvironment
from streamsql.core.elements import Batch
from streamsql.core.errors import BadRecordError, SqlError
from streamsql.core.types import Schema, SqlType, assignable
from tests.connectors.helpers import schema_of

ROWS = [
    '{"id": 1, "p": {"x": 1, "s": "a", "ts": "2024-01-01 10:00:00.123"}, "a": [1, 2, 3], "m": {"k": 1}, '
    '"ra": [{"x": 5, "s": "q"}]}',
    '{"id": 2, "p": {"x": null, "s": "b,c"}, "a": [], "m": {}, "ra": []}',
    '{"id": 3, "p": null, "a": null, "m": null, "ra": null}',
    '{"id": 5, "p": {"x": 7, "s": null, "extra": 1}, "a": [null, 4], "m": {"k": null}}',
]
DDL = ("CREATE TABLE s (id INT, p ROW<x INT, s STRING, ts TIMESTAMP(3)>, a ARRAY<INT>, m MAP<STRING, INT>, "
       "ra ARRAY<ROW<x INT, s STRING>>) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")


@pytest.fixture
def env(tmp_path):
    (tmp_path / "s.json").write_text("\n".join(ROWS) + "\n")
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as e:
        e.execute_sql(DDL.replace("{path}", str(tmp_path / "s.json")))
        yield e


def LOC(i: int) -> str:
    return f"topic[0]@{i}"


def query(env, sql: str) -> list[tuple]:
    return sorted((row for _, row in env.execute_sql(sql).collect(timeout=30)), key=str)


def test_type_text_round_trips_and_maps_to_arrow():
    t = SqlType.parse("ROW(a INT, `b c` ARRAY<ROW<z DECIMAL(10, 2)>>, m MAP<STRING, BIGINT>) NOT NULL")
    assert t.sql() == "ROW<`a` INT, `b c` ARRAY<ROW<`z` DECIMAL(10, 2)>>, `m` MAP<STRING, BIGINT>> NOT NULL"
    assert SqlType.parse(t.sql()) == t
    inner = pa.list_(pa.struct([pa.field("z", pa.decimal128(10, 2))]))
    assert t.to_arrow() == pa.struct([pa.field("a", pa.int32()), pa.field("b c", inner),
                                      pa.field("m", pa.map_(pa.string(), pa.int64()))])
    assert SqlType.from_arrow(t.to_arrow()) == t.with_nullable(True)
    with pytest.raises(SqlError, match="needs its parts"):
        SqlType.parse("ARRAY")


def test_rows_assign_by_position_as_flink():
    src = SqlType.parse("ROW<EXPR$0 INT, EXPR$1 STRING>")
    assert assignable(src, SqlType.parse("ROW<a BIGINT, b STRING>"))
    assert not assignable(src, SqlType.parse("ROW<a STRING, b STRING>"))
    assert not assignable(SqlType.parse("ARRAY<INT>"), SqlType.parse("MAP<INT, INT>"))


def test_print_text_is_flinks():
    schema = Schema(list(schema_of(p="ROW<x INT, s STRING, ts TIMESTAMP(3)>", a="ARRAY<INT>",
                                   m="MAP<STRING, INT>", ra="ARRAY<ROW<x INT, s STRING>>",
                                   aa="ARRAY<ARRAY<INT>>")))
    data = {"p": [{"x": 1, "s": "a", "ts": dt.datetime(2024, 1, 1, 10, 0, 0, 123000)},
                  {"x": None, "s": "b,c", "ts": None}, None],
            "a": [[1, 2, 3], [], None], "m": [[("k", 1)], [], [("k", None)]],
            "ra": [[{"x": 5, "s": "q"}], [], None], "aa": [[[1], [2, 3]], [], None]}
    table = pa.Table.from_pydict(data, schema=schema.to_arrow())
    assert format_rows(Batch(table.slice(0), None), schema) == [
        "+I[+I[1, a, 2024-01-01T10:00:00.123], [1, 2, 3], {k=1}, [+I[5, q]], [[1], [2, 3]]]",
        "+I[+I[null, b,c, null], [], {}, [], []]",
        "+I[null, null, {k=null}, null, null]",
    ]
    assert format_rows(Batch(table.slice(1), None), schema)[0] == "+I[+I[null, b,c, null], [], {}, [], []]"


def test_json_decodes_nested_values_fast_and_slow():
    s = schema_of(p="ROW<x INT, ts TIMESTAMP(3)>", a="ARRAY<DECIMAL(3, 1)>", m="MAP<STRING, STRING>")
    dec = make_decoder("json", s, {})
    fast = dec.decode([b'{"p": {"x": 1, "ts": "2024-01-01 00:00:00.1239"}, "a": [1.5]}'], LOC)
    assert fast.table.to_pylist() == [{"p": {"x": 1, "ts": dt.datetime(2024, 1, 1, 0, 0, 0, 123000)},
                                       "a": [Decimal("1.5")], "m": None}]
    slow = dec.decode([b'{"p": {"x": "2"}, "a": [1.25, null], "m": {"7": "x"}}'], LOC)
    assert slow.table.to_pylist() == [{"p": {"x": 2, "ts": None}, "a": [Decimal("1.3"), None],
                                       "m": [("7", "x")]}]
    with pytest.raises(BadRecordError, match="field 'p'.*expected a JSON object"):
        dec.decode([b'{"p": [1]}'], LOC)
    lenient = make_decoder("json", s, {"json.ignore-parse-errors": "true"})
    b = lenient.decode([b'{"p": {"x": "bad"}}', b'{"a": [2]}', b'{"p": ['], None)
    # Flink: the bad nested field is NULL and the row kept; JSON that does not parse is skipped
    assert b.table.to_pylist() == [{"p": {"x": None, "ts": None}, "a": None, "m": None},
                                   {"p": None, "a": [Decimal("2")], "m": None}]
    assert lenient.skipped == 1


def test_nested_access_and_constructors(env):
    rows = query(env, "SELECT id, p.x, s.p.s, p['s'], x + 1, a[2], a[id], m['k'], CARDINALITY(a), "
                      "CARDINALITY(m), ra[1].x, ROW(id, 'q'), ARRAY[id, 2], MAP['k', id] FROM s")
    assert rows == sorted([
        (1, 1, "a", "a", 2, 2, 1, 1, 3, 1, 5, {"EXPR$0": 1, "EXPR$1": "q"}, [1, 2], [("k", 1)]),
        (2, None, "b,c", "b,c", None, None, None, None, 0, 0, None, {"EXPR$0": 2, "EXPR$1": "q"}, [2, 2],
         [("k", 2)]),
        (3, None, None, None, None, None, None, None, None, None, None, {"EXPR$0": 3, "EXPR$1": "q"}, [3, 2],
         [("k", 3)]),
        (5, 7, None, None, 8, 4, None, None, 2, 1, None, {"EXPR$0": 5, "EXPR$1": "q"}, [5, 2], [("k", 5)]),
    ], key=str)


def test_group_by_and_filter_on_nested_fields(env):
    assert query(env, "SELECT p.x, COUNT(*) FROM s WHERE p.s IS NOT NULL OR p IS NULL GROUP BY p.x") == \
        sorted([(1, 1), (None, 2)], key=str)


def test_element_fails_the_job_for_several_elements(env):
    assert query(env, "SELECT id, ELEMENT(ra) FROM s WHERE id <> 1") == \
        sorted([(2, None), (3, None), (5, None)], key=str)
    with pytest.raises(Exception, match="Array has more than one element"):
        query(env, "SELECT ELEMENT(a) FROM s")


def test_map_with_a_null_key_fails_the_job_at_its_position(env):
    """Flink 2.3 keeps a NULL key (query fuzz seed 400135: MAP_ENTRIES(MAP[g, k]) of a NULL g lists
    ``(NULL, 1)``); ours cannot hold one, so the job fails naming the MAP[...], never drops the entry."""
    assert query(env, "SELECT id, CARDINALITY(MAP[p.s, id]) FROM s WHERE p.s IS NOT NULL") == [(1, 1), (2, 1)]
    with pytest.raises(Exception, match=r"MAP\[\.\.\.\] \(its first key at line 1, column 28\) has a NULL "
                                        "key: Flink 2.3 keeps a NULL key in a map"):
        query(env, "SELECT id, MAP_ENTRIES(MAP['k', id, p.s, id]) FROM s")


@pytest.mark.parametrize("sql, message, col", [
    ("SELECT p.zz FROM s", "Column 'p.zz' not found in table 's'", 10),
    ("SELECT a[0] FROM s", "Array element access needs an index starting at 1 but was 0.", 8),
    ("SELECT a[-1] FROM s", "Array element access needs an index starting at 1 but was -1.", 8),
    ("SELECT m[1] FROM s", "Cannot apply 'ITEM' to arguments of type 'ITEM(<MAP<STRING, INT>>, <INT>)'", 8),
    ("SELECT a['x'] FROM s", "Cannot apply 'ITEM' to arguments of type 'ITEM(<ARRAY<INT>>, <STRING>)'", 8),
    ("SELECT CARDINALITY(p) FROM s", "No match found for function signature CARDINALITY(<ROW>)", 8),
    ("SELECT id.x FROM s", "Cannot read field 'x' of 'id' of type INT", 11),
    ("SELECT * FROM UNNEST(ARRAY[1, 2]) AS u(e)", "UNNEST without a table before it is not supported", 38),
])
def test_refused_at_their_position(env, sql, message, col):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert ei.value.message.startswith(message), ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)


def test_unnest_arrays_maps_and_rows(env):
    assert query(env, "SELECT id, e, o FROM s CROSS JOIN UNNEST(a) WITH ORDINALITY AS u(e, o)") == \
        sorted([(1, 1, 1), (1, 2, 2), (1, 3, 3), (5, None, 1), (5, 4, 2)], key=str)
    assert query(env, "SELECT id, k, v FROM s, UNNEST(m) AS kv(k, v)") == \
        sorted([(1, "k", 1), (5, "k", None)], key=str)
    assert query(env, "SELECT id, x, y FROM s CROSS JOIN UNNEST(ra) AS r(x, y)") == [(1, 5, "q")]
    assert query(env, "SELECT id, e FROM s LEFT JOIN UNNEST(a) AS u(e) ON TRUE WHERE id < 4") == \
        sorted([(1, 1), (1, 2), (1, 3), (2, None), (3, None)], key=str)


@pytest.mark.parametrize("sql, message", [
    ("SELECT e FROM s CROSS JOIN UNNEST(id) AS u(e)", "UNNEST needs an ARRAY or a MAP, not INT"),
    ("SELECT e FROM s CROSS JOIN UNNEST(a) AS u(e, f)", "List of column aliases must have same degree"),
    ("SELECT e FROM s JOIN UNNEST(a) AS u(e) ON e > 1", "A join with UNNEST takes ON TRUE only"),
])
def test_unnest_refusals(env, sql, message):
    with pytest.raises(SqlError, match=message):
        env.execute_sql(sql)


def test_rows_compare_by_position(env):
    assert query(env, "SELECT id FROM s WHERE p = ROW(1, 'a', TIMESTAMP '2024-01-01 10:00:00.123')") == [(1,)]
    assert query(env, "SELECT id FROM s WHERE a = ARRAY[1, 2, 3] OR a <> a") == [(1,)]
    assert query(env, "SELECT id FROM s WHERE p IN (ROW(7, 'z', NULL), ROW(1, 'a', TIMESTAMP "
                      "'2024-01-01 10:00:00.123'))") == [(1,)]


def test_client_text_of_composites():
    from streamsql.output import format_value

    assert format_value({"x": 1, "s": None, "ok": True}) == "(1, NULL, TRUE)"
    assert format_value([1, None]) == "[1, NULL]"
    assert format_value([("k", 1), ("j", None)]) == "{k=1, j=NULL}"
    assert format_value([{"x": 5}]) == "[(5)]"
    assert format_value(None) == "<NULL>"


def test_case_and_coalesce_take_row_fields_by_position(env):
    rows = query(env, "SELECT id, CASE WHEN id = 1 THEN p ELSE ROW(9, 'z', CAST(NULL AS TIMESTAMP(3))) END, "
                      "COALESCE(p, ROW(8, 'y', CAST(NULL AS TIMESTAMP(3)))).s FROM s WHERE id IN (1, 3)")
    ts = dt.datetime(2024, 1, 1, 10, 0, 0, 123000)
    assert rows == [(1, {"x": 1, "s": "a", "ts": ts}, "a"), (3, {"x": 9, "s": "z", "ts": None}, "y")]


def test_joins_on_nested_fields_carry_composite_columns(env):
    assert query(env, "SELECT l.id, r.a, r.m FROM s AS l JOIN s AS r ON l.p.x = r.id") == \
        [(1, [1, 2, 3], [("k", 1)])]
    assert query(env, "SELECT l.id, r.p.s, l.p FROM s AS l JOIN s AS r ON l.id = r.id + 4") == \
        [(5, "a", {"x": 7, "s": None, "ts": None})]


def test_ranking_and_distinct_over_composite_columns(env):
    assert query(env, "SELECT id, a FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY p.s IS NULL "
                      "ORDER BY id DESC) AS rn FROM s) WHERE rn <= 1") == [(2, []), (5, [None, 4])]
    assert query(env, "SELECT COUNT(DISTINCT a), COUNT(DISTINCT p) FROM s") == [(3, 3)]


def test_braces_in_string_elements_are_text(env):
    # The constructors' DuckDB SQL went through str.format: ARRAY['{x}'] failed with KeyError('x').
    rows = query(env, "SELECT ARRAY['{x}', '}'], MAP['{', 1]['{'], ROW('{0}', id).EXPR$0 FROM s WHERE id = 1")
    assert rows == [(["{x}", "}"], 1, "{0}")]


@pytest.mark.parametrize(("expr", "flink"), [
    # Flink 2.3's planner (PyFlink 2.3, 2026-12-04): the first FLOAT or DOUBLE met wins
    ("ARRAY[CAST(1.5 AS FLOAT), CAST(2.5 AS DOUBLE)]", "ARRAY<FLOAT>"),
    ("ARRAY[CAST(2.5 AS DOUBLE), CAST(1.5 AS FLOAT)]", "ARRAY<DOUBLE>"),
    ("ARRAY[1.5, CAST(1.5 AS FLOAT)]", "ARRAY<DOUBLE>"),
    ("ARRAY[1, CAST(1.5 AS FLOAT), 2.5]", "ARRAY<DOUBLE>"),
    ("MAP[CAST(1.5 AS FLOAT), CAST(2.5 AS DOUBLE), CAST(2.5 AS DOUBLE), CAST(1.5 AS FLOAT)]",
     "MAP<FLOAT, DOUBLE>"),
])
def test_constructor_element_type_is_calcites_least_restrictive(env, expr, flink):
    # ARRAY[FLOAT, DOUBLE] was ARRAY<DOUBLE> here (found by the difference fuzzer, seed 21,
    # generator 3: ARRAY_MAX(ARRAY[FLOOR(CAST(1.1 AS FLOAT)), SIN(m % 7), d]) is a FLOAT in Flink)
    env.execute_sql(f"CREATE VIEW v AS SELECT {expr} AS c FROM s")
    assert env.execute_sql("DESCRIBE v").rows[0][1] == flink

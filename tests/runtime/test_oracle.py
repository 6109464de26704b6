"""Streaming results checked against DuckDB running the same query as a batch over the same rows.

Each test writes seeded rows (NULLs, negatives, DECIMAL(10,2), strings) to a JSON-lines file,
declares it as a ``filesystem`` table, runs a query through :class:`StreamEnvironment`, folds the
changelog (+I/+U add a row, -U/-D remove one; retracting an absent row fails) and compares the
folded multiset with DuckDB's answer over the same file (``read_json`` with explicit types).
"""

from __future__ import annotations

import tempfile
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from tests.runtime.oracle import (
    COLUMNS,
    assert_same,
    create_table,
    duck_con,
    duck_rows,
    gen_rows,
    make_env,
    simulate_changelog,
    stream_rows,
    write_debezium,
    write_jsonl,
)

BACKENDS = ["hashmap", "rocksdb"]
N_ROWS = 300


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("oracle")
    return write_jsonl(d / "t.json", gen_rows(seed=20240611, n=N_ROWS))


def check(tmp_path, data, sql, duck_sql=None, backend="hashmap", batch_size=None, extra_ddl=()):
    env = make_env(tmp_path, backend, batch_size)
    create_table(env, "t", data)
    for ddl in extra_ddl:
        env.execute_sql(ddl)
    actual = stream_rows(env, sql)
    con = duck_con({"t": data})
    for ddl in extra_ddl:
        if ddl.upper().startswith("CREATE VIEW"):
            con.execute(ddl)
    expected = duck_rows(con, duck_sql or sql)
    assert_same(actual, expected, sql)
    return actual


# -- stateless ---------------------------------------------------------------------------------

PROJECTIONS = [
    # arithmetic (no division: Flink's integer division differs from DuckDB's `/`)
    ("SELECT id, x + 1, x * 2 - b, -x, x % 7, d * 2, d + CAST(x AS DECIMAL(10,2)), f * 2.5 FROM t", None),
    ("SELECT id, CASE WHEN x > 0 THEN 'pos' WHEN x < 0 THEN 'neg' ELSE 'zero-or-null' END AS sign, "
     "CASE g WHEN 'a' THEN 1 WHEN 'b' THEN 2 ELSE 0 END FROM t", None),
    ("SELECT id, COALESCE(x, k, -1), COALESCE(s, 'none'), COALESCE(d, 0) FROM t", None),
    ("SELECT id, CAST(x AS BIGINT), CAST(d AS DOUBLE), CAST(x AS STRING), CAST(x AS DECIMAL(10,2)) FROM t",
     "SELECT id, CAST(x AS BIGINT), CAST(d AS DOUBLE), CAST(x AS VARCHAR), CAST(x AS DECIMAL(10,2)) FROM t"),
    ("SELECT id, SUBSTR(s, 2, 3), UPPER(s), LOWER(g), CONCAT(s, '-', g), s || '!' || g FROM t",
     # Flink's CONCAT is NULL when any argument is NULL: DuckDB's || behaves so, its concat() doesn't.
     "SELECT id, SUBSTR(s, 2, 3), UPPER(s), LOWER(g), s || '-' || g, s || '!' || g FROM t"),
    ("SELECT * FROM t", None),
]


@pytest.mark.parametrize(("sql", "duck_sql"), PROJECTIONS, ids=lambda v: (v or "")[:40])
def test_projection(tmp_path, data, sql, duck_sql):
    check(tmp_path, data, sql, duck_sql, batch_size=7)


def test_cast_to_integer_truncates(tmp_path, data):
    # Flink casts DECIMAL/DOUBLE → INT/BIGINT by truncating toward zero (Java's narrowing, as
    # BigDecimal.longValue()): CAST(840.95 AS INT) = 840, CAST(-1.5 AS INT) = -1. DuckDB's CAST
    # rounds half away from zero, so the oracle truncates first.
    check(tmp_path, data, "SELECT id, CAST(d AS INT), CAST(f AS BIGINT), CAST(d AS BIGINT) FROM t",
          "SELECT id, CAST(trunc(d) AS INT), CAST(trunc(f) AS BIGINT), CAST(trunc(d) AS BIGINT) FROM t")


FILTERS = [
    "SELECT id, x FROM t WHERE x > 0",
    "SELECT id, x, s FROM t WHERE x > 0 AND s IS NOT NULL",
    "SELECT id, d, g FROM t WHERE d < 0 OR g = 'a'",
    "SELECT id FROM t WHERE NOT (x > 100)",  # NULL x: NOT NULL is NULL → filtered out
    "SELECT id, k FROM t WHERE k IN (-1, 0, 2) AND x BETWEEN -500 AND 500",
    "SELECT id, s FROM t WHERE s LIKE '%an%' OR s = ''",
    "SELECT id, g FROM t WHERE g <> 'a'",
    "SELECT id FROM t WHERE 1 = 0",
]


@pytest.mark.parametrize("sql", FILTERS, ids=lambda v: v[:50])
def test_filter(tmp_path, data, sql):
    check(tmp_path, data, sql, batch_size=7)


# -- aggregation over an insert-only input ------------------------------------------------------

ALL_AGGS = ("COUNT(*) AS c, COUNT(x) AS cx, COUNT(DISTINCT x) AS cdx, SUM(x) AS sx, MIN(x) AS mnx, "
            "MAX(x) AS mxx, AVG(x) AS ax, SUM(d) AS sd, MIN(d) AS mnd, MAX(d) AS mxd, AVG(d) AS ad, "
            "MIN(s) AS mns, MAX(s) AS mxs, SUM(b) AS sb, SUM(f) AS sf")
# AVG of an INT is an INT in Flink, truncated toward zero; DuckDB's is a DOUBLE.
DUCK_ALL_AGGS = ALL_AGGS.replace("AVG(x)", "trunc(AVG(x))")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [7, None], ids=["batch7", "batch-default"])
def test_group_by_all_aggregates(tmp_path, data, backend, batch_size):
    check(tmp_path, data, f"SELECT g, {ALL_AGGS} FROM t GROUP BY g",
          f"SELECT g, {DUCK_ALL_AGGS} FROM t GROUP BY g", backend=backend, batch_size=batch_size)


@pytest.mark.parametrize("backend", BACKENDS)
def test_group_by_two_keys_with_nulls(tmp_path, data, backend):
    check(tmp_path, data, "SELECT g, k, COUNT(*), SUM(d), MAX(x), COUNT(DISTINCT s) FROM t GROUP BY g, k",
          backend=backend, batch_size=7)


def test_group_by_expression(tmp_path, data):
    check(tmp_path, data, "SELECT UPPER(g) AS ug, k % 2 AS parity, COUNT(*), SUM(x * 2) FROM t "
                          "GROUP BY UPPER(g), k % 2", batch_size=7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_having(tmp_path, data, backend):
    # Groups cross the HAVING threshold as rows arrive: a group's row must be retracted or
    # inserted as it moves in and out of the result.
    check(tmp_path, data, "SELECT g, k, COUNT(*) AS c, SUM(x) AS sx FROM t GROUP BY g, k "
                          "HAVING COUNT(*) > 8 AND SUM(x) > 0", backend=backend, batch_size=7)


def test_having_on_aggregate_not_selected(tmp_path, data):
    check(tmp_path, data, "SELECT g FROM t GROUP BY g HAVING MAX(d) > 900", batch_size=7)


def test_post_aggregation_arithmetic(tmp_path, data):
    check(tmp_path, data, "SELECT g, SUM(x) + COUNT(*) AS a, MAX(x) - MIN(x) AS spread FROM t GROUP BY g",
          batch_size=7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [7, None], ids=["batch7", "batch-default"])
def test_global_aggregation(tmp_path, data, backend, batch_size):
    actual = check(tmp_path, data, "SELECT COUNT(*), COUNT(s), SUM(d), MIN(x), MAX(x), AVG(d), "
                                   "COUNT(DISTINCT g) FROM t", backend=backend, batch_size=batch_size)
    assert sum(actual.values()) == 1


def test_global_aggregation_with_where(tmp_path, data):
    check(tmp_path, data, "SELECT COUNT(*), SUM(x), MAX(s) FROM t WHERE d > 0 AND s IS NOT NULL",
          batch_size=7)


def test_union_all_of_two_filtered_scans(tmp_path, data):
    check(tmp_path, data, "SELECT id, x, g FROM t WHERE x > 500 UNION ALL SELECT id, x, g FROM t "
                          "WHERE g = 'a' OR x IS NULL", batch_size=7)


def test_aggregation_over_union_all(tmp_path, data):
    check(tmp_path, data, "SELECT g, COUNT(*), SUM(x) FROM (SELECT g, x FROM t WHERE x > 0 UNION ALL "
                          "SELECT g, x FROM t WHERE k = 1) GROUP BY g", batch_size=7)


@pytest.mark.parametrize("backend", BACKENDS)
def test_aggregation_over_view(tmp_path, data, backend):
    view = ("CREATE VIEW pos AS SELECT g, x, d, UPPER(s) AS us FROM t WHERE x >= 0")
    check(tmp_path, data, "SELECT g, COUNT(*), MAX(us), SUM(d), MIN(x) FROM pos GROUP BY g",
          backend=backend, batch_size=7, extra_ddl=[view])


def test_aggregation_over_subquery(tmp_path, data):
    check(tmp_path, data, "SELECT parity, COUNT(*), SUM(y) FROM (SELECT x % 2 AS parity, x * 3 AS y FROM t) "
                          "GROUP BY parity", batch_size=7)


def test_aggregation_of_aggregation(tmp_path, data):
    # The outer aggregate consumes the inner one's -U/+U stream.
    check(tmp_path, data, "SELECT c, COUNT(*) AS n_groups, SUM(sx) FROM (SELECT g, k, COUNT(*) AS c, "
                          "SUM(x) AS sx FROM t GROUP BY g, k) GROUP BY c", batch_size=7)


# -- aggregation over a changelog input (debezium-json) -----------------------------------------

@pytest.fixture(scope="module")
def changelog(tmp_path_factory):
    d = tmp_path_factory.mktemp("cdc")
    events, final = simulate_changelog(seed=7, n_events=400)
    assert any(r["g"] == "a" for r in final.values()) and not any(r["g"] == "b" for r in final.values())
    cdc = write_debezium(d / "cdc.json", events)
    snapshot = write_jsonl(d / "final.json", sorted(final.values(), key=lambda r: r["id"]))
    return cdc, snapshot


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [7, None], ids=["batch7", "batch-default"])
def test_changelog_aggregation(tmp_path, changelog, backend, batch_size):
    cdc, snapshot = changelog
    env = make_env(tmp_path, backend, batch_size)
    create_table(env, "cdc", cdc, fmt="debezium-json")
    sql = f"SELECT g, {ALL_AGGS} FROM cdc GROUP BY g"
    actual = stream_rows(env, sql)
    expected = duck_rows(duck_con({"cdc": snapshot}), f"SELECT g, {DUCK_ALL_AGGS} FROM cdc GROUP BY g")
    assert_same(actual, expected, sql)
    assert not any(r[0] == "b" for r in actual), "group 'b' lost all its rows but is still in the result"


def test_changelog_projection_and_filter(tmp_path, changelog):
    cdc, snapshot = changelog
    env = make_env(tmp_path, "hashmap", 7)
    create_table(env, "cdc", cdc, fmt="debezium-json")
    sql = "SELECT id, g, x * 2, COALESCE(s, '?') FROM cdc WHERE x > 0 OR g = 'a'"
    assert_same(stream_rows(env, sql), duck_rows(duck_con({"cdc": snapshot}), sql), sql)


def test_changelog_global_aggregation(tmp_path, changelog):
    cdc, snapshot = changelog
    env = make_env(tmp_path, "rocksdb", 7)
    create_table(env, "cdc", cdc, fmt="debezium-json")
    sql = "SELECT COUNT(*), SUM(d), MAX(x), MIN(s), COUNT(DISTINCT g) FROM cdc"
    assert_same(stream_rows(env, sql), duck_rows(duck_con({"cdc": snapshot}), sql), sql)


# Multiset states over several columns of one type share one DuckDB query per batch (their
# columns unnested side by side, Aggregates.multiset_queries): each state must still fold only
# its own column's values. INT x/k, VARCHAR g/s, DECIMAL d; filters as Nexmark's q15.
MULTISET_AGGS = ("COUNT(DISTINCT x) AS cdx, COUNT(DISTINCT x) FILTER (WHERE d > 0) AS cdxp, "
                 "COUNT(DISTINCT k) AS cdk, COUNT(DISTINCT k) FILTER (WHERE x < 0) AS cdkn, "
                 "MIN(k) AS mnk, MAX(x) AS mxx, MIN(x) AS mnx, COUNT(DISTINCT g) AS cdg, MIN(s) AS mns, "
                 "MAX(g) AS mxg, COUNT(DISTINCT s) FILTER (WHERE k > 2) AS cdsk, COUNT(DISTINCT d) AS cdd")


@pytest.mark.parametrize("backend", BACKENDS)
def test_changelog_multisets_of_one_type(tmp_path, changelog, backend):
    cdc, snapshot = changelog
    env = make_env(tmp_path, backend, 7)
    create_table(env, "cdc", cdc, fmt="debezium-json")
    for sql in (f"SELECT g, {MULTISET_AGGS} FROM cdc GROUP BY g", f"SELECT {MULTISET_AGGS} FROM cdc"):
        assert_same(stream_rows(env, sql), duck_rows(duck_con({"cdc": snapshot}), sql), sql)


def test_distinct_filters_of_one_type(tmp_path, data):
    check(tmp_path, data, f"SELECT k % 3 AS m, {MULTISET_AGGS} FROM t GROUP BY k % 3", batch_size=7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [1, 3, 100])
def test_changelog_min_max_retraction_by_hand(tmp_path, backend, batch_size):
    """A small changelog whose final result is worked out by hand."""
    def r(i, g, x, d):
        return {"id": i, "g": g, "k": None, "x": x, "b": None, "d": Decimal(d) if d else None, "f": None,
                "s": None}
    events = [
        ("c", None, r(1, "a", 10, "1.50")),
        ("c", None, r(2, "a", 30, "-2.25")),
        ("c", None, r(3, "a", 20, None)),
        ("c", None, r(4, "b", 5, "9.99")),
        ("c", None, r(5, "b", 6, "0.01")),
        ("d", r(2, "a", 30, "-2.25"), None),               # the MAX(x) and MIN(d) of 'a' go away
        ("u", r(4, "b", 5, "9.99"), r(4, "c", 5, "9.99")),  # 4 moves to 'c'
        ("d", r(5, "b", 6, "0.01"), None),                  # 'b' is now empty: it must disappear
        ("u", r(1, "a", 10, "1.50"), r(1, "a", 10, "1.75")),
    ]
    cdc = write_debezium(tmp_path / "cdc.json", events)
    env = make_env(tmp_path, backend, batch_size)
    create_table(env, "cdc", cdc, fmt="debezium-json")
    query = "SELECT g, COUNT(*), MAX(x), MIN(x), MIN(d), MAX(d), SUM(d) FROM cdc GROUP BY g"
    actual = stream_rows(env, query)
    assert actual == Counter({
        ("a", 2, 20, 10, Decimal("1.75"), Decimal("1.75"), Decimal("1.75")): 1,
        ("c", 1, 5, 5, Decimal("9.99"), Decimal("9.99"), Decimal("9.99")): 1,
    })


# -- property test -----------------------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_row = st.fixed_dictionaries({
    "g": st.one_of(st.none(), st.sampled_from(["a", "b", "c", ""])),
    "x": st.one_of(st.none(), st.integers(-2**31, 2**31 - 1)),
    "d": st.one_of(st.none(), st.decimals(min_value=-99_999_999, max_value=99_999_999, places=2,
                                          allow_nan=False, allow_infinity=False)),
})
_PROP_COLS = [("id", "INT", "INTEGER"), ("g", "STRING", "VARCHAR"), ("x", "INT", "INTEGER"),
              ("d", "DECIMAL(10,2)", "DECIMAL(10,2)")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(_row, min_size=1, max_size=40), batch_size=st.integers(1, 6),
       backend=st.sampled_from(BACKENDS))
def test_property_group_by_matches_duckdb(rows, batch_size, backend):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = write_jsonl(tmp / "t.json", [{"id": i, **r} for i, r in enumerate(rows)])
        env = make_env(tmp, backend, batch_size)
        create_table(env, "t", path, columns=_PROP_COLS)
        sql = ("SELECT g, COUNT(*), COUNT(x), SUM(CAST(x AS BIGINT)), MIN(x), MAX(x), SUM(d), MIN(d), MAX(d) "
               "FROM t GROUP BY g")
        actual = stream_rows(env, sql)
        expected = duck_rows(duck_con({"t": path}, _PROP_COLS), sql)
        assert_same(actual, expected, sql)


def test_columns_cover_the_brief():
    """The generated data really has NULLs, negatives, decimals and strings in it."""
    rows = gen_rows(seed=20240611, n=N_ROWS)
    for c, _, _ in COLUMNS[1:]:
        assert any(r[c] is None for r in rows), c
    assert any(r["x"] is not None and r["x"] < 0 for r in rows)
    assert any(r["d"] is not None and r["d"] < 0 for r in rows)


def test_global_aggregation_retracted_to_nothing(tmp_path):
    """Every row of a global aggregate's input is deleted: as Flink's GroupAggFunction, the
    aggregate's row is retracted (-D) and the folded result is empty."""
    def r(i, x):
        return {"id": i, "g": "a", "k": None, "x": x, "b": None, "d": None, "f": None, "s": None}
    events = [("c", None, r(1, 5)), ("c", None, r(2, 7)), ("d", r(1, 5), None), ("d", r(2, 7), None)]
    env = make_env(tmp_path, "hashmap", 1)
    create_table(env, "cdc", write_debezium(tmp_path / "cdc.json", events), fmt="debezium-json")
    assert stream_rows(env, "SELECT COUNT(*), SUM(x), MAX(x) FROM cdc") == Counter()


@pytest.mark.parametrize("batch_size", [7, None], ids=["batch7", "batch-default"])
def test_avg_decimal_rounds_half_up(tmp_path, batch_size):
    """AVG(DECIMAL(10,2)) is DECIMAL(38,6) in Flink, rounded HALF_UP (DecimalData.fromBigDecimal):
    0.01 / 160 = 0.0000625 → 0.000063, and -0.01 / 160 → -0.000063."""
    rows = [{"id": i, "g": "p", "d": Decimal("0.01") if i == 0 else Decimal("0.00")} for i in range(160)]
    rows += [{"id": 1000 + i, "g": "n", "d": Decimal("-0.01") if i == 0 else Decimal("0.00")}
             for i in range(160)]
    cols = [("id", "INT", "INTEGER"), ("g", "STRING", "VARCHAR"), ("d", "DECIMAL(10,2)", "DECIMAL(10,2)")]
    env = make_env(tmp_path, "hashmap", batch_size)
    create_table(env, "t", write_jsonl(tmp_path / "t.json", rows), columns=cols)
    assert stream_rows(env, "SELECT g, AVG(d) FROM t GROUP BY g") == Counter(
        {("p", Decimal("0.000063")): 1, ("n", Decimal("-0.000063")): 1})

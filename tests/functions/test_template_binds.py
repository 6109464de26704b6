"""What a function's compiled SQL binds (``registry.template``'s lets, the collection functions'
lambdas) must never capture a column of the user's: Flink allows any name for a column, ``__x`` and
``__let0_0`` too. Expected values are Apache Flink 2.3's answers to the same queries over the same
rows (PyFlink, streaming, parallelism 1)."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

import pytest

from streamsql import StreamEnvironment
from streamsql.functions.udf import udf
from tests.functions import difffuzz as fz

# Columns named as the lambda parameters and lets of our compiled SQL.
ROWS = [{"id": 1, "__x": 2, "__let0_0": 99999999, "j": 9, "arr": [1, 2, 3], "__a": 7, "__s0": "p"},
        {"id": 2, "__x": 3, "__let0_0": -5, "j": 11, "arr": [3, 3, 1], "__a": 1, "__s0": "q"}]
DDL = ("CREATE TABLE c (id INT, __x INT, __let0_0 INT, j INT, arr ARRAY<INT>, __a INT, __s0 STRING) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binds")
    (tmp / "c.json").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    with StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
                            "table.local-time-zone": "UTC", "parallelism.default": "1"}) as e:
        e.execute_sql(DDL.format(path=tmp / "c.json"))
        yield e


def rows(env, sql: str) -> list:
    return sorted((tuple(row) for _, row in env.execute_sql(sql).collect(timeout=60)), key=lambda r: r[0])


@pytest.mark.parametrize("sql, flink", [
    # GREATEST binds its long first argument as __let0_0: the column of that name was read as it
    ("SELECT id, GREATEST(j * 1000 + j * 100 + j * 10 + j + 1000000 + j * j, __let0_0) FROM c",
     [(1, 99999999), (2, 1012342)]),
    # ARRAY_REMOVE filters with a lambda over __x, ARRAY_SLICE binds __a: the columns were the elements
    ("SELECT id, ARRAY_REMOVE(arr, __x), ARRAY_SLICE(arr, __a, 2), ARRAY_SLICE(arr, 1, __a) FROM c",
     [(1, [1, 3], [], [1, 2, 3]), (2, [1], [3, 3], [3])]),
    ("SELECT id, ARRAY_JOIN(ARRAY[__s0, NULL, 'z'], ',', __s0), SPLIT(__s0, ','), "
     "STR_TO_MAP(CONCAT(__s0, '=1')) FROM c",
     [(1, "p,p,z", ["p"], {"p": "1"}), (2, "q,q,z", ["q"], {"q": "1"})]),
    ("SELECT id, CAST(ARRAY[__x, __a] AS STRING), ARRAY_SORT(ARRAY[__a, __x, j]) FROM c",
     [(1, "[2, 7]", [2, 7, 9]), (2, "[3, 1]", [1, 3, 11])]),
])
def test_a_column_named_as_a_bound_name_is_the_column(env, sql, flink):
    got = [tuple(dict(v) if isinstance(v, list) and v and isinstance(v[0], tuple) else v for v in r)
           for r in rows(env, sql)]
    assert got == flink


# A non-deterministic Python function that counts its calls: Flink 2.3 runs a Python function once
# per row and call site (each row's value is its number in the input, 1 to 10, where the function
# ran once per row); ``flink`` is Flink's answer over tests/functions/difffuzz.py's table.
@pytest.mark.parametrize("sql, flink", [
    # a volatile argument of a lambda's body (ARRAY_REMOVE's filter) ran once per element
    ("SELECT id, ARRAY_REMOVE(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], nxt(id)) FROM src",
     [(n, [k for k in range(1, 13) if k != n]) for n in range(1, 11)]),
    ("SELECT id, ARRAY_POSITION(ARRAY[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], nxt(id)) FROM src",
     [(n, n) for n in range(1, 11)]),
    # a TIMESTAMP's, a DATE's and a BOOLEAN's text name their value 11, 5 and 2 times
    ("SELECT id, CAST(TIMESTAMPADD(SECOND, nxt(id), ts) AS STRING) FROM src",
     [(1, "2024-02-29 13:45:31.123"), (2, "1970-01-01 00:00:02.000"), (3, None),
      (4, "2000-01-01 00:00:03.999"), (5, "2000-03-01 00:00:05.001"), (6, "1969-07-20 20:17:46.500"),
      (7, "2024-01-01 00:00:06.000"), (8, "2024-01-01 12:00:08.000"), (9, "2038-01-19 03:14:16.000"),
      (10, "1900-01-01 00:00:10.000")]),
    ("SELECT id, CAST(TIMESTAMPADD(DAY, nxt(id), dt) AS STRING) FROM src",
     [(1, "2024-03-01"), (2, "1970-01-03"), (3, None), (4, "2000-01-04"), (5, "2000-03-06"),
      (6, "1969-07-26"), (7, "2024-01-07"), (8, "2024-01-09"), (9, "1900-01-10"), (10, "2101-01-10")]),
    ("SELECT id, CAST(nxt(id) > 5 AS STRING) FROM src",
     [(n, "TRUE" if n > 5 else "FALSE") for n in range(1, 11)]),
    # a TIMESTAMP brought to a TIMESTAMP_LTZ (COALESCE, CAST) names its wall clock twice, nested: 8 times
    ("SELECT id, CAST(COALESCE(TIMESTAMPADD(SECOND, nxt(id), ts), TO_TIMESTAMP_LTZ(0, 3)) AS STRING) "
     "FROM src",
     [(1, "2024-02-29 13:45:31.123"), (2, "1970-01-01 00:00:02.000"), (3, "1970-01-01 00:00:00.000"),
      (4, "2000-01-01 00:00:03.999"), (5, "2000-03-01 00:00:05.001"), (6, "1969-07-20 20:17:46.500"),
      (7, "2024-01-01 00:00:06.000"), (8, "2024-01-01 12:00:08.000"), (9, "2038-01-19 03:14:16.000"),
      (10, "1900-01-01 00:00:10.000")]),
    # DECIMAL division names the dividend three times (quotient, remainder, sign)
    ("SELECT id, CAST(nxt(id) AS DECIMAL(10, 2)) / 7 FROM src",
     list(enumerate(map(Decimal, ["0.1428571428571", "0.2857142857143", "0.4285714285714", "0.5714285714286",
                                  "0.7142857142857", "0.8571428571429", "1.0000000000000", "1.1428571428571",
                                  "1.2857142857143", "1.4285714285714"]), 1))),
    # a cut to TIMESTAMP(p <= 3) names its value seven times (a value of one call cut by the digits of
    # another: RAND() milliseconds added to 00:00:00 were 23:59:59 the day before at TIMESTAMP(0))
    ("SELECT id, CAST(CAST(TIMESTAMPADD(MILLISECOND, nxt(id) * 100, ts) AS TIMESTAMP(0)) AS STRING) FROM src",
     [(1, "2024-02-29 13:45:30"), (2, "1970-01-01 00:00:00"), (3, None), (4, "2000-01-01 00:00:00"),
      (5, "2000-03-01 00:00:00"), (6, "1969-07-20 20:17:42"), (7, "2023-12-31 23:59:59"),
      (8, "2024-01-01 12:00:00"), (9, "2038-01-19 03:14:07"), (10, "1900-01-01 00:00:01")]),
    ("SELECT id, CAST(CAST(TIMESTAMPADD(MILLISECOND, nxt(id) * 30, ts) AS TIMESTAMP(1)) AS STRING) FROM src",
     [(1, "2024-02-29 13:45:30.1"), (2, "1970-01-01 00:00:00.0"), (3, None), (4, "2000-01-01 00:00:00.1"),
      (5, "2000-03-01 00:00:00.1"), (6, "1969-07-20 20:17:40.7"), (7, "2023-12-31 23:59:59.2"),
      (8, "2024-01-01 12:00:00.2"), (9, "2038-01-19 03:14:07.2"), (10, "1900-01-01 00:00:00.3")]),
    # REGEXP_EXTRACT's one-pass form is DuckDB's nullif(regexp_extract(..), ''), which computes its
    # first argument twice: '' tested on one value, the other returned
    ("SELECT id, REGEXP_EXTRACT(CONCAT(s, CAST(nxt(id) AS STRING)), '[0-9]+', 0) FROM src",
     [(1, "1"), (2, "2"), (3, None), (4, "4"), (5, "5"), (6, "426"), (7, "7"), (8, "8"), (9, "3"),
      (10, "1")]),
    ("SELECT id, REGEXP_EXTRACT(CONCAT('a', CAST(nxt(id) AS STRING), 'b'), 'a([0-9]+)b', 1) FROM src",
     [(n, str(n)) for n in range(1, 11)]),
    # REGEXP_REPLACE's Java replace (rows with a non-empty match or outside the BMP) took the text again
    ("SELECT id, REGEXP_REPLACE(CONCAT(s, CAST(nxt(id) AS STRING)), 'x*', '-') FROM src",
     [(1, "-a-b-c-1-"), (2, "-2-"), (3, None), (4, "- -H-e-l-l-o- -W-o-r-l-d- -4-"), (5, "-日-本-語-?-?-5-"),
      (6, "-4-2-6-"), (7, "-s-t-r-a-ß-e- -İ-7-"), (8, "-a-,-b-;-c-%-_-\\-8-"), (9, "---3-.-5-9-"),
      (10, "-1-e-3-1-0-")]),
])
def test_a_volatile_argument_is_computed_once_per_row(tmp_path, sql, flink):
    (tmp_path / "src.json").write_text(fz.data_lines(), encoding="utf-8")
    calls = []

    def nxt(x):
        calls.append(x)
        return len(calls)

    config = {"state.dir": str(tmp_path / "state"), "execution.checkpointing.dir": str(tmp_path / "cp"),
              "table.local-time-zone": "UTC", "parallelism.default": "1"}
    with StreamEnvironment(config) as env:
        env.execute_sql(fz.source_ddl(str(tmp_path / "src.json")))
        env.create_temporary_function("nxt", udf(nxt, result_type="INT", input_types=["INT"],
                                                 deterministic=False))
        assert rows(env, sql) == flink
    assert len(calls) == 10  # Flink's count: once per row


# ROW columns named as the lambda parameters whose fields the compiled SQL reads (the text
# timestamps' regular-expression groups __ts.g1, a map entry's __s0.key...): DuckDB reads
# ``name.field`` inside a lambda as the column's field when a column has that name, so CAST(s AS
# TIMESTAMP) read the user's __ts.g1..g7 (all '': NULL, no error) and a column of the name without
# those fields failed the query with DuckDB's binder text. Expected values: Flink 2.3's answers (PyFlink,
# streaming, parallelism 1, session zone UTC) to the same queries over the same rows.
GROUPS = {f"g{i}": "" for i in range(1, 8)}
ROW_ROWS = [{"id": 1, "s": "2024-01-02 03:04:05.678", "__ts": GROUPS, "__js": GROUPS, "__xp": GROUPS,
             "__s0": {"key": 5, "value": 6},
             "__y": {"key": "zz"}, "__z": {"key": "zz"}, "__e": {"key": "q"}, "__p": {"e": 3}},
            {"id": 2, "s": "2023-12-31 23:59:59", **dict.fromkeys(["__ts", "__js", "__xp", "__s0", "__y",
                                                                 "__z", "__e", "__p"])}]
GROUPS_TYPE = "ROW<g1 STRING, g2 STRING, g3 STRING, g4 STRING, g5 STRING, g6 STRING, g7 STRING>"
ROW_DDL = (f"CREATE TABLE r (id INT, s STRING, `__ts` {GROUPS_TYPE}, `__js` {GROUPS_TYPE}, "
           f"`__xp` {GROUPS_TYPE}, `__s0` ROW<key INT, `value` INT>, `__y` ROW<key STRING>, "
           "`__z` ROW<key STRING>, `__e` ROW<key STRING>, `__p` ROW<e INT>) "
           "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")


@pytest.mark.parametrize("sql, flink", [
    ("SELECT id, CAST(s AS TIMESTAMP(3)), TO_TIMESTAMP(s), TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss') FROM r",
     [(1, *[datetime(2024, 1, 2, 3, 4, 5, 678000)] * 3), (2, *[datetime(2023, 12, 31, 23, 59, 59)] * 3)]),
    ("SELECT id, CAST(MAP[id, id + 1] AS STRING), CAST(STR_TO_MAP('a=1,b=2,a=3') AS STRING) FROM r",
     [(1, "{1=2}", "{a=3, b=2}"), (2, "{2=3}", "{a=3, b=2}")]),
])
def test_a_row_column_named_as_a_lambda_parameter_is_not_read_for_it(env, tmp_path, sql, flink):
    (tmp_path / "r.json").write_text("".join(json.dumps(r) + "\n" for r in ROW_ROWS))
    env.execute_sql("DROP TABLE IF EXISTS r")
    env.execute_sql(ROW_DDL.format(path=tmp_path / "r.json"))
    assert rows(env, sql) == flink

"""Function calls the registry refuses, at the call's position in Flink's words; and the fixed
silent wrong answers over columns of a multi-row batch (not only over literals)."""

from __future__ import annotations

import decimal
import hashlib

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError, SqlError, StreamSQLError

ROWS = [
    '{"s": "foothebar", "n": -1, "ts": "2024-01-01 23:00:00", "ts2": "2024-01-02 01:00:00", '
    '"a": 10.00, "b": 3.00}',
    '{"s": "x", "n": 3, "ts": "2024-03-03 00:00:00", "ts2": "2024-03-31 00:00:00", "a": 1.00, "b": 8.00}',
    '{"s": null, "n": null, "ts": null, "ts2": null, "a": null, "b": null}',
]


@pytest.fixture
def env(tmp_path):
    (tmp_path / "t.json").write_text("\n".join(ROWS) + "\n")
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as e:
        e.execute_sql(f"CREATE TABLE t (s STRING, n INT, ts TIMESTAMP(3), ts2 TIMESTAMP(3), "
                      f"a DECIMAL(10, 2), b DECIMAL(10, 2)) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}/t.json', 'format' = 'json')")
        yield e


def refused(env, sql: str) -> SqlError:
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    text = str(ei.value)
    for duck in ("Catalog Error", "Parser Error", "Binder Error", "duckdb"):
        assert duck not in text, text
    return ei.value


@pytest.mark.parametrize("sql, message, col", [
    ("SELECT FOO(n, s) FROM t", "No match found for function signature FOO(<NUMERIC>, <CHARACTER>)", 8),
    ("SELECT s, UPPER(n) FROM t", "No match found for function signature UPPER(<NUMERIC>); "
                                  "supported: UPPER(<CHARACTER>)", 11),
    ("SELECT SPLIT_INDEX(s, ',') FROM t", "No match found for function signature SPLIT_INDEX(<CHARACTER>, "
                                          "<CHARACTER>)", 8),
    ("SELECT CARDINALITY(s) FROM t", "No match found for function signature CARDINALITY(<CHARACTER>); "
                                     "supported: CARDINALITY(<ARRAY>), CARDINALITY(<MAP>)", 8),
    # a TIME as Flink 2.3 refuses it (scripts/flink_time.py, conformance cases)
    ("SELECT DATE_FORMAT(TIME '12:00:00', 'HH:mm') FROM t",
     "No match found for function signature DATE_FORMAT(<TIME>, <CHARACTER>)", 8),
    # Hive's date functions are no Flink 2.3 built-ins: Flink's own refusal, not "not supported yet"
    # (which promised them); PyFlink 2.3: No match found for function signature DATEDIFF(<DATE>, <DATE>)
    ("SELECT DATEDIFF(CAST(ts AS DATE), CAST(ts AS DATE)) FROM t",
     "No match found for function signature DATEDIFF(<DATE>, <DATE>)", 8),
    ("SELECT DATE_ADD(s, 1) FROM t",
     "No match found for function signature DATE_ADD(<CHARACTER>, <NUMERIC>)", 8),
    ("SELECT DATE_SUB(s, 1) FROM t",
     "No match found for function signature DATE_SUB(<CHARACTER>, <NUMERIC>)", 8),
    # a window function without OVER: Calcite's message, as Flink 2.3 (was DuckDB's unpositioned
    # "Binder Error: Window functions are not supported here" for LAG, LEAD, NTILE, RANK ...)
    ("SELECT s, LAG(n) FROM t", "OVER clause is necessary for window functions", 11),
    ("SELECT NTILE(2) FROM t", "OVER clause is necessary for window functions", 8),
    ("SELECT ROW_NUMBER() FROM t", "OVER clause is necessary for window functions", 8),
    # other engines' aggregates sqlglot knows: MEDIAN without GROUP BY was computed per batch by
    # DuckDB (a wrong answer); with GROUP BY its argument was said not to be grouped
    ("SELECT MEDIAN(n) FROM t", "No match found for function signature MEDIAN(<NUMERIC>)", 8),
    ("SELECT s, ANY_VALUE(n) FROM t GROUP BY s", "No match found for function signature ANY_VALUE(<NUMERIC>)",
     11),
    ("SELECT s, BOOL_AND(n > 0) FROM t GROUP BY s",
     "No match found for function signature BOOL_AND(<BOOLEAN>)",
     11),
    # named as written, not as sqlglot's node (ARG_MAX, GROUP_CONCAT); Flink's parser has STRING_AGG,
    # GROUP_CONCAT and ARRAY_CONCAT_AGG as keywords (compat max_by_rejected, string_agg_rejected)
    ("SELECT s, MAX_BY(s, n) FROM t GROUP BY s",
     "No match found for function signature MAX_BY(<CHARACTER>, <NUMERIC>)", 11),
    ("SELECT s, MIN_BY(s, n) FROM t GROUP BY s",
     "No match found for function signature MIN_BY(<CHARACTER>, <NUMERIC>)", 11),
    ("SELECT s, STRING_AGG(s, ',') FROM t GROUP BY s", "Incorrect syntax near the keyword 'STRING_AGG'", 11),
    ("SELECT GROUP_CONCAT(s) FROM t", "Incorrect syntax near the keyword 'GROUP_CONCAT'", 8),
    # a path whose answer in Flink 2.3 depends on the rows evaluated before (Jayway's state in its
    # cached path; the other deep scans are Flink's: tests/functions/test_json_paths.py)
    ("SELECT JSON_VALUE(s, '$..*.b') FROM t", "JSON path '$..*.b' is not supported: Flink 2.3's answer", 8),
    ("SELECT JSON_QUERY(s, 'lax $..a.length()') FROM t", "JSON path 'lax $..a.length()' is not supported", 8),
    # Flink 2.3's code generator fails on other RETURNING types (flink_difffuzz, session 26); its job
    # fails on a DEFAULT that is not a constant (NoSuchElementException)
    ("SELECT n, JSON_VALUE(s, '$.a' RETURNING BIGINT) FROM t",
     "JSON_VALUE: Unsupported type 'BIGINT' for RETURNING in JSON_VALUE()", 11),
    ("SELECT JSON_VALUE(s, '$.a' DEFAULT s ON EMPTY) FROM t",
     "JSON_VALUE: the DEFAULT ... ON EMPTY value must be a constant", 8),
    ("SELECT JSON_VALUE(s, '$.a' RETURNING INT DEFAULT NULL ON ERROR) FROM t", "Illegal use of 'NULL'", 8),
    ("SELECT JSON_QUERY(s, '$.a' RETURNING INT) FROM t",
     "JSON_QUERY: Unsupported type 'INT' for RETURNING in JSON_QUERY()", 8),
    ("SELECT CONVERT_TZ(s, 'UTC', 'Nowhere/City') FROM t", "CONVERT_TZ: 'Nowhere/City' is not a time zone",
     8),
    ("SELECT s, COUNT(*) FROM t GROUP BY s HAVING BAR(COUNT(*)) > 1", "No match found for function signature "
                                                                       "BAR(<NUMERIC>)", 45),
    ("SELECT DATE_FORMAT(ts, 'yyyy-MM z') FROM t", "DATE_FORMAT: unsupported pattern letters 'z'", 8),
    # (a literal pattern Java refuses, '[', is answered as Flink answers it, NULL: test_regex_java.py)
    ("SELECT SHA2(s, 100) FROM t", "SHA2: digest length 100 is not a SHA-2 digest length", 8),
    # CASTs Flink 2.3 refuses at validation, shown at the operand (session 18: answered, or DuckDB's
    # 'Unimplemented type for cast' when the job ran; a CAST of a CAST had no position)
    ("SELECT s, CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS BOOLEAN) FROM t", "Cast function cannot convert value "
     "of type TIMESTAMP_WITH_LOCAL_TIME_ZONE(3) to type BOOLEAN", 21),
    ("SELECT s, TRY_CAST(n AS TIMESTAMP_LTZ(3)) FROM t", "The cast from NUMERIC type to TIMESTAMP_LTZ type "
     "is not allowed. It's recommended to use TO_TIMESTAMP_LTZ(numeric_col, precision) instead.", 20),
    ("SELECT TRY_CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS BIGINT) FROM t", "The cast from TIMESTAMP_LTZ type to "
     "NUMERIC type is not allowed.", 22),
    # BYTES converts to and from strings only: Flink 2.3's words (PyFlink EXPLAIN, qflink27; answered
    # here before, TRY_CAST(ts AS BYTES) as DuckDB's blob of the text)
    ("SELECT s, TRY_CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS BYTES) FROM t", "Cast function cannot convert "
     "value of type TIMESTAMP_WITH_LOCAL_TIME_ZONE(3) to type VARBINARY(2147483647)", 25),
    ("SELECT CAST(n AS BYTES) FROM t", "Cast function cannot convert value of type INTEGER to type "
     "VARBINARY(2147483647)", 13),
    ("SELECT CAST(CAST(s AS BYTES) AS BOOLEAN) FROM t", "Cast function cannot convert value of type "
     "VARBINARY(2147483647) to type BOOLEAN", 18),
    ("SELECT TRY_CAST(CAST(s AS BYTES) AS TIMESTAMP(3)) FROM t", "Unsupported cast from 'BYTES' to "
     "'TIMESTAMP(3)'.", 22),
    # a constant DATE Flink's planner cannot fold into a literal (session 18: answered as 0000-12-31)
    ("SELECT s, n + 1, DATE '0001-01-01' - INTERVAL '1' DAY FROM t", "Year out of range: [0]", 23),
])
def test_refused_at_the_call(env, sql, message, col):
    err = refused(env, sql)
    assert err.message.startswith(message), err.message
    assert (err.line, err.col) == (1, col), str(err)


def test_silent_wrong_answers_over_columns(env):
    q = ("SELECT REGEXP_EXTRACT(s, 'foo(.*?)(bar)', 2), DAYOFWEEK(ts), TIMESTAMPDIFF(DAY, ts, ts2), "
         "TIMESTAMPDIFF(MONTH, ts, ts2), a / b, GREATEST(n, 0), SHA2(s, 256), LPAD(s, n, '*'), "
         "RPAD(s, n, '') FROM t")
    rows = sorted((row for _, row in env.execute_sql(q).collect(timeout=30)), key=str)
    sha = {v: hashlib.sha256(v.encode()).hexdigest() for v in ("foothebar", "x")}
    assert rows == sorted([
        (None, 1, 28, 0, decimal.Decimal("0.1250000000000"), 3, sha["x"], "**x", None),
        (None, None, None, None, None, None, None, None, None),
        ("bar", 2, 0, 0, decimal.Decimal("3.3333333333333"), 0, sha["foothebar"], None, None),
    ], key=str)


def test_json_object_members_sorted_by_key(env):
    # Flink 2.3's printed row for this SELECT (PyFlink, qflink27): its Jackson writes the members in
    # Java's String order, NULL ON NULL or ABSENT ON NULL, nested objects too ('B' < 'a' < 'z' < 'é')
    q = ("SELECT JSON_OBJECT('k' VALUE 1, 'b' VALUE 2), "
         "JSON_OBJECT('k' VALUE 1, 'b' VALUE 2 ABSENT ON NULL), "
         "JSON_OBJECT('z' VALUE 1, 'a' VALUE JSON_OBJECT('y' VALUE 1, 'b' VALUE 2), 'B' VALUE 3, "
         "'é' VALUE 4), "
         "JSON_OBJECT(KEY 'b' VALUE 1, KEY 'a' VALUE CAST(NULL AS INT) NULL ON NULL) FROM t WHERE n = 3")
    rows = [row for _, row in env.execute_sql(q).collect(timeout=30)]
    assert rows == [('{"b":2,"k":1}', '{"b":2,"k":1}', '{"B":3,"a":{"b":2,"y":1},"z":1,"é":4}',
                     '{"a":null,"b":1}')]


def test_decimal_division_after_aggregation(env):
    # SUM(DECIMAL(10, 2)) is DECIMAL(38, 2); their quotient is DECIMAL(38, 6) in Flink, exact.
    q = "SELECT s, SUM(a) / SUM(b) AS r, COUNT(*) / 2 AS h FROM t WHERE s IS NOT NULL GROUP BY s"
    changes = env.execute_sql(q).collect(timeout=30)
    final = {row[0]: row[1:] for kind, row in changes if kind.short in ("+I", "+U")}
    assert final == {"foothebar": (decimal.Decimal("3.333333"), 0), "x": (decimal.Decimal("0.125000"), 0)}


def test_localtimestamp_is_the_function_not_a_column(env):
    result = env.execute_sql("SELECT LOCALTIMESTAMP, CURRENT_DATE FROM t")
    rows = [row for _, row in result.collect(timeout=30)]
    assert len(rows) == 3 and all(r[0] is not None and r[0].date() == r[1] for r in rows)


def test_the_session_time_zone_is_checked_and_used(env):
    with pytest.raises(ConfigError, match="'table.local-time-zone' = 'Mars/Base' is not a time zone"):
        env.execute_sql("SET 'table.local-time-zone' = 'Mars/Base'")
    env.execute_sql("SET 'table.local-time-zone' = 'Asia/Tokyo'")
    q = ("SELECT FROM_UNIXTIME(n * 3600), DATE_FORMAT(CAST(ts AS TIMESTAMP_LTZ(3)), 'HH:mm') FROM t "
         "WHERE n = 3")
    assert [row for _, row in env.execute_sql(q).collect(timeout=30)] == [("1970-01-01 12:00:00", "00:00")]


def test_cast_of_a_string_to_timestamp_9_keeps_nanoseconds(env):
    """CAST('... .123456789' AS TIMESTAMP(9)) failed the job with an internal error ('Casting from
    timestamp[ns] to timestamp[us] would lose data'), then kept microseconds only; a TIMESTAMP(7..9)
    holds nanoseconds, as Flink 2.3 (scripts/flink_timestamp_precision.py: the nine digits, and
    '.9999999' at precision 7)."""
    q = ("SELECT CAST(CAST('2024-01-01 10:00:00.123456789' || SUBSTRING(s, 2) AS TIMESTAMP(9)) AS STRING), "
         "CAST(TRY_CAST('1969-12-31 23:59:59.9999999' || SUBSTRING(s, 2) AS TIMESTAMP(7)) AS STRING) "
         "FROM t WHERE s = 'x'")
    rows = [row for _, row in env.execute_sql(q).collect(timeout=30)]
    assert rows == [("2024-01-01 10:00:00.123456789", "1969-12-31 23:59:59.9999999")]


@pytest.mark.parametrize(("sql", "message", "col"), [
    ("SELECT JSON_VALUE(s, '$.a' EMPTY ARRAY ON ERROR) FROM t", "Expecting one of NULL, ERROR, DEFAULT", 28),
    ("SELECT JSON_VALUE(s, '$.a' NULL ON EMPTY ERROR ON EMPTY) FROM t", "JSON_VALUE: ON EMPTY given twice",
     42),
    ("SELECT JSON_QUERY(s, '$.a' DEFAULT 'x' ON EMPTY) FROM t", "Expecting one of NULL, ERROR, EMPTY ARRAY",
     28),
])
def test_json_clauses_refused_at_parsing(env, sql, message, col):
    err = refused(env, sql)
    assert message in err.message, err.message
    assert (err.line, err.col) == (1, col), str(err)


@pytest.mark.parametrize(("expr", "message"), [
    # Flink 2.3's jobs fail too (flink_difffuzz, session 26: TableRuntimeException, ClassCastException)
    ("JSON_VALUE(s, '$.a' ERROR ON ERROR)", "Unexpected character"),  # 'x' is no JSON: strict's error
    ("JSON_VALUE(s, 'lax $.a' ERROR ON EMPTY)", "Empty result of JSON_VALUE function is not allowed"),
    ("JSON_VALUE('{\"a\": 1.5}', '$.a' RETURNING INT)", "cannot be returned as INT"),
    # Flink casts the DEFAULT's internal object (a DecimalData here) to BigDecimal when it is used
    ("JSON_VALUE(s, '$.a' RETURNING DOUBLE DEFAULT 0.5 ON ERROR)", "cannot be returned as DOUBLE"),
    ("JSON_QUERY(CONCAT('{\"b\": \"', s, '\"}'), 'strict $.a' ERROR ON ERROR)",
     "No results for path: $['a']"),
])
def test_json_failures_fail_the_job_naming_the_function(env, expr, message):
    with pytest.raises(StreamSQLError) as ei:
        list(env.execute_sql(f"SELECT {expr} FROM t WHERE s IS NOT NULL").collect(timeout=30))
    text = str(ei.value)
    assert expr.split("(")[0] in text and message in text, text
    assert "duckdb" not in text.lower() and "Invalid Input Error" not in text, text
    # the failing row as written (document, path), not the engine's JSON of the clauses
    path = expr.split("'")[-2]
    assert f", '{path}'): " in text and '"on_error"' not in text, text

"""Operand types of WHERE / ON / HAVING / CASE conditions: Flink's answer, never DuckDB's text.

Every expected message and result below is what Flink 2.3 answered for the same statement over
the same table (asked through PyFlink, 2026-12-01; ``streamsql/functions/scalars/operand_types.py``
lists them): DuckDB bound ``name > 1`` as an error ("Binder Error: Cannot compare values of type
VARCHAR and type INTEGER_LITERAL"), ``name = 1`` as a run-time CAST, ``WHERE id`` as true, and
``a.name = c.id`` in a join as a string comparison that silently matched nothing.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError, SqlError

ROWS = ('{"id": 1, "name": "1", "x": 2, "d": 1.50, "b": true, "ts": "2020-01-01 00:00:00"}\n'
        '{"id": 2, "name": "5", "x": 3, "d": 2.50, "b": false, "ts": "2020-01-02 00:00:00"}\n')


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("operands")
    (tmp / "src.json").write_text(ROWS)
    (tmp / "bad.json").write_text('{"id": 1, "name": "a"}\n')
    e = StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")})
    opts = "'connector' = 'filesystem', 'format' = 'json'"
    e.execute_sql(f"CREATE TABLE src (id INT, name STRING, x BIGINT, d DECIMAL(10,2), b BOOLEAN, "
                  f"ts TIMESTAMP(3)) WITH ({opts}, 'path' = '{tmp}/src.json')")
    e.execute_sql(f"CREATE TABLE src2 (id INT, name STRING) WITH ({opts}, 'path' = '{tmp}/src.json')")
    e.execute_sql(f"CREATE TABLE bad (id INT, name STRING) WITH ({opts}, 'path' = '{tmp}/bad.json')")
    yield e
    e.close()


def rows(env, sql: str) -> list[tuple]:
    return sorted(r for _, r in env.execute_sql(sql).collect())


REFUSED = [
    ("SELECT id FROM src WHERE name + 1 > 2",
     "Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + <INTEGER>'. Supported form(s): "
     "'<NUMERIC> + <NUMERIC>'", 26),
    ("SELECT id FROM src WHERE id + '1' > 1",
     "Cannot apply '+' to arguments of type '<INTEGER> + <CHAR(1)>'", 26),
    ("SELECT -b FROM src",
     "Cannot apply '-' to arguments of type '-<BOOLEAN>'. Supported form(s): '-<NUMERIC>'", 9),
    ("SELECT id FROM src WHERE ts + 1 > ts",
     "Cannot apply '+' to arguments of type '<TIMESTAMP(3)> + <INTEGER>'", 26),
    ("SELECT id FROM src WHERE name = 1",
     "implicit type conversion between VARCHAR and INTEGER is not supported now",
     26),
    ("SELECT id FROM src WHERE id = '1'",
     "implicit type conversion between INTEGER and CHAR is not supported now", 26),
    ("SELECT id FROM src WHERE d = '1.5'",
     "implicit type conversion between DECIMAL and CHAR is not supported now",
     26),
    ("SELECT id FROM src WHERE name IS DISTINCT FROM 1",
     "implicit type conversion between VARCHAR and INTEGER is not supported now", 26),
    ("SELECT id FROM src WHERE b = 1",
     "Cannot apply '=' to arguments of type '<BOOLEAN> = <INTEGER>'. Supported form(s): "
     "'<COMPARABLE_TYPE> = <COMPARABLE_TYPE>'", 26),
    ("SELECT id FROM src WHERE ts > 5",
     "Cannot apply '>' to arguments of type '<TIMESTAMP(3)> > <INTEGER>'", 26),
    ("SELECT id FROM src WHERE ts > DATE '2019-01-01'",
     "Cannot apply '>' to arguments of type '<TIMESTAMP(3)> > <DATE>'", 26),
    ("SELECT id FROM src WHERE id", "WHERE clause must be a condition", 26),
    ("SELECT id FROM src WHERE name", "WHERE clause must be a condition", 26),
    ("SELECT id FROM src WHERE 1", "WHERE clause must be a condition", 26),
    ("SELECT id FROM src WHERE NOT name",
     "Cannot apply 'NOT' to arguments of type 'NOT<VARCHAR(2147483647)>'. Supported form(s): 'NOT<BOOLEAN>'",
     30),
    ("SELECT id FROM src WHERE name = '1' AND id",
     "Cannot apply 'AND' to arguments of type '<BOOLEAN> AND <INTEGER>'. Supported form(s): "
     "'<BOOLEAN> AND <BOOLEAN>'", 41),
    ("SELECT id FROM src WHERE b OR 1",
     "Cannot apply 'OR' to arguments of type '<BOOLEAN> OR <INTEGER>'", 26),
    ("SELECT id FROM src WHERE id IS TRUE",
     "Cannot apply 'IS TRUE' to arguments of type '<INTEGER> IS TRUE'. "
     "Supported form(s): '<BOOLEAN> IS TRUE'",
     26),
    ("SELECT id FROM src WHERE name IS NOT TRUE",
     "Cannot apply 'IS NOT TRUE' to arguments of type '<VARCHAR(2147483647)> IS NOT TRUE'", 26),
    ("SELECT id FROM src WHERE name LIKE 1",
     "Cannot apply 'LIKE' to arguments of type 'LIKE(<VARCHAR(2147483647)>, <INTEGER>)'. Supported form(s): "
     "'LIKE(<STRING>, <STRING>, <STRING>)'", 26),
    ("SELECT id FROM src WHERE id LIKE '1'",
     "Cannot apply 'LIKE' to arguments of type 'LIKE(<INTEGER>, <CHAR(1)>)'",
     26),
    ("SELECT name || 1 FROM src",
     "Cannot apply '||' to arguments of type '<VARCHAR(2147483647)> || <INTEGER>'. Supported form(s): "
     "'<STRING> || <STRING>'", 8),
    ("SELECT CASE WHEN name THEN 1 END FROM src", "Expected a boolean type", 18),
    ("SELECT CASE WHEN b THEN 1 ELSE 'x' END FROM src",
     "Illegal mixing of types in CASE or COALESCE statement", None),
    ("SELECT id FROM src WHERE b BETWEEN 1.5 AND x",
     "Cannot apply 'BETWEEN ASYMMETRIC' to arguments of type '<BOOLEAN> BETWEEN ASYMMETRIC "
     "<DECIMAL(2, 1)> AND "
     "<BIGINT>'. Supported form(s): '<COMPARABLE_TYPE> BETWEEN <COMPARABLE_TYPE> AND <COMPARABLE_TYPE>'", 26),
    ("SELECT id FROM src WHERE id BETWEEN 1 AND ts",
     "Cannot apply 'BETWEEN ASYMMETRIC' to arguments of type '<INTEGER> BETWEEN ASYMMETRIC <INTEGER> AND "
     "<TIMESTAMP(3)>'", 26),
    ("SELECT id FROM src WHERE INTERVAL '1' DAY <= 1",
     "Cannot apply '<=' to arguments of type '<INTERVAL DAY> <= <INTEGER>'", None),
    ("SELECT COALESCE(name, 1) FROM src", "Invalid input arguments.", None),
    ("SELECT COALESCE(b, 1.5) FROM src", "Invalid input arguments.", None),
    ("SELECT NULL + TRUE FROM src", "Illegal use of 'NULL'", None),
    ("SELECT name, COUNT(*) FROM src GROUP BY name HAVING name + 1 > 2",
     "Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + <INTEGER>'", 53),
    ("SELECT name, COUNT(*) FROM src GROUP BY name HAVING COUNT(*)",
     "HAVING clause must be a condition", None),
    ("SELECT a.id FROM src a JOIN src2 c ON a.name = c.id",
     "implicit type conversion between VARCHAR(2147483647) and INTEGER "
     "is not supported on join's condition now",
     41),
    ("SELECT a.id FROM src a JOIN src2 c ON a.id = c.name",
     "implicit type conversion between INTEGER and VARCHAR(2147483647) "
     "is not supported on join's condition now",
     41),
    ("SELECT a.id FROM src a JOIN src2 c ON a.id = c.id AND a.ts = 1",
     "Cannot apply '=' to arguments of type '<TIMESTAMP(3)> = <INTEGER>'", 57),  # at ts
    ("SELECT a.id FROM src a LEFT JOIN src2 c ON a.id = c.id AND c.name + 1 > 0",
     "Cannot apply '+' to arguments of type '<VARCHAR(2147483647)> + <INTEGER>'", 62),  # at name
]


@pytest.mark.parametrize(("sql", "flink", "column"), REFUSED, ids=[s for s, _, _ in REFUSED])
def test_flink_refuses_so_do_we_positioned_in_its_words(env, sql, flink, column):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    text = str(ei.value)
    assert flink in text
    assert "Binder" not in text and "DuckDB" not in text and "Cannot evaluate" not in text
    if column is not None:
        assert ei.value.line == 1 and ei.value.col == column, text
        assert "^" in text


ACCEPTED = [  # Flink 2.3's rows over ROWS (ids)
    ("SELECT id FROM src WHERE name > 1", [(2,)]),  # CAST(name AS BIGINT) > 1
    ("SELECT id FROM src WHERE name > 1.5", [(2,)]),  # CAST(name AS DECIMAL(20, 1))
    ("SELECT id FROM src WHERE name > CAST(1 AS DOUBLE)", [(2,)]),
    ("SELECT id FROM src WHERE d > '1.5'", [(2,)]),  # CAST(d AS DECIMAL(21, 2)) > 1.50
    ("SELECT id FROM src WHERE x > '2'", [(2,)]),
    ("SELECT id FROM src WHERE name BETWEEN 1 AND 2", [(1,)]),
    ("SELECT id FROM src WHERE id BETWEEN '0' AND '1'", [(1,)]),
    ("SELECT id FROM src WHERE id IN ('1', '2')", [(1,), (2,)]),
    ("SELECT id FROM src WHERE name IN (1, 2)", [(1,)]),  # compared as text: '1' IN ('1', '2')
    ("SELECT id FROM src WHERE ts > '2020-01-01 12:00:00'", [(2,)]),
    ("SELECT id FROM src WHERE ts = '2020-01-01 00:00:00'", [(1,)]),
    ("SELECT id FROM src WHERE ts BETWEEN name AND ts", None),  # CAST(name AS TIMESTAMP(3)): '1' fails
    ("SELECT name, COUNT(*) FROM src GROUP BY name HAVING COUNT(*) > '0'", [("1", 1), ("5", 1)]),
    ("SELECT a.id FROM src a JOIN src2 c ON a.id = c.id AND a.ts = '2020-01-01 00:00:00'", [(1,)]),
]


@pytest.mark.parametrize(("sql", "expected"), ACCEPTED, ids=[s for s, _ in ACCEPTED])
def test_flink_casts_implicitly_so_do_we(env, sql, expected):
    if expected is None:  # Flink: DateTimeParseException at run time
        with pytest.raises(ExecutionError, match=r"CAST\('1' AS TIMESTAMP\) failed"):
            rows(env, sql)
        return
    assert rows(env, sql) == expected


@pytest.mark.parametrize(("sql", "cast"), [
    ("SELECT id FROM bad WHERE name > 1", "CAST('a' AS BIGINT) failed"),  # Flink: NumberFormatException
    ("SELECT id FROM bad WHERE name > 1.5", "CAST('a' AS DECIMAL(20, 1)) failed"),
    ("SELECT id FROM bad WHERE name > TRUE",
     "CAST('a' AS BOOLEAN) failed"),  # Flink: Cannot parse 'a' as BOOLEAN
    ("SELECT id FROM src WHERE ts > 'abc'",
     "CAST('abc' AS TIMESTAMP) failed"),  # Flink: 'abc' could not be parsed
    ("SELECT id FROM bad WHERE id IN ('a', 'b')", "CAST('a' AS INT) failed"),
])
def test_a_string_that_is_no_value_of_the_other_type_fails_the_job_as_in_flink(env, sql, cast):
    with pytest.raises(ExecutionError) as ei:
        rows(env, sql)
    assert cast in str(ei.value)
    assert "Conversion Error" not in str(ei.value) and "INT64" not in str(ei.value)

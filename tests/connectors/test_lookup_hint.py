"""The LOOKUP query hint and the batch join hints, as Flink 2.3 (probed on PyFlink 2.3 with Flink's
JDBC connector, session 22; messages are Flink's).

A lookup join with ``'retry-predicate' = 'lookup_miss'`` looks a key that found no row up again
after ``'fixed-delay'``, up to ``'max-attempts'`` more times: a dimension row written while it
retries is joined, on a real PostgreSQL server.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid

import pytest
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.environment import StreamEnvironment
from streamsql.plan.lookup import jdbc_pushable
from streamsql.sql.parser import parse_statement
from tests.db_fixtures import DB_PASSWORD, DB_USER

JOIN = " o.oid, d.w FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d ON o.k = d.id"
RETRY = (
    "'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', 'fixed-delay'='{d}', "
    "'max-attempts'='{n}'"
)


def _env(tmp_path, url="jdbc:postgresql://localhost:1/x", orders=({"oid": 1, "k": 7},)):
    env = StreamEnvironment(
        {
            "execution.checkpointing.dir": str(tmp_path / "chk"),
            "state.dir": str(tmp_path / "s"),
            "pipeline.name": f"lh-{uuid.uuid4().hex[:6]}",
        }
    )
    (tmp_path / "o.json").write_text("".join(json.dumps(o) + "\n" for o in orders))
    env.execute_sql(
        "CREATE TABLE orders (oid INT, k INT, proc AS PROCTIME()) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}/o.json', 'format' = 'json')"
    )
    env.execute_sql(
        "CREATE TABLE dim (id INT, w INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', "
        f"'url' = '{url}', 'table-name' = 'dim', 'username' = '{DB_USER}', "
        f"'password' = '{DB_PASSWORD}')"
    )
    env.execute_sql(
        "CREATE TABLE dim2 (id INT, w INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
        "'connector' = 'filesystem', 'path' = '/nonexistent', 'format' = 'json')"
    )
    return env


def _collect_while(env, sql: str, postgres_db, change: str) -> list[tuple]:
    """The sorted rows of ``sql`` while ``change`` is made to the database ~1 s after it starts."""

    def write_later():
        time.sleep(1.0)
        with postgres_db.pg() as c:
            c.execute(change)

    writer = threading.Thread(target=write_later)
    writer.start()
    try:
        return sorted(tuple(r) for _, r in env.execute_sql(sql).collect(timeout=60))
    finally:
        writer.join()


def _explain(env, sql: str) -> str:
    return env.execute_sql("EXPLAIN " + sql).message


@pytest.mark.parametrize(
    ("hint", "message", "caret"),
    [
        (
            "LOOKUP('table'='dim')",
            "cannot match the name of input tables or views: `dim` in `LOOKUP`",
            "'dim'",
        ),
        ("LOOKUP('table'='o')", "cannot match the name of input tables or views: `o` in `LOOKUP`", "'o'"),
        ("LOOKUP('table'='D')", "`D` in `LOOKUP`", "'D'"),
        (
            "LOOKUP('tableName'='d')",
            r"incomplete required option\(s\): \[Key: 'table' , default: null",
            "LOOKUP",
        ),
        ("LOOKUP('TABLE'='d')", "incomplete required option", "LOOKUP"),
        ("LOOKUP()", "incomplete required option", "LOOKUP"),
        ("LOOKUP('d')", "Invalid list options in LOOKUP hint, only support key-value options.", "'d'"),
        ("LOOKUP('table'='d', 'async'='yes')", "Could not parse value 'yes' for key 'async'.", "'yes'"),
        (
            "LOOKUP('table'='d', 'output-mode'='allow-unordered')",
            "value 'allow-unordered' for key 'output-mode'",
            "'allow-unordered'",
        ),
        ("LOOKUP('table'='d', 'capacity'='x')", "Could not parse value 'x' for key 'capacity'.", "'x'"),
        ("LOOKUP('table'='d', 'timeout'='x')", "Could not parse value 'x' for key 'timeout'.", "'x'"),
        # Flink looks at the capacity of an async lookup only (tests/plan/table_hints_flink.json)
        ("LOOKUP('table'='d', 'async'='true', 'capacity'='0')", "capacity value should be positive integer",
         "'0'"),
        (
            "LOOKUP('table'='d', 'retry-predicate'='lookup_miss')",
            "retry options can be both null or all not null",
            "LOOKUP",
        ),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="10s", n="0") + ")",
            "max-attempts value should be positive integer but was 0",
            "'0'",
        ),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="10s", n="x") + ")",
            "value 'x' for key 'max-attempts'",
            "'x'",
        ),
        ("LOOKUP('table'='d', " + RETRY.format(d="x", n="3") + ")", "value 'x' for key 'fixed-delay'", "'x'"),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="0s", n="3") + ")",
            "backoffTimeMillis should be greater than zero",
            "'0s'",
        ),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="10s", n="3").replace("lookup_miss", "lookup-miss") + ")",
            "unsupported retry-predicate 'lookup-miss', only 'lookup_miss' is supported currently",
            "'lookup-miss'",
        ),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="10s", n="3").replace("fixed_delay", "fixed-delay") + ")",
            "value 'fixed-delay' for key 'retry-strategy'",
            "'fixed-delay'",
        ),
        # probed on Flink 2.3 (session 23): values are not trimmed, integers are Java ints
        (
            "LOOKUP('table'='d', " + RETRY.format(d="1s", n=" 2") + ")",
            "value ' 2' for key 'max-attempts'",
            "' 2'",
        ),
        (
            "LOOKUP('table'='d', " + RETRY.format(d="1s", n="2147483648") + ")",
            "value '2147483648' for key 'max-attempts'",
            "'2147483648'",
        ),
        (
            "LOOKUP('table'='d', 'capacity'='2147483648')",
            "value '2147483648' for key 'capacity'",
            "'2147483648'",
        ),
        (
            "LOOKUP('table'='d', "
            + RETRY.format(d="1s", n="2").replace("'fixed_delay'", "' fixed_delay '")
            + ")",
            "value ' fixed_delay ' for key 'retry-strategy'",
            "' fixed_delay '",
        ),
        (
            "LOOKUP('table'='d', "
            + RETRY.format(d="1s", n="2").replace("'lookup_miss'", "' lookup_miss'")
            + ")",
            "unsupported retry-predicate ' lookup_miss'",
            "' lookup_miss'",
        ),
        ("LOOKUP('table'='d', 'async'=' true')", "value ' true' for key 'async'", "' true'"),
        (
            "LOOKUP('table'='d', 'output-mode'=' ordered')",
            "value ' ordered' for key 'output-mode'",
            "' ordered'",
        ),
        ("LOOKUP('table'='d', 'shuffle'='maybe')", "value 'maybe' for key 'shuffle'", "'maybe'"),
        # a qualified name names a table without an alias only
        (
            "LOOKUP('table'='default_catalog.default_database.dim')",
            "`default_catalog.default_database.dim` in `LOOKUP`",
            "'default_catalog.default_database.dim'",
        ),
    ],
)
def test_a_lookup_hint_flink_refuses_is_refused_with_its_message(tmp_path, hint, message, caret):
    env = _env(tmp_path)
    sql = f"SELECT /*+ {hint} */" + JOIN
    with pytest.raises(SqlError, match=message) as e:
        env.execute_sql(sql)
    assert sql.splitlines()[e.value.line - 1][e.value.col - 1 :].startswith(caret), (e.value.col, sql)


@pytest.mark.parametrize(
    ("sql", "retry"),
    [
        ("SELECT /*+ LOOKUP('table'='d') */" + JOIN, None),
        (
            "SELECT /*+ LOOKUP('table'='d', 'async'='TRUE', 'output-mode'='allow_unordered', "
            "'capacity'='10', 'timeout'='10s', 'foo'='bar') */" + JOIN,
            None,
        ),
        (
            "SELECT /*+ LOOKUP('table'='d', " + RETRY.format(d="10s", n="3") + ") */" + JOIN,
            "retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]",
        ),
        (
            "SELECT /*+ LOOKUP('table'='d', "
            + RETRY.format(d="1 s", n="3")
            .replace("'lookup_miss'", "'LOOKUP_MISS'")
            .replace("'fixed_delay'", "'FIXED_DELAY'")
            + ") */"
            + JOIN,
            "retry=[LOOKUP_MISS, FIXED_DELAY, 1000ms, 3]",
        ),
        # the first hint naming a table wins
        (
            "SELECT /*+ LOOKUP('table'='d', "
            + RETRY.format(d="10s", n="3")
            + "), LOOKUP('table'='d', "
            + RETRY.format(d="2s", n="1")
            + ") */"
            + JOIN,
            "retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]",
        ),
        # the dimension table without an alias is named by its name
        (
            "SELECT /*+ LOOKUP('table'='dim', "
            + RETRY.format(d="10s", n="3")
            + ") */ o.oid, dim.w FROM orders AS o "
            "LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc ON o.k = dim.id",
            "retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]",
        ),
        # ... also qualified (Flink 2.3 takes both)
        *[
            (
                f"SELECT /*+ LOOKUP('table'='{name}', "
                + RETRY.format(d="10s", n="3")
                + ") */ o.oid, dim.w FROM orders AS o "
                "JOIN dim FOR SYSTEM_TIME AS OF o.proc ON o.k = dim.id",
                "retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]",
            )
            for name in ("default_database.dim", "default_catalog.default_database.dim")
        ],
        (
            "SELECT /*+ LOOKUP('table'='dim', "
            + RETRY.format(d="10s", n="3")
            + ") */ o.oid, dim.w FROM orders AS o "
            "JOIN default_catalog.default_database.dim FOR SYSTEM_TIME AS OF o.proc ON o.k = dim.id",
            "retry=[lookup_miss, FIXED_DELAY, 10000ms, 3]",
        ),
        # a hint of the outer SELECT names the subquery's table (no error) but applies to its own SELECT only
        (
            "SELECT /*+ LOOKUP('table'='d', "
            + RETRY.format(d="10s", n="3")
            + ") */ * FROM (SELECT"
            + JOIN
            + ")",
            None,
        ),
        (
            "SELECT /*+ LOOKUP('table'='d', "
            + RETRY.format(d="10s", n="3")
            + ") */ * FROM (SELECT /*+ LOOKUP("
            "'table'='d', " + RETRY.format(d="2s", n="1") + ") */" + JOIN + ")",
            "retry=[lookup_miss, FIXED_DELAY, 2000ms, 1]",
        ),
        # batch join strategies: taken without effect in a streaming job
        ("SELECT /*+ BROADCAST(o), SHUFFLE_HASH(d), SHUFFLE_MERGE(o, d), NEST_LOOP(d) */" + JOIN, None),
        (
            "SELECT /*+ BROADCAST(d) */ * FROM (SELECT o.oid, d.w FROM orders AS o "
            "JOIN dim2 AS d ON o.k = d.id)",
            None,
        ),
        # LOOKUP naming the right input of a regular join: taken, to no effect (Flink 2.3, session 23)
        *[
            (
                f"SELECT /*+ LOOKUP('table'='{name}', "
                + RETRY.format(d="10s", n="3")
                + f") */ o.oid FROM {rest}",
                None,
            )
            for name, rest in [
                ("d", "orders AS o JOIN dim2 AS d ON o.k = d.id"),
                ("dim2", "orders AS o JOIN dim2 ON o.k = dim2.id"),
                ("default_database.dim2", "orders AS o JOIN dim2 ON o.k = dim2.id"),
                ("s", "orders AS o JOIN (SELECT * FROM dim2) AS s ON o.k = s.id"),
            ]
        ],
        (
            "SELECT /*+ LOOKUP('table'='e', " + RETRY.format(d="10s", n="3") + ") */ o.oid, d.w, e.w "
            "FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d ON o.k = d.id "
            "JOIN dim2 AS e ON o.k = e.id",
            None,
        ),
    ],
)
def test_hints_flink_takes_plan_as_flink(tmp_path, sql, retry):
    plan = _explain(_env(tmp_path), sql)
    assert "LookupJoin" in plan or "Join" in plan
    if retry is None:
        assert "retry=" not in plan
    else:
        assert retry in plan


SUB = "SELECT o2.oid FROM orders AS o2 JOIN dim FOR SYSTEM_TIME AS OF o2.proc AS d ON o2.k = d.id"
OWN = "SELECT /*+ LOOKUP('table'='d', " + RETRY.format(d="1s", n="1") + ") */"
OUTER = "SELECT /*+ LOOKUP('table'='d', " + RETRY.format(d="10s", n="3") + ") */ o.oid FROM orders AS o"


@pytest.mark.parametrize(
    ("sql", "retries"),
    [
        # Flink 2.3's EXPLAIN (session 23): a subquery in an expression takes the outer SELECT's hint
        (f"{OUTER} WHERE o.oid IN ({SUB})", ["10000ms, 3"]),
        (f"{OUTER} WHERE o.oid NOT IN ({SUB})", ["10000ms, 3"]),
        (
            f"{OUTER} WHERE o.oid > ({SUB.replace('o2.oid', 'MIN(o2.oid)', 1)})",
            ["10000ms, 3"],
        ),
        (f"SELECT * FROM ({OUTER} WHERE o.oid IN ({SUB}))", ["10000ms, 3"]),
        # ... unless a hint of its own names the table
        (f"{OUTER} WHERE o.oid IN ({SUB.replace('SELECT', OWN, 1)})", ["1000ms, 1"]),
        # ... and not through a FROM subquery of it
        (f"{OUTER} WHERE o.oid IN (SELECT s.oid FROM ({SUB}) AS s)", []),
    ],
)
def test_a_subquery_in_an_expression_takes_the_enclosing_hint(tmp_path, sql, retries):
    plan = _explain(_env(tmp_path), sql)
    assert "LookupJoin" in plan
    assert re.findall(r"FIXED_DELAY, (\d+ms, \d+)\]", plan) == retries


@pytest.mark.parametrize(
    ("name", "rest"),
    [("o", "orders AS o JOIN dim2 AS d ON o.k = d.id"), ("d", "dim2 AS d JOIN orders AS o ON o.k = d.id")],
)
def test_a_lookup_hint_naming_the_left_input_of_a_join_is_refused(tmp_path, name, rest):
    """Flink 2.3 matches LOOKUP against the right input of each join only (session 23)."""
    sql = f"SELECT /*+ LOOKUP('table'='{name}') */ o.oid FROM {rest}"
    with pytest.raises(
        SqlError, match=f"cannot match the name of input tables or views: `{name}` in `LOOKUP`"
    ):
        _env(tmp_path).execute_sql(sql)


def test_a_join_hint_naming_no_join_input_is_refused(tmp_path):
    sql = "SELECT /*+ BROADCAST(x) */ o.oid, d.w FROM orders AS o JOIN dim2 AS d ON o.k = d.id"
    with pytest.raises(SqlError, match="cannot match the name of input tables or views: `x` in `BROADCAST`"):
        _env(tmp_path).execute_sql(sql)


@pytest.mark.parametrize("retry", [True, False])
def test_a_miss_is_looked_up_again_until_the_row_is_written(tmp_path, postgres_db, retry):
    """Key 7 has no row when the job looks it up; the row is written ~1 s later. With the retry
    (every 300 ms, up to 20 more lookups) the order joins it; without, the INNER join drops it."""
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE dim (id INT PRIMARY KEY, w INT)")
        c.execute("INSERT INTO dim VALUES (1, 10)")
    url = f"jdbc:postgresql://{postgres_db.host}:{postgres_db.port}/{postgres_db.database}"
    env = _env(tmp_path, url, orders=[{"oid": 1, "k": 1}, {"oid": 2, "k": 7}])
    hint = "/*+ LOOKUP('table'='d', " + RETRY.format(d="300ms", n="20") + ") */" if retry else ""
    started = time.monotonic()
    rows = _collect_while(env, f"SELECT {hint}" + JOIN, postgres_db, "INSERT INTO dim VALUES (7, 70)")
    assert rows == ([(1, 10), (2, 70)] if retry else [(1, 10)])
    if retry:
        assert time.monotonic() - started >= 1.0  # it waited for the row


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT /*+ BROADCAST(o) */ o.k FROM orders AS o",
        "SELECT /*+ LOOKUP('table'='d') */ o.k FROM orders AS o",
        "SELECT /*+ BROADCAST(o) */ * FROM (SELECT o.k FROM orders AS o)",
    ],
)
def test_without_a_join_any_name_is_taken(tmp_path, sql):
    """Flink checks a hint's names on the joins it is attached to: a SELECT without one takes any."""
    assert "Calc" in _explain(_env(tmp_path), sql) or "TableSourceScan" in _explain(_env(tmp_path), sql)


@pytest.mark.parametrize(
    ("on", "joined"),
    [
        ("d.w = 70", True),
        ("d.w > 50", True),
        ("(d.c LIKE 'U%' OR d.w IS NULL)", True),
        # not a condition Flink's JDBC source takes into its query: checked after the lookup, no retry
        ("d.w + 1 = 71", False),
    ],
)
def test_a_row_failing_a_condition_on_the_dimension_alone_is_a_miss(tmp_path, postgres_db, on, joined):
    """Flink's JDBC lookup takes the ON conditions on the dimension alone that compare a column with
    a literal into its query (filter push-down), so a row failing them is a miss and is looked up
    again. Key 7's row is (7, 5, 'CN') when looked up and becomes (7, 70, 'US') ~1 s later: Flink 2.3
    (PyFlink, JDBC over the local PostgreSQL, session 23) joins it for the first three conditions
    and drops the order at once for the last (its plan keeps it as the join's where=[...])."""
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE dim (id INT PRIMARY KEY, w INT, c VARCHAR(10))")
        c.execute("INSERT INTO dim VALUES (1, 70, 'US'), (7, 5, 'CN')")
    url = f"jdbc:postgresql://{postgres_db.host}:{postgres_db.port}/{postgres_db.database}"
    env = _env(tmp_path, url, orders=[{"oid": 1, "k": 1}, {"oid": 2, "k": 7}])
    env.execute_sql(
        "CREATE TABLE dim3 (id INT, w INT, c STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = "
        f"'jdbc', 'url' = '{url}', 'table-name' = 'dim', 'username' = '{DB_USER}', "
        f"'password' = '{DB_PASSWORD}')"
    )
    sql = (
        "SELECT /*+ LOOKUP('table'='d', " + RETRY.format(d="300ms", n="20") + ") */ o.oid, d.w "
        f"FROM orders AS o JOIN dim3 FOR SYSTEM_TIME AS OF o.proc AS d ON o.k = d.id AND {on}"
    )
    rows = _collect_while(env, sql, postgres_db, "UPDATE dim SET w = 70, c = 'US' WHERE id = 7")
    assert rows == [(1, 70)] + ([(2, 70)] if joined else [])


@pytest.mark.parametrize(
    ("on", "pushed"),
    [
        # Flink 2.3's EXPLAIN over the JDBC table (session 23): no where=[...] left on its LookupJoin
        ("d.w = 70", True),
        ("d.c = 'US'", True),
        ("d.w > 50", True),
        ("(d.c LIKE 'U%' OR d.w IS NULL)", True),
        ("d.c IN ('a', 'b') AND d.w BETWEEN 1 AND 5 AND NOT (d.w = 3) AND d.c IS NOT NULL", True),
        ("d.w = -3 AND d.c <> 'x'", True),
        # ... and where=[...] left on it: checked after the lookup
        ("d.w + 1 = 71", False),
        ("d.w = 2.5", False),
        ("UPPER(d.c) = 'X'", False),
    ],
)
def test_the_conditions_flink_puts_in_the_jdbc_lookup_query(on, pushed):
    types = {"w": SqlType("INT"), "c": SqlType("STRING")}
    where = parse_statement(f"SELECT 1 FROM t AS d WHERE {on}").args["where"].this
    conjuncts = where.flatten() if isinstance(where, exp.And) else [where]
    assert all(jdbc_pushable(c, lambda col: types[col.name]) for c in conjuncts) is pushed


@pytest.mark.parametrize(
    ("hint", "shown"),
    [
        # Flink 2.3's EXPLAIN over the JDBC table (session 24 probe), its LookupJoin line:
        # ..., select=[oid, k, id, color], shuffle=[true]) and with a retry
        # ..., select=[oid, k, id, color], shuffle=[true], retry=[lookup_miss, FIXED_DELAY, 10000ms, 3])
        ("LOOKUP('table'='d', 'shuffle'='true')", ", shuffle=[true], changelog="),
        ("LOOKUP('table'='d', 'shuffle'='TRUE', 'async'='true')", ", shuffle=[true], changelog="),
        ("LOOKUP('table'='d', 'shuffle'='TRUE', " + RETRY.format(d="10s", n="3") + ")",
         ", shuffle=[true], retry=[lookup_miss, FIXED_DELAY, 10000ms, 3], changelog="),
        ("LOOKUP('table'='d', 'shuffle'='false')", "w], changelog="),
    ],
)
def test_explain_shows_a_shuffled_lookup_as_flink(tmp_path, hint, shown):
    """A LOOKUP hint's ``'shuffle' = 'true'`` shows on the LookupJoin as Flink's (it was left out)."""
    plan = _explain(_env(tmp_path), f"SELECT /*+ {hint} */" + JOIN)
    line = next(ln for ln in plan.splitlines() if "LookupJoin(" in ln)
    assert shown in line, line
    assert ("shuffle=" in line) == ("true" in hint.lower().split("'shuffle'=")[1][:7])

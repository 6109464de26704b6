"""Lookup joins against jdbc tables on real PostgreSQL and MariaDB servers, checked against DuckDB.

The dimension table is static while the job runs, so the processing-time join equals the batch
join DuckDB computes over the same rows (INNER and LEFT, extra conditions on the dimension side,
keys by primary key or by other columns, NULL keys), and the answer Apache Flink 2.3's JDBC lookup
join gave for the queries of ``scripts/flink_lookup_join.py`` (``lookup_join_flink.json``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import uuid
from pathlib import Path

import duckdb
import pytest
from streamsql.connectors.jdbc_lookup import JdbcLookup

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import ConfigError, ExecutionError, SqlError
from streamsql.core.types import SqlType
from streamsql.environment import StreamEnvironment
from tests.db_fixtures import DB_PASSWORD, DB_USER, database_with

DIM = [(1, "red", 10, True), (2, "green", 20, False), (3, "blue", 30, True), (4, "red", 40, True),
       (5, None, 50, True)]
ORDERS = [{"oid": i, "k": None if i % 9 == 0 else i % 7, "color": ["red", "blue", None, "pink"][i % 4]}
          for i in range(60)]


@pytest.fixture(params=["postgresql", "mariadb"])
def dim_db(request):
    kind = request.param
    db = request.getfixturevalue("postgres_db" if kind == "postgresql" else "mariadb_db")
    ddl = "CREATE TABLE dim (id INT PRIMARY KEY, color VARCHAR(20), w INT, active BOOLEAN)"
    ins = "INSERT INTO dim VALUES (%s, %s, %s, %s)"
    if kind == "postgresql":
        with db.pg() as c:
            c.execute(ddl)
            c.cursor().executemany(ins, DIM)
    else:
        with db.mysql() as c, c.cursor() as cur:
            cur.execute(ddl)
            cur.executemany(ins, DIM)
    return kind, db


def _env(tmp_path, kind, db, batch_size=16, orders=ORDERS, **options):
    env = StreamEnvironment({"execution.batch-size": str(batch_size),
                             "pipeline.name": f"lk-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    path = tmp_path / "orders.json"
    path.write_text("".join(json.dumps(o) + "\n" for o in orders))
    env.execute_sql(f"CREATE TABLE orders (oid INT, k INT, color STRING, proc AS PROCTIME()) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
    opts = {"connector": "jdbc", "url": f"jdbc:{kind}://{db.host}:{db.port}/{db.database}",
            "table-name": "dim", "username": DB_USER, "password": DB_PASSWORD, **options}
    env.execute_sql("CREATE TABLE dim (id INT, color STRING, w INT, active BOOLEAN, PRIMARY KEY (id) NOT "
                    "ENFORCED) WITH (" + ", ".join(f"'{k}' = '{v}'" for k, v in opts.items()) + ")")
    return env


def _duck(sql: str) -> list[tuple]:
    con = duckdb.connect()
    con.execute("CREATE TABLE orders (oid INT, k INT, color VARCHAR)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(o["oid"], o["k"], o["color"]) for o in ORDERS])
    con.execute("CREATE TABLE dim (id INT, color VARCHAR, w INT, active BOOLEAN)")
    con.executemany("INSERT INTO dim VALUES (?, ?, ?, ?)", DIM)
    return sorted(con.execute(sql).fetchall(), key=repr)


def _rows(env, sql):
    out = []
    for kind, row in env.execute_sql(sql).collect(timeout=120):
        assert kind.short == "+I"
        out.append(tuple(row))
    return sorted(out, key=repr)


CASES = [
    ("SELECT o.oid, d.id, d.color, d.w FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d "
     "ON o.k = d.id",
     "SELECT o.oid, d.id, d.color, d.w FROM orders o JOIN dim d ON o.k = d.id"),
    ("SELECT o.oid, d.id, d.w FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d "
     "ON o.k = d.id AND d.active AND d.w > 10",
     "SELECT o.oid, d.id, d.w FROM orders o LEFT JOIN dim d ON o.k = d.id AND d.active AND d.w > 10"),
    # by a column that is not the key (several rows per key), with a condition over both sides
    ("SELECT o.oid, d.id FROM orders AS o LEFT JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d "
     "ON o.color = d.color AND d.w > o.oid",
     "SELECT o.oid, d.id FROM orders o LEFT JOIN dim d ON o.color = d.color AND d.w > o.oid"),
    # two key columns
    ("SELECT o.oid, d.w FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d "
     "ON o.k = d.id AND o.color = d.color",
     "SELECT o.oid, d.w FROM orders o JOIN dim d ON o.k = d.id AND o.color = d.color"),
    # the PROCTIME() of a subquery's SELECT list, and a key expression of the left: Nexmark q13's shape
    ("SELECT o.oid, d.w FROM (SELECT *, PROCTIME() AS p FROM orders WHERE oid > 3) AS o JOIN dim "
     "FOR SYSTEM_TIME AS OF o.p AS d ON MOD(o.oid, 10) = d.id",
     "SELECT o.oid, d.w FROM orders o JOIN dim d ON o.oid % 10 = d.id WHERE o.oid > 3"),
]


@pytest.mark.parametrize(("sql", "duck_sql"), CASES)
def test_lookup_join_of_a_static_table_equals_the_batch_join(tmp_path, dim_db, sql, duck_sql):
    kind, db = dim_db
    env = _env(tmp_path, kind, db)
    try:
        assert _rows(env, sql) == _duck(duck_sql)
    finally:
        env.close()


@pytest.mark.parametrize("cache", [{}, {"lookup.cache": "PARTIAL", "lookup.partial-cache.max-rows": "2",
                                         "lookup.partial-cache.expire-after-write": "1 h"}])
def test_cache_options_keep_the_answer(tmp_path, dim_db, cache):
    kind, db = dim_db
    env = _env(tmp_path, kind, db, batch_size=7, **cache)
    sql, duck_sql = CASES[1]
    try:
        assert _rows(env, sql) == _duck(duck_sql)
    finally:
        env.close()


def test_a_processing_time_join_against_a_non_lookup_table_is_an_error_at_as_of(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("CREATE TABLE o (k INT, proc AS PROCTIME()) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path}/o.json', 'format' = 'json')")
    env.execute_sql("CREATE TABLE r (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = "
                    "'upsert-kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:1', "
                    "'key.format' = 'json', 'value.format' = 'json')")
    sql = "SELECT o.k, r.v FROM o JOIN r FOR SYSTEM_TIME AS OF o.proc ON o.k = r.id"
    message = r"'r' \(connector 'upsert-kafka'\) is not one.*Processing-time temporal join is not supported"
    with pytest.raises(SqlError, match=message) as e:
        env.execute_sql(sql)
    assert sql[e.value.col - 1:].startswith("proc ON")


def test_flink_legacy_cache_keys_are_refused_at_planning(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("CREATE TABLE o (k INT, proc AS PROCTIME()) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path}/o.json', 'format' = 'json')")
    env.execute_sql("CREATE TABLE d (id INT, v INT) WITH ('connector' = 'jdbc', 'url' = "
                    "'jdbc:postgresql://localhost:1/x', 'table-name' = 'd', 'lookup.cache.ttl' = '1 h')")
    with pytest.raises(ConfigError, match="lookup.cache.ttl"):
        env.execute_sql("SELECT o.k, d.v FROM o JOIN d FOR SYSTEM_TIME AS OF o.proc ON o.k = d.id")


FLINK = Path(__file__).with_name("lookup_join_flink.json")


@pytest.mark.parametrize("case", range(5))
def test_lookup_join_equals_flinks_answer(tmp_path, postgres_db, case):
    """The queries of scripts/flink_lookup_join.py over its rows give the rows Flink 2.3 gave."""
    doc = json.loads(FLINK.read_text())
    with postgres_db.pg() as c:
        c.execute(doc["dim_ddl"])
        c.cursor().executemany("INSERT INTO dim VALUES (%s, %s, %s, %s)", [tuple(r) for r in doc["dim"]])
    env = _env(tmp_path, "postgresql", postgres_db, orders=doc["orders"])
    try:
        expected = doc["cases"][case]
        got = sorted((list(r) for r in _rows(env, expected["sql"])), key=repr)
        assert got == sorted(expected["rows"], key=repr)
    finally:
        env.close()


def test_the_left_proctime_stays_a_time_attribute_after_a_lookup_join(tmp_path):
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("CREATE TABLE o (k INT, proc AS PROCTIME()) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path}/o.json', 'format' = 'json')")
    env.execute_sql("CREATE TABLE d (id INT, v INT) WITH ('connector' = 'jdbc', 'url' = "
                    "'jdbc:postgresql://localhost:1/x', 'table-name' = 'd')")
    env.execute_sql("CREATE VIEW j AS SELECT o.k, o.proc, d.v FROM o LEFT JOIN d "
                    "FOR SYSTEM_TIME AS OF o.proc ON o.k = d.id")
    sql = "EXPLAIN SELECT k, SUM(v) FROM j GROUP BY k, TUMBLE(proc, INTERVAL '1' MINUTE)"
    plan = env.execute_sql(sql).message
    assert "TUMBLE(time_col=[proc]" in plan and "LookupJoin(table=[d]" in plan


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_a_declared_column_the_database_lacks_is_named_at_job_start(request, tmp_path, kind):
    """The dimension table is checked when the job starts (no input row yet, so no lookup ran):
    the error names the column the database's table lacks, in our words, and never the password."""
    db = database_with(request, kind, "CREATE TABLE dim (k INT PRIMARY KEY, color VARCHAR(20), w INT, "
                                      "active BOOLEAN)")
    env = _env(tmp_path, kind, db, orders=[])  # `dim` is declared with `id`; the database has `k`
    try:
        with pytest.raises(ConfigError) as info:
            _rows(env, "SELECT o.oid, d.w FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc AS d "
                       "ON o.k = d.id")
    finally:
        env.close()
    text = str(info.value)
    assert f"Table 'dim': the {kind} table 'dim' at {db.host}:{db.port} has no column 'id'" in text
    assert "its columns: k, color, w, active" in text
    assert DB_PASSWORD not in text and "1054" not in text and "does not exist" not in text


class _Proxy:
    """A TCP relay to a database server on a port of its own, which :meth:`cut` stops for good."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client = self.listener.accept()[0]
            except OSError:
                return  # cut
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            s.close()

    def cut(self) -> None:
        """Refuse new connections and drop the open ones: the server is gone."""
        for s in (self.listener, *self.sockets):  # shutdown, not just close: it wakes a blocked accept/recv
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_a_server_lost_while_looking_up_fails_naming_the_table_once(request, kind):
    """The connection drops and the reconnect of the retry is refused: the error names the table
    once (it said "Table 'dim': the ... at ...: Table 'dim': the ... at ...: ...", the failed
    reconnect's own error wrapped again)."""
    db = database_with(request, kind, "CREATE TABLE dim (id INT PRIMARY KEY, w INT)")
    proxy = _Proxy(db.host, db.port)
    options = {"connector": "jdbc", "url": f"jdbc:{kind}://127.0.0.1:{proxy.port}/{db.database}",
               "table-name": "dim", "username": DB_USER, "password": DB_PASSWORD, "lookup.max-retries": "1"}
    columns = [ColumnDef("id", SqlType.parse("INT")), ColumnDef("w", SqlType.parse("INT"))]
    table = TableDef("dim", columns, options, primary_key=["id"])
    lookup = JdbcLookup(ConnectorContext(table, "job", {}), ["id"])
    try:
        lookup.open()
        assert lookup.lookup([(1,)]) == []
        proxy.cut()
        with pytest.raises(ExecutionError) as info:
            lookup.lookup([(1,)])
    finally:
        lookup.close()
        proxy.cut()
    text = str(info.value)
    assert text.startswith(f"Table 'dim': the {kind} table 'dim' at 127.0.0.1:{proxy.port}: "), text
    assert text.count("Table 'dim'") == 1, text
    assert DB_PASSWORD not in text


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_a_time_column_is_looked_up_as_a_time_of_day(request, tmp_path, kind):
    """A PostgreSQL ``time(3)`` / MariaDB ``TIME(3)`` column of the dimension table reads as TIME(3)
    (pymysql gives MariaDB's as a timedelta)."""
    db = database_with(request, kind, "CREATE TABLE opens (id INT PRIMARY KEY, t_open TIME(3))")
    database_with(request, kind, "INSERT INTO opens VALUES (1, '08:30:00.250'), (2, '23:59:59'), (3, NULL)")
    env = StreamEnvironment({"pipeline.name": f"lkt-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk")})
    path = tmp_path / "orders.json"
    path.write_text("".join(json.dumps({"oid": i, "k": i}) + "\n" for i in (1, 2, 3, 4)))
    env.execute_sql(f"CREATE TABLE orders (oid INT, k INT, proc AS PROCTIME()) WITH ('connector' = "
                    f"'filesystem', 'path' = '{path}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE opens (id INT, t_open TIME(3), PRIMARY KEY (id) NOT ENFORCED) WITH ("
                    f"'connector' = 'jdbc', 'url' = 'jdbc:{kind}://{db.host}:{db.port}/{db.database}', "
                    f"'table-name' = 'opens', 'username' = '{DB_USER}', 'password' = '{DB_PASSWORD}')")
    try:
        rows = _rows(env, "SELECT o.oid, CAST(d.t_open AS STRING) FROM orders AS o LEFT JOIN opens "
                          "FOR SYSTEM_TIME AS OF o.proc AS d ON o.k = d.id")
    finally:
        env.close()
    assert rows == sorted([(1, "08:30:00.25"), (2, "23:59:59.0"), (3, None), (4, None)], key=repr)

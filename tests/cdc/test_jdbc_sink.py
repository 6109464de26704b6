"""The jdbc sink against real PostgreSQL and MariaDB servers: upsert, append, EXPLAIN, errors."""

from __future__ import annotations

import datetime as dt
import json
import uuid

import duckdb
import pytest

from streamsql.core.errors import ConfigError, ExecutionError, PlanError
from streamsql.environment import StreamEnvironment
from tests.db_fixtures import DB_PASSWORD, DB_USER, database_with


def _url(db, kind):
    return f"jdbc:{kind}://{db.host}:{db.port}/{db.database}"


def _jdbc(db, kind, table, **extra):
    opts = {"connector": "jdbc", "url": _url(db, kind), "table-name": table, "username": DB_USER,
            "password": DB_PASSWORD, **extra}
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def _input(tmp_path, n=500):
    path = tmp_path / "in.json"
    path.write_text("".join(json.dumps({"k": i % 7 if i % 11 else None, "v": i % 13 - 4,
                                        "d": f"{i}.{i % 100:02d}"}) + "\n" for i in range(n)))
    return path


def _env(tmp_path, **extra):
    # the interval makes Flink's default restart strategy exponential-delay, which would retry a
    # failing job for ever (docs/checkpointing.md#restarts): these tests want the failure itself
    return StreamEnvironment({"execution.checkpointing.interval": "200 ms", "execution.batch-size": "50",
                              "restart-strategy.type": "none",
                              "pipeline.name": f"jdbc-{uuid.uuid4().hex[:6]}",
                              "execution.checkpointing.dir": str(tmp_path / "chk"), **extra})


def _db_rows(db, kind, sql):
    if kind == "postgresql":
        with db.pg() as c:
            return sorted(c.execute(sql).fetchall(), key=repr)
    with db.mysql() as c, c.cursor() as cur:
        cur.execute(sql)
        return sorted(cur.fetchall(), key=repr)


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_an_updating_result_is_upserted_and_equals_duckdb(request, tmp_path, kind):
    db = database_with(request, kind, "CREATE TABLE totals (k INT, n BIGINT NOT NULL, s BIGINT, "
                                      "d DECIMAL(12, 2), PRIMARY KEY (k))")
    path = _input(tmp_path)
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, v INT, d DECIMAL(10, 2)) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE totals (k INT, n BIGINT, s BIGINT, d DECIMAL(12, 2), "
                    f"PRIMARY KEY (k) NOT ENFORCED) WITH ({_jdbc(db, kind, 'totals')})")
    where = " WHERE k IS NOT NULL"  # a primary key is never NULL
    job = env.execute_sql(f"INSERT INTO totals SELECT k, COUNT(*), SUM(v), MAX(d) FROM src{where} "
                          "GROUP BY k").job
    assert job.wait(120) == "FINISHED"
    expected = duckdb.sql(f"SELECT k, COUNT(*), SUM(v), MAX(CAST(d AS DECIMAL(12, 2))) "
                          f"FROM read_json('{path}', columns={{k: 'INT', v: 'INT', d: 'VARCHAR'}}){where} "
                          "GROUP BY k").fetchall()
    assert _db_rows(db, kind, "SELECT k, n, s, d FROM totals") == sorted(expected, key=repr)


def test_without_a_key_rows_are_appended_and_explain_says_at_least_once(postgres_db, tmp_path):
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE log (k INT, v INT)")
    path = _input(tmp_path, 120)
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                    "'format' = 'json')")
    env.execute_sql(f"CREATE TABLE log (k INT, v INT) WITH ({_jdbc(postgres_db, 'postgresql', 'log')})")
    plan = env.execute_sql("EXPLAIN INSERT INTO log SELECT k, v FROM src WHERE v > 0").message
    assert "log: at-least-once (jdbc without a primary key appends" in plan
    assert DB_PASSWORD not in plan
    assert env.execute_sql("INSERT INTO log SELECT k, v FROM src WHERE v > 0").job.wait(120) == "FINISHED"
    columns = "columns={k: 'INT', v: 'INT', d: 'VARCHAR'}"
    expected = duckdb.sql(f"SELECT k, v FROM read_json('{path}', {columns}) WHERE v > 0").fetchall()
    assert _db_rows(postgres_db, "postgresql", "SELECT k, v FROM log") == sorted(expected, key=repr)
    with pytest.raises(PlanError, match="updat"):
        env.execute_sql("INSERT INTO log SELECT k, CAST(COUNT(*) AS INT) FROM src GROUP BY k")


@pytest.mark.parametrize(("case", "fix"), [("password", "check the options 'username' and 'password'"),
                                           ("table", "check the option 'table-name'")])
def test_a_wrong_setting_fails_the_job_naming_the_option(postgres_db, tmp_path, case, fix):
    path = _input(tmp_path, 10)
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                    "'format' = 'json')")
    extra = {"password": "wrong-secret-77"} if case == "password" else {}
    options = _jdbc(postgres_db, "postgresql", "nope", **extra)
    env.execute_sql(f"CREATE TABLE log (k INT, v INT) WITH ({options})")
    job = env.execute_sql("INSERT INTO log SELECT k, v FROM src").job
    with pytest.raises(ConfigError) as info:
        job.wait(60)
    assert fix in str(info.value) and "wrong-secret-77" not in str(info.value)


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_declared_columns_the_table_lacks_are_named(request, tmp_path, kind):
    """Each declared column the database's table lacks is named in our words (MariaDB's errno was
    read as a generic failure before: retried, then its text shown)."""
    db = database_with(request, kind, "CREATE TABLE log (k INT, val INT)")
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'filesystem', "
                    f"'path' = '{_input(tmp_path, 10)}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE log (K INT, v INT, w INT) WITH ({_jdbc(db, kind, 'log')})")
    job = env.execute_sql("INSERT INTO log SELECT k, v, v FROM src").job
    with pytest.raises(ConfigError) as info:
        job.wait(60)
    text = str(info.value)
    assert f"the {kind} table 'log' at {db.host}:{db.port} has no columns 'v', 'w', declared in " in text
    assert "its columns: k, val" in text and DB_PASSWORD not in text


def test_a_row_that_leaves_a_where_after_the_aggregation_is_deleted(postgres_db, tmp_path):
    """-U of a key that no +U follows (its new result fails the WHERE) deletes the row, as Flink's
    upsert writer does; dropping the -U left the stale row in the table."""
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE thirds (k INT, n BIGINT NOT NULL, PRIMARY KEY (k))")
    path = _input(tmp_path)
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, v INT, d DECIMAL(10, 2)) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE thirds (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH "
                    f"({_jdbc(postgres_db, 'postgresql', 'thirds')})")
    agg = "SELECT k, COUNT(*) AS n FROM src WHERE k IS NOT NULL GROUP BY k"
    job = env.execute_sql(f"INSERT INTO thirds SELECT * FROM ({agg}) WHERE MOD(n, 3) = 0").job
    assert job.wait(120) == "FINISHED"
    expected = duckdb.sql(f"SELECT * FROM (SELECT k, COUNT(*) AS n FROM read_json('{path}', "
                          "columns={k: 'INT', v: 'INT', d: 'VARCHAR'}) WHERE k IS NOT NULL GROUP BY k) "
                          "WHERE n % 3 = 0").fetchall()
    assert _db_rows(postgres_db, "postgresql", "SELECT k, n FROM thirds") == sorted(expected, key=repr)


@pytest.mark.parametrize("kind", ["postgresql", "mariadb"])
def test_time_values_are_written_as_the_database_time_type(request, tmp_path, kind):
    """A TIME(3) column into PostgreSQL ``time(3)`` / MariaDB ``TIME(3)``: the milliseconds kept."""
    db = database_with(request, kind, "CREATE TABLE times (k INT, t TIME(3))")
    path = tmp_path / "in.json"
    path.write_text('{"k": 1, "t": "12:34:56.5"}\n{"k": 2, "t": "00:00:00"}\n{"k": 3, "t": null}\n')
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE src (k INT, t TIME(3)) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE times (k INT, t TIME(3)) WITH ({_jdbc(db, kind, 'times')})")
    assert env.execute_sql("INSERT INTO times SELECT k, t FROM src").job.wait(120) == "FINISHED"
    rows = _db_rows(db, kind, "SELECT k, t FROM times")
    as_text = {k: None if t is None else str(t) for k, t in rows}  # psycopg: a time; pymysql: a timedelta
    assert as_text == ({1: "12:34:56.500000", 2: "00:00:00", 3: None} if kind == "postgresql"
                       else {1: "12:34:56.500000", 2: "0:00:00", 3: None})


def test_a_nanosecond_timestamp_is_written_to_the_microsecond_or_refused(postgres_db, tmp_path):
    """A TIMESTAMP(9) column's values reach the driver as ``datetime`` (pandas importable or not);
    one with digits below the microsecond, which PostgreSQL's timestamp cannot hold (Flink's PgJDBC
    rounds them), fails the job saying so, never an internal error."""
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE stamps (k INT, ts TIMESTAMP(6))")
    env = _env(tmp_path)
    env.execute_sql(f"CREATE TABLE stamps (k INT, ts TIMESTAMP(9)) WITH "
                    f"({_jdbc(postgres_db, 'postgresql', 'stamps')})")
    whole = "SELECT 1, CAST('1969-12-31 23:59:59.999999000' AS TIMESTAMP(9))"
    assert env.execute_sql(f"INSERT INTO stamps {whole}").job.wait(120) == "FINISHED"
    assert _db_rows(postgres_db, "postgresql", "SELECT k, ts FROM stamps") == [
        (1, dt.datetime(1969, 12, 31, 23, 59, 59, 999999))]  # noqa: DTZ001
    nanos = "SELECT 2, CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(9))"
    job = env.execute_sql(f"INSERT INTO stamps {nanos}").job
    with pytest.raises(ExecutionError, match="column 'ts' has 1 TIMESTAMP.7..9. value.s. with digits below"):
        job.wait(60)

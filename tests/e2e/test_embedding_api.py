"""The embedding API (streamsql.environment) as an application uses it: statements, query
changelogs, job control, statement sets, and asyncio."""

import asyncio
import contextlib
import json
import logging
import re
import time
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.elements import RowKind
from streamsql.core.errors import SqlError, StreamSQLError
from streamsql.statement_set import StatementSet
from streamsql.table_result import TableResult

SEQ = ("CREATE TABLE {name} (id INT, amount DOUBLE) WITH ('connector' = 'datagen', "
       "'number-of-rows' = '{n}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
       "'fields.id.end' = '{n}', 'fields.amount.min' = '1', 'fields.amount.max' = '100')")
ENDLESS = ("CREATE TABLE {name} (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '{rate}')")


@pytest.fixture
def env(tmp_path):
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "checkpoints"),
                            "state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.interval": "200 ms"}) as e:
        yield e


def fold(changes):
    """Apply a changelog to a multiset of rows (keyed by the whole row)."""
    rows: dict[tuple, int] = {}
    for kind, row in changes:
        rows[row] = rows.get(row, 0) + (1 if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER) else -1)
        if rows[row] == 0:
            del rows[row]
    return rows


def until(cond, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


# -- statements and queries ---------------------------------------------------------------------
def test_ddl_show_describe_and_set(env):
    r = env.execute_sql(SEQ.format(name="orders", n=6))
    assert (r.kind, r.message) == ("ok", "[INFO] Execute statement succeeded.")
    assert env.execute_sql("CREATE VIEW big AS SELECT id FROM orders WHERE amount > 50").kind == "ok"
    tables = env.execute_sql("SHOW TABLES")
    # Flink's SHOW TABLES lists views too (tests/catalog/catalog_flink.json)
    assert (tables.kind, tables.columns, tables.rows) == ("rows", ["table name"], [("big",), ("orders",)])
    assert list(tables) == [(RowKind.INSERT, ("big",)), (RowKind.INSERT, ("orders",))]  # __iter__: +I rows
    assert env.execute_sql("SHOW VIEWS").rows == [("big",)]
    desc = env.execute_sql("DESCRIBE orders")
    assert [(row[0], row[1]) for row in desc.rows] == [("id", "INT"), ("amount", "DOUBLE")]
    env.execute_sql("SET 'pipeline.name' = 'my-job'")
    assert env.config.get("pipeline.name") == "my-job"
    env.execute_sql("RESET 'pipeline.name'")
    assert env.config.get("pipeline.name") in (None, "")
    with pytest.raises(SqlError) as e:
        env.execute_sql("SELEC 1")
    assert "line 1" in str(e.value)


@pytest.mark.parametrize(("text", "what"), [("HELP kafka;", "HELP"), ("  quit;", "QUIT"),
                                           ("PRINT TOPIC t FROM BEGINNING;", "PRINT TOPIC")])
def test_a_shell_command_says_where_it_runs(env, text, what):
    """A newcomer's report (session 33): ``execute_script("HELP;")`` said ``Statement ClientCommand
    is not supported here``, a class name, where the statement is the shell's."""
    with pytest.raises(SqlError) as e:
        env.execute_script(f"SET 'pipeline.name' = 'x';\n{text}", file="s.sql")
    assert str(e.value).startswith(f"s.sql: {what} is a shell command: it runs in 'streamsql shell' and "
                                   f"'streamsql run'"), str(e.value)
    assert "ClientCommand" not in str(e.value) and "PrintTopic" not in str(e.value)
    assert e.value.line == 2


def test_query_changelog_with_row_kinds(env):
    env.execute_sql(SEQ.format(name="orders", n=6))
    result = env.execute_sql("SELECT id % 2 AS parity, COUNT(*) AS n FROM orders GROUP BY id % 2")
    assert (result.kind, result.columns) == ("query", ["parity", "n"])
    changes = list(result)  # the same as result.collect()
    kinds = {k for k, _ in changes}
    assert kinds <= {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER}
    assert RowKind.INSERT in kinds
    assert [k.short for k, _ in changes if k != RowKind.INSERT][:2] in (["-U", "+U"], [])
    assert fold(changes) == {(0, 3): 1, (1, 3): 1}
    assert result.job.status == "FINISHED"

    projected = env.execute_sql("SELECT id * 10 AS x FROM orders WHERE id <= 3")
    assert list(projected.collect()) == [(RowKind.INSERT, (10,)), (RowKind.INSERT, (20,)),
                                         (RowKind.INSERT, (30,))]


def test_poll_reads_without_iterating(env):
    env.execute_sql(SEQ.format(name="orders", n=5))
    result = env.execute_sql("SELECT id FROM orders")
    rows = []
    while (chunk := result.poll(max_rows=2, timeout=0.2)) is not None:
        assert len(chunk) <= 2
        rows += chunk
    assert rows == [(RowKind.INSERT, (i,)) for i in range(1, 6)]
    assert result.poll() is None


def test_stop_iterating_an_unbounded_query_cancels_its_job(env):
    env.execute_sql(ENDLESS.format(name="ticks", rate=1000))
    result = env.execute_sql("SELECT id FROM ticks")
    it = iter(result)
    first = [next(it) for _ in range(5)]
    assert all(k == RowKind.INSERT for k, _ in first)
    it.close()
    assert result.job.done and result.job.status == "CANCELED"


def test_show_jobs_lists_a_running_query_and_stop_job_cancels_it(env):
    """A SELECT's job is a job as in Flink (its ``collect`` job): SHOW JOBS lists it while it runs
    and once it ended, DESCRIBE JOB and STOP JOB find it."""
    env.execute_sql(ENDLESS.format(name="ticks", rate=1000))
    result = env.execute_sql("SELECT id FROM ticks")
    until(lambda: result.job.metrics["rows_out"] > 0)
    shown = env.execute_sql("SHOW JOBS").rows
    assert [(r[0], r[1], r[2]) for r in shown] == [(result.job.job_id, result.job.name, "RUNNING")]
    assert result.job.name == "collect"  # Flink's name of a SELECT's job (TableEnvironmentImpl)
    env.execute_sql("SET 'pipeline.name' = 'ticker'")
    named = env.execute_sql("SELECT id FROM ticks")
    until(lambda: named.job.metrics["rows_out"] > 0)
    assert named.job.name == "ticker"
    env.execute_sql(f"STOP JOB '{named.job.job_id}'")
    env.execute_sql("RESET 'pipeline.name'")
    with pytest.raises(SqlError, match="WITH SAVEPOINT stops INSERT jobs: a query's job keeps"):
        env.execute_sql(f"STOP JOB '{result.job.job_id}' WITH SAVEPOINT")  # its folder goes at close()
    env.execute_sql(f"STOP JOB '{result.job.job_id}'")
    assert result.job.status == "CANCELED"
    assert [r[1:3] for r in env.execute_sql("SHOW JOBS").rows] == [("collect", "CANCELED"),
                                                                    ("ticker", "CANCELED")]
    assert "CANCELED" in env.execute_sql(f"DESCRIBE JOB '{result.job.job_id}'").message


# -- jobs ---------------------------------------------------------------------------------------
def test_bounded_insert_finishes_with_metrics_and_checkpoint(env):
    env.execute_sql(SEQ.format(name="orders", n=1000))
    env.execute_sql("CREATE TABLE sink (id INT, amount DOUBLE) WITH ('connector' = 'blackhole')")
    result = env.execute_sql("INSERT INTO sink SELECT id, amount FROM orders")
    assert result.kind == "job" and f"Job ID: {result.job.job_id}" in result.message
    assert env.jobs[result.job.job_id] is result.job
    assert result.wait(60) == "FINISHED"
    job = result.job
    assert job.done and job.status == "FINISHED" and job.error is None
    assert job.metrics["rows_in"] == 1000 and job.metrics["rows_out"] == 1000
    cp = job.last_checkpoint
    assert cp["checkpoint_id"] >= 1 and cp["status"] == "committed"
    assert cp["positions"]  # the sources' positions at that checkpoint
    shown = env.execute_sql("SHOW JOBS").rows
    assert [(r[0], r[2]) for r in shown] == [(job.job_id, "FINISHED")]


def test_unbounded_insert_checkpoints_then_cancel_and_stop(env):
    env.execute_sql(ENDLESS.format(name="ticks", rate=2000))
    env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
    job = env.execute_sql("INSERT INTO sink SELECT id FROM ticks").job
    assert job.wait(0.3) == "RUNNING"
    until(lambda: job.metrics["rows_out"] > 0 and job.last_checkpoint.get("checkpoint_id", 0) >= 2)
    job.cancel()
    assert job.status == "CANCELED"
    rows = job.metrics["rows_in"]
    time.sleep(0.3)
    assert job.metrics["rows_in"] == rows  # nothing runs after cancel

    env.execute_sql("SET 'pipeline.name' = 'stoppable'")
    job2 = env.execute_sql("INSERT INTO sink SELECT id FROM ticks").job
    until(lambda: job2.metrics["rows_out"] > 0)
    before = job2.last_checkpoint.get("checkpoint_id", 0)
    job2.stop()  # with a final checkpoint
    assert job2.status == "FINISHED"
    assert job2.last_checkpoint["checkpoint_id"] > before


def test_failed_job_raises_from_wait(env, tmp_path):
    # The fixture sets the checkpoint interval: Flink's default restart strategy is then
    # exponential-delay, which restarts this job for ever (next test); 'none' fails it at once.
    env.execute_sql("SET 'restart-strategy.type' = 'none'")
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1}\nnot json\n')
    env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{bad}', "
                    "'format' = 'json')")
    env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
    result = env.execute_sql("INSERT INTO sink SELECT id FROM src")
    with pytest.raises(StreamSQLError):
        result.wait(60)
    assert result.job.status == "FAILED"


def test_a_recurring_failure_restarts_as_on_flink_and_shows_its_cause(env, tmp_path, caplog):
    """With checkpointing set and no restart strategy, Flink 2.3 restarts with exponential-delay
    (its RestartBackoffTimeStrategyFactoryLoader default), also for a bad record that fails every
    attempt: the job keeps RESTARTING; the cause is in the log, SHOW JOBS and DESCRIBE JOB."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1}\nnot json\n')
    env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{bad}', "
                    "'format' = 'json')")
    env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
    with caplog.at_level(logging.WARNING, logger="streamsql.runtime.job"):
        job = env.execute_sql("INSERT INTO sink SELECT id FROM src").job
        until(lambda: job.status == "RESTARTING")
        shown = {row[0]: row for row in env.execute_sql("SHOW JOBS").rows}
        assert shown[job.job_id][2] == "RESTARTING"
        assert shown[job.job_id][-1].startswith("Cannot decode json record at ")
        until(lambda: job.metrics["restarts"] >= 2, timeout=30)  # 1 s, then about 1.5 s
        described = env.execute_sql(f"DESCRIBE JOB '{job.job_id}'").message
        assert not job.done
        job.cancel()
    assert job.status == "CANCELED"
    assert "Last failure:" in described and "Cannot decode json record" in described
    said = [r.getMessage() for r in caplog.records if "restarting in" in r.getMessage()]
    assert said and "Cannot decode json record" in said[0] and "exponential-delay" in said[0]


def test_context_manager_cancels_running_jobs_and_queries(tmp_path):
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp"),
                            "state.dir": str(tmp_path / "state")}) as env:
        env.execute_sql(ENDLESS.format(name="ticks", rate=100))
        env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")
        insert = env.execute_sql("INSERT INTO sink SELECT id FROM ticks").job
        query = env.execute_sql("SELECT id FROM ticks").job
        assert not insert.done and not query.done
    assert insert.status == "CANCELED" and query.status == "CANCELED"


# -- statement sets -----------------------------------------------------------------------------
def test_statement_set_runs_inserts_as_one_job(env, tmp_path):
    env.execute_sql(SEQ.format(name="orders", n=10))
    out_small, out_big = tmp_path / "small.json", tmp_path / "big.json"
    for name, path in (("small", out_small), ("big", out_big)):
        env.execute_sql(f"CREATE TABLE {name} (id INT, doubled INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json')")
    stmts = env.create_statement_set()
    assert isinstance(stmts, StatementSet)
    assert stmts.add_insert_sql("INSERT INTO small SELECT id, id * 2 FROM orders WHERE id <= 4;") is stmts
    stmts.add_insert_sql("INSERT INTO big SELECT id, id * 2 FROM orders WHERE id > 4")
    plan = stmts.explain()
    assert "table=[small]" in plan and "table=[big]" in plan
    result = stmts.execute()
    assert isinstance(result, TableResult) and result.kind == "job"
    assert list(env.jobs) == [result.job.job_id]  # one job for both INSERTs
    assert re.fullmatch(r"insert-into_small_big-[0-9a-f]{8}", result.job.name)  # one name for the set
    assert result.wait(60) == "FINISHED"

    def read(p: Path):
        return [json.loads(line) for line in p.read_text().splitlines() if line]

    assert read(out_small) == [{"id": i, "doubled": 2 * i} for i in range(1, 5)]
    assert read(out_big) == [{"id": i, "doubled": 2 * i} for i in range(5, 11)]
    assert result.job.metrics["rows_out"] == 10


def test_statement_set_errors(env):
    env.execute_sql(SEQ.format(name="orders", n=3))
    stmts = env.create_statement_set()
    with pytest.raises(SqlError, match="only INSERT"):
        stmts.add_insert_sql("SELECT id FROM orders")
    with pytest.raises(SqlError, match="not found"):
        stmts.add_insert_sql("INSERT INTO nowhere SELECT id FROM orders")
    with pytest.raises(SqlError, match="empty"):
        stmts.execute()
    assert env.jobs == {}


# -- asyncio ------------------------------------------------------------------------------------
def test_collect_async_and_wait_async_leave_the_loop_free(env):
    env.execute_sql(SEQ.format(name="orders", n=6))
    env.execute_sql(ENDLESS.format(name="ticks", rate=200))
    env.execute_sql("CREATE TABLE sink (id INT) WITH ('connector' = 'blackhole')")

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        t = asyncio.create_task(ticker())
        # a bounded aggregation's changelog
        result = env.execute_sql("SELECT id % 2 AS parity, SUM(id) AS total FROM orders GROUP BY id % 2")
        changes = [c async for c in result.collect_async()]
        # an unbounded query: leave it early; closing the generator cancels the job
        endless = env.execute_sql("SELECT id FROM ticks")
        async with contextlib.aclosing(endless.collect_async()) as rows:
            got = []
            async for kind, row in rows:
                got.append(kind)
                if len(got) == 50:
                    break
        # await a bounded INSERT without blocking the loop, two ways
        job = env.execute_sql("INSERT INTO sink SELECT id FROM orders")
        status = await env.wait_async(job.job, timeout=60)
        job2 = env.execute_sql("INSERT INTO sink SELECT id FROM orders")
        status2 = await job2.wait_async(timeout=60)
        # a timeout returns the status so far
        running = env.execute_sql("INSERT INTO sink SELECT id FROM ticks")
        still = await env.wait_async(running, timeout=0.2)
        running.job.cancel()
        t.cancel()
        return changes, got, endless, status, status2, still, ticks

    changes, got, endless, status, status2, still, ticks = asyncio.run(main())
    assert fold(changes) == {(0, 12): 1, (1, 9): 1}
    assert got == [RowKind.INSERT] * 50
    assert endless.job.status == "CANCELED"
    assert (status, status2, still) == ("FINISHED", "FINISHED", "RUNNING")
    assert ticks > 10  # the event loop kept running while rows and jobs were awaited


def test_collect_async_raises_the_job_failure(env, tmp_path):
    env.execute_sql("SET 'restart-strategy.type' = 'none'")  # else it restarts, as on Flink (above)
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": 1}\nnot json\n')
    env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{bad}', "
                    "'format' = 'json')")

    async def main():
        return [c async for c in env.execute_sql("SELECT id FROM src").collect_async()]

    with pytest.raises(StreamSQLError):
        asyncio.run(main())

"""Every entry point takes the same statements: ``streamsql run FILE``, ``streamsql shell -f FILE``
and a pipe into ``streamsql shell`` run the shell commands (PRINT TOPIC, HELP, QUIT) alike.

``run`` and ``shell -f`` refused them (``Statement PrintTopic is not supported here``), so a
script that peeked at a topic only worked piped. And PRINT TOPIC of a missing topic failed
inside the result stream, without the statement's line, column and caret that other errors have.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid

import pytest

from tests.cli_runner import run_streamsql

ENTRY_POINTS = {"run": ["run", "s.sql"], "shell -f": ["shell", "-f", "s.sql"], "pipe": ["shell"]}


def _streamsql(entry: str, script: str, cwd, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``script`` through one entry point; stdout and stderr together (``run`` errs on stderr)."""
    (cwd / "s.sql").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(cwd / "history")}
    return run_streamsql(ENTRY_POINTS[entry], cwd, env=env, input=script if entry == "pipe" else None,
                         timeout=timeout, merge_stderr=True)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_print_topic_and_help_run_in_every_entry_point(entry, kafka_bootstrap, kafka_admin, tmp_path):
    """A bounded job fills a topic; PRINT TOPIC follows it to its end and shows its 3 records; HELP
    with an argument (one parser of commands: the grammar's) prints that connector's options."""
    topic = f"shell33-entry-{uuid.uuid4().hex[:10]}"
    script = f"""CREATE TABLE gen (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
    'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
CREATE TABLE out_t (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}',
    'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
    'sink.topic.auto-create' = 'true');
INSERT INTO out_t SELECT id FROM gen;
SET 'properties.bootstrap.servers' = '{kafka_bootstrap}';
PRINT TOPIC `{topic}` FROM BEGINNING;
HELP datagen;
"""
    try:
        proc = _streamsql(entry, script, tmp_path)
    finally:
        kafka_admin.delete_topics([topic], operation_timeout=10)
    assert proc.returncode == 0, proc.stdout
    assert "Received a total of 3 records" in proc.stdout, proc.stdout
    assert all(f'{{"id":{i}}}' in proc.stdout for i in (1, 2, 3)), proc.stdout
    assert "Connector 'datagen'" in proc.stdout and "'number-of-rows'" in proc.stdout, proc.stdout


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_quit_cancels_the_running_jobs_and_ends_the_script(entry, tmp_path):
    """QUIT after an unbounded INSERT: the job is cancelled (named), exit 0 at once, and the
    statements after QUIT never run."""
    script = """CREATE TABLE endless (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE nowhere (id INT) WITH ('connector' = 'blackhole');
INSERT INTO nowhere SELECT id FROM endless;
QUIT;
SET 'pipeline.name' = 'not-reached';
SET;
"""
    proc = _streamsql(entry, script, tmp_path, timeout=90)
    assert proc.returncode == 0, proc.stdout
    job = re.search(r"Job ID: (\w+)", proc.stdout)
    assert job, proc.stdout
    assert re.search(rf"[Cc]ancelling 1 running job: {job.group(1)}", proc.stdout), proc.stdout
    assert "not-reached" not in proc.stdout


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_print_topic_of_a_missing_topic_fails_at_its_name(entry, kafka_bootstrap, tmp_path):
    """The topic is looked up before the result starts: its error has the script's line and column
    and a caret under the name, and the statements after it never run (exit 1)."""
    missing = f"shell33-nope-{uuid.uuid4().hex[:10]}"
    script = f"""SET 'properties.bootstrap.servers' = '{kafka_bootstrap}';
SET 'pipeline.name' = 'first';
  PRINT TOPIC {missing} FROM BEGINNING LIMIT 1;
SET 'pipeline.name' = 'not-reached';
SET;
"""
    proc = _streamsql(entry, script, tmp_path, timeout=90)
    assert proc.returncode == 1, proc.stdout
    assert f"Topic '{missing}' not found on {kafka_bootstrap} (line 3, column 15)" in proc.stdout, proc.stdout
    lines = proc.stdout.splitlines()
    shown = next(i for i, ln in enumerate(lines) if ln.strip().startswith("PRINT TOPIC"))
    assert lines[shown + 1].strip() == "^" * len(missing), proc.stdout
    assert lines[shown + 1].index("^") == lines[shown].index(missing), proc.stdout
    assert "not-reached" not in proc.stdout


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_help_of_an_unknown_name_fails_at_it(entry, tmp_path):
    """A newcomer's report (session 33): ``HELP nope;`` printed ``[ERROR] No help for 'nope'`` and
    the script went on and exited 0; it is an error at the name, which ends the script (exit 1)."""
    script = "HELP connectors;\n  HELP nope;\nSET 'pipeline.name' = 'not-reached';\nSET;\n"
    proc = _streamsql(entry, script, tmp_path, timeout=60)
    assert proc.returncode == 1, proc.stdout
    assert "upsert-kafka" in proc.stdout  # the HELP before it ran
    assert "No help for 'nope'; try HELP connectors (line 2, column 8)" in proc.stdout, proc.stdout
    lines = proc.stdout.splitlines()
    shown = next(i for i, ln in enumerate(lines) if ln.strip() == "HELP nope;")
    assert lines[shown + 1] == " " * lines[shown].index("nope") + "^^^^", proc.stdout
    assert "not-reached" not in proc.stdout


def test_help_takes_one_name_and_quit_takes_none():
    """One parser of commands (the grammar): HELP's argument is parsed; anything else after a
    command is a syntax error at that token, never ignored."""
    from streamsql.shell.commands import COMMANDS, command_of

    from streamsql.core.errors import SqlError
    from streamsql.sql.parser import parse_statement

    cmd, arg = command_of(parse_statement("help 'kafka';"))
    assert (cmd.name, arg) == ("HELP", "kafka")
    cmd, arg = command_of(parse_statement("exit"))
    assert (cmd, arg) == (COMMANDS["QUIT"], "")
    for text, col in (("QUIT now;", 6), ("HELP kafka extra;", 12)):
        with pytest.raises(SqlError) as e:
            parse_statement(text)
        assert (e.value.line, e.value.col) == (1, col)


@pytest.mark.parametrize("entry", ["run", "pipe"])
def test_ctrl_c_during_print_topic_ends_the_run(entry, kafka_bootstrap, kafka_admin, tmp_path):
    """Ctrl-C ends the PRINT TOPIC read that follows a running job, and the run with it (exit 130,
    the job cancelled), not only the read: the statements after it never run."""
    topic = f"shell33-sigint-{uuid.uuid4().hex[:10]}"
    script = f"""CREATE TABLE endless (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');
CREATE TABLE out_t (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}',
    'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
    'sink.topic.auto-create' = 'true');
INSERT INTO out_t SELECT id FROM endless;
SET 'properties.bootstrap.servers' = '{kafka_bootstrap}';
PRINT TOPIC `{topic}`;
SET 'pipeline.name' = 'not-reached';
SET;
"""
    (tmp_path / "s.sql").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(tmp_path / "h")}
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", *ENTRY_POINTS[entry]], cwd=tmp_path, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    proc.stdin.write(script if entry == "pipe" else "")
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() has nothing to send
    try:
        seen = ""
        while "| key" not in seen and "key " not in seen:  # the read's header: the topic exists, rows follow
            line = proc.stdout.readline()
            assert line, seen
            seen += line
        time.sleep(1)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
        kafka_admin.delete_topics([topic], operation_timeout=10)
    assert proc.returncode == 130, seen + out
    assert "not-reached" not in seen + out


@pytest.mark.parametrize("command", [["shell"], []], ids=["shell", "no command"])
def test_shell_runs_its_init_file_before_the_script_of_f(command, tmp_path):
    """A newcomer's report (session 33): ``streamsql shell -i init.sql -f s.sql`` ignored the init
    file (its tables were unknown to the script); Flink's SQL client runs ``-i`` first, then ``-f``.
    An init file that fails ends the command before the script runs (exit 1). Without the command
    (session 34's newcomer typed Flink's ``sql-client.sh -f s.sql`` as ``streamsql -f s.sql``, and
    argparse answered ``invalid choice: 's.sql'``) the options are the shell's."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path),
           "STREAMSQL_HISTORY": str(tmp_path / "history")}
    (tmp_path / "init.sql").write_text(
        "SET 'pipeline.name' = 'from-init';\n"
        "CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');\n")
    (tmp_path / "s.sql").write_text("SHOW TABLES;\nSELECT SUM(id) AS s FROM g;\n")

    def shell(*args: str) -> subprocess.CompletedProcess:
        return run_streamsql([*command, *args], tmp_path, env=env, timeout=120, merge_stderr=True)

    proc = shell("-i", "init.sql", "-f", "s.sql")
    assert proc.returncode == 0, proc.stdout
    assert "[INFO] Executed 2 statements from init.sql." in proc.stdout
    assert "|          g |" in proc.stdout, proc.stdout
    # 1 + 2 + 3, the init's table read: +I 6, or +U 6 after earlier sums when the rows came in batches
    # (in the width of its INT type, as Flink's SQL client -f: tests/shell/test_script_query.py)
    assert re.search(r"\| \+[IU] \| {11}6 \|\n\+", proc.stdout), proc.stdout

    (tmp_path / "init.sql").write_text("SELECT 1;\n")
    proc = shell("-i", "init.sql", "-f", "s.sql")
    assert proc.returncode == 1, proc.stdout
    assert "init.sql:1: SELECT statements are not allowed in an init file" in proc.stdout
    assert "table name" not in proc.stdout  # the script never ran

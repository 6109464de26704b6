"""The shell as a person uses it: typed statements, the screen they see, the exit code."""

from __future__ import annotations

import re
import time

import pytest

BOUNDED = (
    "CREATE TABLE nums (\n"
    "id INT,\n"
    "name STRING\n"
    ") WITH (\n"
    "'connector' = 'datagen', 'number-of-rows' = '6', -- six rows, then the source ends\n"
    "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6',\n"
    "'fields.name.length' = '5'\n"
    ");\n"
)


def create_nums(sh) -> None:
    sh.send_expect(BOUNDED, r"\[INFO\] Execute statement succeeded")


def test_multiline_create_then_tableau_select_shows_rows_and_total(shell):
    sh = shell()
    m = sh.mark()
    sh.send("CREATE TABLE nums (\n")
    sh.expect(r"-> ", after=m)  # the continuation prompt: the statement is not complete yet
    assert "[INFO]" not in sh.screen()[m:]
    sh.send(BOUNDED[len("CREATE TABLE nums (\n"):])
    sh.expect(r"\[INFO\] Execute statement succeeded", after=m)

    m = sh.mark()
    sh.send("SELECT id, id * 10 AS tens FROM nums;  -- trailing comment\n")
    sh.expect(r"Received a total of 6 rows", after=m)
    out = sh.screen()[m:]
    assert re.search(r"\|\s+op \|\s+id \|\s+tens \|", out), out  # header first
    for i in range(1, 7):
        assert re.search(rf"\|\s+\+I \|\s+{i} \|\s+{i * 10} \|", out), out
    assert out.index("op |") < out.index("+I |")
    sh.send("QUIT\n")
    assert sh.wait() == 0


def test_changelog_mode_streams_updates(shell):
    sh = shell()
    create_nums(sh)
    sh.send_expect("SET 'sql-client.execution.result-mode' = 'changelog';\n"
                   "SET 'execution.batch-size' = '2';\n",  # small batches: the counts change row by row
                   r"succeeded.*succeeded")
    m = sh.mark()
    sh.send("SELECT id % 2 AS k, COUNT(*) AS c FROM nums GROUP BY id % 2;\n")
    total = int(sh.expect(r"Received a total of (\d+) rows", after=m).group(1))
    out = sh.screen()[m:]
    assert re.search(r"^op\[k, c\]\n\+I\[", out, re.M), out  # a header names the columns first
    lines = re.findall(r"^([+-][IUD])\[(.*)\]$", out, re.M)
    assert len(lines) == total and total > 2
    assert lines[0][0] == "+I"
    assert any(k == "-U" for k, _ in lines) and any(k == "+U" for k, _ in lines)
    final: dict[str, int] = {}
    for kind, row in lines:  # fold the changelog: what is left is the final result
        final[row] = final.get(row, 0) + (1 if kind in ("+I", "+U") else -1)
    assert {r for r, n in final.items() if n} == {"0, 3", "1, 3"}


def test_table_mode_materializes_the_result(shell):
    sh = shell()
    create_nums(sh)
    sh.send("SET 'sql-client.execution.result-mode' = 'table';\n")
    m = sh.mark()
    sh.send("SELECT id % 2 AS k, COUNT(*) AS c FROM nums GROUP BY id % 2;\n")
    sh.expect(r"FINISHED — Q to return", after=m)  # the view stays until the user leaves it
    sh.send("q")
    sh.expect(r"2 rows in set", after=m)
    out = sh.screen()[sh.screen().rindex("rows in set") - 200:]
    assert re.search(r"\|\s+0 \|\s+3 \|", out) and re.search(r"\|\s+1 \|\s+3 \|", out), out
    assert not re.search(r"\|\s+1 \|\s+[12] \|", out), out  # retracted rows are gone


def test_ctrl_c_stops_a_running_query_and_returns_to_the_prompt(shell):
    sh = shell()
    sh.send("CREATE TABLE endless (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\n")
    sh.expect("succeeded")
    m = sh.mark()
    sh.send("SELECT id FROM endless;\n")
    sh.expect(r"\|\s+\+I \|", after=m)
    sh.expect(r"\d+ rows? received, [\d.]+ rows/s", after=m)  # the status line
    sh.send("\x03")
    sh.expect(r"Query terminated, received a total of \d+ rows?", after=m)
    sh.send_expect("SHOW TABLES;\n", r"endless.*1 row in set")


def test_insert_show_jobs_and_stop_job(shell):
    sh = shell()
    sh.send("CREATE TABLE src (id INT, v STRING) WITH ('connector' = 'datagen', 'rows-per-second' = '50');\n"
            "CREATE TABLE sink (id INT, v STRING) WITH ('connector' = 'blackhole');\n")
    job_id = sh.send_expect("INSERT INTO sink SELECT id, v FROM src;\n", r"Job ID: (\w+)").group(1)
    name = r"insert-into_sink-[0-9a-f]{8}"  # the default name: the sink and the job's fingerprint
    sh.send_expect("SHOW JOBS;\n", rf"\|\s+{job_id} \|\s+{name} \|\s+RUNNING \|.*1 row in set")
    # Flink's gateway cancels a job on STOP JOB without a savepoint: SHOW JOBS then says CANCELED
    sh.send_expect(f"STOP JOB '{job_id}';\n", rf"Job {job_id} stopped \(CANCELED\)")
    sh.send_expect("SHOW JOBS;\n", rf"{job_id} \|\s+{name} \|\s+CANCELED")
    sh.send_expect("STOP JOB 'nope';\n", r"\[ERROR\] No job with id 'nope'")


def test_show_jobs_lists_the_queries_jobs_too(shell):
    """SHOW JOBS listed only INSERT jobs, where Flink's lists every job of the cluster, a SELECT's
    (its ``collect`` job) included: a query stopped with Ctrl-C, or ended, was nowhere to be seen,
    nor could DESCRIBE JOB find it."""
    sh = shell()
    create_nums(sh)
    sh.send("CREATE TABLE endless (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');\n")
    sh.send_expect("SELECT id FROM nums WHERE id = 3;\n", r"Received a total of 1 row\n")
    m = sh.mark()
    sh.send("SELECT id FROM endless;\n")
    sh.expect(r"\+I \|", after=m, timeout=20)
    sh.send("\x03")
    sh.expect(r"Query terminated, received a total of \d+ rows?", after=m)
    query = r"\|\s+(\w{12}) \|\s+collect \|\s+"  # Flink's name of a SELECT's job
    rows = sh.send_expect("SHOW JOBS;\n", query + r"FINISHED \|\s+\S+ \S+ \|\s+6 \|.*\n"
                          + query + r"CANCELED \|.*2 rows in set")
    sh.send_expect(f"DESCRIBE JOB '{rows.group(2)}';\n", r"CANCELED")


def test_stop_job_with_savepoint_prints_the_savepoint_path(shell):
    sh = shell()
    sh.send("CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '50');\n"
            "CREATE TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');\n"
            "SET 'pipeline.name' = 'saved';\n")
    job_id = sh.send_expect("INSERT INTO sink SELECT COUNT(*) FROM src;\n", r"Job ID: (\w+)").group(1)
    m = sh.mark()
    sh.send(f"STOP JOB '{job_id}' WITH SAVEPOINT;\n")
    sh.expect(r"savepoint path.*saved/chk-\d+.*1 row in set", after=m)


def test_statement_sets_submit_one_job(shell):
    sh = shell()
    create_nums(sh)
    sh.send("CREATE TABLE a (id INT) WITH ('connector' = 'blackhole');\n"
            "CREATE TABLE b (id INT) WITH ('connector' = 'blackhole');\n")
    sh.send_expect("EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO a SELECT id FROM nums;\n"
                   "INSERT INTO b SELECT id FROM nums;\nEND;\n", r"Job ID: \w+")
    m = sh.mark()
    sh.send("BEGIN STATEMENT SET;\n")
    sh.expect(r"Begin a statement set", after=m)
    sh.send("SHOW TABLES;\n")
    sh.expect(r"Only INSERT statements can be added to a statement set", after=m)
    sh.send("INSERT INTO a SELECT id FROM nums;\nINSERT INTO b SELECT id + 1 FROM nums;\n")
    sh.expect(r"(Add SQL update statement to the statement set.*){2}", after=m)
    sh.send("END;\n")
    sh.expect(r"Job ID: \w+", after=m)
    sh.send_expect("SHOW JOBS;\n", r"insert-into_a_b-[0-9a-f]{8}.*insert-into_a_b-[0-9a-f]{8}.*2 rows in set")


def test_errors_show_the_caret_and_the_shell_continues(shell):
    sh = shell()
    create_nums(sh)
    sh.send_expect("SELECT id,\nnope\nFROM nums;\n",
                   r"\[ERROR\] Column 'nope' not found .*\(line 2, column 1\)\n  nope\n  \^\^\^\^")
    sh.send_expect("SELEC 1;\n", r"\[ERROR\] .*\n.*SELEC 1\n\s+\^")
    sh.send_expect("SHOW TABLES;\n", r"nums.*1 row in set")


def test_internal_errors_never_end_the_shell_and_verbose_adds_the_trace(shell):
    from streamsql.environment import StreamEnvironment

    class Buggy(StreamEnvironment):
        def execute_parsed(self, tree, sql):
            if "boom" in sql:
                msg = "boom"
                raise ValueError(msg)
            return super().execute_parsed(tree, sql)

    sh = shell(env=Buggy())
    m = sh.mark()
    sh.send("SHOW CREATE TABLE boom;\n")
    sh.expect(r"\[ERROR\] Internal error \(a bug in StreamSQL; please report it\): boom", after=m)
    assert "Traceback" not in sh.screen()[m:]
    assert "ValueError" not in sh.screen()[m:]  # issue 12 finding 9: no Python exception names
    sh.send("SET 'sql-client.verbose' = 'true';\n")
    sh.send_expect("SHOW CREATE TABLE boom;\n",
                   r"Internal error \(a bug.*\): boom.*Traceback \(most recent call last\).*ValueError: boom")
    sh.send("EXIT\n")
    assert sh.wait() == 0


def test_help_lists_commands_statements_and_connector_options(shell):
    sh = shell()
    m = sh.mark()
    sh.send("HELP\n")
    sh.expect(r"Received|SQL statements", after=m)
    out = sh.expect(r"Ctrl-D or QUIT leaves the shell", after=m) and sh.screen()[m:]
    for word in ("CLEAR", "QUIT, EXIT", "SHOW JOBS", "STOP JOB 'id'", "PRINT TOPIC", "EXECUTE STATEMENT SET",
                 "FUNCTION [IF NOT EXISTS] f AS 'module.function' LANGUAGE PYTHON", "SHOW [USER] FUNCTIONS",
                 "SHOW CREATE VIEW v", "ALTER TABLE [IF EXISTS] t", "AS SELECT"):
        assert word in out, word
    sh.send_expect("HELP datagen;\n", r"'number-of-rows'.*'fields\.\*'")


def test_typed_ahead_statements_survive_a_running_query(shell):
    sh = shell()
    # Everything typed at once: the SHOW TABLES typed while the query runs is not lost.
    sh.send(BOUNDED + "SELECT id FROM nums;\nSHOW TABLES;\nQUIT\n")
    sh.expect(r"Received a total of 6 rows.*nums.*1 row in set.*Goodbye!")
    assert sh.wait() == 0


def test_history_is_saved_to_the_history_file(shell, workdir):
    sh = shell()
    sh.send("SHOW TABLES;\nSHOW\nJOBS;\nQUIT\n")
    assert sh.wait() == 0
    text = (workdir / "history").read_text()
    assert "+SHOW TABLES;" in text and "+SHOW\n+JOBS;" in text


def test_init_file_runs_ddl_and_set(shell, workdir):
    init = workdir / "init.sql"
    init.write_text(BOUNDED + "SET 'sql-client.execution.result-mode' = 'changelog';\n")
    sh = shell(init_file=str(init))
    assert "[INFO] Executed 2 statements from" in sh.screen()
    sh.send_expect("SELECT id FROM nums;\n", r"\+I\[6\].*Received a total of 6 rows")


def test_init_file_rejects_other_statements_naming_file_and_line(workdir):
    from tests.shell.terminal import PipeShell

    init = workdir / "init.sql"
    init.write_text("SET 'table.dml-sync' = 'false';\n\nSELECT 1;\n")
    sh = PipeShell(init_file=str(init))
    try:
        assert sh.wait() == 1  # the shell does not start with half an init file
        assert re.search(r"\[ERROR\] \S*init\.sql:3: SELECT statements are not allowed in an init file",
                         sh.screen()), sh.screen()
    finally:
        sh.close()
    bad = workdir / "bad.sql"
    bad.write_text("CREATE TABLE t (x INT) WITH ('connector' = 'datagen');\nCREATE TABLE (;\n")
    sh = PipeShell(init_file=str(bad))
    try:
        assert sh.wait() == 1
        assert re.search(r"\[ERROR\] \S*bad\.sql: .*\(line 2, column \d+\)\n  CREATE TABLE \(;\n\s+\^",
                         sh.screen()), sh.screen()
    finally:
        sh.close()


@pytest.mark.parametrize("quit_text", ["QUIT\n", "exit;\n", "\x04"])
def test_quit_exit_and_ctrl_d_end_with_code_0(shell, quit_text):
    sh = shell()
    sh.send(quit_text)
    assert sh.wait() == 0
    assert "Goodbye!" in sh.screen()


def test_tab_completes_a_table_name_in_the_prompt(shell):
    sh = shell()
    sh.send("CREATE TABLE orders (order_id INT, amount DOUBLE) WITH ('connector' = 'datagen');\n")
    sh.expect("succeeded")
    m = sh.mark()
    sh.send("DESCRIBE ord\t")
    sh.expect(r"DESCRIBE orders", after=m)
    sh.send(";\n")
    sh.expect(r"order_id.*amount.*2 rows in set", after=m)


def test_print_sink_rows_appear_above_the_prompt(workdir):
    # Started here, not in a fixture: pytest swaps sys.stdout between a test's phases, which
    # would undo the shell's redirection of job output (the print connector writes to sys.stdout).
    from tests.shell.terminal import PipeShell

    sh = PipeShell()
    try:
        sh.expect(r"streamsql> ")
        create_nums(sh)
        sh.send("CREATE TABLE `out` (id INT) WITH ('connector' = 'print', 'print-identifier' = 'seen');\n")
        m = sh.mark()
        sh.send("INSERT INTO `out` SELECT id * 7 FROM nums;\n")
        sh.expect(r"Job ID: \w+", after=m)
        sh.expect(r"seen> \+I\[42\]", after=m, timeout=30)
        for attempt in range(20):  # the last row can print before the final checkpoint commits
            row = sh.send_expect("SHOW JOBS;\n", r"insert-into_out-[0-9a-f]{8} \|\s+(RUNNING|FINISHED)",
                                 timeout=30)
            if row.group(1) == "FINISHED":
                break
            time.sleep(0.5)
        assert row.group(1) == "FINISHED"
        sh.send("QUIT\n")
        assert sh.wait() == 0
    finally:
        sh.close()

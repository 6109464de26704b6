"""Finding 7 of issue 12: secrets kept secret — and the grep-able proof.

SHOW CREATE TABLE printed ``'properties.sasl.password' = 'hunter2'`` and the whole
``sasl.jaas.config``; ``SET;`` listed the password; ``~/.streamsql_history`` stored it, mode 0644.
Here a script and a shell session put secret values in table options and SETs, go through every
rendering (SHOW CREATE TABLE, SET;, EXPLAIN, DESCRIBE, SHOW JOBS, DESCRIBE JOB, a failed job's
notice, a positioned error quoting the line, DEBUG logs), and then every byte they printed and
every file they left (history, checkpoints, state) is searched for the secret values. The sink's
unreachable broker fails each job after 1 s (its Java client key 'properties.max.block.ms'), not
the 10 s a sink waits by default.
"""

import logging
import os
import re
import stat
import subprocess
import sys

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError
from streamsql.core.secrets import MASK, is_sensitive, redact
from tests.cli_runner import run_streamsql

SECRETS = ("S3cret-Pw-1", "S3cret-Jaas-2", "S3cret-Key-3", "S3cret-Set-4", "S3cret-Tok-5")
TABLES = """\
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
CREATE TABLE `out` (id INT) WITH ('connector' = 'kafka', 'topic' = 'secrets-never-written',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json',
  'properties.sasl.password' = 'S3cret-Pw-1',
  'properties.sasl.jaas.config' = 'PlainLoginModule required username="u" password="S3cret-Jaas-2";',
  'properties.ssl.key.password' = 'S3cret-Key-3', 'properties.max.block.ms' = '1000');
SET 'properties.sasl.oauthbearer.client.secret' = 'S3cret-Set-4';
"""
RENDER = """\
SET;
SHOW CREATE TABLE `out`;
EXPLAIN INSERT INTO `out` SELECT id FROM src;
DESCRIBE `out`;
"""


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def _files_with_secrets(root) -> list[str]:
    """Every file below ``root`` holding a secret value (grep -r, in Python)."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                data = f.read()
            found += [f"{path}: {s}" for s in SECRETS if s.encode() in data]
    return found


@pytest.fixture(scope="module", autouse=True)
def script_run(tmp_path_factory):
    """``streamsql run`` of the secret-holding script (DEBUG logs), started as the module starts:
    ``(its folder, the process, the folder of its stdout and stderr)``. Its job waits for the broker
    on port 1 to fail; the module's other tests run meanwhile, and the test that reads it comes last."""
    folder, output = tmp_path_factory.mktemp("script"), tmp_path_factory.mktemp("script-output")
    (folder / "s.sql").write_text(TABLES + RENDER + "INSERT INTO `out` SELECT id FROM src;\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_LOG": "DEBUG"}
    # into files, not pipes: DEBUG output unread until the end would fill a pipe and stall the run
    with open(output / "stdout", "w") as stdout, open(output / "stderr", "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", "s.sql", "--verbose",
                                 "--set", "properties.sasl.oauthbearer.token=S3cret-Tok-5"],
                                cwd=folder, env=env, stdout=stdout, stderr=stderr)
    yield folder, proc, output
    if proc.poll() is None:  # its test was not selected
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("key", ["properties.sasl.password", "properties.sasl.jaas.config", "api-key",
                                 "properties.ssl.key.pem", "properties.sasl.oauthbearer.client.secret",
                                 "http-headers", "TOKEN"])
def test_finding_7_sensitive_keys_follow_flinks_rule(key):
    """Finding 7: Flink's GlobalConfiguration.isSensitive substrings (and ssl.key)."""
    assert is_sensitive(key)


@pytest.mark.parametrize("key", ["key.format", "key.fields", "properties.bootstrap.servers", "topic"])
def test_finding_7_ordinary_keys_are_shown(key):
    """Finding 7: 'key.format' is not a secret (a bare 'key' substring would hide it)."""
    assert not is_sensitive(key)


def test_finding_7_redact_masks_pairs_in_statement_text():
    """Finding 7: a statement's text (the history, an error's caret line) keeps no secret value."""
    text = "SET 'properties.sasl.password' = 'it''s-S3cret'; SET 'key.format' = 'json';"
    assert redact(text) == f"SET 'properties.sasl.password' = '{MASK}'; SET 'key.format' = 'json';"


def test_finding_7_error_quoting_the_line_masks_it(tmp_path):
    """Finding 7: a positioned error shows the statement's line with the value masked."""
    (tmp_path / "bad.sql").write_text(
        "CREATE TABLE t (x INT) WITH ('properties.sasl.password' = 'S3cret-Pw-1' 'connector' = 'x');\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = run_streamsql(["run", "bad.sql"], tmp_path, env=env, timeout=60)
    assert proc.returncode == 1 and "^" in proc.stderr
    assert f"'properties.sasl.password' = '{MASK}'" in proc.stderr
    assert _leaks(proc.stdout + proc.stderr) == []


def test_finding_7_logs_and_describe_job_mask_remembered_values(tmp_path, caplog):
    """Finding 7: once a table holds a secret, StreamSQL's log records and job errors mask it
    wherever it appears (a client library quoting its configuration, say)."""
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        for st in TABLES.split(";\n")[:-1]:
            env.execute_sql(st)
        with caplog.at_level(logging.DEBUG, logger="streamsql"):
            logging.getLogger("streamsql.connectors.kafka").warning("config: password=%s", "S3cret-Pw-1")
            job = env.execute_sql("INSERT INTO `out` SELECT id FROM src").job
            with pytest.raises(Exception):  # noqa: B017, PT011  (whatever the broker-less job fails with)
                job.wait(60)
            texts = [env.execute_sql(f"DESCRIBE JOB '{job.job_id}'").message,
                     str(env.execute_sql("SHOW JOBS").rows)]
        assert f"config: password={MASK}" in caplog.text
        assert _leaks(caplog.text + "".join(texts)) == []


def test_finding_7_shell_history_is_0600_and_masked(workdir):
    """Finding 7: the history file is created 0600 and stores the statements masked; the
    shell's renderings and a background job's failure notice hold no secret."""
    from tests.shell.terminal import PipeShell

    history = workdir / "history"
    sh = PipeShell()
    try:
        sh.expect(r"streamsql> ")
        sh.send_expect(TABLES, r"succeeded.*succeeded.*is not a key StreamSQL reads")
        m = sh.mark()  # the terminal echoes what was typed, secrets included; what follows is ours
        sh.send_expect(RENDER, r"'properties.sasl.password' = '\*{6}'")
        sh.send_expect("INSERT INTO `out` SELECT id FROM src;\n", r"FAILED: ", timeout=60)
        sh.send("QUIT\n")
        assert sh.wait() == 0
        screen = sh.screen()[m:]
    finally:
        sh.close()
    assert stat.S_IMODE(os.stat(history).st_mode) == 0o600
    text = history.read_text()
    assert "'properties.sasl.password' = '******'" in text and "SHOW CREATE TABLE `out`" in text
    assert _leaks(screen) == [] and _files_with_secrets(workdir) == []


def test_a_secret_in_an_options_hint_is_masked_whatever_its_key_is_written_as():
    """An OPTIONS hint's key may be a string, a `quoted` or a plain identifier (as in Flink); the
    statement text shown in errors and kept in the history masks each form's secret value."""
    text = ("SELECT * FROM t /*+ OPTIONS('password' = 'hunter22', `properties.sasl.password` = 'a''b', "
            "token='abcd', path = '/x') */ WHERE token = 'y'")
    assert redact(text) == (f"SELECT * FROM t /*+ OPTIONS('password' = '{MASK}', "
                            f"`properties.sasl.password` = '{MASK}', token='{MASK}', path = '/x') */ "
                            "WHERE token = 'y'")  # a column compared with a literal, not an option


def test_a_secret_given_by_an_options_hint_is_remembered():
    """As a CREATE TABLE's: a client's message quoting the bare value shows it masked."""
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen')")
        with pytest.raises(ConfigError):  # datagen has no password: refused, after the hint was read
            env.execute_sql("SELECT id FROM nums /*+ OPTIONS(password = 'hint-secret-7f3a') */")
    assert redact("login failed with hint-secret-7f3a") == f"login failed with {MASK}"


def test_finding_7_script_renderings_and_files_hold_no_secret(script_run):
    """Finding 7: `streamsql run` (with DEBUG logs) prints no secret value anywhere, and leaves
    none in a file; the renderings did happen, masked. (Last in the module: see ``script_run``.)"""
    folder, proc, output = script_run
    proc.wait(timeout=120)
    stdout, stderr = (output / "stdout").read_text(), (output / "stderr").read_text()
    out = stdout + stderr
    assert proc.returncode == 1  # the job fails: no broker on port 1 (and an unknown JAAS property)
    assert "FAILED:" in stderr
    assert f"'properties.sasl.password' = '{MASK}'" in stdout  # SHOW CREATE TABLE
    for key in ("properties.sasl.oauthbearer.client.secret", "properties.sasl.oauthbearer.token"):
        assert re.search(rf"\| +{re.escape(key)} \| +\*{{6}} \|", stdout), key  # SET;
    assert _leaks(out) == [], out
    (folder / "s.sql").unlink()  # the script itself holds them, of course
    assert _files_with_secrets(folder) == []

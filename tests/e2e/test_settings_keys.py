"""Finding 6 of issue 12: settings say what they do.

Any ``table.*`` / ``pipeline.*`` key used to be accepted without a word (typos such as
``pipeline.nmae`` and unimplemented Flink keys such as ``table.optimizer.agg-phase-strategy``), while the
documented ``execution.checkpointing.dir`` and ``state.dir`` got "not a key StreamSQL reads".
"""

import os
import sys

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError, SqlError
from tests.cli_runner import run_streamsql

_FIVE = ("CREATE TABLE nums (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
         "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")


def _set(key, value="x"):
    with StreamEnvironment() as env:
        return env.execute_sql(f"SET '{key}' = '{value}'").message


@pytest.mark.parametrize(("key", "closest"), [
    ("pipeline.nmae", "pipeline.name"),
    ("table.dml-snyc", "table.dml-sync"),
    ("execution.checkpointing.intervall", "execution.checkpointing.interval"),
    ("state.backend.typ", "state.backend.type"),
])
def test_finding_6_typo_warns_with_the_closest_known_key(key, closest):
    """Finding 6: a typo of a known key warns and names the key meant."""
    msg = _set(key)
    assert msg.startswith("[WARNING]")
    assert f"'{key}' is not a key StreamSQL reads" in msg
    assert f"did you mean '{closest}'?" in msg


@pytest.mark.parametrize("key", ["table.optimizer.agg-phase-strategy", "pipeline.max-parallelism"])
def test_finding_6_unimplemented_flink_key_warns(key):
    """Finding 6: a Flink key StreamSQL does not implement is not accepted in silence."""
    msg = _set(key, "true")
    assert msg.startswith("[WARNING]") and "it is ignored" in msg


@pytest.mark.parametrize(("key", "value"), [("table.exec.mini-batch.enabled", "true"),
                                            ("table.exec.mini-batch.allow-latency", "5 s"),
                                            ("table.exec.mini-batch.size", "5000")])
def test_flink_mini_batch_keys_are_accepted(key, value):
    """Issue 14: Flink scripts that tune mini-batch aggregation run unchanged (no warning)."""
    assert _set(key, value) == "[INFO] Execute statement succeeded."


@pytest.mark.parametrize(("key", "value", "message"), [
    ("table.exec.mini-batch.enabled", "yes", "must be 'true' or 'false'"),
    ("table.exec.mini-batch.allow-latency", "soon", "is not a duration"),
    ("table.exec.mini-batch.size", "0", "must be an integer >= 1"),
    # as Flink's TimeUtils.parseDuration: a negative interval or TTL turned them off in silence
    ("execution.checkpointing.interval", "-5 s", "is not a duration"),
    ("table.exec.state.ttl", "-1 d", "is not a duration"),
])
def test_flink_mini_batch_keys_with_bad_values_are_refused(key, value, message):
    with StreamEnvironment() as env, pytest.raises(ConfigError, match=message):
        env.execute_sql(f"SET '{key}' = '{value}'")


def test_finding_6_documented_folder_keys_are_read(tmp_path):
    """Finding 6: 'execution.checkpointing.dir' and 'state.dir' are accepted without a warning,
    and a job really keeps its checkpoints and its state under them."""
    chk, state = tmp_path / "my-checkpoints", tmp_path / "my-state"
    with StreamEnvironment({"execution.checkpointing.interval": "100 ms"}) as env:
        for key, value in (("execution.checkpointing.dir", chk), ("state.dir", state)):
            msg = env.execute_sql(f"SET '{key}' = '{value}'").message
            assert msg == "[INFO] Execute statement succeeded."
        env.execute_sql(_FIVE)
        env.execute_sql("CREATE TABLE `out` (g INT, n BIGINT) WITH ('connector' = 'blackhole')")
        job = env.execute_sql("INSERT INTO `out` SELECT id % 2, COUNT(*) FROM nums GROUP BY id % 2").job
        assert job.wait(60) == "FINISHED"
    assert [p.name for p in chk.iterdir()] == [job.name]
    assert any(p.name.startswith("chk-") for p in (chk / job.name).iterdir())
    assert [p.name for p in state.iterdir()] == [job.name]


def test_flink_deprecated_key_names_are_read_as_flink_reads_them(tmp_path):
    """Flink 2.3 still reads 'state.checkpoints.dir' and 'state.backend' (fallback keys of
    'execution.checkpointing.dir' and 'state.backend.type'); a Flink script setting them had its
    checkpoints go to .streamsql/checkpoints after '[WARNING] ... is not a key StreamSQL reads'."""
    chk, other = tmp_path / "old-name", tmp_path / "new-name"
    settings = {"execution.checkpointing.interval": "100 ms", "state.dir": str(tmp_path / "s")}
    with StreamEnvironment(settings) as env:
        for key, value in (("state.checkpoints.dir", f"file://{chk}"), ("state.backend", "HASHMAP")):
            msg = env.execute_sql(f"SET '{key}' = '{value}'").message
            assert msg == "[INFO] Execute statement succeeded."
        with pytest.raises(ConfigError, match="'state.backend' = 'memory' is not one of 'rocksdb', "):
            env.execute_sql("SET 'state.backend' = 'memory'")
        env.execute_sql(_FIVE)
        env.execute_sql("CREATE TABLE `out` (g INT, n BIGINT) WITH ('connector' = 'blackhole')")
        job = env.execute_sql("INSERT INTO `out` SELECT id % 2, COUNT(*) FROM nums GROUP BY id % 2").job
        assert job.wait(60) == "FINISHED"
        assert [p.name for p in chk.iterdir()] == [job.name]
        assert job.runner.config.choice("state.backend.type") == "hashmap"  # what the builder reads
        env.execute_sql(f"SET 'execution.checkpointing.dir' = '{other}'")  # the new name wins, as in Flink
        job = env.execute_sql("INSERT INTO `out` SELECT id, COUNT(*) FROM nums GROUP BY id").job
        assert job.wait(60) == "FINISHED"
        assert [p.name for p in other.iterdir()] == [job.name]


def test_finding_6_cli_set_is_checked_like_set(tmp_path):
    """Finding 6: ``--set`` warns about an unknown key and refuses a bad value (exit 2)."""
    script = tmp_path / "s.sql"
    script.write_text("SET 'table.dml-sync' = 'true';\n")
    cmd = ["run", str(script)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    typo = run_streamsql([*cmd, "--set", "pipeline.nmae=x"], tmp_path, env=env, timeout=60)
    assert typo.returncode == 0
    assert ("'pipeline.nmae' is not a key StreamSQL reads; it is ignored; "
            "did you mean 'pipeline.name'?") in typo.stderr
    bad = run_streamsql([*cmd, "--set", "execution.checkpointing.interval=soon"], tmp_path, env=env,
                        timeout=60)
    assert bad.returncode == 2
    assert "'execution.checkpointing.interval' = 'soon' is not a duration" in bad.stderr


@pytest.mark.parametrize(("sql", "what"), [
    ("INSERT OVERWRITE `out` SELECT id FROM nums", "INSERT OVERWRITE"),
    ("INSERT INTO `out` SELECT id FROM nums AS n /*+ OPTIONS('number-of-rows' = '1') */", "OPTIONS"),
])
def test_finding_6_hints_and_overwrite_are_rejected_at_their_position(sql, what):
    """Finding 6: hints and INSERT OVERWRITE are rejected with a caret, never ignored."""
    with StreamEnvironment() as env:
        env.execute_sql(_FIVE)
        env.execute_sql("CREATE TABLE `out` (id INT) WITH ('connector' = 'blackhole')")
        with pytest.raises(SqlError) as e:
            env.execute_sql(sql)
    assert what in str(e.value) and "^" in str(e.value) and "(line 1, column" in str(e.value)


def test_runtime_mode_streaming_is_accepted():
    assert _set("execution.runtime-mode", "streaming") == "[INFO] Execute statement succeeded."
    assert _set("execution.runtime-mode", "STREAMING") == "[INFO] Execute statement succeeded."


@pytest.mark.parametrize("mode", ["batch", "BATCH", "automatic"])
def test_runtime_mode_batch_is_refused_not_run_as_streaming(mode):
    """Flink's batch mode prints final rows only; a streaming run prints updates too: refused."""
    with pytest.raises(ConfigError) as ei:
        _set("execution.runtime-mode", mode)
    assert f"'execution.runtime-mode' = '{mode}' is not supported" in str(ei.value)
    assert "remove the SET" in str(ei.value)
    with pytest.raises(ConfigError, match="is not supported: StreamSQL runs every job in streaming mode"):
        StreamEnvironment({"execution.runtime-mode": mode})


def test_runtime_mode_batch_on_the_command_line_is_refused(tmp_path):
    script = tmp_path / "s.sql"
    script.write_text(_FIVE + ";\nSELECT COUNT(*) FROM nums;\n")
    proc = run_streamsql(["run", "--set", "execution.runtime-mode=batch", str(script)], tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=120)
    assert proc.returncode != 0
    assert "'execution.runtime-mode' = 'batch' is not supported" in proc.stdout + proc.stderr

"""mysql-cdc options checked at planning (no server needed): what is not done is refused."""

from __future__ import annotations

import pytest

from streamsql.core.errors import ConfigError
from streamsql.environment import StreamEnvironment

OPTIONS = ("'connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'username' = 'u', 'password' = 'p', "
           "'database-name' = 'd', 'table-name' = 't'")


def _plan(extra: str) -> None:
    with StreamEnvironment() as env:
        env.execute_sql(f"CREATE TABLE src (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ({OPTIONS}{extra})")
        env.execute_sql("CREATE TABLE out_t (id INT) WITH ('connector' = 'blackhole')")
        env.execute_sql("EXPLAIN INSERT INTO out_t SELECT id FROM src")


def test_incremental_snapshot_disabled_is_refused_with_a_reason():
    """Flink CDC's legacy snapshot (global read lock) was accepted and silently not taken."""
    with pytest.raises(ConfigError) as ei:
        _plan(", 'scan.incremental.snapshot.enabled' = 'false'")
    text = str(ei.value)
    assert "'scan.incremental.snapshot.enabled' = 'false'" in text and "is not supported" in text, text
    assert "remove the option" in text


@pytest.mark.parametrize(("value", "ok"), [("true", True), ("TRUE", True), ("yes", False)])
def test_incremental_snapshot_enabled_values(value, ok):
    extra = f", 'scan.incremental.snapshot.enabled' = '{value}'"
    if ok:
        _plan(extra)
    else:
        with pytest.raises(ConfigError, match="must be 'true' or 'false'"):
            _plan(extra)


@pytest.mark.parametrize(("extra", "words"), [
    (", 'scan.startup.mode' = 'latest'", "option 'scan.startup.mode' = 'latest' is not one of"),
    (", 'scan.startup.mod' = 'latest-offset'", "unknown option 'scan.startup.mod' for connector 'mysql-cdc'"),
])
def test_an_unknown_option_or_startup_mode_is_refused_not_ignored(extra, words):
    """The mistyped key was taken and ignored (the snapshot read, 'initial', where the latest offset
    was asked for), the bad mode failed the running job with "'NoneType' object is not
    subscriptable"; Flink CDC's factory refuses both ("Unsupported options found for 'mysql-cdc'",
    "Invalid value for option 'scan.startup.mode'"). The same through an OPTIONS hint."""
    with pytest.raises(ConfigError, match=words.replace("(", r"\(")):
        _plan(extra)
    with StreamEnvironment() as env:
        env.execute_sql(f"CREATE TABLE src (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ({OPTIONS})")
        with pytest.raises(ConfigError, match=words):
            env.execute_sql(f"EXPLAIN SELECT id FROM src /*+ OPTIONS({extra[2:]}) */")

"""Option values parse as on Flink 2.3 (streamsql.core.values), and its restart strategies.

Every expectation below is what Flink 2.3 gave for the same text, asked of its own parsers on the
PyFlink JVM (``Configuration.get`` of a boolean / int / duration / memory / enum option,
``TimeUtils.parseDuration``, ``MemorySize.parse``; 2026-12-01): e.g. ``'TRUE'`` is true there,
``' true'`` an error, ``'PT10S'`` ten seconds, ``'1 mins'`` an error.
"""

import random

import pytest

from streamsql import StreamEnvironment
from streamsql.core.config import Config, check_setting
from streamsql.core.errors import ConfigError
from streamsql.core.values import duration_ms, memory_bytes, parse_bool, parse_enum, parse_int, parse_list
from streamsql.runtime.restart import (
    ExponentialDelay,
    FailureRate,
    FixedDelay,
    create_strategy,
    strategy_type,
)


@pytest.mark.parametrize(("text", "value"), [("TRUE", True), ("True", True), ("tRuE", True), ("false", False),
                                             ("FALSE", False)])
def test_booleans_in_any_case(text, value):
    assert parse_bool(text, "k") is value


@pytest.mark.parametrize("text", ["yes", "1", "on", " true", "false "])
def test_other_booleans_are_refused_as_flink_does(text):
    with pytest.raises(ConfigError, match="must be 'true' or 'false'"):
        parse_bool(text, "k")


@pytest.mark.parametrize(("text", "ms"), [
    ("10 s", 10_000), ("10s", 10_000), ("1min", 60_000), ("1 m", 60_000), ("1m", 60_000), ("10 S", 10_000),
    ("10 MIN", 600_000), ("1 h", 3_600_000), ("1d", 86_400_000), ("2 days", 172_800_000), ("10 secs", 10_000),
    ("10 seconds", 10_000), ("100 ms", 100), ("5 millis", 5), ("  7  ms ", 7), ("0", 0), ("250", 250),
    ("PT10S", 10_000), ("pt10s", 10_000), ("PT1H30M", 5_400_000), ("P1D", 86_400_000), ("PT0.5S", 500),
    ("1 hours", 3_600_000), ("1 minutes", 60_000)])
def test_durations_as_flink_time_utils(text, ms):
    assert duration_ms(text, "k") == ms


@pytest.mark.parametrize("text", ["-5 s", "1.5 s", "1 w", "1 mins", "soon", "", "PT", "10 ns"])
def test_bad_durations_are_refused(text):
    with pytest.raises(ConfigError, match="'k' = "):
        duration_ms(text, "k")


@pytest.mark.parametrize(("text", "size"), [("64mb", 64 << 20), ("64 MB", 64 << 20), ("1g", 1 << 30),
                                            ("1G", 1 << 30), ("64m", 64 << 20), ("64", 64), ("64 b", 64),
                                            ("8 KB", 8192), ("1 kibibytes", 1024), ("1 t", 1 << 40)])
def test_memory_sizes_as_flink_memory_size(text, size):
    assert memory_bytes(text, "k") == size


@pytest.mark.parametrize("text", ["1.5mb", "-1", "64 MiB", "1 mebibyte", "1 megabytes"])
def test_bad_memory_sizes_are_refused(text):
    with pytest.raises(ConfigError, match="is not a memory size"):
        memory_bytes(text, "k")


@pytest.mark.parametrize(("text", "n"), [("10", 10), ("+10", 10), ("-1", -1)])
def test_integers_as_java(text, n):
    assert parse_int(text, "k") == n


@pytest.mark.parametrize("text", [" 10", "1e3", "10.0", "0x10", "1_000", "2147483648"])
def test_bad_integers_are_refused(text):
    with pytest.raises(ConfigError, match="is not an integer"):
        parse_int(text, "k")


def test_enums_in_any_case_give_the_canonical_spelling():
    assert parse_enum("exactly_once", ("EXACTLY_ONCE", "AT_LEAST_ONCE"), "k") == "EXACTLY_ONCE"
    assert parse_enum("At_Least_Once", ("EXACTLY_ONCE", "AT_LEAST_ONCE"), "k") == "AT_LEAST_ONCE"
    with pytest.raises(ConfigError, match="is not one of"):
        parse_enum("exactly-once", ("EXACTLY_ONCE", "AT_LEAST_ONCE"), "k")


def test_lists_split_on_semicolons_and_trim():
    assert parse_list("a; b;c") == ["a", "b", "c"]


@pytest.mark.parametrize(("key", "value"), [
    ("table.dml-sync", "TRUE"), ("sql-client.verbose", "False"), ("table.exec.mini-batch.enabled", "True"),
    ("execution.checkpointing.interval", "PT10S"), ("execution.checkpointing.interval", "10s"),
    ("state.backend.type", "ROCKSDB"), ("execution.checkpointing.mode", "exactly_once"),
    ("parallelism.default", "+2"), ("restart-strategy.type", "Exponential-Delay"),
    ("restart-strategy.type", "failurerate"), ("restart-strategy", "fixed-delay"),
    ("state.backend.rocksdb.writebuffer.size", "64 MB")])
def test_set_accepts_what_flink_accepts(key, value):
    assert check_setting(key, value) is None


@pytest.mark.parametrize(("key", "value", "message"), [
    ("state.backend.rocksdb.writebuffer.size", "0", "above 0 bytes"),
    ("state.backend.rocksdb.block.cache-size", "0 mb", "above 0 bytes"),
    ("table.dml-sync", "yes", "must be 'true' or 'false'"),
    ("parallelism.default", " 2", "is not an integer"),
    ("restart-strategy.type", "sometimes", "is not one of"),
    ("restart-strategy.exponential-delay.backoff-multiplier", "fast", "is not a number")])
def test_set_refuses_what_flink_refuses(key, value, message):
    with pytest.raises(ConfigError, match=message):
        check_setting(key, value)


def test_set_true_in_capitals_takes_effect():
    """'TRUE' was refused by SET, and read as false by Config.boolean when set otherwise."""
    with StreamEnvironment() as env:
        message = env.execute_sql("SET 'table.dml-sync' = 'TRUE'").message
        assert message == "[INFO] Execute statement succeeded."
        assert env.config.boolean("table.dml-sync") is True
    assert Config({"sql-client.verbose": "True"}).boolean("sql-client.verbose") is True
    with pytest.raises(ConfigError, match="must be 'true' or 'false'"):
        Config({"sql-client.verbose": "yes"}).boolean("sql-client.verbose")


def test_enum_keys_read_in_their_canonical_spelling():
    assert Config({"state.backend.type": "HashMap"}).choice("state.backend.type") == "hashmap"


# -- restart strategies -------------------------------------------------------------------------


def test_default_restart_follows_what_flink_would_do_with_the_script():
    """Flink restarts with exponential-delay when the script enables checkpointing; StreamSQL's
    own default interval (on, where Flink's is off) does not change the restart default."""
    assert strategy_type(Config()) == "none"
    assert strategy_type(Config({"execution.checkpointing.interval": "10 s"})) == "exponential-delay"
    assert strategy_type(Config({"execution.checkpointing.interval": "0"})) == "none"
    assert strategy_type(Config({"execution.checkpointing.interval": "10 s",
                                 "restart-strategy.type": "OFF"})) == "none"
    assert strategy_type(Config({"restart-strategy": "fixeddelay"})) == "fixed-delay"


def test_flink_default_exponential_delay():
    """Flink 2.3's defaults: 1 s, x1.5, at most 1 min, jitter 0.1, reset after 1 h, 2**31-1 attempts."""
    s = create_strategy(Config({"execution.checkpointing.interval": "10 s"}))
    assert isinstance(s, ExponentialDelay)
    assert (s.initial, s.multiplier, s.max_backoff, s.jitter, s.reset_threshold, s.attempts) == (
        1.0, 1.5, 60.0, 0.1, 3600.0, 2**31 - 1)


def test_exponential_delay_grows_caps_and_resets():
    s = ExponentialDelay(1.0, 4.0, 2.0, 100.0, 0.0, 1000, random.Random(0))
    assert [s.next_delay(t) for t in (0, 1, 2, 3, 4)] == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert s.next_delay(500) == 1.0  # ran fine for longer than the threshold: back to the start


def test_exponential_delay_jitter_stays_within_its_share():
    s = ExponentialDelay(10.0, 10.0, 1.0, 100.0, 0.1, 1000, random.Random(1))
    delays = [s.next_delay(t) for t in range(50)]
    assert all(9.0 <= d <= 11.0 for d in delays) and len(set(delays)) > 1


def test_exponential_delay_gives_up_after_its_attempts():
    s = ExponentialDelay(1.0, 1.0, 1.0, 100.0, 0.0, 2)
    assert [s.next_delay(t) for t in (0, 1, 2)] == [1.0, 1.0, None]


def test_fixed_delay_default_is_one_attempt_as_flink():
    s = create_strategy(Config({"restart-strategy.type": "fixed-delay"}))
    assert isinstance(s, FixedDelay) and (s.attempts, s.delay) == (1, 1.0)
    assert [s.next_delay(0), s.next_delay(1)] == [1.0, None]


def test_failure_rate_counts_failures_in_the_interval():
    s = create_strategy(Config({"restart-strategy.type": "failure-rate",
                                "restart-strategy.failure-rate.max-failures-per-interval": "2",
                                "restart-strategy.failure-rate.failure-rate-interval": "10 s",
                                "restart-strategy.failure-rate.delay": "0 s"}))
    assert isinstance(s, FailureRate)
    assert [s.next_delay(t) for t in (0, 1, 20, 21)] == [0.0, 0.0, 0.0, 0.0]
    assert s.next_delay(22) is None  # the third failure within 10 s


# -- connector and format options (WITH) -------------------------------------------------------


def test_format_booleans_in_any_case_take_effect(tmp_path):
    """'json.ignore-parse-errors' = 'TRUE' was refused ("is not one of 'true', 'false'")."""
    data = tmp_path / "in.json"
    data.write_text('{"id": 1}\nnot json\n{"id": 3}\n')
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp"),
                            "state.dir": str(tmp_path / "state")}) as env:
        env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'filesystem', 'path' = '{data}', "
                        "'format' = 'json', 'json.ignore-parse-errors' = 'TRUE')")
        rows = [row for _, row in env.execute_sql("SELECT id FROM src").collect()]
    assert rows == [(1,), (3,)]


def test_connector_enums_in_any_case_are_read_in_their_canonical_spelling():
    from streamsql.connectors.registry import get_connector, validate_options

    options = {"topic": "t", "properties.bootstrap.servers": "b:9092", "format": "json",
               "scan.startup.mode": "EARLIEST-OFFSET", "scan.bounded.mode": "Latest-Offset",
               "sink.delivery-guarantee": "EXACTLY-ONCE", "value.fields-include": "except_key",
               "sink.topic.auto-create": "True"}
    validate_options(get_connector("kafka"), options, "t", allowed_extra=("json.",))
    assert (options["scan.startup.mode"], options["scan.bounded.mode"], options["sink.delivery-guarantee"],
            options["value.fields-include"], options["sink.topic.auto-create"]) == (
        "earliest-offset", "latest-offset", "exactly-once", "EXCEPT_KEY", "true")


@pytest.mark.parametrize(("key", "value"), [("format", "JSON"), ("sink.partitioner", "FIXED"),
                                            ("scan.startup.mode", "earliest")])
def test_string_options_flink_compares_exactly_stay_case_sensitive(key, value):
    from streamsql.connectors.registry import get_connector, validate_options

    options = {"topic": "t", "properties.bootstrap.servers": "b:9092", "format": "json",
               key: value}
    with pytest.raises(ConfigError, match=f"Table 't': option '{key}' = '{value}' is not one of"):
        validate_options(get_connector("kafka"), options, "t")

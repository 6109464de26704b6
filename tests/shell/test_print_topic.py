"""PRINT TOPIC against the real broker: raw records with key, value, partition, offset, time."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest


def _value(i: int) -> str:
    """Small JSON values, and one longer than a column's usual 30 characters."""
    return f'{{"n": {i}, "note": "{"long " * 12}end"}}' if i == 4 else f'{{"n": {i}}}'


@pytest.fixture
def topic_with_records(kafka_bootstrap, kafka_topic_factory):
    from confluent_kafka import Producer

    topic = kafka_topic_factory("shell-print", partitions=2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(5):
        p.produce(topic, key=f"k{i}".encode(), value=_value(i).encode(), partition=i % 2,
                  timestamp=1_700_000_000_000 + i)
    p.produce(topic, key=None, value=b"\xff\xfe", partition=0)  # not UTF-8: shown as hex
    assert p.flush(10) == 0
    return topic


def test_print_topic_from_beginning_stops_when_caught_up(shell, monkeypatch, kafka_bootstrap,
                                                        topic_with_records):
    monkeypatch.setenv("STREAMSQL_KAFKA_BOOTSTRAP", kafka_bootstrap)
    sh = shell()
    m = sh.mark()
    sh.send(f"PRINT TOPIC `{topic_with_records}` FROM BEGINNING;\n")
    sh.expect(r"Received a total of 6 records", after=m, timeout=20)
    out = sh.screen()[m:]
    # Text (keys, JSON values, times) is left-aligned, numbers right-aligned; the value column
    # takes the terminal's width (160 here), so values are not cut at 30 characters.
    assert re.search(r"\| key\s+\| value\s+\|\s+partition \|\s+offset \| timestamp\s+\|", out), out
    for i in range(5):
        value = re.escape(_value(i))
        assert re.search(rf"\| k{i}\s+\| {value}\s+\|\s+{i % 2} \|\s+{i // 2} \|"
                         rf" 2023-11-14 22:13:20\.00{i} \|", out), out
    assert re.search(r"\| <NULL> \| 0xfffe\s+\|\s+0 \|\s+3 \|", out), out
    widths = {len(line) for line in out.splitlines() if line.startswith(("|", "+"))}
    assert widths == {160}, widths  # as wide as the terminal, and no wider


def test_print_topic_limit_and_bootstrap_from_set(shell, kafka_bootstrap, topic_with_records):
    sh = shell()
    sh.send(f"SET 'properties.bootstrap.servers' = '{kafka_bootstrap}';\n")
    sh.send_expect(f"PRINT TOPIC `{topic_with_records}` FROM BEGINNING LIMIT 1;\n",
                   r"Received a total of 1 record\n", timeout=20)  # not "1 records"
    sh.send_expect("PRINT TOPIC `no-such-topic-here` FROM BEGINNING;\n",
                   r"\[ERROR\] Topic 'no-such-topic-here' not found", timeout=20)


def _piped_print(tmp_path, bootstrap: str, topic: str) -> subprocess.CompletedProcess:
    """``PRINT TOPIC topic FROM BEGINNING;`` piped into ``streamsql shell``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(tmp_path / "h"),
           "STREAMSQL_KAFKA_BOOTSTRAP": bootstrap}
    return subprocess.run([sys.executable, "-m", "streamsql", "shell"], cwd=tmp_path, env=env, timeout=120,
                          input=f"PRINT TOPIC `{topic}` FROM BEGINNING;\n", capture_output=True, text=True)


def test_piped_print_topic_into_a_file_shows_whole_values(tmp_path, kafka_bootstrap, topic_with_records):
    """Output to a pipe or file has no screen width to fit: the value column is not cut (it was cut
    at 30 characters, the width of an 80-column terminal's leftover, so the README's
    ``echo "PRINT TOPIC ..." | streamsql shell`` showed no whole value)."""
    done = _piped_print(tmp_path, kafka_bootstrap, topic_with_records)
    assert done.returncode == 0, done.stderr
    assert f"| {_value(4)} |" in done.stdout, done.stdout
    assert "| k4" in done.stdout  # other columns keep their usual width


LONG_KEY = '{"origin": "EWR", "carrier": "UA", "day": "2013-01-01"}'  # 55 characters


@pytest.fixture
def topic_with_a_long_key(kafka_bootstrap, kafka_topic_factory):
    from confluent_kafka import Producer

    topic = kafka_topic_factory("shell-print-key", partitions=1)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    p.produce(topic, key=LONG_KEY.encode(), value=b'{"flights": 12}')
    p.produce(topic, key=b"k" * 200, value=b'{"flights": 7}')
    assert p.flush(10) == 0
    return topic


def test_print_topic_shows_a_key_longer_than_30_characters(shell, monkeypatch, kafka_bootstrap,
                                                          topic_with_a_long_key):
    """A key was cut at 'sql-client.display.max-column-width' (30): an upsert-kafka key such as
    ``{"origin": "EWR", "carrier": "UA", ...}`` showed as ``{"origin": "EWR", "carrier...``. Key and
    value now share the terminal's width: the key whole as long as the value keeps its usual width
    (its first values', at most 30 characters)."""
    monkeypatch.setenv("STREAMSQL_KAFKA_BOOTSTRAP", kafka_bootstrap)
    sh = shell()
    m = sh.mark()
    sh.send(f"PRINT TOPIC `{topic_with_a_long_key}` FROM BEGINNING;\n")
    sh.expect(r"Received a total of 2 records", after=m, timeout=20)
    out = sh.screen()[m:]
    assert re.search(rf"\| {re.escape(LONG_KEY)}\s*\| \{{\"flights\": 12\}}\s+\|", out), out
    # 160 columns less partition, offset, timestamp (11 + 11 + 23) and borders (16): 99 for key and
    # value; the value keeps 15 (its first values' width), the 200-character key gets the other 84
    assert re.search(r"\| k{81}\.\.\. \| \{\"flights\": 7\}\s+\|", out), out
    widths = {len(line) for line in out.splitlines() if line.startswith(("|", "+"))}
    assert widths == {160}, widths


def test_piped_print_topic_shows_whole_keys(tmp_path, kafka_bootstrap, topic_with_a_long_key):
    done = _piped_print(tmp_path, kafka_bootstrap, topic_with_a_long_key)
    assert done.returncode == 0, done.stderr
    assert re.search(rf"\| {re.escape(LONG_KEY)} +\| ", done.stdout), done.stdout
    assert f"| {'k' * 200} | " in done.stdout, done.stdout

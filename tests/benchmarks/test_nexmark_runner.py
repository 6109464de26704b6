"""The Nexmark runner's plumbing for long runs: a kept topic reused, results merged, a query timed out.

A long Kafka-mode run (a million events, q0–q22, both engines) does not fit one 10-minute hold
of a shared lock, so it is split into groups of queries (``--queries``) that read one topic
loaded once (``--topic``) and add to one results file (``--merge``); a query that never ends
is cancelled at ``--timeout-s``. These run StreamSQL only, against the real broker.
"""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest

from benchmarks.common import delete_topics
from benchmarks.nexmark import job, load, runner, sql


@pytest.fixture
def kept_topic(kafka_bootstrap):
    name = f"nexmark-kept-{uuid.uuid4().hex[:8]}"
    yield name
    delete_topics([name], bootstrap=kafka_bootstrap)


def _run(bootstrap: str, out, topic: str, queries: str, *extra: str, events: int = 3000) -> None:
    runner.main(["--engines", "streamsql", "--modes", "kafka", "--events", str(events), "--queries", queries,
                 "--topic", topic, "--bootstrap", bootstrap, "--flink-lock", "", "--out", str(out), *extra])


def test_kept_topic_is_loaded_once_and_runs_merge(kafka_bootstrap, kept_topic, tmp_path, capsys):
    """Two queries in the first run, 3,000 events: the merged table interleaves the runs' queries."""
    out = tmp_path / "nexmark"
    _run(kafka_bootstrap, out, kept_topic, "q0,q2")
    assert load.committed_records(kept_topic, kafka_bootstrap) == 3000  # kept after the run
    _run(kafka_bootstrap, out, kept_topic, "q1", "--merge")
    assert f"reading {kept_topic} (3,000 events, loaded before)" in capsys.readouterr().out
    assert load.committed_records(kept_topic, kafka_bootstrap) == 3000  # not loaded twice
    doc = json.loads(out.with_suffix(".json").read_text())
    per_query = doc["results"]["kafka"]["streamsql"]
    assert sorted(per_query) == ["q0", "q1", "q2"]
    assert all("seconds" in r for r in per_query.values()), per_query
    md = out.with_suffix(".md").read_text()
    assert re.findall(r"^\| (q\d+) \|", md, re.MULTILINE) == ["q0", "q1", "q2"]  # in query order


def test_kept_topic_with_other_events_is_refused(kafka_bootstrap, kept_topic, tmp_path):
    _run(kafka_bootstrap, tmp_path / "a", kept_topic, "q0")
    with pytest.raises(SystemExit, match=f"topic {kept_topic} holds 3,000 events, not --events 4,000"):
        runner.main(["--engines", "streamsql", "--modes", "kafka", "--events", "4000", "--queries", "q0",
                     "--topic", kept_topic, "--bootstrap", kafka_bootstrap, "--out", str(tmp_path / "b")])


def test_merge_refuses_another_input(tmp_path):
    path = tmp_path / "n.json"
    path.write_text(json.dumps({"events": 1000, "backend": "rocksdb", "results": {}}))
    with pytest.raises(SystemExit, match="holds 1000 events on rocksdb, not 2000 on rocksdb"):
        runner._merged(path, {"events": 2000, "backend": "rocksdb", "results": {}})


def test_query_past_its_timeout_is_cancelled_and_recorded(tmp_path):
    spec = {"engine": "streamsql", "source_with": sql.nexmark_options(0), "side_input": "",
            "workdir": str(tmp_path), "backend": "hashmap", "interval_ms": 10_000, "timeout_s": 2}
    start = time.monotonic()
    assert job.run_query(spec, "q0") == {"error": "timed out after 2 s (cancelled)"}  # events.num 0: endless
    assert time.monotonic() - start < 30

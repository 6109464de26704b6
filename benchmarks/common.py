"""Shared helpers of the benchmark harness: Kafka admin, topic end offsets, result files."""

from __future__ import annotations

import compileall
import importlib.util
import json
import os
import time
import uuid
from pathlib import Path

BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
PARTITIONS = 4
ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"


def compile_bytecode() -> None:
    """Write the bytecode cache of streamsql's packages, as ``pip install`` leaves them.

    Every contender process pays its imports; without ``__pycache__`` (a source checkout run with
    ``PYTHONDONTWRITEBYTECODE=1``, as on the development machine) each one also compiles our ~190
    modules from source, ~0.3 CPU-s per process that no installed user pays.
    """
    for name in ("streamsql", "streamsql.connectors", "streamsql.shell"):
        spec = importlib.util.find_spec(name)
        for folder in spec.submodule_search_locations or []:
            compileall.compile_dir(folder, quiet=1)


def admin(bootstrap: str = BOOTSTRAP):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})


def create_topic(
    name: str, partitions: int = PARTITIONS, compacted: bool = False, bootstrap: str = BOOTSTRAP,
    append_time: bool = False,
) -> str:
    """Create ``name`` and wait for its leaders.

    ``append_time``: records get the broker's append time as their timestamp
    (``LogAppendTime``), so an output topic says when each record was written.
    """
    from confluent_kafka.admin import NewTopic

    a = admin(bootstrap)
    # retention.ms -1: the bids carry 2023 event times as record timestamps; time-based retention
    # would otherwise delete them (segment by segment) while the benchmark runs
    cfg = {"cleanup.policy": "compact"} if compacted else {"retention.ms": "-1"}
    if append_time:
        cfg["message.timestamp.type"] = "LogAppendTime"
    fut = a.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1, config=cfg)])
    for f in fut.values():
        f.result(30)
    deadline = time.time() + 30
    while time.time() < deadline:
        md = a.list_topics(name, timeout=10).topics.get(name)
        if (
            md
            and md.error is None
            and len(md.partitions) == partitions
            and all(p.leader >= 0 for p in md.partitions.values())
        ):
            return name
        time.sleep(0.1)
    msg = f"topic {name} has no leaders after 30 s"
    raise RuntimeError(msg)


def delete_topics(names: list[str], bootstrap: str = BOOTSTRAP) -> None:
    """Delete the topics ``names`` and wait until the broker has (topics already gone are fine).

    The AdminClient must outlive the futures: one dropped at once (as this did before) destroys
    its handle, every delete then fails with ``_DESTROY`` and the topics stay.

    Raises:
        RuntimeError: naming the topics the broker did not delete, and why.
    """
    if not names:
        return
    from confluent_kafka import KafkaError, KafkaException

    client = admin(bootstrap)
    failed = []
    for name, f in client.delete_topics(list(names), operation_timeout=30).items():
        try:
            f.result(60)
        except KafkaException as e:
            if e.args[0].code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
                failed.append(f"{name}: {e.args[0].str()}")
    if failed:
        msg = f"could not delete {len(failed)} topic(s): " + "; ".join(failed)
        raise RuntimeError(msg)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def end_offsets(topic: str, bootstrap: str = BOOTSTRAP) -> dict[int, int]:
    """High watermark (read_committed: last stable offset) per partition."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": unique("bench-eo"),
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    try:
        md = c.list_topics(topic, timeout=10).topics[topic]
        return {
            p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
            for p in sorted(md.partitions)
        }
    finally:
        c.close()


def write_json(path: str | Path, obj) -> None:
    p = Path(path)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, default=str))
    os.replace(tmp, p)


def peak_rss_bytes() -> int:
    """Peak RSS of this process (Linux: ru_maxrss in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

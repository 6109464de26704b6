"""The Kafka input of a compat case: ``records.json`` written to a new topic, before either side runs.

A case whose source is a ``kafka`` table (to cover what only a Kafka record can be: a tombstone,
bytes that are not UTF-8, an empty value) has a ``records.json`` beside its ``case.sql``: a JSON
list, one item per Kafka record, in order, all into partition 0 of a new one-partition topic (so
record ``i`` is at offset ``i``). An item is

- a string: the value, as UTF-8 (no key);
- null: a tombstone (no key, no value);
- an object ``{"value_hex": "..."}`` (the value's bytes in hex) or ``{"value": ..., "key": ...}``
  (either may be null or a string; ``key_hex`` also works).

``case.sql`` names the topic ``${TOPIC}`` and the broker ``${BOOTSTRAP}``. ``scripts/flink_compat.py``
(PyFlink's venv has no Kafka client) runs this module in the project's venv to load the topic::

    python -m tests.compat.kafka_input BOOTSTRAP CASE_DIR      # prints the topic's name

``tests/compat/test_compat.py`` calls :func:`load` and :func:`drop` around its run.
"""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from pathlib import Path

RECORDS = "records.json"


def is_kafka_case(case: Path) -> bool:
    """True when the case reads a Kafka topic loaded from its ``records.json``."""
    return (case / RECORDS).exists()


def _bytes(item: dict, field: str) -> bytes | None:
    if f"{field}_hex" in item:
        return bytes.fromhex(item[f"{field}_hex"])
    v = item.get(field)
    return None if v is None else v.encode()


def records(case: Path) -> list[tuple[bytes | None, bytes | None]]:
    """The case's ``(key, value)`` records, in order (see module docstring)."""
    out = []
    for item in json.loads((case / RECORDS).read_text()):
        if item is None or isinstance(item, str):
            out.append((None, None if item is None else item.encode()))
        else:
            out.append((_bytes(item, "key"), _bytes(item, "value")))
    return out


def substitute(sql: str, topic: str, bootstrap: str) -> str:
    """``case.sql`` with ``${TOPIC}`` and ``${BOOTSTRAP}`` filled in."""
    return sql.replace("${TOPIC}", topic).replace("${BOOTSTRAP}", bootstrap)


def load(bootstrap: str, case: Path) -> str:
    """Create a new one-partition topic for ``case``, write its records; the topic's name.

    Raises:
        RuntimeError: a record was not delivered.
    """
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    topic = f"compat-{re.sub(r'[^A-Za-z0-9-]', '-', case.name)[:80]}-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": bootstrap, "allow.auto.create.topics": False})
    admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=30)[topic].result(60)
    deadline = time.monotonic() + 30
    while admin.list_topics(topic=topic, timeout=10).topics[topic].partitions.get(0) is None:
        if time.monotonic() > deadline:
            msg = f"topic {topic} has no partition 0 after 30 s"
            raise RuntimeError(msg)
        time.sleep(0.1)
    failed: list = []
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for key, value in records(case):
        p.produce(topic, value, key, partition=0, on_delivery=lambda err, _m: err and failed.append(err))
    if p.flush(60) or failed:
        msg = f"{case.name}: records not delivered to {topic}: {failed[:3]}"
        raise RuntimeError(msg)
    return topic


def drop(bootstrap: str, topic: str) -> None:
    """Delete ``topic`` (best effort)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap, "allow.auto.create.topics": False})
    for f in admin.delete_topics([topic], operation_timeout=30).values():
        try:
            f.result(60)
        except Exception:  # noqa: BLE001,S110  (the topic is a leftover at worst)
            pass


if __name__ == "__main__":
    print(load(sys.argv[1], Path(sys.argv[2])))

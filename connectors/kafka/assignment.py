"""Which task of a parallel job reads which Kafka partition: Flink's ``KafkaSourceEnumerator``.

Flink gives partition ``p`` of topic ``t`` to reader ``(startIndex(t) + p) % readers``, with
``startIndex(t) = ((t.hashCode() * 31) & 0x7FFFFFFF) % readers``
(``KafkaSourceEnumerator.getSplitOwner``): each topic's partitions go round robin from a start
that depends on the topic's name only, so partitions added to a topic, or a new topic, never
move a known partition to another reader. The same function assigns them here
(:func:`flink_start`, :func:`owner`).

A task records the start of every topic of its source in its position, as ``"@<topic>": start``
next to the ``"<topic>:<partition>": offset`` entries (:func:`position_starts`), and a restored
task keeps the starts it checkpointed. A position written before starts were recorded (no ``@``
keys) numbered the partitions of all topics in one sequence (topic, partition order), which is
the start of each topic being the number of partitions of the topics before it
(:func:`sequence_starts`); such a restore keeps that numbering, and records it from then on.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Prefix of a start entry in a position: ``"@orders": 12345``.
START_PREFIX = "@"
#: Prefix of a bounded read's end offset (exclusive) of a partition in a position:
#: ``"^orders:3": 1000``. A restore keeps it, as Flink's split state keeps its stopping offset.
STOP_PREFIX = "^"


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 units, as a signed int32.

    >>> java_string_hash("orders")
    -1008770331
    """
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def flink_start(topic: str) -> int:
    """The start of ``topic``: ``(topic.hashCode() * 31) & 0x7FFFFFFF`` (not yet modulo the tasks)."""
    return (java_string_hash(topic) * 31) & 0x7FFFFFFF


def owner(start: int, partition: int, tasks: int) -> int:
    """The task (0-based) that reads ``partition`` of a topic whose start is ``start``."""
    return (start + partition) % tasks


def sequence_starts(partitions: Iterable[tuple[str, int]]) -> dict[str, int]:
    """The starts of one numbering of ``partitions`` (topic, partition order): each topic's first index."""
    starts: dict[str, int] = {}
    for i, (topic, _) in enumerate(sorted(partitions)):
        starts.setdefault(topic, i)
    return starts


def position_starts(position: dict) -> dict[str, int] | None:
    """The ``@<topic>`` starts a position records, or None when it records none (written before)."""
    starts = {k[len(START_PREFIX):]: int(v) for k, v in position.items() if str(k).startswith(START_PREFIX)}
    return starts or None

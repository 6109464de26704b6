"""What one ``consume()`` of a Kafka source hands to its decode: values, and where each came from.

A Kafka source fetches on one thread and decodes on another (the pipeline's decode stage,
:mod:`streamsql.runtime.prefetch`). The decode must not touch the reader, which the fetch
thread goes on using, so :class:`Fetched` carries everything the decode needs, taken on the
fetch thread before the reader moves on: the values, a :class:`Located` (the split and offset
of every message, and the partitions the splits name as of that fetch), and the messages
themselves only when the decode reads more of them than their value (a key format, metadata
columns, upsert-kafka's changelog). Each message is a GC-tracked Python object (10,000 per
batch); the values are ``bytes``, which the garbage collector does not track.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from confluent_kafka import Message
from streamsql.connectors.kafka.offsets import TopicPart


@dataclass(frozen=True)
class Located:
    """The split and offset of every message of one ``consume()``.

    Attributes:
        splits: int32, the split (index into ``parts``) of message ``i``.
        offsets: int64, the offset of message ``i``.
        parts: ``(topic, partition)`` of each split, as of the fetch (discovery appends later ones).
    """

    splits: np.ndarray
    offsets: np.ndarray
    parts: tuple[TopicPart, ...]

    def split_ids(self, idx: np.ndarray) -> np.ndarray | None:
        """The split of message ``i`` for each ``i`` in ``idx`` (``Batch.splits``).

        Returns:
            int32 indices into the source's splits; None when it reads a single partition (every
            row is split 0).
        """
        if len(self.parts) <= 1:
            return None
        return self.splits[np.asarray(idx, dtype=np.int64)]

    def where(self, i: int) -> str:
        """``topic[partition]@offset`` of message ``i``."""
        topic, partition = self.parts[int(self.splits[i])]
        return f"{topic}[{partition}]@{int(self.offsets[i])}"

    def origins(self, idx: np.ndarray) -> Callable[[int], str]:
        """``origin(r)``: ``topic[partition]@offset`` of message ``idx[r]`` (``Batch.origin``).

        Built from the split and offset arrays, not from the messages, so a batch does not keep
        its messages alive: kept by the batches waiting in the pipeline's queues they were
        scanned by every young collection (0.19 vs 0.08 CPU-µs per record of collection).
        """
        idx = np.asarray(idx, dtype=np.int64)
        row_splits, row_offsets, parts = self.splits[idx], self.offsets[idx], self.parts

        def origin(r: int) -> str:
            topic, partition = parts[int(row_splits[r])]
            return f"{topic}[{partition}]@{int(row_offsets[r])}"

        return origin


@dataclass(frozen=True)
class Fetched:
    """The messages of one ``consume()``, as the decode needs them (see module docstring).

    Attributes:
        values: every message's value (None for a tombstone).
        located: where each message came from.
        msgs: the messages, or None when the decode reads only their values.
    """

    values: list[bytes | None]
    located: Located
    msgs: list[Message] | None = None

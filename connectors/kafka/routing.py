"""Which topic each row of a Kafka sink goes to: Flink's multi-topic sink.

As Flink's ``DynamicKafkaRecordSerializationSchema.getTargetTopic`` (Kafka SQL connector 5.0):

- ``'topic'`` names one topic: every row goes there (the sink then has no writable ``topic``
  metadata: :func:`.metadata.writable_metadata`);
- ``'topic'`` names several (``'a;b'``): each row goes to the topic its ``topic`` metadata column
  names, which must be one of them;
- ``'topic-pattern'``: each row goes to the topic its ``topic`` column names, which must match the
  pattern (the whole name, as Java's ``Matcher.matches``).

A row naming no topic (NULL, or no written ``topic`` column) or a topic outside the list or the
pattern fails the job with Flink's message. Without a written ``topic`` column every row would fail
so, and the sink is refused when the job is planned, in the same words.
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.kafka.options import check_topic_choice, table_prefix, topics_of

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.java_hash import hash_map_order, string_hash

#: Flink's messages (``DynamicKafkaRecordSerializationSchema``).
NO_TOPIC = "The topic of the sink record is not valid. Expected a single topic but no topic is set."
NOT_LISTED = "The topic of the sink record is not valid. Expected topic to be in: {} but was: {}"
NOT_MATCHED = "The topic of the sink record is not valid. Expected topic to match: {} but was: {}"


def java_hash_set_order(names: list[str]) -> list[str]:
    """``names`` in the order Flink's message prints its set of topics.

    Flink keeps the ``'topic'`` list as ``new HashSet<>(topics)`` in its serialization schema,
    which reaches the sink's task through Java serialization: the set's iteration order is that of a
    ``HashMap`` of at least 16 buckets filled in list order, then of the one ``HashSet.readObject``
    refills in that order (``size * 4/3`` buckets, rounded up to a power of two). A name's bucket is
    its ``String.hashCode`` spread (``h ^ h >>> 16``) masked to the table size.

    >>> java_hash_set_order(["alpha", "beta", "gamma", "delta"])
    ['delta', 'beta', 'gamma', 'alpha']
    """
    unique = list(dict.fromkeys(names))
    first = _java_hash_map_order(unique, max(int(len(unique) / 0.75) + 1, 16))
    # readObject: capacity (int) (size * Math.min(1 / 0.75f, 4.0f)), in float arithmetic
    capacity = int(np.float32(len(unique)) * (np.float32(1) / np.float32(0.75)))
    return _java_hash_map_order(first, capacity)


def _java_hash_map_order(keys: list[str], initial_capacity: int) -> list[str]:
    """The iteration order of a ``new HashMap<>(initial_capacity)`` after putting ``keys`` in order."""
    return [keys[i] for i in hash_map_order([string_hash(k) for k in keys], initial_capacity)]


class _BadRow(Exception):
    """The first row of a batch that names no topic, or one not allowed."""

    def __init__(self, row: int, error: ExecutionError):
        super().__init__(row)
        self.row = row
        self.error = error


class TopicRouting:
    """The topic of every row a Kafka sink writes (see module docstring).

    Args:
        table: the sink's table.
        column: its written ``topic`` metadata column, or None.

    Attributes:
        single: the one topic of ``'topic'``, or None when rows name their topics.

    Raises:
        ConfigError: for ``'topic'`` with ``'topic-pattern'``, neither, a bad pattern, or rows
            that would name no topic.
    """

    def __init__(self, table: TableDef, column: str | None):
        check_topic_choice(table)
        topics = topics_of(table)
        pattern = table.options.get("topic-pattern")
        self.single = topics[0] if len(topics) == 1 else None
        self.column = column
        self.listed = frozenset(topics)
        self.shown = "[" + ", ".join(java_hash_set_order(topics)) + "]"
        self.pattern = None
        if pattern:
            try:
                self.pattern = re.compile(pattern)
            except re.error as e:
                msg = (f"{table_prefix(table)}option 'topic-pattern' = '{pattern}' is not a regular "
                       f"expression: {e}")
                raise ConfigError(msg, table=table.name, option="topic-pattern") from None
        if self.single is None and column is None:
            option = "topic-pattern" if pattern else "topic"
            msg = (f"{table_prefix(table)}the rows name no topic: with several topics in 'topic', or "
                   "'topic-pattern', each row's topic comes from a 'topic' metadata column (e.g. "
                   "`tp STRING NOT NULL METADATA FROM 'topic'`, not VIRTUAL), and this table has none. "
                   f"Flink fails the job: {NO_TOPIC}")
            raise ConfigError(msg, table=table.name, option=option)
        self._matched: dict[str, bool] = {}

    def groups(self, rows: pa.Table) -> tuple[list[tuple[str, np.ndarray | None]], ExecutionError | None]:
        """``[(topic, row indices), ...]`` in the order each topic first occurs (indices None: all).

        Returns:
            The groups, and None; or, when a row names no topic or a topic not allowed, the groups
            of the rows before it and the error (Flink's message) to raise once they are written:
            Flink writes row by row, so the rows before the failing one reach their topics.
        """
        if self.single is not None:
            return [(self.single, None)], None
        try:
            names, codes = self._checked(rows)
        except _BadRow as bad:
            if bad.row == 0:
                return [], bad.error
            before, _ = self.groups(rows.slice(0, bad.row))  # indices None: all rows *before* it
            return [(t, np.arange(bad.row) if i is None else i) for t, i in before], bad.error
        if len(names) == 1:
            return [(names[0], None)], None
        order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=len(names))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        first_seen = pc.index_in(pa.array(range(len(names))), pa.array(codes)).to_numpy(zero_copy_only=False)
        out = []
        for code in np.argsort(first_seen, kind="stable"):
            if counts[code]:
                out.append((names[code], order[starts[code]:starts[code] + counts[code]]))
        return out, None

    def row_topics(self, rows: pa.Table) -> list[str]:
        """The topic of every row (rows naming their topics).

        Raises:
            ExecutionError: as :meth:`groups`.
        """
        try:
            names, codes = self._checked(rows)
        except _BadRow as bad:
            raise bad.error from None
        return [names[c] for c in codes.tolist()]

    def _checked(self, rows: pa.Table) -> tuple[list[str], np.ndarray]:
        """The distinct topics the rows name and each row's index into them, all allowed.

        Raises:
            _BadRow: for the first row naming no topic or one not allowed.
        """
        col = rows.column(self.column).combine_chunks()
        encoded = col.dictionary_encode()
        names = encoded.dictionary.to_pylist()
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        bad = [i for i, n in enumerate(names) if not self._allowed(n)]
        if col.null_count or bad:
            wrong = np.isin(codes, [-1, *bad])
            first = int(np.argmax(wrong))
            name = None if codes[first] < 0 else names[codes[first]]
            raise _BadRow(first, ExecutionError(self._message(name)))
        return names, codes

    def _allowed(self, name: str) -> bool:
        if self.pattern is None:
            return name in self.listed
        ok = self._matched.get(name)
        if ok is None:
            ok = self._matched[name] = self.pattern.fullmatch(name) is not None
        return ok

    def _message(self, name: str | None) -> str:
        if name is None:
            return NO_TOPIC
        if self.pattern is None:
            return NOT_LISTED.format(self.shown, name)
        return NOT_MATCHED.format(self.pattern.pattern, name)

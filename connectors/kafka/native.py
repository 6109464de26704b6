"""librdkafka's batch produce for a transactional producer: one C call per batch, without the GIL.

confluent-kafka's ``Producer.produce()`` is one Python call per message that holds the GIL for
~1.3 µs (argument parsing, a per-message state with a reference to the delivery callback, the
enqueue), plus a ``bytes`` object per payload and, at the next ``poll()``, a delivery report
that frees that state. On a stateless query that is a third of the job's CPU per record and
all of it serialized with the other threads on the GIL. librdkafka itself has
``rd_kafka_produce_batch()``: this module calls it through :mod:`ctypes` (which releases the GIL
for the call) on the **same** ``rd_kafka_t`` as the Python producer, with an array of
``rd_kafka_message_t`` built by numpy from the offsets and data buffers of an Arrow
string/binary array, so a batch of payloads reaches librdkafka without a Python object per
message. ``RD_KAFKA_MSG_F_COPY``: librdkafka copies each payload before the call returns (and
always copies keys). Keys come the same way from a second array (an upsert sink's PRIMARY KEY,
:mod:`.upsert`); a NULL value is a message without a value (a tombstone: librdkafka writes the
record's value length as -1 for a NULL payload, as ``produce(topic, None, key)`` does).

What it keeps and what it does not:

- The messages join the producer's open transaction (librdkafka checks the transaction state
  per call, ``rd_kafka_check_produce``) and are partitioned by the producer's partitioner, as
  ``produce()``'s are (a keyed message by its key: the producer's ``murmur2_random``, the topic
  handle taking the producer's default topic configuration); their timestamp is the time of
  sending (CreateTime), like a ``produce()`` without one.
- **No delivery report reaches Python** for them (confluent-kafka's report callback skips
  messages without its per-message state). A failed delivery is still never lost: in a
  transaction librdkafka counts it and fails ``commit_transaction()`` with an abortable error
  ("N message(s) failed delivery"), so the checkpoint does not commit and the job restarts from
  the previous one. That is why :meth:`BatchProducer.attach` is only for transactional producers;
  an at-least-once sink needs the per-message reports and keeps ``produce()``.
- It depends on confluent-kafka's C layout: the ``rd_kafka_t *`` is the first field after the
  object header of a ``Producer`` (true of every 1.x/2.x release). :meth:`BatchProducer.attach`
  checks the library's version against ``confluent_kafka.libversion()`` and that the handle found
  has the Python producer as its opaque (as confluent-kafka sets it), and answers None (the
  caller keeps ``produce()``) when anything does not match.
"""

from __future__ import annotations

import ctypes
import logging
import sys
import threading

import confluent_kafka
import numpy as np
import pyarrow as pa

log = logging.getLogger(__name__)

#: ``rd_kafka_message_t`` on a 64-bit platform (rdkafka.h): err, rkt, partition, payload, len,
#: key, key_len, offset, _private; 72 bytes.
MESSAGE = np.dtype({
    "names": ["err", "rkt", "partition", "payload", "len", "key", "key_len", "offset", "private"],
    "formats": [np.int32, np.uint64, np.int32, np.uint64, np.uint64, np.uint64, np.uint64, np.int64,
                np.uint64],
    "offsets": [0, 8, 16, 24, 32, 40, 48, 56, 64],
    "itemsize": 72,
})
MSG_F_COPY = 0x2  # RD_KAFKA_MSG_F_COPY: librdkafka copies the payload before the call returns
ERR_QUEUE_FULL = -184  # RD_KAFKA_RESP_ERR__QUEUE_FULL


class QueueFull(Exception):
    """The producer's queue took only the first ``done`` messages; the rest wait for room."""

    def __init__(self, done: int):
        super().__init__(done)
        self.done = done


class RefusedMessage(Exception):
    """librdkafka refused message ``index`` for another reason than a full queue (``reason``: its text)."""

    def __init__(self, index: int, reason: str):
        super().__init__(index, reason)
        self.index = index
        self.reason = reason


def payload_list(values: pa.Array) -> list[bytes | None]:
    """The values of a string or binary array as ``bytes`` (what ``produce()`` takes), one C loop."""
    if pa.types.is_large_string(values.type):
        return values.cast(pa.large_binary()).to_pylist()
    if pa.types.is_string(values.type):
        return values.cast(pa.binary()).to_pylist()
    return values.to_pylist()


def _spans(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``(addresses, lengths)`` (uint64) of the values of a string or binary array, from its buffers.

    A NULL's span is its (empty) slot; the caller decides what a NULL means.
    """
    n = len(arr)
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    width = np.int64 if wide else np.int32
    offsets = np.frombuffer(arr.buffers()[1], width, n + 1, arr.offset * np.dtype(width).itemsize)
    data = arr.buffers()[2]
    base = data.address if data is not None and data.size else 0
    return base + offsets[:-1].astype(np.uint64), np.diff(offsets).astype(np.uint64)


def _library_path() -> str | None:
    """The librdkafka file confluent-kafka's extension has loaded (``/proc/self/maps``), or None."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rsplit(" ", 1)[-1].strip()
                if "librdkafka" in path.rsplit("/", 1)[-1]:
                    return path
    except OSError:
        return None
    return None


def _load() -> ctypes.CDLL | None:
    """The library with the functions used typed, or None where it cannot be the extension's own."""
    if sys.maxsize <= 2**32 or sys.platform != "linux":
        return None
    import confluent_kafka.cimpl  # noqa: F401  (maps the extension's librdkafka)

    path = _library_path()
    if path is None:
        return None
    try:
        lib = ctypes.CDLL(path)  # dlopen of a loaded file: the same copy, not a second one
    except OSError:
        return None
    lib.rd_kafka_version.restype = ctypes.c_int
    lib.rd_kafka_version.argtypes = []
    if lib.rd_kafka_version() != confluent_kafka.libversion()[1]:
        return None
    lib.rd_kafka_opaque.restype = ctypes.c_void_p
    lib.rd_kafka_opaque.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_topic_new.restype = ctypes.c_void_p
    lib.rd_kafka_topic_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    lib.rd_kafka_topic_destroy.restype = None
    lib.rd_kafka_topic_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_produce_batch.restype = ctypes.c_int
    lib.rd_kafka_produce_batch.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int, ctypes.c_void_p,
                                           ctypes.c_int]
    lib.rd_kafka_err2str.restype = ctypes.c_char_p
    lib.rd_kafka_err2str.argtypes = [ctypes.c_int]
    return lib


_LIB: ctypes.CDLL | None | bool = False  # False: not loaded yet


def library() -> ctypes.CDLL | None:
    """The librdkafka confluent-kafka loaded (looked up once per process), or None where unusable."""
    global _LIB  # noqa: PLW0603  (one library per process)
    if _LIB is False:
        try:
            _LIB = _load()
        except (OSError, AttributeError, ValueError):
            _LIB = None
    return _LIB


class BatchProducer:
    """``rd_kafka_produce_batch()`` on a confluent-kafka producer's handle (see module docstring).

    :meth:`produce` may be called from several threads at once (the sink threads of the sinks that
    share a task's transaction), as librdkafka's call may; :meth:`close` once they are done, before
    the producer is destroyed.
    """

    def __init__(self, lib: ctypes.CDLL, rk: int):
        self._lib = lib
        self._rk = rk
        self._topics: dict[str, int] = {}  # topic -> rd_kafka_topic_t * (one application reference)
        self._lock = threading.Lock()  # one topic handle per topic, whichever thread asks first

    @classmethod
    def attach(cls, producer: confluent_kafka.Producer) -> BatchProducer | None:
        """A batch producer on ``producer``'s ``rd_kafka_t``, or None where that cannot be had safely.

        Only for a transactional producer (module docstring: failed deliveries fail the commit).
        """
        lib = library()
        if lib is None or not isinstance(producer, confluent_kafka.Producer):
            return None
        if type(producer).__basicsize__ < 24:
            return None
        rk = ctypes.c_void_p.from_address(id(producer) + 16).value  # Handle: PyObject_HEAD, rd_kafka_t *rk
        if not rk or lib.rd_kafka_opaque(rk) != id(producer):
            log.debug("librdkafka's batch produce is not used: the producer's handle was not found")
            return None
        return cls(lib, rk)

    def _topic(self, topic: str) -> int:
        rkt = self._topics.get(topic)
        if rkt is not None:
            return rkt
        with self._lock:
            rkt = self._topics.get(topic)
            if rkt is None:
                rkt = self._lib.rd_kafka_topic_new(self._rk, topic.encode(), None)
                if not rkt:
                    msg = f"rd_kafka_topic_new({topic!r}) failed"
                    raise OSError(msg)
                self._topics[topic] = rkt
        return rkt

    def produce(self, topic: str, values: pa.Array, partition: int = -1, start: int = 0,
                keys: pa.Array | None = None) -> None:
        """Queue ``values[start:]`` (string or binary) as messages to ``topic``, in order.

        Args:
            topic: the topic.
            values: the payloads; a NULL is a message without a value (a tombstone).
            partition: the partition, or -1 for the producer's partitioner (by key when keyed).
            start: the first value to queue (after a :class:`QueueFull`).
            keys: the message keys (string or binary, no NULL, as long as ``values``), or None:
                no keys.

        Raises:
            QueueFull: the producer's queue took only the values before ``done`` (serve it, retry).
            RefusedMessage: librdkafka refused a message for another reason, e.g. the transaction
                is not open, the producer has a fatal error, a message is too large (messages after
                it may have been queued: the transaction must not commit).
            OSError: a topic handle could not be created.
        """
        arr = values.slice(start) if start else values
        n = len(arr)
        if n == 0:
            return
        msgs = np.zeros(n, MESSAGE)
        msgs["payload"], msgs["len"] = _spans(arr)
        if arr.null_count:
            null = ~arr.is_valid().to_numpy(zero_copy_only=False)
            msgs["payload"][null] = 0  # NULL payload: no value (librdkafka's length -1)
            msgs["len"][null] = 0
        if keys is not None:
            msgs["key"], msgs["key_len"] = _spans(keys.slice(start) if start else keys)
        rkt = self._topic(topic)
        good = self._lib.rd_kafka_produce_batch(rkt, partition, MSG_F_COPY, msgs.ctypes.data, n)
        if good == n:
            return
        errs = msgs["err"]
        bad = np.flatnonzero(errs)
        first = int(bad[0])
        # a full queue fails that message and every later one (rd_kafka_produce_batch's all_err)
        if len(bad) == n - first and (errs[first:] == ERR_QUEUE_FULL).all():
            raise QueueFull(start + first)
        other = bad[errs[bad] != ERR_QUEUE_FULL]
        index = int(other[0]) if len(other) else first
        reason = self._lib.rd_kafka_err2str(int(errs[index])).decode(errors="replace")
        raise RefusedMessage(start + index, reason)

    def close(self) -> None:
        """Release the topic handles (before the producer is destroyed); idempotent."""
        with self._lock:
            topics, self._topics = self._topics, {}
        for rkt in topics.values():
            self._lib.rd_kafka_topic_destroy(rkt)

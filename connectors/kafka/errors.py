"""librdkafka's trouble as StreamSQL errors, and how long trouble may last.

librdkafka reports trouble in three ways, all turned into StreamSQL errors:

- *error events* (``error_cb``, collected by :class:`ErrorLatch`): fatal errors and
  authentication failures raise at once; "all brokers down" raises :class:`ExecutionError` once
  it has lasted :data:`BROKER_DOWN_TIMEOUT_S` and the brokers still do not answer a metadata
  request (a broker restart within that time is survived, also by a producer, whose successful
  deliveries are not reported, and by an idle consumer);
- *message errors* in ``consume()`` (unknown topic/partition, ...) raise at once (the reader);
- *delivery reports* of failed messages raise at the sink's next ``write``/``pre_commit`` (the
  producer).

Exceptions of client calls become :class:`ExecutionError` through :func:`execution_error`; a
client that cannot be created from its properties is a :class:`ConfigError` (:func:`new_client`).
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException

from streamsql.core.errors import ConfigError, ExecutionError, FencedError, StreamSQLError

log = logging.getLogger(__name__)
#: librdkafka's own log lines (retries, fencing, ...) go here instead of stderr, once per cause
#: (:class:`OncePerCause`).
RDKAFKA_LOG = logging.getLogger("streamsql.kafka.librdkafka")

#: How long "all brokers down" may last before a source or sink fails with ExecutionError.
BROKER_DOWN_TIMEOUT_S = 30.0
#: Timeout of metadata requests at open (topic lookup, watermarks, offsets for times): how long
#: a source or sink waits for brokers that do not answer before it fails (with the start-up of
#: the process, an unreachable broker fails a job within 15 s). A table's Java client key sets
#: its own (``'properties.max.block.ms'``, ``'properties.default.api.timeout.ms'``:
#: :func:`.options.metadata_timeout_s`).
METADATA_TIMEOUT_S = 10.0
#: Timeout of the metadata request that tells whether brokers reported down are back.
PROBE_TIMEOUT_S = 2.0

#: Error codes meaning another producer with the same transactional id took over.
FENCED_CODES = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)
#: Error events of a topic or partition the cluster does not know (now): a deleted topic, or
#: one whose metadata has not reached the client yet. librdkafka repeats them every second.
MISSING_TOPIC_CODES = (
    KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_PARTITION, KafkaError._UNKNOWN_TOPIC,
)


class OncePerCause(logging.Filter):
    """librdkafka's log lines at a sensible level, each cause once, not once per retry.

    librdkafka logs every reconnect attempt ("Connect to ... failed: Connection refused",
    ~190 lines before an unreachable broker's error) and every retry of a transactional
    producer's PID request after a restart. A line's *cause* is its text without the client
    name, thread, timings and "N identical error(s) suppressed"; the first line of a cause passes,
    later ones only when DEBUG is on. Connection failures and retries pass at INFO (the error
    StreamSQL raises when the trouble lasts says what failed); other lines at WARNING at most.
    """

    #: Facilities of transient trouble that StreamSQL itself reports when it lasts.
    TRANSIENT = frozenset({"FAIL", "GETPID", "TXNERR", "COORDERR", "ERROR"})
    #: How many causes are remembered before the memory starts afresh.
    MAX_CAUSES = 1000
    _SUPPRESSED = re.compile(r", \d+ identical error\(s\) suppressed")
    _NOISE = re.compile(r"\[thrd:[^\]]*\]:?|\(after [^)]*\)|\d+(\.\d+)?\s*ms")

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        """Pass the first line of a cause at its level; later ones only under DEBUG."""
        args = record.args if isinstance(record.args, tuple) else ()
        fac, text = (str(args[0]), str(args[-1])) if len(args) == 3 else ("", record.getMessage())
        cause = fac + " " + self.cause(text)
        if cause in self.seen:
            return RDKAFKA_LOG.isEnabledFor(logging.DEBUG) and self._relevel(record, logging.DEBUG)
        if len(self.seen) >= self.MAX_CAUSES:
            self.seen.clear()
        self.seen.add(cause)
        transient = fac in self.TRANSIENT or "retrying" in text
        level = logging.INFO if transient else min(record.levelno, logging.WARNING)
        return RDKAFKA_LOG.isEnabledFor(level) and self._relevel(record, level)

    @classmethod
    def cause(cls, text: str) -> str:
        """A line's text without thread, timings and suppression counts."""
        return cls._NOISE.sub("", cls._SUPPRESSED.sub("", text))

    @staticmethod
    def _relevel(record: logging.LogRecord, level: int) -> bool:
        record.levelno, record.levelname = level, logging.getLevelName(level)
        return True


RDKAFKA_LOG.addFilter(OncePerCause())


class ErrorLatch:
    """Collects librdkafka error events (``error_cb``) and raises them as StreamSQL errors.

    Args:
        what: who is talking to Kafka, for messages (``"Table 'orders' (kafka source)"``).
        bootstrap: the bootstrap servers, for messages.
    """

    def __init__(self, what: str, bootstrap: str):
        self.what = what
        self.bootstrap = bootstrap
        self.pending: StreamSQLError | None = None
        #: The last "unknown topic or partition" event, until the client has asked the cluster
        #: whether its topics still exist (a Kafka source: :meth:`.KafkaReader.fetch`).
        self.missing: str | None = None
        self._missing_logged: set[str] = set()
        self.down_since: float | None = None
        self.down_reason = ""
        self.client: Any = None

    def watch(self, client: Any) -> None:
        """Ask ``client`` (the producer or consumer served) whether the brokers are back before failing."""
        self.client = client

    def __call__(self, err: KafkaError) -> None:
        """The ``error_cb``: record ``err``."""
        code = err.code()
        if err.fatal():
            error = FencedError if is_fenced(err) else ExecutionError
            self.pending = error(f"{self.what}: fatal Kafka error: {err.str()}")
        elif code in (KafkaError._ALL_BROKERS_DOWN, KafkaError._RESOLVE, KafkaError._TRANSPORT):
            if code == KafkaError._ALL_BROKERS_DOWN or self.down_since is None:
                self.down_reason = err.str()
            if code == KafkaError._ALL_BROKERS_DOWN and self.down_since is None:
                self.down_since = time.monotonic()
        elif code in (
            KafkaError._AUTHENTICATION,
            KafkaError.SASL_AUTHENTICATION_FAILED,
            KafkaError._SSL,
            KafkaError.TOPIC_AUTHORIZATION_FAILED,
            KafkaError.GROUP_AUTHORIZATION_FAILED,
            KafkaError.CLUSTER_AUTHORIZATION_FAILED,
            KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
        ):
            self.pending = ExecutionError(
                f"{self.what}: Kafka at {self.bootstrap} refused access: {err.str()}"
            )
        elif code in MISSING_TOPIC_CODES:
            self.missing = err.str()
            if self.missing not in self._missing_logged:  # once, not every second
                self._missing_logged.add(self.missing)
                log.warning("%s: Kafka error event: %s", self.what, self.missing)
        else:
            log.warning("%s: Kafka error event: %s", self.what, err.str())

    def alive(self) -> None:
        """Something got through: the brokers are reachable."""
        self.down_since = None

    def check(self) -> None:
        """Raise a pending error, or "brokers down" once it lasted :data:`BROKER_DOWN_TIMEOUT_S`.

        librdkafka reports brokers going down but not coming back, so when the time is up the
        watched client asks for metadata first (:data:`PROBE_TIMEOUT_S`): an answer means the
        brokers are back and the trouble is over.

        Raises:
            ExecutionError: see above.
        """
        if self.pending is not None:
            e, self.pending = self.pending, None
            raise e
        if self.down_since is not None and time.monotonic() - self.down_since > BROKER_DOWN_TIMEOUT_S:
            if self._answers():
                self.alive()
                return
            msg = (
                f"{self.what}: Kafka brokers at {self.bootstrap} unreachable for more than "
                f"{BROKER_DOWN_TIMEOUT_S:.0f} s ({self.down_reason})"
            )
            raise ExecutionError(msg)

    def _answers(self) -> bool:
        if self.client is None:
            return False
        try:
            self.client.list_topics(timeout=PROBE_TIMEOUT_S)
        except (KafkaException, RuntimeError):
            return False
        return True


def new_client(cls, config: dict[str, Any], what: str):
    """``cls(config)`` (a confluent-kafka Producer, Consumer or AdminClient).

    Raises:
        ConfigError: ``bad Kafka properties: ...`` for a key or value librdkafka rejects (a typo
            in ``'properties.*'``), instead of the KafkaException of the constructor.
    """
    try:
        return cls(config)
    except KafkaException as e:
        msg = f"{what}: bad Kafka properties: {e.args[0].str() if e.args else e}"
        raise ConfigError(msg) from None


def require_brokers(client, what: str, bootstrap: str, timeout_s: float = METADATA_TIMEOUT_S) -> None:
    """Ask the brokers for metadata; an unreachable cluster fails within ``timeout_s``.

    Calls that would otherwise wait longer for brokers that never answer (a transactional
    producer's ``init_transactions``, 60 s) come after it.

    Raises:
        ExecutionError: ``cannot reach Kafka at ...``.
    """
    try:
        client.list_topics(timeout=timeout_s)
    except KafkaException as e:
        raise execution_error(what, e, bootstrap) from None


def unwrap(e: BaseException) -> BaseException:
    """The KafkaException behind ``e``.

    confluent-kafka surfaces a fatal error raised while serving callbacks as a SystemError whose
    cause is the KafkaException.
    """
    if isinstance(e, SystemError) and isinstance(e.__cause__ or e.__context__, KafkaException):
        return e.__cause__ or e.__context__
    return e


def is_fenced(e: BaseException | KafkaError | None) -> bool:
    """``e`` (a KafkaError, or a KafkaException carrying one) says the producer was fenced."""
    err = e.args[0] if isinstance(e, KafkaException) and e.args else e
    return isinstance(err, KafkaError) and err.code() in FENCED_CODES


class KafkaUnreachableError(ExecutionError):
    """The brokers did not answer (transport error, timeout, all brokers down, name resolution).

    Transient as far as the caller can tell: a process stalled past its request's timeout (a
    frozen or starved worker), or a broker slow to answer, gives it as well as one that is down.
    """


def execution_error(what: str, e: BaseException, bootstrap: str) -> ExecutionError:
    """An ExecutionError for a KafkaException raised by a client call."""
    e = unwrap(e)
    err = e.args[0] if isinstance(e, KafkaException) and e.args else e
    text = err.str() if isinstance(err, KafkaError) else str(err)
    if is_fenced(err):
        return FencedError(
            f"{what}: producer fenced: another instance with the same transactional.id started ({text})"
        )
    if isinstance(err, KafkaError) and err.code() in (
        KafkaError._TRANSPORT,
        KafkaError._TIMED_OUT,
        KafkaError._ALL_BROKERS_DOWN,
        KafkaError._RESOLVE,
    ):
        return KafkaUnreachableError(f"{what}: cannot reach Kafka at {bootstrap}: {text}")
    return ExecutionError(f"{what}: Kafka error: {text}")

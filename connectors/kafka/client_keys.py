"""Java Kafka client keys in ``'properties.*'``, translated to librdkafka's or ignored with a warning.

Flink passes ``'properties.*'`` to the Java Kafka client; StreamSQL passes them to librdkafka,
which fails on a key it does not know ("No such configuration property"). The keys Flink users
set in their scripts therefore get their librdkafka meaning here:

- **Renamed**: same meaning, another name (``fetch.max.wait.ms`` → ``fetch.wait.max.ms``,
  ``max.request.size`` → ``message.max.bytes``, ...), with unit or value changes where the two
  clients differ (``buffer.memory`` bytes → ``queue.buffering.max.kbytes``,
  ``auto.offset.reset`` = ``none`` → ``error``).
- **SASL JAAS**: ``sasl.jaas.config`` with the PLAIN or SCRAM login module becomes
  ``sasl.username`` / ``sasl.password``.
- **Ignored, with one warning per key** (per process): keys of the JVM client that have no
  librdkafka meaning, or whose job StreamSQL does itself (``max.poll.records``: the reader sizes
  its own batches; ``key.deserializer``: the formats decode; ``partition.assignment.strategy``:
  sources assign their partitions themselves, as Flink's KafkaSource).
- **Read by StreamSQL**: ``commit.offsets.on.checkpoint`` (Flink's KafkaSource key) decides
  whether a source commits its offsets on checkpoints; the Java clients' bounds of a blocking
  call, ``max.block.ms`` (producer) and ``default.api.timeout.ms`` (consumer), bound how long a
  sink or source waits for the brokers' metadata at open (:data:`WAIT_KEYS`). They never reach
  librdkafka.
- **Rejected**: a Java truststore or keystore type StreamSQL cannot read, naming the librdkafka
  key to use instead (ignoring it would change whom the client trusts).

Keys librdkafka knows pass unchanged; a key neither client knows is left out, as the Java client
ignores it (:mod:`.unknown_keys`, which warns at CREATE TABLE).

**One client's keys on the other** (a producer key such as ``buffer.memory`` or ``linger.ms`` on
a source table, a consumer key such as ``fetch.min.bytes`` on a sink): Flink hands every
``'properties.*'`` key to both of its Java clients, which log "supplied but isn't a known config"
and ignore it. librdkafka printed a ``CONFWARN`` line per client instead (and a source may open
several). Given the client's role, :func:`translate` leaves such keys out and says so once per
key and process. The sets below are librdkafka's own scopes (``C``/``P`` in its
CONFIGURATION.md, librdkafka 2.12), checked by creating a consumer and a producer with each key:
those are the keys that gave "is a producer property and will be ignored by this consumer
instance" (and the reverse).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from streamsql.core.errors import ConfigError

log = logging.getLogger(__name__)

#: Java key -> librdkafka key of the same meaning and unit.
RENAMED = {
    "fetch.max.wait.ms": "fetch.wait.max.ms",
    "max.request.size": "message.max.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "send.buffer.bytes": "socket.send.buffer.bytes",
}

#: Java-only keys and why they are not needed (the warning's text).
IGNORED = {
    "max.poll.records": "the source sizes its own batches",
    "key.deserializer": "the table's formats decode keys",
    "value.deserializer": "the table's formats decode values",
    "key.serializer": "the table's formats encode keys",
    "value.serializer": "the table's formats encode values",
    "partitioner.class": "use 'sink.partitioner'",
    "partition.assignment.strategy": "sources assign their partitions themselves, as Flink's KafkaSource",
    "partition.discovery.interval.ms": "use 'scan.topic-partition-discovery.interval'",
    "client.id.prefix": "set 'properties.client.id' for a client id",
    "register.consumer.metrics": "no JVM metrics here",
    "interceptor.classes": "no JVM classes here",
    "metric.reporters": "no JVM metrics here",
    "auto.include.jmx.reporter": "no JVM metrics here",
    "metrics.sample.window.ms": "no JVM metrics here",
    "metrics.num.samples": "no JVM metrics here",
    "metrics.recording.level": "no JVM metrics here",
    "exclude.internal.topics": "internal topics are never read unless named",
    "socket.connection.setup.timeout.max.ms": "librdkafka has only 'socket.connection.setup.timeout.ms'",
    "metadata.max.idle.ms": "librdkafka has no such setting",
    "compression.gzip.level": "use 'properties.compression.level'",
    "compression.lz4.level": "use 'properties.compression.level'",
    "compression.zstd.level": "use 'properties.compression.level'",
    "security.providers": "no JVM security providers here",
    "sasl.login.callback.handler.class": "no JVM classes here",
    "sasl.client.callback.handler.class": "no JVM classes here",
    "ssl.protocol": "librdkafka negotiates the TLS version",
    "ssl.enabled.protocols": "librdkafka negotiates the TLS version",
    "ssl.keymanager.algorithm": "no JVM key managers here",
    "ssl.trustmanager.algorithm": "no JVM trust managers here",
    "ssl.truststore.password": "a Java truststore is not read (see 'properties.ssl.ca.location')",
    "ssl.truststore.type": "a Java truststore is not read (see 'properties.ssl.ca.location')",
    "ssl.keystore.type": "librdkafka reads 'properties.ssl.keystore.location' as PKCS12",
}

#: Java-only keys whose value decides whom the client trusts or how it logs in: never ignored.
REJECTED = {
    "ssl.truststore.location": (
        "is a Java truststore, which librdkafka cannot read; give the CA certificate (PEM) in "
        "'properties.ssl.ca.location'"),
}

#: librdkafka keys (after translation, aliases included) only a producer reads.
PRODUCER_ONLY = frozenset({
    "transactional.id", "transaction.timeout.ms", "enable.idempotence", "enable.gapless.guarantee",
    "queue.buffering.max.messages", "queue.buffering.max.kbytes", "queue.buffering.max.ms", "linger.ms",
    "message.send.max.retries", "retries", "queue.buffering.backpressure.threshold", "compression.codec",
    "compression.type", "compression.level", "batch.num.messages", "batch.size",
    "delivery.report.only.error", "sticky.partitioning.linger.ms", "request.required.acks", "acks",
    "request.timeout.ms", "message.timeout.ms", "delivery.timeout.ms", "queuing.strategy",
    "produce.offset.report", "partitioner",
})
#: librdkafka keys (aliases included) only a consumer reads.
CONSUMER_ONLY = frozenset({
    "group.id", "group.instance.id", "partition.assignment.strategy", "session.timeout.ms",
    "heartbeat.interval.ms", "group.protocol.type", "group.protocol", "group.remote.assignor",
    "coordinator.query.interval.ms", "max.poll.interval.ms", "enable.auto.commit", "auto.commit.interval.ms",
    "enable.auto.offset.store", "queued.min.messages", "queued.max.messages.kbytes", "fetch.wait.max.ms",
    "fetch.queue.backoff.ms", "fetch.message.max.bytes", "max.partition.fetch.bytes", "fetch.max.bytes",
    "fetch.min.bytes", "fetch.error.backoff.ms", "isolation.level", "enable.partition.eof", "check.crcs",
    "auto.offset.reset", "consume.callback.max.messages", "auto.commit.enable", "offset.store.method",
    "offset.store.path", "offset.store.sync.interval.ms",
})
#: Keys a client of each role leaves out: the other role's.
_OTHER_ROLE = {"consumer": PRODUCER_ONLY, "producer": CONSUMER_ONLY}

#: Flink KafkaSource keys StreamSQL reads itself (not client keys): dropped without a word.
HANDLED = {"commit.offsets.on.checkpoint"}
#: Per client role, the Java key bounding how long a blocking call waits for the brokers (the
#: producer's metadata wait before a send; the consumer's ``partitionsFor``, ``offsetsForTimes``,
#: ``committed``): StreamSQL reads it as the metadata timeout of a sink or source at open, in ms
#: (:func:`~.options.metadata_timeout_s`; unset: :data:`~.errors.METADATA_TIMEOUT_S`, not Java's 60 s).
WAIT_KEYS = {"producer": "max.block.ms", "consumer": "default.api.timeout.ms"}
_JAVA_LONG = re.compile(r"\+?\d{1,18}")

_JAAS_MODULES = ("PlainLoginModule", "ScramLoginModule")
_JAAS_FIELD = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')

_warned: set[str] = set()
_warned_lock = threading.Lock()


def first_time(key: str) -> bool:
    """True the first time ``key`` is asked about in this process (one warning per key)."""
    with _warned_lock:
        if key in _warned:
            return False
        _warned.add(key)
        return True


def _warn_once(key: str, prefix: str, text: str) -> None:
    if first_time(key):
        log.warning("%s'properties.%s' is a Java Kafka client key; ignored (%s)", prefix, key, text)


def _warn_other_role(key: str, prefix: str, role: str) -> None:
    if first_time(f"{role}:{key}"):
        other = "producer" if role == "consumer" else "consumer"
        where = "a source table's reads" if role == "consumer" else "a sink table's writes"
        log.warning("%s'properties.%s' is a Kafka %s key; %s ignore it (as Flink's Java %s does)",
                    prefix, key, other, where, role)


def wait_ms(key: str, value: Any, prefix: str = "") -> int:
    """A :data:`WAIT_KEYS` value in ms, as the Java client reads it (a long, at least 0; blanks trimmed).

    Raises:
        ConfigError: for another value (Java: "Invalid value ... for configuration ...").
    """
    text = str(value).strip()
    if not _JAVA_LONG.fullmatch(text):
        msg = f"{prefix}'properties.{key}' = '{value}' is not a number of ms (at least 0)"
        raise ConfigError(msg)
    return int(text)


def _jaas(value: str, prefix: str) -> dict[str, str]:
    """``sasl.username`` / ``sasl.password`` of a PLAIN or SCRAM ``sasl.jaas.config``.

    Raises:
        ConfigError: for another login module (the value is never printed: it holds a secret).
    """
    if not any(m in value for m in _JAAS_MODULES):
        msg = (f"{prefix}'properties.sasl.jaas.config' is read for the PLAIN and SCRAM login modules only; "
               "for another mechanism set librdkafka's keys ('properties.sasl.oauthbearer.*', "
               "'properties.sasl.kerberos.*')")
        raise ConfigError(msg)
    fields = dict(_JAAS_FIELD.findall(value))
    if "username" not in fields or "password" not in fields:
        msg = f"{prefix}'properties.sasl.jaas.config' needs username=\"...\" and password=\"...\""
        raise ConfigError(msg)
    return {"sasl.username": fields["username"], "sasl.password": fields["password"]}


def _value(key: str, value: Any) -> tuple[str, Any]:
    """The librdkafka key and value for a key that is not ignored, rejected or JAAS."""
    text = str(value).strip()
    if key == "auto.offset.reset" and text.lower() == "none":
        return key, "error"  # Java's 'none' (fail without a committed offset) is librdkafka's 'error'
    if key == "buffer.memory":
        return "queue.buffering.max.kbytes", max(1, int(text) // 1024) if text.isdigit() else value
    if key in ("receive.buffer.bytes", "send.buffer.bytes") and text == "-1":
        return RENAMED[key], 0  # both clients' "the OS default"
    if key == "ssl.endpoint.identification.algorithm" and not text:
        return key, "none"  # Java's empty value turns host name checks off
    return RENAMED.get(key, key), value


def translate(props: dict[str, Any], prefix: str = "", role: str | None = None) -> dict[str, Any]:
    """``props`` (``'properties.*'`` with the prefix stripped) with Java-only keys translated.

    Args:
        props: the stripped ``'properties.*'`` options.
        prefix: ``"Table 'name': "`` for messages, or empty.
        role: ``"consumer"`` or ``"producer"``: the client the properties are for, which leaves
            out (with one warning per key) the keys only the other role reads; None keeps them.

    Returns:
        Properties librdkafka accepts for the keys above (a key no client knows left out; keys set
        explicitly in librdkafka's name win over a translated Java key).

    Raises:
        ConfigError: for a rejected key or an unreadable ``sasl.jaas.config``.
    """
    from streamsql.connectors.kafka import unknown_keys

    out: dict[str, Any] = {}
    for key, value in props.items():
        if key in REJECTED:
            msg = f"{prefix}'properties.{key}' {REJECTED[key]}"
            raise ConfigError(msg)
        if key in HANDLED:
            continue
        if key in WAIT_KEYS.values():
            wait_ms(key, value, prefix)  # checked whoever reads it, as the Java client checks it
            if role is not None and key != WAIT_KEYS[role]:
                _warn_other_role(key, prefix, role)
            continue
        if key == "ssl.keystore.type" and str(value).strip().upper() != "PKCS12":
            msg = (f"{prefix}'properties.ssl.keystore.type' = '{value}': librdkafka reads PKCS12 "
                   "keystores only; convert it (keytool -importkeystore -deststoretype PKCS12) or give "
                   "the PEM files in 'properties.ssl.certificate.location' and 'properties.ssl.key.location'")
            raise ConfigError(msg)
        if key in IGNORED:
            _warn_once(key, prefix, IGNORED[key])
        elif unknown_keys.is_unknown(key):
            if first_time(key):  # a table not made by CREATE TABLE (which warned at the key)
                log.warning("%s'properties.%s' is not a Kafka client property; ignored", prefix, key)
        elif key == "sasl.jaas.config":
            for k, v in _jaas(str(value), prefix).items():
                out.setdefault(k, v)
        else:
            k, v = _value(key, value)
            if role is not None and k in _OTHER_ROLE[role]:
                _warn_other_role(key, prefix, role)
            elif k == key or k not in props:
                out[k] = v
    return out

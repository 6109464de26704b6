"""``'properties.*'`` keys no Kafka client knows: warned at CREATE TABLE, never given to librdkafka.

Flink hands every ``'properties.*'`` key to the Java Kafka client, which logs "The configuration
'sasl.passwd' was supplied but isn't a known config." and runs: a misspelt key does not stop a
Flink job. librdkafka instead refuses a key it does not know ("No such configuration property"),
which failed the running job here. So a key that is neither a Java key StreamSQL translates
(:mod:`.client_keys`) nor one of librdkafka's is, as on Flink, ignored and the job runs, but not
in silence: ``CREATE TABLE`` answers with a warning at the key's line:column, with the closest
librdkafka key when one is close (``did you mean 'sasl.password'?``), and
:func:`~.client_keys.translate` leaves the key out of the client's configuration.

librdkafka's keys are its own table of properties (``rd_kafka_conf_properties_show``, the text of
its CONFIGURATION.md, aliases included), read once per process from the library confluent-kafka
loaded. Where that library cannot be reached (:func:`.native.library` is None) nothing is
checked and every key goes to librdkafka, as before.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import tempfile
from typing import Any

from streamsql.connectors.kafka import client_keys

from streamsql.core.config import did_you_mean

#: Java keys :func:`~.client_keys.translate` reads, renames or refuses itself (not librdkafka's).
JAVA_KEYS = frozenset({
    *client_keys.RENAMED, *client_keys.IGNORED, *client_keys.REJECTED, *client_keys.HANDLED,
    *client_keys.WAIT_KEYS.values(), "sasl.jaas.config", "buffer.memory",
})
_ROW = re.compile(r"^([a-z][\w.-]*)\s+\|", re.MULTILINE)


@functools.cache
def librdkafka_keys() -> frozenset[str] | None:
    """Every configuration key of the loaded librdkafka (global and topic ones), or None if unknown."""
    from streamsql.connectors.kafka.native import library

    lib = library()
    if lib is None:
        return None
    libc = ctypes.CDLL(None)
    libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    show = lib.rd_kafka_conf_properties_show
    show.argtypes = [ctypes.c_void_p]
    fd, path = tempfile.mkstemp(prefix="streamsql-rdkafka-", suffix=".md")
    os.close(fd)
    try:
        fp = libc.fopen(path.encode(), b"w")
        if not fp:
            return None
        show(fp)
        libc.fclose(fp)
        with open(path, encoding="utf-8", errors="replace") as f:
            names = frozenset(_ROW.findall(f.read()))
    finally:
        os.unlink(path)
    return names or None


def is_unknown(key: str) -> bool:
    """Whether ``key`` (``'properties.'`` stripped) is neither a translated Java key nor librdkafka's."""
    known = librdkafka_keys()
    return known is not None and key not in JAVA_KEYS and key not in known


def unknown_properties(options: dict[str, Any]) -> list[tuple[str, str]]:
    """The table's ``'properties.*'`` options no Kafka client knows, each with its warning.

    Returns:
        ``(option key, warning text)`` pairs in the options' order; the text names the key, says
        it is ignored as Flink's client ignores it, and suggests the closest librdkafka key.
    """
    found = []
    for option in options:
        key = option[len("properties."):] if option.startswith("properties.") else None
        if key is None or not is_unknown(key):
            continue
        client_keys.first_time(key)  # warned here: translate() does not warn again
        hint = did_you_mean(key, librdkafka_keys() or ()) or did_you_mean(key, JAVA_KEYS)
        found.append((option, f"'{option}' is not a Kafka client property (neither librdkafka's nor a "
                              f"Java key StreamSQL translates); ignored, as Flink's Kafka client ignores "
                              f"it (\"supplied but isn't a known config\"){hint}"))
    return found

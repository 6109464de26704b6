"""The process's Kafka admin clients: one per configuration, kept until the process exits.

An ``AdminClient`` runs Python on librdkafka's background thread of that client: every request's
result (confluent-kafka sets the request's future there) and, with ``'logger'``, every log line
of the client (a disconnect, "partition count changed" when a topic it knows is deleted).
CPython's cyclic garbage collector runs on whichever thread allocates when a collection is due.
So an admin client that had become garbage inside a reference cycle — kept by a finished job's
graph (an exchange reader's, for its ``DeleteRecords``), or by the frames of an exception a job
handle holds — could be collected on its own background thread; its destructor then calls
``rd_kafka_destroy()`` there and librdkafka aborts the process ("calling rd_kafka_destroy() from
librdkafka owned thread is prohibited"). A pytest-xdist worker died that way in the clean-clone
CI, in a test that deletes exchange topics a finished job's reader had purged.

AdminClients are not closed by an explicit call (confluent-kafka has none), only by their
destructor, so instead they never become garbage: :func:`admin_client` hands out one shared
client per configuration (librdkafka clients are thread-safe), kept for the life of the process
and destroyed at exit on the main thread (``atexit``). A process talks to a handful of clusters,
so it holds a handful of clients, and a call no longer pays for a client's connection and
metadata.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from confluent_kafka.admin import AdminClient
from streamsql.connectors.kafka.errors import RDKAFKA_LOG, new_client

_clients: dict[tuple, AdminClient] = {}
_lock = threading.Lock()


def admin_client(props: dict[str, Any], what: str) -> AdminClient:
    """The shared admin client of ``props`` (librdkafka properties), created on first use.

    Its log lines go to :data:`~.errors.RDKAFKA_LOG`. It lives until the process exits; callers
    share it across threads and never destroy it.

    Raises:
        ConfigError: for properties librdkafka rejects (``what`` names the caller).
    """
    config = {**props, "logger": RDKAFKA_LOG}
    key = tuple(sorted(config.items(), key=lambda kv: kv[0]))
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = new_client(AdminClient, config, what)
        return client


@atexit.register
def _destroy_all() -> None:
    """Destroy the clients at exit, on the main thread, while the interpreter is whole."""
    with _lock:
        _clients.clear()

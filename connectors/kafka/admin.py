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

``DeleteRecords`` goes through :func:`delete_records`, never ``AdminClient.delete_records``
itself: confluent-kafka's C side of that call releases a reference to its list argument that it
does not own (see the function).
"""

from __future__ import annotations

import atexit
import ctypes
import sys
import threading
import traceback
from typing import Any

from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient
from streamsql.connectors.kafka.errors import RDKAFKA_LOG, new_client

_clients: dict[tuple, AdminClient] = {}
_lock = threading.Lock()


def admin_client(props: dict[str, Any], what: str) -> AdminClient:
    """The shared admin client of ``props`` (librdkafka properties), created on first use.

    Its log lines go to :data:`~.errors.RDKAFKA_LOG`. It lives until the process exits; callers
    share it across threads and never destroy it.

    It never lets the broker create a topic (``allow.auto.create.topics`` = false, whatever
    ``props`` say): an admin client is a producer to librdkafka, whose default is true, and a
    topic it once looked up by name stays in its metadata refreshes. A parallel job's exchange
    topic, deleted when the job finished or was reset for a restore, came back with the broker's
    ``num.partitions`` (1) at the process's next refresh, and the next run of the job failed
    ("exchange topic ... has 1 partitions, the job's parallelism needs 2"; query_fuzz --rescale
    3,1,2 seed 208).

    Raises:
        ConfigError: for properties librdkafka rejects (``what`` names the caller).
    """
    config = {**props, "allow.auto.create.topics": False, "logger": RDKAFKA_LOG}
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


_py_incref = ctypes.pythonapi.Py_IncRef
_py_incref.argtypes = [ctypes.py_object]
_py_incref.restype = None


def delete_records(admin: AdminClient, offsets: list[TopicPartition], **kwargs: Any) -> dict:
    """``admin.delete_records(offsets, **kwargs)`` (its futures), without confluent-kafka's over-release.

    confluent-kafka's ``Admin_delete_records`` (C) ends with ``Py_XDECREF`` of its list argument,
    a borrowed reference (confluent-kafka-python issue 2275, fixed in 2.16.1; this project gets
    2.12.2, the newest below quixstreams' ``<2.13``). The list is then freed while a caller still
    refers to it: a temporary ``[tp]`` when the Python wrapper's own call returns, the caller's
    list when the wrapper returns. The last reference, released afterwards, decrements the
    first word of whatever object has taken the freed memory meanwhile, which another thread
    may have allocated in between: a garbage collection later follows a corrupted list link and
    the process dies (SIGSEGV in ``gc_collect_main``, the crashed pytest-xdist workers of
    test_parallel_exchange_topics), or an object is freed under its owner. Reproduced by a loop of
    ``AdminClient.delete_records([tp])`` while two threads allocate lists: 5 of 5 runs crashed or
    found objects corrupted; through this function none of 4.

    Here the call gets a list of its own, held twice so that the call can never free it; the
    references it took (none with a fixed confluent-kafka) are measured and given back, so the
    list is freed when its last real reference goes.
    """
    arg = list(offsets)
    held = arg
    before = sys.getrefcount(arg)
    try:
        return admin.delete_records(arg, **kwargs)
    except BaseException as e:
        traceback.clear_frames(e.__traceback__)  # the wrapper's frame in it holds the list too
        raise
    finally:
        for _ in range(before - sys.getrefcount(arg)):
            _py_incref(arg)
        del held

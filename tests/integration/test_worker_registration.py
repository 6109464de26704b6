"""A worker whose first request to the brokers goes unanswered past the metadata timeout retries
its registration, as a Flink TaskManager does, instead of exiting.

The crash campaign of session 21 failed once: a worker exited 1 with ``Job '...' task topic:
metadata of topic '_streamsql-...-tasks': cannot reach Kafka at 127.0.0.1:9092: Failed to get
metadata: Local: Timed out`` (its workers.log), its first request not answered within 10 s — the
worker frozen (SIGSTOP, 10 s) or starved while it made it. Here the brokers are reached through
a TCP relay that holds every connection unanswered for a while (a stalled network path; the
broker behind it is the real one), then relays them. A request unanswered past the metadata
timeout is ``Local: Timed out`` there (at librdkafka's 10 s, ``Local: Broker transport failure``:
its API-version request timed out first), as for a process frozen across its metadata request:
the same KafkaUnreachableError, which a starting worker retries. The metadata timeout is 2 s here
(:func:`_short_metadata_wait`), so that the tests wait seconds, not tens of them.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid

import pytest
from streamsql.connectors.kafka import exchange
from streamsql.connectors.kafka.errors import KafkaUnreachableError

from streamsql.runtime.worker import register


class StallingRelay:
    """A TCP relay to ``target`` that holds each connection silent until ``stall_s`` after its start."""

    def __init__(self, target: str, stall_s: float):
        host, port = target.rsplit(":", 1)
        self.target = (host, int(port))
        self.open_at = time.monotonic() + stall_s
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.connections = 0
        self._closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        while time.monotonic() < self.open_at and not self._closed.is_set():
            time.sleep(0.05)  # the request sits unanswered
        with contextlib.suppress(OSError), client, socket.create_connection(self.target) as upstream:
            pipes = [threading.Thread(target=_pipe, args=(a, b), daemon=True)
                     for a, b in ((client, upstream), (upstream, client))]
            for p in pipes:
                p.start()
            for p in pipes:
                p.join()

    def close(self) -> None:
        self._closed.set()
        self.server.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := src.recv(65536):
            dst.sendall(data)
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


#: The registration's metadata timeout in these tests (10 s by default).
WAIT_S = 2.0


@pytest.fixture(autouse=True)
def _short_metadata_wait(monkeypatch):
    monkeypatch.setattr(exchange, "METADATA_TIMEOUT_S", WAIT_S)


@pytest.fixture
def relay(kafka_bootstrap):
    r = StallingRelay(kafka_bootstrap, stall_s=WAIT_S + 1.5)  # the first try times out, a later one passes
    yield r
    r.close()


def test_a_worker_retries_its_registration_while_the_brokers_do_not_answer(relay, kafka_admin, caplog):
    topic = f"_streamsql-reg-{uuid.uuid4().hex[:8]}-tasks"
    try:
        assert register({"bootstrap.servers": relay.address}, topic, 3, "Job 'reg' task topic",
                        threading.Event())
        assert time.monotonic() >= relay.open_at, "registered before the brokers answered"
        # its first try is what failed the worker: unanswered past the metadata timeout
        assert f"cannot reach Kafka at {relay.address}: Failed to get metadata: Local: " in caplog.text
        assert "; retrying in 0.5 s (for up to 300 s in all)" in caplog.text
        md = kafka_admin.list_topics(topic=topic, timeout=10).topics[topic]
        assert md.error is None and len(md.partitions) == 3
    finally:
        kafka_admin.delete_topics([topic], operation_timeout=30)


def test_a_registration_gives_up_after_its_timeout(kafka_bootstrap):
    """One unanswered try (the metadata timeout, 2 s here) outlasts a 1 s registration timeout: it
    gives up after that try, not retrying for ever. Retrying while time is left is the test above's."""
    r = StallingRelay(kafka_bootstrap, stall_s=3600.0)
    try:
        started = time.monotonic()
        with pytest.raises(KafkaUnreachableError, match="Failed to get metadata: Local: "):
            register({"bootstrap.servers": r.address}, f"_streamsql-reg-{uuid.uuid4().hex[:8]}-tasks", 1,
                     "Job 'reg' task topic", threading.Event(), timeout_s=1.0)
        assert 1.0 <= time.monotonic() - started < 30
    finally:
        r.close()

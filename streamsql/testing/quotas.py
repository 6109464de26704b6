"""Kafka client quotas for tests and campaigns: a broker that throttles a producer (a slow sink).

confluent-kafka's AdminClient has no AlterClientQuotas (its ``ResourceType`` has no client
entity), so quotas are set with Kafka's own ``kafka.admin.ConfigCommand`` from the jars
``scripts/kafka-local.sh`` provisioned (2-3 s per call: a JVM start). A quota on one client
id throttles that client only: tests set it on the shared broker for a client id of their own
and delete it afterwards (:func:`producer_quota`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator


def _tool(bootstrap: str) -> list[str]:
    version = os.environ.get("KAFKA_VERSION", "4.1.2")  # the jars kafka-local.sh provisioned
    cache = os.environ.get("STREAMSQL_CACHE") or os.path.expanduser(f"~/.cache/streamsql/kafka-{version}")
    # A short-lived tool: C1 only and the serial collector start it with ~0.8 CPU-s less (of ~2.5).
    return ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", os.path.join(cache, "libs", "*"),
            "kafka.admin.ConfigCommand",
            "--bootstrap-server", bootstrap, "--alter", "--entity-type", "clients"]


def set_producer_byte_rate(bootstrap: str, rate: int | None, client_id: str | None = None) -> None:
    """Throttle the producers of ``client_id`` to ``rate`` bytes/s (``rate`` None: remove that quota).

    ``client_id`` None: every client id without a quota of its own (Kafka's default entity).

    Raises:
        subprocess.CalledProcessError: the broker refused, or the tool failed.
    """
    entity = ["--entity-name", client_id] if client_id is not None else ["--entity-default"]
    change = (["--add-config", f"producer_byte_rate={rate}"] if rate is not None
              else ["--delete-config", "producer_byte_rate"])
    subprocess.run([*_tool(bootstrap), *entity, *change], check=True, capture_output=True, timeout=120)


@contextlib.contextmanager
def producer_quota(bootstrap: str, client_id: str, rate: int) -> Iterator[None]:
    """``rate`` bytes/s for the producers of ``client_id`` while the block runs, then no quota."""
    set_producer_byte_rate(bootstrap, rate, client_id)
    try:
        yield
    finally:
        with contextlib.suppress(subprocess.SubprocessError, OSError):
            set_producer_byte_rate(bootstrap, None, client_id)

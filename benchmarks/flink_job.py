"""The ``flink`` contender: the workload's SQL on Apache Flink 2.3 (PyFlink's local mini-cluster).

Run by the harness with the Flink venv's interpreter (:mod:`benchmarks.flink_setup`):
``python -m benchmarks.flink_job SPEC.json``; imports only the standard library, PyFlink and
the harness's stdlib-only modules. Same SQL and topics as StreamSQL
(:func:`benchmarks.contenders.workload_sql`), parallelism 1, checkpoints every interval,
EXACTLY_ONCE, the spec's state backend (default RocksDB), the Kafka SQL connector jar of the
spec (``pipeline.jars``), no restarts (a failure ends the run instead of looping). Exactly-once
sinks need a transactional-id prefix and a transaction timeout below the broker's
``transaction.max.timeout.ms`` (15 min by default): Flink's default of 1 h makes the producer
fail and, with its default restart strategy, hang.

Result JSON as the other contenders' (:mod:`benchmarks.contenders`), plus ``cpu_unreaped_s``
(CPU of the descendants still alive at the end — the JVM — which ``wait4`` cannot see) and
``peak_rss`` of the whole process tree (client + JVM). ``t_first`` is when the INSERT was
submitted: Flink's first consumed record is not observable from here.
"""

from __future__ import annotations

import os
import sys
import time

from benchmarks.contenders import first_insert, ready, run_spec, workload_sql
from benchmarks.proctree import RssSampler, live_cpu_seconds

#: Below the broker's transaction.max.timeout.ms (900,000 by default).
TRANSACTION_TIMEOUT_MS = 60_000


def _config(spec: dict) -> dict[str, str]:
    d = spec["workdir"]
    return {
        "parallelism.default": "1",
        "table.exec.resource.default-parallelism": "1",
        "execution.checkpointing.interval": f"{spec['interval_ms']} ms",
        "execution.checkpointing.mode": "EXACTLY_ONCE",
        "state.backend.type": spec.get("backend") or "rocksdb",
        "execution.checkpointing.dir": "file://" + os.path.join(d, "flink-checkpoints"),
        "restart-strategy.type": "none",
        "table.local-time-zone": "UTC",
        "pipeline.name": spec["group"],
        **({"pipeline.jars": "file://" + spec["flink_jar"]} if spec.get("flink_jar") else {}),
    }


def _sink_extra(spec: dict) -> dict[str, dict[str, str]]:
    eo = {
        "sink.transactional-id-prefix": spec["group"],
        "properties.transaction.timeout.ms": str(TRANSACTION_TIMEOUT_MS),
    }
    return {"kafka": eo, "upsert-kafka": {"sink.delivery-guarantee": "exactly-once", **eo}}


def _await_running(client) -> None:
    """Return once the job runs (or already ended: its mini-cluster is then gone, and says so)."""
    while True:
        try:
            if str(client.get_job_status().result()) not in ("CREATED", "INITIALIZING"):
                return
        except Exception:  # noqa: BLE001  ("MiniCluster is not yet running or has already been shut down")
            return
        time.sleep(0.05)


def run_flink(spec: dict, res: dict) -> None:
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in _config(spec).items():
        tenv.get_config().set(k, v)
    source_extra = (f", 'properties.group.id' = '{spec['group']}', "
                    "'properties.isolation.level' = 'read_committed'")
    source_ddl, sink_ddl, inserts = workload_sql(spec, _sink_extra(spec), source_extra)
    tenv.execute_sql(source_ddl)
    tenv.execute_sql(sink_ddl)
    res["t_first"] = time.time()
    result, res["sql"] = first_insert(tenv.execute_sql, inserts)
    _await_running(result.get_job_client())
    ready(spec)
    result.wait()  # raises the job's failure
    res["t_end"] = time.time()
    if spec.get("engine"):
        res["events"] = res["produced"] = spec["events"]
    else:
        res["events"] = sum(int(v) for v in spec["ends"].values())


def main(argv: list[str]) -> int:
    rss = RssSampler(os.getpid())
    rss.start()

    def measure(res: dict) -> None:
        res["cpu_unreaped_s"] = live_cpu_seconds(os.getpid())
        rss.halt.set()
        rss.join()
        res["peak_rss"] = rss.peak

    run_spec(argv, run_flink, measure)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

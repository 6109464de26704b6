"""One engine's Nexmark run: ``python -m benchmarks.nexmark.job SPEC.json`` runs its queries one by one.

Run by :mod:`benchmarks.nexmark.runner` in a subprocess, with StreamSQL's interpreter or the
Flink venv's (standard library, PyFlink and :mod:`benchmarks.nexmark.sql` only on that side).
Each query's script (:func:`benchmarks.nexmark.sql.script`, the spec's source, a blackhole
sink) runs to its end: the events table is bounded (``events.num``, the file's end, or the
topic's end offsets). A query's time is from submitting its INSERT to the job's end, so it
includes the job's start-up (Flink's is seconds). Spec keys: ``engine`` (``streamsql`` |
``flink``), ``queries``, ``source_with``, ``side_input``, ``workdir``, ``backend``,
``interval_ms``, ``flink_jar``, ``result``, ``lock`` (a file ``flock``-ed around each query, so
a shared lock such as Flink's is held one query at a time, not for the whole run; ``None``:
none) and ``timeout_s`` (a query still running then is cancelled and recorded as an error).
The result JSON holds per query ``{"seconds": s}`` or ``{"error": text}`` (a query the engine
refuses: its message's first lines; or the timeout).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import time

from benchmarks.nexmark import sql
from tests.compat.changelog import INSERT, split_statements

SET = re.compile(r"^SET\s+'([^']+)'\s*=\s*'([^']*)'$", re.IGNORECASE | re.DOTALL)


def _flink_env(spec: dict):
    from pyflink.table import EnvironmentSettings, TableEnvironment

    if str(sql.HERE) not in sys.path:  # q14's nexmark_udf, which PyFlink's client imports too
        sys.path.insert(0, str(sql.HERE))

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = {
        "parallelism.default": "1",
        "table.local-time-zone": "UTC",
        "state.backend.type": spec["backend"],
        "execution.checkpointing.interval": f"{spec['interval_ms']} ms",
        "execution.checkpointing.dir": "file://" + os.path.join(spec["workdir"], "flink-checkpoints"),
        "restart-strategy.type": "none",
        **({"pipeline.jars": "file://" + spec["flink_jar"]} if spec.get("flink_jar") else {}),
    }
    for k, v in config.items():
        tenv.get_config().set(k, v)

    def execute(statement: str):
        m = SET.match(statement)
        if m:
            tenv.get_config().set(m.group(1), m.group(2))
            return None
        return tenv.execute_sql(statement)

    def wait(result, timeout_s: float) -> bool:
        try:
            result.wait(int(timeout_s * 1000))
        except Exception as e:  # noqa: BLE001  (py4j wraps the TimeoutException)
            if "TimeoutException" not in str(e):
                raise
            result.get_job_client().cancel().result()
            return False
        return True

    return execute, wait


def _streamsql_env(spec: dict, query: str):
    from streamsql import StreamEnvironment

    d = os.path.join(spec["workdir"], query)
    env = StreamEnvironment(
        {
            "state.backend.type": spec["backend"],
            "execution.checkpointing.interval": f"{spec['interval_ms']} ms",
            "execution.checkpointing.dir": os.path.join(d, "checkpoints"),
            "state.dir": os.path.join(d, "state"),
            "table.local-time-zone": "UTC",
        }
    )
    def wait(result, timeout_s: float) -> bool:
        if result.job.wait(timeout_s) in ("FINISHED", "CANCELED", "FAILED"):
            return True
        result.job.cancel()
        return False

    return env, env.execute_sql, wait


def run_query(spec: dict, query: str) -> dict:
    """Run one query to its end on the spec's engine: ``{"seconds": s}`` or ``{"error": text}``.

    For StreamSQL also ``cpu_s``: the CPU time (user + system, this process and its waited-for
    children) the query's job took, comparable between runs on a loaded machine, wall-clock not.
    """
    env = None
    if spec["engine"] == "flink":
        execute, wait = _flink_env(spec)
    else:
        env, execute, wait = _streamsql_env(spec, query)
    statements = split_statements(sql.script(query, spec["source_with"], sql.BLACKHOLE, spec["side_input"],
                                             os.path.join(spec["workdir"], f"{query}-{spec['engine']}-out")))
    try:
        for s in statements:
            if not INSERT.match(s):
                execute(s)
        insert = next(s for s in statements if INSERT.match(s))
        start, cpu = time.perf_counter(), os.times()
        timeout_s = spec.get("timeout_s") or 3600
        if not wait(execute(insert), timeout_s):
            return {"error": f"timed out after {timeout_s:g} s (cancelled)"}
        out = {"seconds": time.perf_counter() - start}
        if env is not None:  # StreamSQL runs the job in this process (Flink: in its JVM)
            out["cpu_s"] = sum(os.times()[:4]) - sum(cpu[:4])
        return out
    except Exception as e:  # noqa: BLE001  (a refused query is a result of the run)
        text = str(e)
        causes = [ln for ln in text.splitlines() if ln.startswith("Caused by: ")]
        return {"error": (causes[-1] if causes else "\n".join(text.splitlines()[:4]))[:600]}
    finally:
        if env is not None:
            env.close()


@contextlib.contextmanager
def _locked(path: str | None):
    """Hold ``flock`` on ``path`` (nothing when ``None``)."""
    if not path:
        yield
        return
    with open(path, "a") as f:
        print(f"[{time.strftime('%H:%M:%S')}] waiting for {path}", flush=True)
        fcntl.flock(f, fcntl.LOCK_EX)
        yield  # closing the file releases the lock


def main(argv: list[str]) -> int:
    spec = json.loads(open(argv[0]).read())
    out: dict[str, dict] = {}
    for q in spec["queries"]:
        with _locked(spec.get("lock")):
            out[q] = run_query(spec, q)
        with open(spec["result"], "w") as f:  # after every query: a crash keeps the ones done
            json.dump(out, f, indent=1)
        print(f"[{spec['engine']}] {q}: {out[q]}", flush=True)
    sys.stdout.flush()
    os._exit(0)  # no lingering threads (librdkafka, job threads, Flink's gateway JVM)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

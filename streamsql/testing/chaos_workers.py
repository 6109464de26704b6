"""The crash campaign of a parallel job: ``python -m streamsql.testing.chaos --workers N``.

The job (``'parallelism.default'`` = N) runs on N ``streamsql worker`` processes while a
producer feeds an input topic of ``--partitions`` partitions (default 8). Every 2–6 s the
campaign ``kill -9``s a random worker and restarts it after 0–5 s with the same worker id;
once per fault point (:data:`WORKER_POINTS`) the restarted worker carries
``STREAMSQL_FAULT=<point>:<k>`` and dies there by itself; once (``--freeze``) a worker is frozen
with SIGSTOP past the group's session timeout, so its tasks move to the others, and then
resumed — a zombie whose transactions are fenced. At the end every worker is killed, the
bounded version of the job drains the topic through ``streamsql run`` (N workers again) and
the committed output is compared with DuckDB as in :mod:`streamsql.testing.chaos`.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from streamsql.testing import chaos

#: The fault points of a parallel job's tasks and workers, besides the checkpoint protocol's.
WORKER_POINTS = (*chaos.POINTS, "before_exchange_commit", "during_revocation", "after_fencing_during_restore")
#: Longer than the workers' session timeout (:data:`streamsql.runtime.worker.SESSION_TIMEOUT_MS`).
FREEZE_SECONDS = 10.0


class Workers:
    """The N worker processes of the unbounded job, restarted under the same ids."""

    def __init__(self, script: str, cwd: str, count: int, log):
        self.script, self.cwd, self.log = script, cwd, log
        self.procs: dict[int, subprocess.Popen | None] = dict.fromkeys(range(count))

    def start(self, i: int, fault: str | None = None) -> None:
        """Start worker ``i`` (with ``STREAMSQL_FAULT=fault`` when given)."""
        env = dict(os.environ)
        env.pop("STREAMSQL_FAULT", None)
        if fault:
            env["STREAMSQL_FAULT"] = fault
        self.procs[i] = subprocess.Popen(
            [sys.executable, "-m", "streamsql", "worker", self.script, "--worker-id", f"chaos-w{i}"],
            cwd=self.cwd, env=env, stdout=subprocess.DEVNULL, stderr=self.log)

    def kill(self, i: int) -> None:
        """``kill -9`` worker ``i`` if it runs."""
        proc = self.procs[i]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait()

    def died(self) -> list[tuple[int, int]]:
        """(worker, exit code) of the workers that ended since the last call (and are not restarted)."""
        out = []
        for i, proc in self.procs.items():
            if proc is not None and proc.poll() is not None:
                out.append((i, proc.returncode))
                self.procs[i] = None
        return out

    def kill_all(self) -> None:
        """``kill -9`` every worker."""
        for i in self.procs:
            self.kill(i)


def _wait_for_death(workers: Workers, seconds: float) -> list[tuple[int, int]]:
    deadline = time.monotonic() + seconds
    dead: list[tuple[int, int]] = []
    while time.monotonic() < deadline:
        dead += workers.died()
        time.sleep(0.1)
    return dead


def worker_campaign(a: argparse.Namespace) -> int:
    """Run the campaign (see module docstring); returns the exit code."""
    run = uuid.uuid4().hex[:8]
    src, out, job = f"chaos_in_{run}", f"chaos_out_{run}", f"chaos-w-{a.query}-{run}"
    cfg = {"cleanup.policy": "compact"} if a.query == "agg" else {}
    chaos.create_topics(a.bootstrap, [(src, a.partitions, {}), (out, 1, cfg)])
    records = chaos.make_records(a.records)
    done = threading.Event()
    feed = (a.bootstrap, src, records, a.feed_seconds, done, a.partitions)
    threading.Thread(target=chaos.produce, args=feed, daemon=True).start()
    work = tempfile.mkdtemp(prefix="streamsql-chaos-workers-")
    parallel = f"SET 'parallelism.default' = '{a.workers}';\n"
    unbounded, bounded = chaos.write_scripts(a, work, job, src, out, parallel)
    log = open(os.path.join(work, "workers.log"), "ab")
    workers = Workers(unbounded, work, a.workers, log)
    for i in range(a.workers):
        workers.start(i)
    rnd = random.Random(a.seed)
    faults = [f"{p}:{rnd.randint(1, 3)}" for p in WORKER_POINTS]
    rnd.shuffle(faults)
    kills = 0
    frozen = not a.freeze
    while kills < a.kills:
        for i, rc in _wait_for_death(workers, rnd.uniform(2, 6)):
            if rc != 137:
                print(f"worker {i} exited by itself with code {rc}; see {work}/workers.log", flush=True)
                workers.kill_all()
                return 1
            kills += 1
            print(f"kill {kills}: worker {i} died at its fault point", flush=True)
            workers.start(i)
        if not frozen and kills >= a.kills // 2:
            i = rnd.randrange(a.workers)
            proc = workers.procs[i]
            if proc is not None:
                proc.send_signal(signal.SIGSTOP)
                time.sleep(FREEZE_SECONDS)
                proc.send_signal(signal.SIGCONT)
                print(f"froze worker {i} for {FREEZE_SECONDS:.0f} s (past the session timeout), resumed",
                      flush=True)
            frozen = True
            continue
        i = rnd.randrange(a.workers)
        workers.kill(i)
        workers.died()
        kills += 1
        fault = faults.pop() if faults else None
        then = f", restarted with fault {fault}" if fault else ""
        print(f"kill {kills}: kill -9 worker {i}{then}", flush=True)
        time.sleep(rnd.uniform(0, 5))
        workers.start(i, fault)
    workers.kill_all()
    done.wait()
    final = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work,
                           stdout=subprocess.DEVNULL, stderr=log, check=False)
    if final.returncode != 0:
        print(f"final bounded run failed with code {final.returncode}; see {work}/workers.log", flush=True)
        return 1
    return chaos.verdict(a, records, out, f"workers={a.workers} kills={kills}")

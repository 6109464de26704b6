"""The crash campaign of a parallel job: ``python -m streamsql.testing.chaos --workers N``.

The job (``'parallelism.default'`` = N) runs on N ``streamsql worker`` processes while a
producer feeds an input topic of ``--partitions`` partitions (default 8). Every 2–6 s
(``--min-kill``, ``--max-kill``) the campaign ``kill -9``s a random worker and restarts it after
0–5 s (``--max-restart-delay``) with the same worker id;
for each fault point (:data:`WORKER_POINTS`, one at a time) a restarted worker carries
``STREAMSQL_FAULT=<point>:1`` and dies there by itself — it is spared by the random kills until
it did (or :data:`FAULT_PATIENCE_S` passed: then the point is tried again later), and while it
carries ``during_revocation`` the next victim is restarted past the session timeout, so that
the group moves tasks to it and takes them back. With ``--every-point`` the campaign goes on
past ``--kills`` until every point was reached (at most three times as many kills); once
(``--freeze``) a worker is frozen with SIGSTOP past the group's session timeout, so its tasks
move to the others, and then resumed — a zombie whose transactions are fenced. At the end every
worker is killed, the bounded version of the job drains the topic through ``streamsql run`` (N
workers again) and the committed output is compared with DuckDB as in :mod:`streamsql.testing.chaos`.
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
#: How long a restarted worker may take to reach its fault point: its start-up (imports, the
#: group join, a rebalance, the restore) took 10-25 s on a loaded 2-core machine.
FAULT_PATIENCE_S = 60.0
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


def _victim(rnd: random.Random, count: int, carrying: dict[int, tuple[str, float]], patience_s: float) -> int:
    """A random worker to kill: one that carries no fault point, or one that has not reached it in time."""
    now = time.monotonic()
    free = [i for i in range(count) if i not in carrying or now - carrying[i][1] > patience_s]
    return rnd.choice(free or list(range(count)))


def worker_campaign(a: argparse.Namespace) -> int:
    """Run the campaign (see module docstring); returns the exit code."""
    run = uuid.uuid4().hex[:8]
    src, out, job = f"chaos_in_{run}", f"chaos_out_{run}", f"chaos-w-{a.query}-{run}"
    outs = chaos.output_topics(a.query, out, a.out_partitions)
    chaos.create_topics(a.bootstrap, [(src, a.partitions, {}), *outs])
    records = chaos.make_records(a.records)
    done = threading.Event()
    feed = (a.bootstrap, src, records, a.feed_seconds, done, a.partitions)
    threading.Thread(target=chaos.produce, args=feed, daemon=True).start()
    work = tempfile.mkdtemp(prefix="streamsql-chaos-workers-")
    # A frozen worker resumes with its broker connections gone: its task restarts (as under
    # Flink 2's default restart strategy with checkpointing) rather than failing the worker.
    parallel = (f"SET 'parallelism.default' = '{a.workers}';\n"
                "SET 'restart-strategy.type' = 'fixed-delay';\n")
    unbounded, bounded = chaos.write_scripts(a, work, job, src, out, parallel)
    log = open(os.path.join(work, "workers.log"), "ab")
    workers = Workers(unbounded, work, a.workers, log)
    for i in range(a.workers):
        workers.start(i)
    rnd = random.Random(a.seed)
    # the filter job is one stage (stateless): it has no exchange to die before committing
    faults = [p for p in WORKER_POINTS if not (p == "before_exchange_commit" and a.query == "filter")]
    rnd.shuffle(faults)
    carrying: dict[int, tuple[str, float]] = {}  # worker -> (the fault point it carries, since)
    reached: list[str] = []
    kills = 0
    frozen = not a.freeze
    # --kills at least; with --every-point on until every fault point was reached (at most 3 × --kills)
    while kills < a.kills or (a.every_point and (faults or carrying) and kills < 3 * a.kills):
        for i, rc in _wait_for_death(workers, rnd.uniform(a.min_kill, a.max_kill)):
            if rc != 137:
                print(f"worker {i} exited by itself with code {rc}; see {work}/workers.log", flush=True)
                workers.kill_all()
                return 1
            kills += 1
            point = carrying.pop(i, ("?", 0.0))[0]
            reached.append(point)
            print(f"kill {kills}: worker {i} died at its fault point {point}", flush=True)
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
        i = _victim(rnd, a.workers, carrying, max(a.max_run_seconds, FAULT_PATIENCE_S))
        workers.kill(i)
        workers.died()
        kills += 1
        missed = carrying.pop(i, None)
        fault = faults.pop() if faults and not carrying else None  # one fault point in flight
        if missed:
            faults.insert(0, missed[0])  # tried again later
        then = f", restarted with fault {fault}" if fault else ""
        note = f" (fault {missed[0]} not reached)" if missed else ""
        print(f"kill {kills}: kill -9 worker {i}{note}{then}", flush=True)
        # A revocation needs the group to move tasks: a restart past the session timeout gives
        # this worker's tasks to the others, and its return takes some back from them.
        revoking = any(p == "during_revocation" for p, _ in carrying.values())
        time.sleep(FREEZE_SECONDS if revoking else rnd.uniform(0, a.max_restart_delay))
        workers.start(i, f"{fault}:1" if fault else None)
        if fault:
            carrying[i] = (fault, time.monotonic())
    print(f"fault points reached: {', '.join(sorted(set(reached) - {'?'})) or 'none'}; not reached: "
          f"{', '.join(sorted(set(faults) | {p for p, _ in carrying.values()})) or 'none'}", flush=True)
    workers.kill_all()
    done.wait()
    final = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work,
                           stdout=subprocess.DEVNULL, stderr=log, check=False)
    if final.returncode != 0:
        print(f"final bounded run failed with code {final.returncode}; see {work}/workers.log", flush=True)
        return 1
    return chaos.verdict(a, records, out, f"workers={a.workers} kills={kills}")

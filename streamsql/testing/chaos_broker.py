"""The crash campaign with broker faults: ``python -m streamsql.testing.chaos --broker-restarts 2``.

The campaign starts a broker of its own (:class:`PrivateBroker`: ``scripts/kafka-local.sh`` on a
free port with a state folder of its own, so the shared broker is never touched), and optionally
makes the job's sink slow (``--slow-sink BYTES``: a producer byte-rate quota on that broker for
every client but the campaign's own feeder, so the job's transactional producer is throttled and
the job runs under backpressure). While the producer feeds the 3-partition input topic, one job
(``streamsql run``, with ``'restart-strategy.type' = 'fixed-delay'`` as a production job would
have) consumes it under checkpoints; the campaign stops the broker (``kafka-local.sh stop``: a
controlled shutdown) for ``--broker-down`` seconds and starts it again, ``--broker-restarts``
times, and ``kill -9``s the job ``--kills`` times in between (restarting it with the same
``pipeline.name``, once right after a broker restart). A job that exits by itself fails the
campaign: a broker restart must be survived, inside the process or through the restart strategy.
Finally the bounded version drains the topic and the committed output is compared with DuckDB as
in :mod:`streamsql.testing.chaos`.

usage (Linux; Java 17 and the broker jars that ``kafka-local.sh`` provisions)::

    python -m streamsql.testing.chaos --broker-restarts 2 --slow-sink 65536 --kills 2 --query agg
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from streamsql.testing import chaos
from streamsql.testing.quotas import set_producer_byte_rate

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "kafka-local.sh"
#: The shared broker of the machine: never stopped by a campaign.
SHARED_PORT = 9092
#: The feeder's client id: exempt from the slow-sink quota.
FEEDER_CLIENT = "streamsql-chaos-feeder"


def free_port_pair(offset: int = 100) -> int:
    """A port ``p`` with ``p`` and ``p + offset`` (the KRaft controller's) free on 127.0.0.1."""
    rnd = random.Random()
    for _ in range(200):
        port = rnd.randrange(20000, 30000)
        if all(_free(p) for p in (port, port + offset)):
            return port
    msg = "no free port pair for a private broker"
    raise RuntimeError(msg)


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class PrivateBroker:
    """A single-node broker of the campaign's own, run by ``scripts/kafka-local.sh``.

    Args:
        port: its client port (never :data:`SHARED_PORT`); the controller uses ``port + 100``.
        home: its state folder (data, config, logs, pid file), removed by :meth:`destroy`.
    """

    def __init__(self, port: int, home: str):
        if port == SHARED_PORT:
            msg = f"port {SHARED_PORT} is the shared broker's; a campaign never stops it"
            raise ValueError(msg)
        self.port, self.home = port, home
        self.bootstrap = f"127.0.0.1:{port}"
        self.env = {**os.environ, "KAFKA_PORT": str(port), "KAFKA_HOME_DIR": home,
                    "KAFKA_CONTROLLER_PORT": str(port + 100), "PYTHON": sys.executable}

    def _script(self, *args: str, timeout: float = 300) -> str:
        proc = subprocess.run(["bash", str(SCRIPT), *args], env=self.env, capture_output=True, text=True,
                              timeout=timeout, check=False)
        if proc.returncode != 0:
            msg = f"kafka-local.sh {' '.join(args)} (port {self.port}) failed: {proc.stderr[-2000:]}"
            raise RuntimeError(msg)
        return proc.stdout

    def start(self) -> None:
        """Start it and wait until a transactional producer can commit (the script's readiness)."""
        self._script("start")

    def stop(self) -> None:
        """A controlled shutdown (SIGTERM; SIGKILL after 30 s)."""
        self._script("stop")

    def throttle_producers(self, byte_rate: int, exempt: str) -> None:
        """A producer byte-rate quota (bytes/s) for every client id but ``exempt`` (Kafka quotas)."""
        set_producer_byte_rate(self.bootstrap, byte_rate)
        set_producer_byte_rate(self.bootstrap, 10**12, exempt)

    def destroy(self) -> None:
        """Stop it (if it runs) and remove its state folder."""
        try:
            self.stop()
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


class JobProcess:
    """The unbounded job as one ``streamsql run`` subprocess, restarted after a kill."""

    def __init__(self, script: str, cwd: str, log):
        self.script, self.cwd, self.log = script, cwd, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the job (it resumes from its last committed checkpoint)."""
        self.proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", self.script], cwd=self.cwd,
                                     env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=self.log)

    def exited(self) -> int | None:
        """The exit code if the job ended by itself, else None."""
        return None if self.proc is None else self.proc.poll()

    def kill(self) -> None:
        """``kill -9`` the job."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()


#: How long a running job may go without completing a checkpoint before the campaign calls it stuck.
STALL_SECONDS = 120.0


def _checkpoints(work: str) -> set[str]:
    return {str(p) for p in Path(work, ".streamsql", "checkpoints").glob("*/chk-*/_metadata")}


def _wait_checkpoint(job: JobProcess, work: str) -> None:
    """Wait until the job completes a checkpoint it had not before (it runs mid-job, not starting).

    Raises:
        RuntimeError: the job ended by itself, or completed none for :data:`STALL_SECONDS`.
    """
    seen = _checkpoints(work)
    deadline = time.monotonic() + STALL_SECONDS
    while not _checkpoints(work) - seen:
        if time.monotonic() > deadline:
            msg = f"the job completed no checkpoint for {STALL_SECONDS:.0f} s"
            raise RuntimeError(msg)
        _sleep_watching(job, 0.2)


def _sleep_watching(job: JobProcess, seconds: float) -> None:
    """Sleep; raise RuntimeError as soon as the job ends by itself."""
    deadline = time.monotonic() + seconds
    while True:
        rc = job.exited()
        if rc is not None:
            msg = f"the job exited by itself with code {rc}"
            raise RuntimeError(msg)
        if time.monotonic() >= deadline:
            return
        time.sleep(0.2)


def faults(a: argparse.Namespace) -> list[str]:
    """The campaign's faults in order: broker restarts with the kills spread between and after."""
    plan: list[str] = []
    kills = a.kills
    for _ in range(a.broker_restarts):
        plan.append("broker")
        if kills:
            plan.append("kill")
            kills -= 1
    return plan + ["kill"] * kills


def broker_campaign(a: argparse.Namespace) -> int:
    """Run the campaign (see module docstring) on a private broker; returns the exit code."""
    home = tempfile.mkdtemp(prefix="streamsql-chaos-broker-")
    broker = PrivateBroker(a.broker_port or free_port_pair(), home)
    print(f"private broker on {broker.bootstrap} ({home})", flush=True)
    try:
        broker.start()
        a.bootstrap = broker.bootstrap
        if a.slow_sink:
            broker.throttle_producers(a.slow_sink, exempt=FEEDER_CLIENT)
        return _run(a, broker)
    finally:
        broker.destroy()


def _run(a: argparse.Namespace, broker: PrivateBroker) -> int:
    run = uuid.uuid4().hex[:8]
    src, out, job_name = f"chaos_in_{run}", f"chaos_out_{run}", f"chaos-{a.query}-{run}"
    chaos.create_topics(a.bootstrap, [(src, 3, {}), *chaos.output_topics(a.query, out, a.out_partitions)])
    records = chaos.make_records(a.records)
    done = threading.Event()
    feeder = threading.Thread(target=chaos.produce, args=(a.bootstrap, src, records, a.feed_seconds, done),
                              kwargs={"client_id": FEEDER_CLIENT}, daemon=True)
    work = tempfile.mkdtemp(prefix="streamsql-chaos-")
    restart = ("SET 'restart-strategy.type' = 'fixed-delay';\n"
               "SET 'restart-strategy.fixed-delay.attempts' = '1000';\n"
               "SET 'restart-strategy.fixed-delay.delay' = '2 s';\n")
    unbounded, bounded = chaos.write_scripts(a, work, job_name, src, out, prefix=restart)
    log_path = os.path.join(work, "jobs.log")
    log = open(log_path, "ab")
    job = JobProcess(unbounded, work, log)
    rnd = random.Random(a.seed)
    counts = {"broker_restarts": 0, "kills": 0}
    feeder.start()
    job.start()
    try:
        for fault in faults(a):
            _wait_checkpoint(job, work)
            _sleep_watching(job, rnd.uniform(a.min_kill, a.max_kill))
            if fault == "broker":
                broker.stop()
                t0 = time.monotonic()
                _sleep_watching(job, a.broker_down)
                broker.start()
                counts["broker_restarts"] += 1
                print(f"broker restart {counts['broker_restarts']}: down {a.broker_down:g} s, "
                      f"back after {time.monotonic() - t0:.0f} s", flush=True)
            else:
                job.kill()
                counts["kills"] += 1
                print(f"kill {counts['kills']}: kill -9", flush=True)
                job.start()
        while not done.wait(0.5) and feeder.is_alive():
            _sleep_watching(job, 0)
        _wait_checkpoint(job, work)  # it still runs and commits after the last fault
    except RuntimeError as e:
        print(f"{e}; see {log_path}", flush=True)
        return 1
    finally:
        job.kill()
    if not done.is_set():
        print("the feeder did not deliver every record", flush=True)
        return 1
    rc = chaos.run_job(bounded, work, dict(os.environ), None, log)
    log.close()
    if rc != 0:
        print(f"final bounded run failed with code {rc}; see {log_path}", flush=True)
        return 1
    with open(log_path, encoding="utf-8", errors="replace") as f:
        failures = len(re.findall(r"failed \(.*\); restart \d+/", f.read()))
    return chaos.verdict(a, records, out, f"broker_restarts={counts['broker_restarts']} "
                                          f"kills={counts['kills']} job_restarts_in_process={failures}")

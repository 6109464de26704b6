"""Start the project's local servers (``scripts/<name>-local.sh start``) once, for any test process.

Every server fixture (Kafka, S3Proxy, MariaDB, PostgreSQL) takes its address from an environment
variable when CI or the user set one; otherwise it runs the server's start script. The scripts are
idempotent, but two pytest-xdist workers starting the same server at the same moment would race
(both see it stopped, both launch it), so the start holds an exclusive file lock per script.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def local_service(script: str, env_key: str) -> str:
    """``host:port`` of a server: ``$env_key`` if set, else what ``scripts/<script> start`` printed last.

    Fails the test (not errors it) when the script fails, with the end of its stderr. The first
    start may download the server (Maven) or install it (apt), hence the long timeout.
    """
    address = os.environ.get(env_key)
    if address:
        return address
    lock = Path(tempfile.gettempdir()) / f"streamsql-{script}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        # PYTHON=this interpreter: kafka-local.sh's readiness probe imports confluent_kafka.
        proc = subprocess.run(["bash", str(SCRIPTS / script), "start"], capture_output=True, text=True,
                              env={**os.environ, "PYTHON": sys.executable}, timeout=900, check=False)
    if proc.returncode != 0:
        pytest.fail(f"scripts/{script} start failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    lines = proc.stdout.strip().splitlines()
    if not lines:
        pytest.fail(f"scripts/{script} start printed no address")
    return lines[-1]

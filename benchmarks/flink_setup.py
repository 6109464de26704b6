"""Where the ``flink`` contender comes from: a PyFlink interpreter and the Kafka SQL connector jar.

- :func:`flink_python`: ``$STREAMSQL_FLINK_PYTHON``, else ``/work/flinkvenv/bin/python`` when it
  imports PyFlink, else a venv under the cache made with ``pip install apache-flink==2.3.0``
  (PyFlink needs Java 17 on the path).
- :func:`kafka_jar`: ``flink-sql-connector-kafka`` 5.0.0-2.2 from Maven Central, checked against
  its published SHA-1 and cached.

Cache: ``$STREAMSQL_CACHE`` or ``~/.cache/streamsql`` (as ``scripts/kafka-local.sh``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

FLINK_VERSION = "2.3.0"
KAFKA_CONNECTOR = ("org.apache.flink", "flink-sql-connector-kafka", "5.0.0-2.2")
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
KNOWN_VENVS = [Path("/work/flinkvenv/bin/python")]


def cache_dir() -> Path:
    return Path(os.environ.get("STREAMSQL_CACHE") or Path.home() / ".cache" / "streamsql")


def _has_pyflink(python: Path) -> bool:
    probe = f"import pyflink.version as v; assert v.__version__ == '{FLINK_VERSION}', v.__version__"
    return python.exists() and subprocess.run([str(python), "-c", probe], capture_output=True).returncode == 0


def flink_python() -> str:
    """An interpreter that imports PyFlink :data:`FLINK_VERSION` (installing it once if none does).

    Raises:
        RuntimeError: the install failed (pip's last lines).
    """
    env = os.environ.get("STREAMSQL_FLINK_PYTHON")
    if env:
        return env
    cached = cache_dir() / f"pyflink-{FLINK_VERSION}" / "bin" / "python"
    for python in [*KNOWN_VENVS, cached]:
        if _has_pyflink(python):
            return str(python)
    venv = cached.parent.parent
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(cached), "-m", "pip", "install", f"apache-flink=={FLINK_VERSION}"],
                         capture_output=True, text=True)
    if pip.returncode != 0 or not _has_pyflink(cached):
        msg = f"could not install apache-flink=={FLINK_VERSION} into {venv}: {pip.stderr[-2000:]}"
        raise RuntimeError(msg)
    return str(cached)


def kafka_jar() -> str:
    """Path of the cached Kafka SQL connector jar (downloaded and SHA-1 checked on first use).

    Raises:
        RuntimeError: the download does not match Maven Central's checksum.
    """
    group, artifact, version = KAFKA_CONNECTOR
    name = f"{artifact}-{version}.jar"
    path = cache_dir() / "jars" / name
    if path.exists():
        return str(path)
    url = f"{MAVEN_CENTRAL}/{group.replace('.', '/')}/{artifact}/{version}/{name}"
    with urllib.request.urlopen(url, timeout=120) as r:
        data = r.read()
    with urllib.request.urlopen(url + ".sha1", timeout=30) as r:
        want = r.read().decode().split()[0]
    if hashlib.sha1(data).hexdigest() != want:  # noqa: S324  (Maven Central publishes SHA-1)
        msg = f"{url}: SHA-1 {hashlib.sha1(data).hexdigest()} != published {want}"  # noqa: S324
        raise RuntimeError(msg)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return str(path)

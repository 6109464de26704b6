"""Record what Apache Flink 2.3's SQL client prints for a ``-f`` script's queries (session 34).

Runs Flink's own ``SqlClient`` (embedded mode, ``execution.target`` local) from the PyFlink
install, with the ``flink-sql-gateway`` jar PyFlink lacks (fetched once with ``mvn
dependency:copy`` into ``~/.cache/streamsql/flink-sql-gateway``), on each script of
:data:`SCRIPTS`; a script with ``"sigint"`` gets a SIGINT (Ctrl-C) that many seconds after it
started; one with ``"tty"`` runs with a pty as its terminal (jline then takes the SIGINT: only
the query ends). Writes stdout (ANSI colours removed), the exit code and the SIGINT time to
``tests/shell/sql_client_flink.json``, which ``tests/shell/test_script_query.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_sql_client.py [NAME ...]
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "shell" / "sql_client_flink.json"
PYFLINK = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / \
    "site-packages" / "pyflink"
GATEWAY = Path.home() / ".cache" / "streamsql" / "flink-sql-gateway"

SCRIPTS: dict[str, dict] = {
    # bounded queries in tableau mode, an empty one, then 'changelog' refused (the file stops there)
    "modes": {"sql": """SET 'sql-client.execution.result-mode' = 'tableau';
SELECT * FROM (VALUES (1, 'a', 2.5, TRUE), (2, CAST(NULL AS STRING), 3.25, FALSE)) AS t(a, b, c, d);
SELECT a, COUNT(*) AS n FROM (VALUES (1), (1), (2)) AS t(a) GROUP BY a;
SELECT * FROM (VALUES (1)) AS t(a) WHERE a > 5;
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT 1 AS x;
SELECT 2 AS y;
"""},
    # an unbounded query of every width class ended by Ctrl-C; the script goes on; 'table' refused
    # (the SET first: Flink's client defaults to 'table', which -f refuses: recorded in "default_mode")
    "ctrl_c": {"sigint": 40, "sql": """SET 'sql-client.execution.result-mode' = 'tableau';
CREATE TABLE g (id BIGINT, s STRING, d DOUBLE, ts TIMESTAMP(3), """
               """amt DECIMAL(10, 2), f FLOAT, ti TINYINT, si SMALLINT, dt DATE, tm TIME(0), """
               """lt TIMESTAMP_LTZ(6), b BOOLEAN) WITH ('connector' = 'datagen', 'rows-per-second' = '1', """
               """'fields.s.length' = '40');
SELECT * FROM g;
SELECT 'after' AS x;
SET 'sql-client.execution.result-mode' = 'table';
SELECT 'bad' AS y;
SELECT 'never' AS z;
"""},
    # the same with the client in a terminal (a pty): jline's terminal takes the SIGINT
    "ctrl_c_tty": {"sigint": 40, "tty": True, "sql": None},
    # no SET: Flink's default result mode is 'table', so the script's query is refused
    "default_mode": {"sql": "SELECT 1 AS x;\nSELECT 2 AS y;\n"},
}


def _gateway_jar() -> Path:
    """The flink-sql-gateway 2.3.0 jar (PyFlink ships the client without it)."""
    jar = GATEWAY / "flink-sql-gateway-2.3.0.jar"
    if not jar.exists():
        subprocess.run(["mvn", "-q", "dependency:copy", "-Dartifact=org.apache.flink:flink-sql-gateway:2.3.0",
                        f"-DoutputDirectory={GATEWAY}"], check=True)
    return jar


def _command(script: Path, logs: Path) -> list[str]:
    jars = sorted(str(p) for p in (PYFLINK / "lib").glob("*.jar"))
    jars += [str(PYFLINK / "opt" / "flink-sql-client-2.3.0.jar"),
             str(PYFLINK / "opt" / "flink-python-2.3.0.jar"), str(_gateway_jar())]
    return ["java", "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            f"-Dlog.file={logs / 'client.log'}",
            f"-Dlog4j.configurationFile=file:{PYFLINK / 'conf' / 'log4j-cli.properties'}",
            "-classpath", os.pathsep.join(jars), "org.apache.flink.table.client.SqlClient",
            "-Dexecution.target=local", "-f", str(script)]


def _in_terminal(command: list[str], folder: Path, env: dict, sigint: float) -> tuple[int, str]:
    """Run ``command`` in a pty (its terminal); SIGINT after ``sigint`` seconds; (exit code, output)."""
    master, slave = pty.openpty()
    def controlling() -> None:  # the pty becomes the client's controlling terminal, as a shell's
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen(command, cwd=folder, env=env, stdin=slave, stdout=slave,
                            stderr=subprocess.DEVNULL, preexec_fn=controlling)  # noqa: PLW1509
    os.close(slave)
    chunks, start, sent = [], time.monotonic(), False
    while True:
        if not sent and time.monotonic() - start > sigint:
            proc.send_signal(signal.SIGINT)
            sent = True
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data and proc.poll() is not None:
                break
            chunks.append(data)
        elif proc.poll() is not None or time.monotonic() - start > 300:
            break
    if proc.poll() is None:
        proc.kill()
    os.close(master)
    return proc.wait(), b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")


def run(name: str) -> dict:
    """Run one script through Flink's SQL client: its stdout, exit code and SIGINT time."""
    case = SCRIPTS[name]
    sql = case["sql"] or SCRIPTS[name.removesuffix("_tty")]["sql"]
    folder = Path(tempfile.mkdtemp(prefix=f"flink_sql_client_{name}_"))
    script = folder / "s.sql"
    script.write_text(sql)
    env = {**os.environ, "FLINK_CONF_DIR": str(PYFLINK / "conf"), "FLINK_HOME": str(PYFLINK)}
    if case.get("tty"):
        rc, out = _in_terminal(_command(script, folder), folder, env, case["sigint"])
    else:
        proc = subprocess.Popen(_command(script, folder), cwd=folder, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        if case.get("sigint"):
            time.sleep(case["sigint"])
            proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
        rc = proc.returncode
    return {"sql": sql, "sigint": case.get("sigint"), "tty": bool(case.get("tty")), "rc": rc,
            "stdout": re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out)}


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers to :data:`OUT`."""
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    for name in argv or list(SCRIPTS):
        old[name] = run(name)
        OUT.write_text(json.dumps(old, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

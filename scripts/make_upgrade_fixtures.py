r"""Write the upgrade-compatibility fixtures: one checkpoint per stateful operator kind.

Run it with the StreamSQL whose checkpoints the fixtures should hold (the reference version),
from this tree (the script only drives that version's ``streamsql`` command)::

    git worktree add /tmp/ref <commit> && python3 -m venv /tmp/ref/.venv \\
        && /tmp/ref/.venv/bin/pip install -q -e /tmp/ref
    python scripts/make_upgrade_fixtures.py --streamsql /tmp/ref/.venv/bin/streamsql

Per case (:data:`CASES`: a fixed script over fixed input files, written into
``tests/upgrade/fixtures/<case>/``):

1. an uninterrupted run of the script, its output materialized (changelog applied): the
   expected final result, ``expected.json``;
2. a run killed (``STREAMSQL_FAULT=after_commit_before_bookkeeping:<n>``) right after it
   committed checkpoint ``n``, kept only when that checkpoint's source position lies inside the
   input (rows read before it and after it);
3. a rerun of the killed run with the same version must say ``resumed from checkpoint #n`` and
   give the expected final result (else another ``n`` is tried);
4. the killed run's folder is kept: ``job.sql``, ``output/`` (what the sink had written up to the
   checkpoint) and ``checkpoints/<job>/`` (``_job``, ``_committed``, ``_tasks`` and the committed
   ``chk-<n>``; not ``_lock``, which names the dead process); the input files, the same for every
   case, once in ``tests/upgrade/fixtures/input/`` (a test copies them into the case's folder).

``tests/upgrade/fixtures/MANIFEST.json`` records the commit they were written at.
``tests/upgrade/test_upgrade_fixtures.py`` restores each with today's code.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "tests", "upgrade", "fixtures")
BASE = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)

# Every script: small batches and frequent checkpoints so that a checkpoint falls inside the input;
# no restarts (a refused restore fails at once); checkpoints in the fixture's own folder.
SETTINGS = """SET 'execution.checkpointing.interval' = '20 ms';
SET 'execution.batch-size' = '20';
SET 'restart-strategy.type' = 'none';
SET 'execution.checkpointing.dir' = 'checkpoints';
SET 'state.dir' = 'state';
SET 'state.backend.type' = '{backend}';
"""
TICKS = """CREATE TABLE ticks (id INT, k INT, s STRING, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'input/ticks', 'format' = 'json');
"""
CLICKS = """CREATE TABLE clicks (cid INT, k INT, w INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'input/clicks', 'format' = 'json');
"""
RATES = """CREATE TABLE rates (k INT, rate INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'input/rates', 'format' = 'debezium-json');
"""
SEQ = """CREATE TABLE seq (id BIGINT, v INT)
  WITH ('connector' = 'datagen', 'number-of-rows' = '400', 'rows-per-second' = '2000',
        'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '400',
        'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '400');
"""


def _sink(columns: str) -> str:
    return (f"CREATE TABLE `out` ({columns})\n  WITH ('connector' = 'filesystem', 'path' = 'output/', "
            "'format' = 'debezium-json');\n")


#: case -> (state backends, tables, sink columns, INSERT). Each case is one stateful operator kind.
CASES: dict[str, tuple[tuple[str, ...], str, str, str]] = {
    "group_agg": (("hashmap", "rocksdb"), TICKS, "k INT, n BIGINT, a INT, m INT, d BIGINT, big INT",
                  "INSERT INTO `out` SELECT k, COUNT(*), AVG(v), MAX(v), COUNT(DISTINCT v), "
                  "SUM(v) FILTER (WHERE v > 50) FROM ticks GROUP BY k;"),
    "group_agg_string_key": (("hashmap",), TICKS, "s STRING, n BIGINT, total INT",
                             "INSERT INTO `out` SELECT s, COUNT(*), SUM(v) FROM ticks GROUP BY s;"),
    "tumble": (("hashmap", "rocksdb"), TICKS,
               "ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, total INT",
               "INSERT INTO `out` SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE("
               "TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
               "GROUP BY window_start, window_end, k;"),
    "hop": (("hashmap",), TICKS, "ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, m INT",
            "INSERT INTO `out` SELECT window_start, window_end, k, COUNT(*), MAX(v) FROM TABLE("
            "HOP(TABLE ticks, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) "
            "GROUP BY window_start, window_end, k;"),
    "cumulate": (("hashmap",), TICKS, "ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, total INT",
                 "INSERT INTO `out` SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE("
                 "CUMULATE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) "
                 "GROUP BY window_start, window_end, k;"),
    "session": (("hashmap",), TICKS, "ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, total INT",
                "INSERT INTO `out` SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE("
                "SESSION(TABLE ticks PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND)) "
                "GROUP BY window_start, window_end, k;"),
    "regular_join": (("hashmap", "rocksdb"), TICKS + CLICKS, "id INT, cid INT, k INT, v INT, w INT",
                     "INSERT INTO `out` SELECT t.id, c.cid, t.k, t.v, c.w FROM ticks t "
                     "JOIN clicks c ON t.k = c.k AND t.v / 4 = c.w / 4;"),
    "interval_join": (("hashmap",), TICKS + CLICKS, "id INT, cid INT, k INT, v INT, w INT",
                      "INSERT INTO `out` SELECT t.id, c.cid, t.k, t.v, c.w FROM ticks t, clicks c "
                      "WHERE t.k = c.k AND c.ts BETWEEN t.ts - INTERVAL '3' SECOND "
                      "AND t.ts + INTERVAL '3' SECOND;"),
    "temporal_join": (("hashmap",), TICKS + RATES, "id INT, k INT, v INT, rate INT",
                      "INSERT INTO `out` SELECT t.id, t.k, t.v, r.rate FROM ticks t "
                      "JOIN rates FOR SYSTEM_TIME AS OF t.ts AS r ON t.k = r.k;"),
    "top_n": (("hashmap",), TICKS, "k INT, id INT, v INT, rn BIGINT",
              "INSERT INTO `out` SELECT k, id, v, rn FROM (SELECT k, id, v, ROW_NUMBER() OVER "
              "(PARTITION BY k ORDER BY v DESC, id) AS rn FROM ticks) WHERE rn <= 3;"),
    "dedup": (("hashmap",), TICKS, "s STRING, id INT, v INT",
              "INSERT INTO `out` SELECT s, id, v FROM (SELECT s, id, v, ROW_NUMBER() OVER "
              "(PARTITION BY s ORDER BY ts ASC) AS rn FROM ticks) WHERE rn = 1;"),
    "over_agg": (("hashmap",), TICKS, "id INT, k INT, v INT, total INT, n BIGINT",
                 "INSERT INTO `out` SELECT id, k, v, SUM(v) OVER w, COUNT(*) OVER w FROM ticks "
                 "WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND "
                 "PRECEDING AND CURRENT ROW);"),
    "match_recognize": (("hashmap",), TICKS, "k INT, first_id INT, last_id INT, n BIGINT",
                        "INSERT INTO `out` SELECT * FROM ticks MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts "
                        "MEASURES FIRST(UP.id) AS first_id, LAST(UP.id) AS last_id, COUNT(UP.id) AS n "
                        "ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW "
                        "PATTERN (LOW UP{2,} DOWN) DEFINE LOW AS LOW.v < 30, UP AS UP.v >= 30, "
                        "DOWN AS DOWN.v < 30) AS m;"),
    "datagen_group_agg": (("hashmap",), SEQ, "b INT, n BIGINT, total BIGINT",
                          "INSERT INTO `out` SELECT CAST(id % 5 AS INT), COUNT(*), SUM(id) FROM seq "
                          "GROUP BY CAST(id % 5 AS INT);"),
}


def _ts(ms: int) -> str:
    return (BASE + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def write_inputs(folder: str) -> None:
    """The fixed input files (seeded): ticks 400 rows, clicks 120, rates 30 versions."""
    rnd = random.Random(24)
    rows, t = [], 0
    for i in range(400):
        t += rnd.choice([0, 250, 500, 1000, 3000 if rnd.random() < 0.1 else 500])
        rows.append({"id": i, "k": rnd.randint(0, 5), "s": f"u{rnd.randint(0, 39)}", "v": rnd.randint(0, 99),
                     "ts": _ts(t)})
    end = t
    clicks = []
    for i in range(120):
        at = rnd.randint(0, end)
        clicks.append({"cid": i, "k": rnd.randint(0, 5), "w": rnd.randint(0, 99), "ts": _ts(at)})
    clicks.sort(key=lambda r: r["ts"])
    rates, live = [], {}
    for n, at in enumerate(sorted(rnd.randint(0, end) for _ in range(30))):
        k = rnd.randint(0, 5) if n >= 6 else n  # every key has a version from the start
        row = {"k": k, "rate": rnd.randint(1, 9), "ts": _ts(0 if n < 6 else at)}
        rates.append({"before": live.get(k), "after": row, "op": "u" if k in live else "c"})
        live[k] = row
    for name, data in (("ticks", rows), ("clicks", clicks), ("rates", rates)):
        os.makedirs(os.path.join(folder, "input", name), exist_ok=True)
        with open(os.path.join(folder, "input", name, "part-0.json"), "w") as f:
            f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in data)


def script(case: str, backend: str) -> str:
    """The case's script for ``backend``."""
    _, tables, columns, insert = CASES[case]
    return SETTINGS.format(backend=backend) + tables + _sink(columns) + insert + "\n"


def materialize(folder: str) -> list[list]:
    """The sink's final table: its debezium-json changelog under ``folder/output`` applied, sorted.

    The files are applied oldest first (by modification time).

    Raises:
        AssertionError: a retraction of a row that is not in the table.
    """
    table: Counter = Counter()
    # in the order they were written (a restored run's part files come after the old run's file;
    # their names, part-<uuid>-..., do not sort so); glob skips the sink's hidden in-progress files
    written = glob.glob(os.path.join(folder, "output", "*"))
    for path in sorted(written, key=lambda p: (os.path.getmtime(p), p)):
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                event = json.loads(line)
                before, after = event.get("before"), event.get("after")
                if before is not None and event["op"] in ("u", "d"):
                    key = json.dumps(before, sort_keys=True)
                    assert table[key] > 0, f"{path}: retracts a row it does not hold: {line}"
                    table[key] -= 1
                if after is not None and event["op"] in ("c", "r", "u"):
                    table[json.dumps(after, sort_keys=True)] += 1
    rows = [json.loads(k) for k, n in table.items() for _ in range(n)]
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def run(cli: str, folder: str, fault: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``streamsql run job.sql`` in ``folder`` (optionally killed at fault point ``fault``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMSQL_FAULT")}
    if fault:
        env["STREAMSQL_FAULT"] = fault
    return subprocess.run([cli, "run", "job.sql"], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=timeout)


def job_folder(folder: str) -> str:
    """The one job folder under ``folder/checkpoints``."""
    (found,) = glob.glob(os.path.join(folder, "checkpoints", "*"))
    return found


def _cut(folder: str) -> tuple[int, dict] | None:
    """(committed checkpoint, its positions) when a source's position lies inside its input, else None."""
    job = job_folder(folder)
    committed = int(open(os.path.join(job, "_committed")).read().strip())
    with open(os.path.join(job, f"chk-{committed}", "_metadata")) as f:
        positions = json.load(f).get("positions", {})
    # at least one source read part of its input (the others may not have started, or be done)
    inside = any(not p.get("done") and (p.get("line", 0) > 0 or 0 < p.get("rows", 0) < 400)
                 for p in positions.values())
    return (committed, positions) if inside else None


def make_case(cli: str, case: str, backend: str, scratch: str) -> dict:
    """Write the fixture ``<case>_<backend>``; returns its manifest entry."""
    name = f"{case}_{backend}"
    base = os.path.join(scratch, name)
    os.makedirs(base)
    write_inputs(base)
    with open(os.path.join(base, "job.sql"), "w") as f:
        f.write(script(case, backend))
    whole = base + "-whole"
    shutil.copytree(base, whole)
    done = run(cli, whole)
    if done.returncode != 0:
        msg = f"{name}: the uninterrupted run failed:\n{done.stderr}"
        raise SystemExit(msg)
    expected = materialize(whole)
    for n in range(2, 40):
        attempt = f"{base}-kill{n}"
        shutil.copytree(base, attempt)
        killed = run(cli, attempt, fault=f"after_commit_before_bookkeeping:{n}")
        if killed.returncode != 137:
            break  # finished before checkpoint n: later ones will not come either
        cut = _cut(attempt)
        if cut is None:
            continue
        check = attempt + "-resumed"
        shutil.copytree(attempt, check)
        again = run(cli, check)
        if (again.returncode != 0 or f"resumed from checkpoint #{cut[0]}" not in again.stderr
                or materialize(check) != expected):
            print(f"{name}: the restore of checkpoint {cut[0]} did not give the uninterrupted result; "
                  "trying another", file=sys.stderr)
            continue
        return _keep(attempt, os.path.join(OUT, name), expected, *cut)
    msg = f"{name}: no checkpoint fell inside the input"
    raise SystemExit(msg)


def _keep(attempt: str, target: str, expected: list, checkpoint: int, positions: dict) -> dict:
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    shutil.copy(os.path.join(attempt, "job.sql"), target)
    shared = os.path.join(OUT, "input")  # the same files for every case: kept once
    if not os.path.isdir(shared):
        shutil.copytree(os.path.join(attempt, "input"), shared)
    shutil.copytree(os.path.join(attempt, "output"), os.path.join(target, "output"))
    job = job_folder(attempt)
    dest = os.path.join(target, "checkpoints", os.path.basename(job))
    os.makedirs(dest)
    for f in ("_job", "_committed", "_tasks"):
        shutil.copy(os.path.join(job, f), dest)
    shutil.copytree(os.path.join(job, f"chk-{checkpoint}"), os.path.join(dest, f"chk-{checkpoint}"))
    entry = {"job": os.path.basename(job), "checkpoint": checkpoint, "positions": positions}
    with open(os.path.join(target, "expected.json"), "w") as f:  # a row a line
        head = json.dumps(entry, sort_keys=True)[:-1]
        rows = ",\n".join(json.dumps(r, sort_keys=True) for r in expected)
        f.write(head + ', "rows": [\n' + rows + "\n]}\n")
    return entry


def _commit_of(cli: str) -> str:
    """The commit of the tree ``cli`` runs (refused when its engine files have changes)."""
    ask = "import os, streamsql; print(os.path.dirname(os.path.dirname(streamsql.__file__)))"
    where = subprocess.run([os.path.join(os.path.dirname(cli), "python"), "-c", ask],
                           capture_output=True, text=True, check=True, cwd="/").stdout.strip()  # not ours
    dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--", "streamsql", "connectors",
                            "shell"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if dirty:
        msg = f"{where} has uncommitted engine changes:\n{dirty}"
        raise SystemExit(msg)
    return subprocess.run(["git", "-C", where, "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def main(argv: list[str] | None = None) -> None:
    """Write every fixture (or those named) with the given ``streamsql`` command."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streamsql", required=True, help="the reference version's streamsql command")
    parser.add_argument("cases", nargs="*", help="<case>_<backend> names (default: all)")
    args = parser.parse_args(argv)
    cli = os.path.abspath(args.streamsql)
    commit = _commit_of(cli)
    manifest_path = os.path.join(OUT, "MANIFEST.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {"cases": {}}
    if args.cases and manifest.get("commit") not in (None, commit):
        msg = f"the other fixtures were written at {manifest['commit']}: regenerate all of them"
        raise SystemExit(msg)
    wanted = [(c, b) for c, (backends, *_) in CASES.items() for b in backends
              if not args.cases or f"{c}_{b}" in args.cases]
    os.makedirs(OUT, exist_ok=True)
    if not args.cases:
        shutil.rmtree(os.path.join(OUT, "input"), ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="upgrade-fixtures-") as scratch:
        for case, backend in wanted:
            entry = make_case(cli, case, backend, scratch)
            manifest["cases"][f"{case}_{backend}"] = entry
            print(f"{case}_{backend}: checkpoint {entry['checkpoint']} at {entry['positions']}")
    manifest.update(commit=commit, written=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

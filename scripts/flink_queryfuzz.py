r"""Record Apache Flink 2.3's answers to the random queries of ``tests/runtime/query_fuzz.py``.

For each seed of a range, the generator's query (its Flink text) runs on PyFlink's local
mini-cluster in streaming mode, over the generator's own tables (``t``, the debezium changelogs
``cdc`` and ``cdx``, the event-time ``tw``: the same files and DDL as the DuckDB oracle, written by
this project's venv, bounded filesystem sources); the query's changelog is collected and folded
into its final rows. The answers go into a JSON document (format: ``tests/runtime/flink_queries.py``)
that ``tests/runtime/test_query_fuzz_flink.py`` replays on StreamSQL without Flink: result types,
the rows as a multiset, or Flink's refusal (planning) or job failure.

How: workers (fresh processes, so fresh JVMs) take ``--recycle`` queries each, and append each
seed's answer to a journal as soon as it has it (one JSON line, flushed); a worker that answers
nothing for ``--stall`` seconds is killed and its seed recorded as skipped. The whole run stops
after ``--budget`` seconds (keep one hold of the Flink lock under 10 minutes): rerun the same command
to resume from the journal; the document is written once every seed is answered.

Usage (serialized with the other Flink users)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_queryfuzz.py --seeds 0:100
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_queryfuzz.py --seeds 100:200  # adds them
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_queryfuzz.py --seeds 0:50 --out /tmp/q.json

``--out`` defaults to the committed fixture; seeds already in the output document are kept, not
rerun (``--redo`` runs them again). ``--partial --budget 0`` writes the document with the seeds the
journal holds so far (no Flink run: no lock needed). Seeds from 100000 are the typed generator's
(``tests/runtime/query_fuzz_typed.py``).

Queries whose result types print unambiguously run ``--together`` at a time as one job, a print
sink each (``'print-identifier'`` the seed), their lines read back into values; the others, and
the queries of a job that failed, are collected one by one (``TableResult.collect``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import struct
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "tests" / "runtime")]  # no StreamSQL in the Flink venv

import flink_queries as fq  # noqa: E402
from flink_compat import Capture, _error_text  # noqa: E402
from flink_session import add_driver_arguments, drive_workers, run_client  # noqa: E402
from flink_session import read_journal as read_records  # noqa: E402

#: Run in this project's venv: the data files, the tables' DDL (query_fuzz.create_tables, recorded)
#: and the seeds' queries, as JSON on stdout.
PREPARE = r"""
import hashlib, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.runtime.query_fuzz_typed import make_flink_query
from tests.runtime.query_fuzz_wide import ALONE_SHAPES, all_files, create_all_tables
from tests.runtime.query_fuzz_v7 import DEFAULTS as V7_DEFAULTS

class Recorder:
    def __init__(self):
        self.ddl = []
    def execute_sql(self, sql):
        self.ddl.append(sql)

folder = Path(sys.argv[2])
folder.mkdir(parents=True, exist_ok=True)
files = all_files(folder)
rec = Recorder()
create_all_tables(rec, files)
queries = []
for seed in json.loads(sys.argv[3]):
    q = make_flink_query(seed)
    queries.append({"seed": seed, "shape": q.shape, "source": q.source, "query": q.flink,
                    **({"config": q.config} if q.config else {})})
digest = {k: hashlib.sha256(p.read_bytes()).hexdigest() for k, p in files.items()}
print(json.dumps({"ddl": rec.ddl, "data": digest, "queries": queries, "alone": list(ALONE_SHAPES),
                  "defaults": V7_DEFAULTS}))
"""


def prepare(seeds: list[int], folder: Path) -> dict:
    """``{"ddl", "data", "queries"}`` for ``seeds``, the data files written into ``folder``."""
    return json.loads(run_client(PREPARE, str(ROOT), str(folder), json.dumps(seeds)))


# -- the worker: one JVM, a share of the seeds ------------------------------------------------------

def _value(text: str, type_text: str):
    """A printed cell (Flink's ``Row.toString`` of the external value) back as that value."""
    t = type_text.replace(" NOT NULL", "").replace(" *ROWTIME*", "")
    if text == "null":
        return None
    if t in ("INT", "BIGINT", "SMALLINT", "TINYINT"):
        return int(text)
    if t.startswith("DECIMAL"):
        return Decimal(text)
    if t == "FLOAT":  # Float.toString: the shortest text of the float, read back as that float
        return struct.unpack("f", struct.pack("f", float(text)))[0]
    if t == "DOUBLE":
        return float(text)
    if t == "BOOLEAN":
        return text == "true"
    if t.startswith("TIMESTAMP_LTZ"):  # an Instant: `2024-01-01T00:00:00Z`, as StreamSQL's aware UTC value
        return dt.datetime.fromisoformat(text).astimezone(dt.timezone.utc)
    if t.startswith("TIMESTAMP"):
        return dt.datetime.fromisoformat(text)
    if t == "DATE":
        return dt.date.fromisoformat(text)
    return text


PRINTABLE = re.compile(r"^(INT|BIGINT|SMALLINT|TINYINT|DECIMAL\(\d+, \d+\)|DOUBLE|FLOAT|BOOLEAN|DATE|"
                       r"TIMESTAMP\(\d\)|TIMESTAMP_LTZ\(\d\)|STRING|VARCHAR\(\d+\)|CHAR\(\d+\))"
                       r"( NOT NULL)?( \*ROWTIME\*)?$")
"""The types whose printed text reads back as the value (strings: none of the tables' words holds
``", "``, which separates cells)."""
#: Errors of PyFlink's collect converting a value, not of Flink's job: a TIMESTAMP_LTZ (Pickle), a
#: FLOAT Infinity (``ast.literal_eval``). Such a seed is skipped (its types print: the recorder then
#: reads the print sink's lines instead).
PYFLINK_FAULTS = ("PickleException", "malformed node or string")
#: ... and a DATE or TIMESTAMP outside Python's years 1..9999 (``0001-01-02`` minus 25 hours).
PYTHON_YEAR = re.compile(r"year -?\d+ is out of range")
ROW = re.compile(r"^q(\d+)> ([+-][IUD])\[(.*)\]$")


def _items(text: str) -> list[str]:
    """The comma-separated items of a plan node's ``name=[...]`` list (brackets and parentheses nest)."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*items, cur.strip()] if cur.strip() else items


def _attr(line: str, name: str) -> list[str] | None:
    """A plan line's ``name=[...]`` items (None: the node has no such attribute)."""
    start = line.find(f"{name}=[")
    if start < 0:
        return None
    i, depth = start + len(name) + 2, 1
    for j in range(i, len(line)):
        depth += {"[": 1, "]": -1}.get(line[j], 0)
        if depth == 0:
            return _items(line[i:j])
    return None


def upsert_key(table) -> list[int] | None:
    """The result columns (indices) that key Flink's upsert changelog of a Top-N, or None (unknown).

    Flink drops a Top-N's ``-U`` when nothing downstream needs it (the Top-1 of an append-only
    input: ``+I`` then ``+U`` keyed by the partition). Its unique key (Flink's ``Rank`` upsert
    keys): the partition columns for a Top-1, with the row number for a Top-N that outputs it.
    Read off the optimized plan: the root ``Calc``'s select list (if any) over the ``Rank``.
    """
    plan_text = table.explain().split("== Optimized Physical Plan ==")[1].split("== ")[0]
    lines = [ln.strip().lstrip(":+- ") for ln in plan_text.strip().splitlines()]
    rank = next((ln for ln in lines if ln.startswith("Rank(")), None)
    if rank is None:
        return None
    parts, rank_out = _attr(rank, "partitionBy") or [], _attr(rank, "select") or []
    end = re.search(r"rankEnd=(\d+)", rank)
    names = rank_out
    if lines[0].startswith("Calc(") and lines[1].startswith("Rank("):
        # the output's names: `g`, `x AS y` (a constant row number `1:BIGINT AS $3` names nothing)
        names = [it.split(" AS ")[0] if re.fullmatch(r"[\w$]+( AS [\w$]+)?", it) else None
                 for it in _attr(lines[0], "select") or []]
    elif not lines[0].startswith("Rank("):
        return None
    key = [names.index(p) for p in parts if p in names]
    if len(key) != len(parts):
        return None
    if end and int(end.group(1)) > 1:  # rows 1..N of a partition: the row number tells them apart
        rn = rank_out[-1] if rank_out and "$" in rank_out[-1] else None  # `w0$o0`: the row number
        if rn not in names:
            return None
        key.append(names.index(rn))
    return key


def fold(table, changes: list) -> list[list]:
    """``changes`` folded into the final rows (by :func:`upsert_key` if an upsert changelog).

    An upsert changelog: Flink emitted ``+U`` without ``-U``; otherwise a retract stream.

    Raises:
        ValueError: an upsert changelog whose key the plan does not tell (the seed is then skipped,
            not recorded with rows that may be wrong).
    """
    if not fq.upsert_only(changes):
        return fq.fold(changes)
    key = upsert_key(table)
    if key is None:
        msg = "Flink's changelog has +U without -U, and the plan names no upsert key"
        raise ValueError(msg)
    return fq.fold(changes, key)


CASE_KEYS = ("seed", "shape", "source", "query", "config")
"""The keys of a case the generator wrote (``config``: the options the query runs with, if any)."""
LOG_FROM = 600_000
"""Seeds from here (the v7 generator's) record Flink's changelog too (``log``) when it updates, as long as
:data:`LOG_LIMIT` changes."""
LOG_LIMIT = 600


def _head(case: dict) -> dict:
    """``case``'s generator keys (:data:`CASE_KEYS`)."""
    return {k: case[k] for k in CASE_KEYS if k in case}


def with_log(out: dict, changes: list) -> dict:
    """``out`` with Flink's changelog ``log`` when the seed's changelog updates.

    ``log``: ``[kind, cells]`` pairs in Flink's order, kept when the seed is from :data:`LOG_FROM`, the
    changelog holds a ``-U`` / ``+U`` / ``-D`` and at most :data:`LOG_LIMIT` changes (an insert-only
    changelog is its rows).
    """
    if (out["seed"] >= LOG_FROM and len(changes) <= LOG_LIMIT
            and any(kind != "+I" for kind, _ in changes)):
        return {**out, "log": [[kind, cells] for kind, cells in changes]}
    return out


def configure(tenv, case: dict, defaults: dict) -> None:
    """Set ``case``'s ``config`` on ``tenv`` (no config: ``defaults``, Flink's own values)."""
    for k, v in {**defaults, **case.get("config", {})}.items():
        tenv.get_config().set(k, v)


def plan(tenv, case: dict) -> tuple[dict, object]:
    """``case`` with Flink's ``columns``/``types`` (and its Table), or with its ``refused`` error.

    Refused: by validation or by the optimizer (EXPLAIN).
    """
    out = dict(case)
    try:
        table = tenv.sql_query(case["query"])
        schema = table._j_table.getResolvedSchema()
        out["columns"] = [str(n) for n in schema.getColumnNames()]
        out["types"] = [str(t.toString()) for t in schema.getColumnDataTypes()]
        table.explain()  # the optimizer's refusals too (RANK on a stream), before a job is shared
        return out, table
    except Exception as err:  # noqa: BLE001  (Flink's refusal is an answer)
        out["refused"] = _error_text(err)
        return out, None


def answer(tenv, case: dict) -> dict:
    """Flink's answer to one case's query, collected: its types and folded rows, its refusal or failure."""
    out, table = plan(tenv, case)
    if table is None:
        return out
    try:
        with table.execute().collect() as rows:
            changes = [(str(r.get_row_kind()), [fq.cell(v) for v in r]) for r in rows]
    except Exception as err:  # noqa: BLE001  (a failing job is an answer)
        text = fq.text_columns(out["types"])
        if text and any(m in _error_text(err) for m in (*PYFLINK_FAULTS, "Ran out of input")):
            return answer_as_text(tenv, case, out, text)
        if any(m in _error_text(err) for m in PYFLINK_FAULTS) or PYTHON_YEAR.search(_error_text(err)):
            # PyFlink cannot hand the value over
            return {**_head(case),
                    "skipped": f"PyFlink's collect cannot convert a value: {_error_text(err)[:200]}"}
        out["error"] = _error_text(err)
        return out
    try:
        out["rows"] = fold(table, changes)
        out["changes"] = len(changes)
        out = with_log(out, changes)
    except ValueError as err:  # (no rows we cannot vouch for)
        return {**_head(case), "skipped": str(err)}
    return out


def answer_as_text(tenv, case: dict, out: dict, text: list[int]) -> dict:
    """Flink's answer with the columns ``text`` collected as their CAST to STRING (:func:`fq.text_query`).

    PyFlink's collect could not hand their values over (an ARRAY holding a NULL, a TIME).
    """
    table = tenv.sql_query(fq.text_query(case["query"], out["columns"], text))
    try:
        with table.execute().collect() as rows:
            changes = [(str(r.get_row_kind()), [fq.cell(v) for v in r]) for r in rows]
    except Exception as err:  # noqa: BLE001  (a failing job is an answer)
        if any(m in _error_text(err) for m in PYFLINK_FAULTS):  # another column (a TIMESTAMP_LTZ)
            return {**_head(case),
                    "skipped": f"PyFlink's collect cannot convert a value: {_error_text(err)[:200]}"}
        return {**out, "error": _error_text(err)}
    try:
        return with_log({**out, "text": text, "rows": fold(table, changes), "changes": len(changes)}, changes)
    except ValueError as err:
        return {**_head(case), "skipped": str(err)}


def answer_together(tenv, capture, planned: list[tuple[dict, object]]) -> list[dict] | None:
    """The answers of several planned queries run as one job (a print sink each, its lines read back).

    None when the job fails or a line does not read back (the caller runs them one by one).
    """
    stmt = tenv.create_statement_set()
    for case, table in planned:
        cols = ", ".join(f"c{i} {t.replace(' *ROWTIME*', '')}" for i, t in enumerate(case["types"]))
        tenv.execute_sql(f"CREATE TEMPORARY TABLE p{case['seed']} ({cols}) WITH ('connector' = 'print', "
                         f"'print-identifier' = 'q{case['seed']}')")
        stmt.add_insert(f"p{case['seed']}", table)
    start = capture.mark()
    try:
        stmt.execute().wait()
    except Exception:  # noqa: BLE001  (one query's failure fails them all: run them alone)
        return None
    finally:
        for case, _ in planned:
            tenv.execute_sql(f"DROP TEMPORARY TABLE p{case['seed']}")
    changes: dict[int, list] = {case["seed"]: [] for case, _ in planned}
    types = {case["seed"]: case["types"] for case, _ in planned}
    for line in capture.since(start):
        m = ROW.match(line.rstrip("\r\n"))
        if not m or int(m.group(1)) not in changes:
            continue
        seed, body = int(m.group(1)), m.group(3)
        cells = body.split(", ") if types[seed] else []
        if len(types[seed]) == 1:
            cells = [body]
        if len(cells) != len(types[seed]):
            return None
        try:
            changes[seed].append((m.group(2), [fq.cell(_value(c, t)) for c, t in zip(cells, types[seed])]))
        except ValueError:  # a date Python cannot hold: alone, the seed is skipped
            return None
    try:
        return [with_log({**case, "rows": fold(table, changes[case["seed"]]),
                          "changes": len(changes[case["seed"]])}, changes[case["seed"]])
                for case, table in planned]
    except ValueError:  # an upsert changelog without a known key: alone, the seed is skipped
        return None


def worker(cases: list[dict], ddl: list[str], journal: Path, recycle: int, deadline: float,
           together: int, alone: tuple[str, ...] = (), defaults: dict | None = None) -> int:
    """Answer ``cases`` in one table environment, appending each answer to ``journal`` at once.

    ``together`` queries whose result types print unambiguously (:data:`PRINTABLE`) run as one
    job (a job that fails is split in two, down to 3 queries); the others (and the shapes in
    ``alone``, whose printed text may not read back), and those of the small jobs that failed, are
    collected one by one. Stops after
    ``recycle`` cases or at ``deadline`` (``time.time()``); the driver starts a fresh worker (a
    fresh JVM) for the rest. A case with a ``config`` runs alone with those options set
    (:func:`configure`; ``defaults`` again after it).
    """
    from pyflink.table import EnvironmentSettings, TableEnvironment

    capture = Capture()
    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in fq.CONFIG.items():
        tenv.get_config().set(k, v)
    for d in ddl:
        tenv.execute_sql(d)
    with journal.open("a", encoding="utf-8") as out:

        def emit(rec: dict, started: float, n: int) -> None:
            rec["seconds"] = round((time.monotonic() - started) / n, 1)
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

        cases = cases[:recycle]
        while cases and time.time() < deadline:
            chunk, cases = cases[:together], cases[together:]
            started = time.monotonic()
            planned, single = [], []
            for case in chunk:
                if case.get("config"):
                    single.append(case)
                    continue
                rec, table = plan(tenv, case)
                if table is None:
                    emit(rec, started, 1)
                elif rec["shape"] not in alone and all(PRINTABLE.match(t) for t in rec["types"]):
                    planned.append((rec, table))
                else:
                    single.append(case)
            groups = [planned] if len(planned) > 1 else []
            single += [c for c, _ in planned] if len(planned) == 1 else []
            while groups:  # a failed job is split in two until its failing query runs alone
                group = groups.pop(0)
                started = time.monotonic()
                answers = answer_together(tenv, capture, group)
                for rec in answers or []:
                    emit(rec, started, len(answers))
                if answers is None and len(group) > 3:
                    groups[:0] = [group[:len(group) // 2], group[len(group) // 2:]]
                elif answers is None:
                    single += [c for c, _ in group]
            for case in single:
                started = time.monotonic()
                configure(tenv, case, defaults or {})
                try:
                    emit(answer(tenv, _head(case)), started, 1)
                finally:
                    configure(tenv, {}, defaults or {})
    return 0


# -- the driver ----------------------------------------------------------------------------------

def read_journal(journal: Path) -> dict[int, dict]:
    """The answered cases of ``journal`` by seed (a torn last line, from a kill, is dropped)."""
    return read_records(journal, lambda case: case["seed"])


WORKER = [sys.executable, __file__, "--worker"]
"""The command of a worker process (its cases file, then its options, follow)."""
GRACE, POLL = 30.0, 1.0
"""Seconds: no new worker starts ``GRACE`` before the budget ends; the journal is looked at every ``POLL``."""


def drive(cases: list[dict], ddl: list[str], journal: Path, args: argparse.Namespace) -> dict[int, dict]:
    """Run workers until every case is in ``journal`` or the budget is spent; the journal's cases.

    (:func:`flink_session.drive_workers`.) A worker that ends without answering a case skips the
    first pending one: it killed the worker.
    """

    def command(cases_file: str, deadline: float) -> list[str]:
        return [*WORKER, cases_file, "--journal", str(journal),
                "--recycle", str(args.recycle), "--deadline", str(deadline), "--together", str(args.together)]

    def payload(pending: list[dict]) -> dict:
        return {"cases": pending, "ddl": ddl, "alone": args.alone, "defaults": args.defaults}

    def seed(case: dict) -> int:
        return case["seed"]

    return drive_workers(cases, journal, seed, payload, command, lambda progressed: progressed,
                         budget=args.budget, stall=args.stall, grace=GRACE, poll=POLL, label="queryfuzz",
                         quiet=True)


def main(argv: list[str]) -> int:
    """Answer the seeds and write the document; the exit code (3: unfinished, run again to resume)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0:100", help="A:B, the seeds A..B-1 (or a comma-separated list)")
    p.add_argument("--out", type=Path, default=fq.FIXTURE)
    p.add_argument("--redo", action="store_true", help="run the seeds the document already has again")
    p.add_argument("--partial", action="store_true", help="write the document with the seeds answered so far "
                   "(the journal's), leaving the others out")
    add_driver_arguments(p, recycle=100, stall=150, unit="queries")
    p.add_argument("--together", type=int, default=8, help="queries run as one job (print sinks)")
    args = p.parse_args(argv)
    if args.worker:
        work = json.loads(args.worker.read_text(encoding="utf-8"))
        return worker(work["cases"], work["ddl"], args.journal, args.recycle, args.deadline, args.together,
                      tuple(work.get("alone", ())), work.get("defaults"))
    seeds = ([int(s) for s in args.seeds.split(",")] if "," in args.seeds
             else list(range(*map(int, args.seeds.split(":")))))
    doc = fq.load(args.out) if args.out.exists() else None
    kept = [] if doc is None else [c for c in doc["cases"] if args.redo is False or c["seed"] not in seeds]
    have = {c["seed"] for c in kept}
    seeds = [s for s in seeds if s not in have]
    folder = Path(tempfile.gettempdir()) / f"flink_queryfuzz_{os.getuid()}"
    prep = prepare(seeds, folder / "data")
    args.alone, args.defaults = prep["alone"], prep["defaults"]
    # a table the document's seeds read must be as they read it (new tables may join it)
    if doc is not None and any(prep["data"].get(k) != v for k, v in doc["data"].items()):
        print("[queryfuzz] the generator's data changed since the document was written: --redo every seed "
              "(or write to a new --out)", file=sys.stderr)
        return 2
    journal = args.out.with_name(args.out.name + ".journal.jsonl")
    started = time.monotonic()
    done = drive(prep["queries"], prep["ddl"], journal, args)
    left = [c["seed"] for c in prep["queries"] if c["seed"] not in done]
    if left and args.partial:  # keep what is answered; the rest is not in the document
        seeds = [s for s in seeds if s in done]
    elif left:
        print(f"[queryfuzz] {len(left)} of {len(seeds)} seeds left after {time.monotonic() - started:.0f} s; "
              f"{journal} keeps the rest: run the same command again to resume", file=sys.stderr)
        return 3
    cases = sorted(kept + [done[s] for s in seeds], key=lambda c: c["seed"])
    import pyflink  # its version only (no JVM: the workers ran Flink)

    out = {"generated_by": "scripts/flink_queryfuzz.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "config": fq.CONFIG, "data": prep["data"], "cases": cases}
    args.out.write_text(json.dumps(out, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    if not left:  # (a partial document leaves the journal to resume from)
        journal.unlink(missing_ok=True)
    counts = {k: sum(k in c for c in cases) for k in ("rows", "refused", "error", "skipped")}
    print(f"[queryfuzz] {len(cases)} seeds {counts}, {time.monotonic() - started:.0f} s -> {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

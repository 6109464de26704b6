r"""Record Apache Flink 2.3's printed answers for the differential fuzzer's expressions.

``tests/functions/difffuzz.py`` generates random Flink SQL expressions (and aggregate calls) over
its fixed input table; this script evaluates them on PyFlink's local mini-cluster in streaming
mode and writes a JSON document that ``tests/functions/test_difffuzz.py`` replays against
StreamSQL without Flink::

    {"generated_by", "flink", "seeds", "data": <the input table's JSON lines>,
     "cases": [{"expr", "type", "rows": {key: printed text | null}}    # Flink's answer
               | {"expr", "refused": Flink's validation error}           # refused at validation
               | {"expr", "type", "error": Flink's job failure}          # fails at run time
               (+ "aggregate": true for an aggregate call, keyed by its group)]}

How: expressions are validated in groups first (``SELECT e0, e1, ... FROM src`` for their result
types, then the print job's plan translated with ``EXPLAIN`` of its JSON execution plan, which
runs the code generator; no job): a failing group is halved until each error is an expression's
own. Valid expressions run as the columns of one ``INSERT INTO`` a
print sink (``'connector' = 'print'``; a sentinel literal column between two expressions so that
printed cells split without ambiguity); a job that fails is split in four until the failing
expressions run alone. The print sink's lines are captured as ``scripts/flink_compat.py`` does
(fd 1 redirected before the JVM starts). Session time zone UTC, parallelism 1.

Usage (serialized with other Flink users)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_difffuzz.py --seed 7 --count 2000 \\
        [--aggregates 200] --out /tmp/difffuzz-7.json
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_difffuzz.py --fixture   # the committed one
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_difffuzz.py --add-regressions
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]  # the Flink venv has no StreamSQL: import by path

import flink_session  # noqa: E402
from flink_compat import Capture, _error_text  # noqa: E402

from tests.functions import difffuzz as fz  # noqa: E402

FIXTURE = ROOT / "tests" / "functions" / "difffuzz_expected.json"
# The committed fixture: (seed, scalar expressions, aggregate calls[, generator version: 1]) of each
# generation.
FIXTURE_SEEDS = [(1, 800, 100)]
# Expressions kept after a campaign (minimised differences, each fixed with Flink's answer recorded
# here): part of the fixture too (--fixture, --add-regressions).
REGRESSIONS = ROOT / "tests" / "functions" / "difffuzz_regressions.txt"
CONFIG = {"table.local-time-zone": "UTC", "parallelism.default": "1"}
PLAN_GROUP, RUN_GROUP = 40, 60


class Flink:
    """One table environment over the input table; plans and runs groups of expressions."""

    def __init__(self, capture: Capture, folder: Path, zone: str | None = None):
        """A streaming table environment with the input table ``src`` over ``folder``'s data file.

        ``zone``: the session time zone, if not :data:`CONFIG`'s UTC (a case's ``"zone"``).
        """
        from pyflink.table import EnvironmentSettings, TableEnvironment

        self.capture = capture
        self.tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        for k, v in {**CONFIG, **({"table.local-time-zone": zone} if zone else {})}.items():
            self.tenv.get_config().set(k, v)
        data = folder / "src.json"
        data.write_text(fz.data_lines(), encoding="utf-8")
        self.tenv.execute_sql(fz.source_ddl(str(data)))
        self.sinks = 0
        self.jobs = 0

    def types(self, exprs: list[str], group_by: str | None) -> list[str]:
        """Flink's result types of ``exprs`` (planned together); raises Flink's error."""
        tail = f" GROUP BY {group_by}" if group_by else ""
        items = ", ".join(f"{e} AS c{n}" for n, e in enumerate(exprs))
        query = f"SELECT {items} FROM {fz.TABLE_NAME}{tail}"
        schema = self.tenv.sql_query(query)._j_table.getResolvedSchema()
        return [str(t.toString()) for t in schema.getColumnDataTypes()]

    def check(self, exprs: list[str], types: list[str], group_by: str | None) -> None:
        """Plan and translate the print job of ``exprs`` (code generation included, no job).

        Raises Flink's error: a cast rule or the code generator refusing what validation let pass.
        """
        from pyflink.table.explain_detail import ExplainDetail

        self.sinks += 1
        ddl, insert = fz.insert_script(f"sink{self.sinks}", exprs, types, group_by or "id", group_by)
        self.tenv.execute_sql(ddl)
        self.tenv.explain_sql(insert, ExplainDetail.JSON_EXECUTION_PLAN)

    def run(self, exprs: list[str], types: list[str], group_by: str | None) -> list[dict]:
        """The printed rows of ``exprs`` (one job): per expression {key: text}; raises on failure."""
        self.sinks += 1
        self.jobs += 1
        key = group_by or "id"
        ddl, insert = fz.insert_script(f"sink{self.sinks}", exprs, types, key, group_by)
        self.tenv.execute_sql(ddl)
        start = self.capture.mark()
        self.tenv.execute_sql(insert).wait()
        table = fz.parse_lines(self.capture.since(start), len(exprs))
        return [{k: (None if cells[n] == "null" else cells[n]) for k, cells in sorted(table.items(),
                 key=lambda kv: int(kv[0]))} for n in range(len(exprs))]


def _plan(flink: Flink, exprs: list[str], group_by: str | None, out: dict) -> None:
    """Fill ``out[e]`` with ``{"type"}`` or ``{"refused"}``, halving groups that fail to plan."""
    try:
        types = flink.types(exprs, group_by)
        flink.check(exprs, types, group_by)
        for e, t in zip(exprs, types):
            out[e] = {"type": t}
    except Exception as err:  # noqa: BLE001  (Flink's refusal is an answer)
        if len(exprs) == 1:
            out[exprs[0]] = {"refused": _error_text(err)}
            return
        mid = len(exprs) // 2
        _plan(flink, exprs[:mid], group_by, out)
        _plan(flink, exprs[mid:], group_by, out)


def _run(flink: Flink, exprs: list[str], group_by: str | None, out: dict, emit) -> None:
    """Add ``"rows"`` (or ``"error"``) to ``out[e]``, splitting a failing job in four.

    ``emit(e)`` is called for each expression once it has its answer.
    """
    try:
        for e, rows in zip(exprs, flink.run(exprs, [out[e]["type"] for e in exprs], group_by)):
            out[e]["rows"] = rows
    except Exception as err:  # noqa: BLE001  (a failing job is an answer)
        if len(exprs) == 1:
            out[exprs[0]]["error"] = _error_text(err)
            emit(exprs[0])
            return
        step = max(1, -(-len(exprs) // 4))
        for n in range(0, len(exprs), step):
            _run(flink, exprs[n:n + step], group_by, out, emit)
        return
    for e in exprs:
        emit(e)


def evaluate(flink: Flink, exprs: list[str], group_by: str | None = None, emit=None,
             zone: str | None = None, run_group: int = RUN_GROUP) -> list[dict]:
    """Flink's record of each expression (see the module docstring).

    ``emit(record)`` is called with each one as soon as it is final (the refused ones after
    planning, the others after their job). ``zone``: the session time zone of ``flink``, recorded
    with each case when it is not UTC. ``run_group``: expressions per job (1 for those expected to
    fail their job: a failing group is split in four, down to one, each split a job).
    """
    out: dict[str, dict] = {}

    def record(e: str) -> dict:
        return {"expr": e, **out[e], **({"aggregate": True} if group_by else {}),
                **({"zone": zone} if zone else {})}

    def done(e: str) -> None:
        if emit:
            emit(record(e))

    for n in range(0, len(exprs), PLAN_GROUP):
        _plan(flink, exprs[n:n + PLAN_GROUP], group_by, out)
    for e in exprs:
        if "refused" in out[e]:
            done(e)
    valid = [e for e in exprs if "type" in out[e]]
    for n in range(0, len(valid), run_group):
        _run(flink, valid[n:n + run_group], group_by, out, done)
    return [record(e) for e in exprs]


def read_lines(path: Path) -> list[str]:
    """The expressions of a file: one a line, ``AGG `` before an aggregate call, ``#`` a comment.

    ``TZ=<zone> `` before it (and before ``AGG ``) evaluates it in that session time zone (UTC
    otherwise): where a TIMESTAMP meets a TIMESTAMP_LTZ, UTC hides the conversion between them.
    """
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _line(item: dict) -> str:
    """A case's line as :func:`read_lines` reads it (``AGG `` before an aggregate call): its key."""
    return fz.case_key(item, "AGG ")


def _items(lines: list[str]) -> list[dict]:
    """The work items of :func:`read_lines`'s lines: ``{"expr", "aggregate"?, "zone"?}``."""
    items = []
    for ln in lines:
        zone, ln = ln[3:].split(" ", 1) if ln.startswith("TZ=") else (None, ln)
        item = {"expr": ln[4:], "aggregate": True} if ln.startswith("AGG ") else {"expr": ln}
        items.append({**item, **({"zone": zone} if zone else {})})
    return items


# -- the worker: one JVM, a share of the cases, each finished group appended to the journal ----------

def worker(items: list[dict], journal: Path, group: int, recycle: int, deadline: float) -> int:
    """Evaluate ``items`` in one table environment (one JVM), ``group`` expressions at a time.

    Each case's record is appended to ``journal`` (one JSON line, flushed to disk) as soon as it
    is final, so a crash loses at most the running job's cases. Stops after ``recycle``
    cases or at ``deadline`` (``time.time()``): the caller starts a fresh worker, and so a fresh
    JVM, for the rest (a JVM kept for a whole campaign grew to 9.6 GB and stalled). A group whose
    job fails halves the next groups (down to 4 expressions), a group that runs doubles them back
    (up to ``group``): when most jobs fail, big groups only multiply the split jobs.
    """
    capture = Capture()
    done = 0
    size = group
    jobs_run = 0
    with tempfile.TemporaryDirectory(prefix="difffuzz_") as tmp, journal.open("a", encoding="utf-8") as out:

        def emit(case: dict) -> None:
            out.write(json.dumps(case, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

        for zone in dict.fromkeys(it.get("zone") for it in items):  # a table environment per time zone
            flink = Flink(capture, Path(tmp), zone)
            for agg, alone in ((False, False), (True, False), (False, True), (True, True)):
                todo = [it["expr"] for it in items if bool(it.get("aggregate")) == agg
                        and it.get("zone") == zone and bool(it.get("alone")) == alone]
                while todo and done < recycle and time.time() < deadline:
                    chunk, todo = todo[:size], todo[size:]
                    jobs = flink.jobs
                    evaluate(flink, chunk, fz.AGG_KEY if agg else None, emit, zone, 1 if alone else RUN_GROUP)
                    failed = flink.jobs - jobs > 1 and not alone
                    size = max(4, size // 2) if failed else min(group, size * 2)
                    done += len(chunk)
            jobs_run += flink.jobs
    print(f"worker: {done} cases, {jobs_run} jobs", file=capture.out)
    return 0


# -- the driver: workers in turn until every case is in the journal, then the document --------------

def read_journal(journal: Path) -> dict[str, dict]:
    """The finished cases of ``journal`` by their line (a torn last line, from a crash, is dropped)."""
    return flink_session.read_journal(journal, _line)


WORKER = [sys.executable, __file__, "--worker"]
"""The command of a worker process (its items file, then its options, follow)."""
GRACE, POLL = 30.0, 2.0
"""Seconds: a worker stops starting jobs ``GRACE`` before the budget ends and is killed ``GRACE``
after it; the driver looks at the journal every ``POLL``."""


def drive(items: list[dict], journal: Path, args: argparse.Namespace) -> dict[str, dict]:
    """Run workers (fresh processes, fresh JVMs) until every item is in ``journal``.

    Stops early once the budget (``args.budget`` seconds) is spent; returns the journal's cases
    (:func:`flink_session.drive_workers`: a stalled worker, ``args.stall`` s, is killed). A worker that
    ends without finishing a case (killed, crashed, its JVM gone) is retried with half its group; at
    a group of one, that case is recorded as ``{"skipped": why}``.
    """
    group = RUN_GROUP

    def command(items_file: str, deadline: float) -> list[str]:
        return [*WORKER, items_file, "--journal", str(journal), "--group", str(group),
                "--recycle", str(args.recycle), "--deadline", str(deadline)]

    def retry(progressed: bool) -> bool:
        nonlocal group
        if progressed or group > 1:
            group = RUN_GROUP if progressed else max(1, group // 2)
            return True
        return False

    return flink_session.drive_workers(items, journal, _line, lambda pending: pending, command, retry,
                                       budget=args.budget, stall=args.stall, grace=GRACE, poll=POLL,
                                       label="difffuzz")


def main(argv: list[str]) -> int:
    """Write the fixture or a campaign's document; returns the exit code (3: unfinished, rerun)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=1000, help="scalar expressions")
    p.add_argument("--aggregates", type=int, default=0, help="aggregate calls")
    p.add_argument("--generator", type=int, default=2, choices=(1, 2, 3, 4, 5),
                   help="the generator's version (1: the committed fixture's, 2: widened, "
                        "3: 2 and the collection functions, 4: 3 and TIME, zones, nested collections, "
                        "JSON clauses, edges, 5: 4 and VARIANT, BITMAP, OBJECT_OF, session 33's aggregates)")
    p.add_argument("--exprs", type=Path, help="evaluate these expressions (one a line; 'AGG ' before an "
                   "aggregate call) instead of generated ones: minimising a difference")
    p.add_argument("--out", type=Path)
    p.add_argument("--fixture", action="store_true", help="regenerate the committed fixture: its seeds "
                   "and the regression expressions (tests/functions/difffuzz_regressions.txt)")
    p.add_argument("--add-regressions", action="store_true", help="add to the committed fixture the "
                   "regression expressions it does not hold yet (the rest is kept as it is)")
    p.add_argument("--partial", action="store_true", help="write the document of the cases done so far "
                   "(the journal's) even if some are left: 'partial' in the document says how many (use "
                   "--budget 0 to write it without running Flink)")
    p.add_argument("--alone", type=Path, help="lines (as --exprs reads them) expected to fail their job "
                   "(scripts/difffuzz_alone.py): each runs a job of its own, after the others, so that "
                   "they do not fail the groups of the others (the answers are the same, in fewer jobs)")
    flink_session.add_driver_arguments(p, recycle=300, stall=240, unit="cases")
    p.add_argument("--group", type=int, default=RUN_GROUP, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        items = json.loads(args.worker.read_text(encoding="utf-8"))
        return worker(items, args.journal, args.group, args.recycle, args.deadline)
    plan = FIXTURE_SEEDS if args.fixture else [(args.seed, args.count, args.aggregates, args.generator)]
    out = FIXTURE if args.fixture or args.add_regressions else args.out
    if out is None:
        p.error("--out, --fixture or --add-regressions")
    kept: list[dict] = []
    items: list[dict] = []
    if args.add_regressions:
        doc = fz.load(FIXTURE)
        plan, kept = doc["seeds"], doc["cases"]
    if args.exprs:
        lines = read_lines(args.exprs)
        plan = [("exprs", len(lines), 0)]
        items = _items(lines)
    for seed, count, aggregates, *version in [] if args.exprs or args.add_regressions else plan:
        v = version[0] if version else 1
        items += _items(fz.generate(seed, count, version=v))  # from version 4, some "TZ=<zone> " lines
        items += [{"expr": e, "aggregate": True} for e in fz.generate_aggregates(seed, aggregates, version=v)]
    if args.fixture or args.add_regressions:
        have = {_line(c) for c in kept + items}
        items += _items([ln for ln in read_lines(REGRESSIONS) if ln not in have])
    if args.alone:
        alone = set(read_lines(args.alone))
        items = [{**it, "alone": True} if _line(it) in alone else it for it in items]
    journal = out.with_name(out.name + ".journal.jsonl")
    started = time.monotonic()
    done = drive(items, journal, args)
    left = sum(_line(it) not in done for it in items)
    if left and not args.partial:
        print(f"[difffuzz] {left} of {len(items)} cases left after {time.monotonic() - started:.0f} s; "
              f"{journal} keeps the rest: run the same command again to resume", file=sys.stderr)
        return 3
    cases = kept + [done[_line(it)] for it in items if _line(it) in done]
    import pyflink  # its version only (no JVM: the workers ran Flink)

    doc = {"generated_by": "scripts/flink_difffuzz.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "config": CONFIG, "seeds": plan, "data": fz.data_lines(), "cases": cases}
    if left:  # --partial: the cases done so far, in their generated order; the journal is kept
        doc["partial"] = f"{len(items) - left} of {len(items)} cases"
    out.write_text(json.dumps(doc, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    if not left:
        journal.unlink()
    counts = {k: sum(k in c for c in cases) for k in ("rows", "refused", "error", "skipped")}
    print(f"{len(cases)} cases {counts}, {time.monotonic() - started:.0f} s -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]  # the Flink venv has no StreamSQL: import by path

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

    def __init__(self, capture: Capture, folder: Path):
        """A streaming table environment with the input table ``src`` over ``folder``'s data file."""
        from pyflink.table import EnvironmentSettings, TableEnvironment

        self.capture = capture
        self.tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
        for k, v in CONFIG.items():
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


def _run(flink: Flink, exprs: list[str], group_by: str | None, out: dict) -> None:
    """Add ``"rows"`` (or ``"error"``) to ``out[e]``, splitting a failing job in four."""
    try:
        for e, rows in zip(exprs, flink.run(exprs, [out[e]["type"] for e in exprs], group_by)):
            out[e]["rows"] = rows
    except Exception as err:  # noqa: BLE001  (a failing job is an answer)
        if len(exprs) == 1:
            out[exprs[0]]["error"] = _error_text(err)
            return
        step = max(1, -(-len(exprs) // 4))
        for n in range(0, len(exprs), step):
            _run(flink, exprs[n:n + step], group_by, out)


def evaluate(flink: Flink, exprs: list[str], group_by: str | None = None) -> list[dict]:
    """Flink's record of each expression (see the module docstring)."""
    out: dict[str, dict] = {}
    for n in range(0, len(exprs), PLAN_GROUP):
        _plan(flink, exprs[n:n + PLAN_GROUP], group_by, out)
    valid = [e for e in exprs if "type" in out[e]]
    for n in range(0, len(valid), RUN_GROUP):
        _run(flink, valid[n:n + RUN_GROUP], group_by, out)
    return [{"expr": e, **out[e], **({"aggregate": True} if group_by else {})} for e in exprs]


def read_lines(path: Path) -> list[str]:
    """The expressions of a file: one a line, ``AGG `` before an aggregate call, ``#`` a comment."""
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def evaluate_lines(flink: Flink, lines: list[str]) -> list[dict]:
    """Flink's record of each line of :func:`read_lines` (scalars first, then aggregate calls)."""
    aggs = [ln[4:] for ln in lines if ln.startswith("AGG ")]
    cases = evaluate(flink, [ln for ln in lines if not ln.startswith("AGG ")])
    return cases + (evaluate(flink, aggs, fz.AGG_KEY) if aggs else [])


def main(argv: list[str]) -> int:
    """Write the fixture or a campaign's document; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=1000, help="scalar expressions")
    p.add_argument("--aggregates", type=int, default=0, help="aggregate calls")
    p.add_argument("--generator", type=int, default=2, choices=(1, 2),
                   help="the generator's version (1: the committed fixture's, 2: widened)")
    p.add_argument("--exprs", type=Path, help="evaluate these expressions (one a line; 'AGG ' before an "
                   "aggregate call) instead of generated ones: minimising a difference")
    p.add_argument("--out", type=Path)
    p.add_argument("--fixture", action="store_true", help="regenerate the committed fixture: its seeds "
                   "and the regression expressions (tests/functions/difffuzz_regressions.txt)")
    p.add_argument("--add-regressions", action="store_true", help="add to the committed fixture the "
                   "regression expressions it does not hold yet (the rest is kept as it is)")
    args = p.parse_args(argv)
    plan = FIXTURE_SEEDS if args.fixture else [(args.seed, args.count, args.aggregates, args.generator)]
    out = FIXTURE if args.fixture or args.add_regressions else args.out
    if out is None:
        p.error("--out, --fixture or --add-regressions")
    kept: list[dict] = []
    if args.add_regressions:
        doc = fz.load(FIXTURE)
        plan, kept = doc["seeds"], doc["cases"]
    capture = Capture()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="difffuzz_") as tmp:
        flink = Flink(capture, Path(tmp))
        cases: list[dict] = list(kept)
        if args.exprs:
            lines = read_lines(args.exprs)
            plan = [("exprs", len(lines), 0)]
            cases += evaluate_lines(flink, lines)
        for seed, count, aggregates, *version in [] if args.exprs or args.add_regressions else plan:
            v = version[0] if version else 1
            cases += evaluate(flink, fz.generate(seed, count, version=v))
            if aggregates:
                cases += evaluate(flink, fz.generate_aggregates(seed, aggregates, version=v), fz.AGG_KEY)
        if args.fixture or args.add_regressions:
            have = {("AGG " if c.get("aggregate") else "") + c["expr"] for c in cases}
            cases += evaluate_lines(flink, [ln for ln in read_lines(REGRESSIONS) if ln not in have])
    import pyflink

    doc = {"generated_by": "scripts/flink_difffuzz.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "config": CONFIG, "seeds": plan, "data": fz.data_lines(), "cases": cases}
    out.write_text(json.dumps(doc, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = {k: sum(k in c for c in cases) for k in ("rows", "refused", "error")}
    print(f"{len(cases)} cases {counts}, {flink.jobs} jobs, {time.monotonic() - started:.0f} s -> {out}",
          file=capture.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

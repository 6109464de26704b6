r"""The difference fuzzer's expressions that fail their job in StreamSQL: ``flink_difffuzz.py --alone``.

Flink evaluates a campaign's expressions as the columns of few print jobs; a job that fails is split
in four until the failing expressions run alone, so with a few percent of failing expressions most
jobs are split ones (campaign 32: 123 jobs for 237 cases). StreamSQL fails the same expressions,
nearly always: run first here (seconds a group), they are listed, and the Flink driver runs each of
them in a job of its own after the others, whose groups then seldom fail. Only the grouping changes:
every answer is still Flink's.

Usage (this project's venv)::

    python scripts/difffuzz_alone.py --seed 3201 --count 2000 --aggregates 100 --generator 4 \\
        --out /tmp/alone-3201.txt
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamsql import StreamEnvironment  # noqa: E402
from streamsql.core.errors import StreamSQLError  # noqa: E402
from tests.functions import difffuzz as fz  # noqa: E402

GROUP = 60


def _fails(env: StreamEnvironment, exprs: list[str], group_by: str | None) -> list[str]:
    """Those of ``exprs`` whose job fails (a query refused at planning is not listed), halving."""
    items = ", ".join(f"{e} AS c{n}" for n, e in enumerate(exprs))
    sql = f"SELECT {group_by or 'id'}, {items} FROM {fz.TABLE_NAME}"
    sql += f" GROUP BY {group_by}" if group_by else ""
    try:
        result = env.execute_sql(sql)
    except StreamSQLError:
        if len(exprs) == 1:
            return []
    else:
        try:
            list(result.collect(timeout=300))  # a generator: the job's failure comes while reading
            return []
        except StreamSQLError:
            if len(exprs) == 1:
                return exprs
        except Exception:  # noqa: BLE001  (a crash: Flink's answer is not predicted, run it alone)
            if len(exprs) == 1:
                return exprs
    mid = len(exprs) // 2
    return _fails(env, exprs[:mid], group_by) + _fails(env, exprs[mid:], group_by)


def main(argv: list[str]) -> int:
    """Write the lines of the generated cases that fail their job here."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--aggregates", type=int, default=0)
    p.add_argument("--generator", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    lines = fz.generate(args.seed, args.count, version=args.generator)
    lines += ["AGG " + a for a in fz.generate_aggregates(args.seed, args.aggregates, version=args.generator)]
    cases = []
    for ln in lines:
        zone, rest = ln[3:].split(" ", 1) if ln.startswith("TZ=") else (None, ln)
        cases.append((zone, rest.startswith("AGG "), rest[4:] if rest.startswith("AGG ") else rest, ln))
    failing: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "src.json").write_text(fz.data_lines(), encoding="utf-8")
        for zone in dict.fromkeys(c[0] for c in cases):
            env = StreamEnvironment({"state.dir": f"{tmp}/state", "execution.checkpointing.dir": f"{tmp}/cp",
                                     "table.local-time-zone": zone or "UTC", "parallelism.default": "1"})
            try:
                env.execute_sql(fz.source_ddl(f"{tmp}/src.json"))
                for agg in (False, True):
                    mine = [c for c in cases if c[0] == zone and c[1] == agg]
                    line_of = {c[2]: c[3] for c in mine}
                    for n in range(0, len(mine), GROUP):
                        exprs = [c[2] for c in mine[n:n + GROUP]]
                        failing += [line_of[e] for e in _fails(env, exprs, fz.AGG_KEY if agg else None)]
            finally:
                env.close()
    args.out.write_text("".join(ln + "\n" for ln in failing), encoding="utf-8")
    print(f"{len(failing)} of {len(lines)} cases fail their job here -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

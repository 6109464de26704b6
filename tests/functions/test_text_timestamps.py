"""TO_TIMESTAMP and CAST of a string to a time: each argument computed once, the values unchanged.

The readers of a timestamp's text used to write their argument and a regular expression per field
into the SQL ~20 to ~50 times: DuckDB computes a repeated subexpression once only in a projection
and outside CASE branches, so in a WHERE (or a THEN) a computed argument was computed as often,
and every field took a regular expression of its own. Now the plain texts take DuckDB's cast,
the others one regular expression, and a computed argument is bound once
(``registry.template``). ``text_timestamps_expected.json`` holds the answers of the code
before the change (92e078a) over tricky texts, which match Flink's where the conformance
and compat suites check them; a DATE of the year 0 is written '0000-01-01' since, as Flink's
formatter writes it (was DuckDB's '0001-01-01 (BC)').
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.plan.nodes import CalcNode, walk
from streamsql.plan.planner import Planner
from streamsql.sql.parser import parse_statement

EXPECTED = json.loads((Path(__file__).parent / "text_timestamps_expected.json").read_text())
TEXTS = ["2024-03-10 01:30:00", "2024-03-10 01:30:00.5", "2024-03-10 01:30:00.123456789", "2024-1-5 7:8:9.5",
         " 2024-01-05 07:08:09 ", "2024-02-30 10:00:00", "2024-02-29", "2023-02-29", "0000-01-01 00:00:00",
         "2024-01-01 24:00:00", "2024-01-01 24:00:01", "2024-13-01 00:00:00", "+202-01-01 1:2:3", "x", "",
         "2024/03/10 01:30", "2024-03-10 25:61:61", "1969-12-31 23:59:59.9999", None]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    d = tmp_path_factory.mktemp("texts")
    (d / "t.json").write_text("".join(json.dumps({"i": i, "s": r}) + "\n" for i, r in enumerate(TEXTS)))
    with StreamEnvironment({"execution.checkpointing.dir": str(d / "cp")}) as e:
        e.execute_sql(f"CREATE TABLE t (i INT, s STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{d}/t.json', 'format' = 'json')")
        e.execute_sql("CREATE TABLE o (x STRING) WITH ('connector' = 'blackhole')")
        e.execute_sql("CREATE TABLE o_ts (x TIMESTAMP(3)) WITH ('connector' = 'blackhole')")
        e.execute_sql("CREATE TABLE o_ltz (x TIMESTAMP_LTZ(3)) WITH ('connector' = 'blackhole')")
        yield e


@pytest.fixture(scope="module")
def answers(env) -> dict[str, tuple[list, list]]:
    """expression → (its projection's rows, its filter's rows), sorted.

    Each is the query of one expression alone (``SELECT i, CAST(e AS STRING) FROM t``, the same
    with ``WHERE e IS NOT NULL``), run as a branch of one UNION ALL job: two jobs for the module
    instead of two per expression (each branch its own Calc, as the query alone).
    """
    exprs = list(EXPECTED)
    out: dict[str, tuple[list, list]] = {e: ([], []) for e in exprs}
    for kind, where in ((0, ""), (1, " WHERE {} IS NOT NULL")):
        union = " UNION ALL ".join(f"SELECT {n} AS e, i, CAST({e} AS STRING) AS v FROM t" + where.format(e)
                                   for n, e in enumerate(exprs))
        for _, (n, i, v) in env.execute_sql(union).collect(timeout=120):
            out[exprs[n]][kind].append((i, v))
    return {e: (sorted(p), sorted(f)) for e, (p, f) in out.items()}


@pytest.mark.parametrize("expr", list(EXPECTED))
def test_the_values_are_the_same_in_a_projection_and_in_a_filter(answers, expr):
    want = EXPECTED[expr]
    rows, kept = answers[expr]
    assert [v for _, v in rows] == want
    assert kept == [(i, v) for i, v in enumerate(want) if v is not None]


def _compiled(env, expr: str, where: bool = False) -> str:
    sink = "o_ltz" if "LTZ" in expr else "o_ts"
    sql = f"INSERT INTO o SELECT s FROM t WHERE {expr} IS NOT NULL" if where else \
        f"INSERT INTO {sink} SELECT {expr} FROM t"
    root = Planner(env.catalog, env.config, sql).plan_insert(parse_statement(sql))
    return next(n for n in walk([root]) if isinstance(n, CalcNode)).query.sql()


@pytest.mark.parametrize("fn", ["TO_TIMESTAMP({})", "TO_TIMESTAMP({}, 'yyyy-MM-dd HH:mm:ss')",
                                "TO_TIMESTAMP({}, 'yyyy-MM-dd')", "TO_TIMESTAMP({}, 'yyyy/MM/dd HH:mm')",
                                "CAST({} AS TIMESTAMP(3))", "TRY_CAST({} AS TIMESTAMP_LTZ(3))"])
@pytest.mark.parametrize("where", [False, True])
def test_a_computed_argument_is_written_once_and_each_reader_takes_one_regular_expression(env, fn, where):
    sql = _compiled(env, fn.format("CONCAT(s, '#')"), where)
    assert sql.count("'#'") == 1, sql
    assert len(re.findall(r"regexp_extract\(", sql)) <= 2, sql  # the pattern's, java.sql's fallback
    assert len(sql) < 4000, len(sql)  # was 5,000 to 17,000 characters

"""JSON_VALUE / JSON_QUERY / JSON_EXISTS over the path grid: StreamSQL must answer as Flink 2.3 did.

``flink_json_paths.json`` holds Flink's answers (``scripts/flink_json_paths.py``) for the
expressions of ``json_path_grid.py``: every function with its clauses over documents with no, one
and many matches, nested arrays, missing members and text that is not JSON, with paths in both
modes that Jayway reads as definite (members, indexes) or indefinite (wildcards, scans, several
indexes, slices), path texts Jayway does not compile, and a NULL path, the path a column (each
row its own path) or a literal; and the filter / function grid (``jfgrid``, ``jfdocs``): Jayway's
filters ``[?(...)]`` with each operator, its functions ``.f()`` with their RETURNING types, and
several bracketed members, over numbers (int, decimal, big), strings, booleans, nulls, nested
arrays and objects and missing members; and the deep scan grid (``jsgrid``, ``jsdocs``): a scan
``..`` before each kind of step (wildcard, index, indexes, slice, members, function, scan). Each
expression runs here as Flink ran it, ``SELECT id, e FROM t``, and every row's value must be
Flink's; an expression Flink refused must be refused, one whose job failed must fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from tests.functions import json_path_grid as g

EXPECTED = json.loads((Path(__file__).parent / "flink_json_paths.json").read_text(encoding="utf-8"))
CASES = sorted(EXPECTED)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jsonpaths")
    (tmp / "grid.json").write_text(g.json_lines(g.grid_rows(), ("id", "doc", "p")), encoding="utf-8")
    (tmp / "docs.json").write_text(g.json_lines(g.doc_rows(), ("id", "doc")), encoding="utf-8")
    e = StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
                           "parallelism.default": "1"})
    e.execute_sql(g.ddl("jgrid", str(tmp / "grid.json")))
    e.execute_sql(g.ddl("jdocs", str(tmp / "docs.json")))
    (tmp / "fgrid.json").write_text(g.json_lines(g.fgrid_rows(), ("id", "fdoc", "fp")), encoding="utf-8")
    (tmp / "fdocs.json").write_text(g.json_lines(g.fdoc_rows(), ("id", "fdoc")), encoding="utf-8")
    e.execute_sql(g.ddl("jfgrid", str(tmp / "fgrid.json")))
    e.execute_sql(g.ddl("jfdocs", str(tmp / "fdocs.json")))
    (tmp / "sgrid.json").write_text(g.json_lines(g.sgrid_rows(), ("id", "sdoc", "sp")), encoding="utf-8")
    (tmp / "sdocs.json").write_text(g.json_lines(g.sdoc_rows(), ("id", "sdoc")), encoding="utf-8")
    e.execute_sql(g.ddl("jsgrid", str(tmp / "sgrid.json")))
    e.execute_sql(g.ddl("jsdocs", str(tmp / "sdocs.json")))
    yield e
    e.close()


# Expressions per job: the columns of one ``SELECT id, e1, e2, ... FROM t`` (about a second a job
# when the machine is idle, where each expression alone was a job of about half a second).
GROUP = 100
# Seconds a job may take before it counts as not finishing (its expressions' tests fail).
JOB_TIMEOUT = 300


def _value(v):
    return list(v) if isinstance(v, tuple) else v


def _ours(env, table: str, expr: str) -> tuple:
    """StreamSQL's outcome of ``SELECT id, <expr> FROM <table>``: ("refused", msg) at planning,
    ("error", msg) from the job, else ("rows", {id text: value}) (an ARRAY as a list)."""
    return _outcomes(env, table, [expr])[expr]


def _outcomes(env, table: str, exprs: list[str]) -> dict[str, tuple]:
    """expr → StreamSQL's outcome (as :func:`_ours`) of each of ``exprs``, from one job when it runs.

    Several expressions run as the columns of one query; when that query is refused or its job
    fails, the group is halved until each expression that fails does so alone, in the very text
    ``SELECT id, <expr> FROM <table>`` (its message positioned as Flink's was): a failing
    expression never hides the others' answers. A job that does not end in :data:`JOB_TIMEOUT`
    seconds gives ("batch failed", cause) to each of its expressions.
    """
    if len(exprs) == 1:
        sql = f"SELECT id, {exprs[0]} FROM {table}"
    else:
        sql = "SELECT id, " + ", ".join(f"{e} AS c{i}" for i, e in enumerate(exprs)) + f" FROM {table}"
    try:
        result = env.execute_sql(sql)
    except StreamSQLError as e:
        return _split(env, table, exprs, ("refused", str(e)))
    try:
        # the job's end at once (collect polls every 0.1 s): most jobs here last less; the tables'
        # rows (1,106 at most) fit the collect queue, so the job never waits for this reader
        status = result.wait(JOB_TIMEOUT)
        rows = [row for _, row in result.collect(timeout=JOB_TIMEOUT)]
    except StreamSQLError as e:
        return _split(env, table, exprs, ("error", str(e)))
    if status != "FINISHED":
        result.job.cancel()
        why = f"its job ({len(exprs)} expressions) did not end in {JOB_TIMEOUT} s and was cancelled"
        return dict.fromkeys(exprs, ("batch failed", why))
    return {e: ("rows", {str(r[0]): _value(r[n + 1]) for r in rows}) for n, e in enumerate(exprs)}


def _split(env, table: str, exprs: list[str], failed: tuple) -> dict[str, tuple]:
    """``failed`` for a lone expression, else the outcomes of ``exprs``'s halves, each its own job."""
    if len(exprs) == 1:
        return {exprs[0]: failed}
    mid = len(exprs) // 2
    return _outcomes(env, table, exprs[:mid]) | _outcomes(env, table, exprs[mid:])


@pytest.fixture(scope="module")
def ours(request, env) -> dict[str, tuple]:
    """expr → StreamSQL's outcome (as :func:`_ours`) of every selected ``test_as_flink`` case.

    Flink's answered expressions run :data:`GROUP` to a job (per table); those whose job failed in
    Flink's run, or that Flink refused, run a job each, as they are expected to fail (see
    :func:`_outcomes`).
    """
    selected = [item.callspec.params["expr"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_as_flink"
                and item.module.__name__ == __name__]
    out: dict[str, tuple] = {}
    for table in dict.fromkeys(EXPECTED[e]["table"] for e in selected):
        mine = [e for e in selected if EXPECTED[e]["table"] == table]
        answered = [e for e in mine if "rows" in EXPECTED[e]]
        for n in range(0, len(answered), GROUP):
            out.update(_outcomes(env, table, answered[n:n + GROUP]))
        out.update({e: _ours(env, table, e) for e in mine if e not in out})
    return out


def test_the_grid_is_the_recorded_one():
    """The recorded answers are of this grid's expressions (re-record after changing it)."""
    recorded = g.GRID_EXPRS + g.DOC_EXPRS + g.FGRID_EXPRS + g.FDOC_EXPRS + g.SGRID_EXPRS + g.SDOC_EXPRS
    assert sorted(recorded) == CASES


@pytest.mark.parametrize("expr", CASES)
def test_as_flink(ours, expr):
    want = EXPECTED[expr]
    kind, got = ours[expr]
    assert kind != "batch failed", got
    if "refused" in want:
        assert kind == "refused", f"Flink refused it: {want['refused']}"
    elif want.get("error", "").startswith("Unsupported call"):
        # Flink's code generator refuses it when the job is built: refused at planning here, in its words
        assert kind == "refused", got
        assert want["error"].split(" \n")[0] in got
    elif "error" in want:
        assert kind == "error", f"Flink's job failed: {want['error']}"
    else:
        assert kind == "rows", got
        diff = {k: (v, got.get(k)) for k, v in want["rows"].items() if got.get(k) != v}
        assert not diff, f"{len(diff)} rows differ (Flink's, ours): {dict(list(diff.items())[:12])}"
        assert len(got) == len(want["rows"])


def test_a_filter_flink_cannot_run_fails_the_job_saying_why(env):
    """Flink 2.3's Jayway lacks json-smart: an existence test fails its job; ours says why."""
    assert "error" in EXPECTED["JSON_EXISTS(fdoc, 'lax $.items[?(@.opt)].name' TRUE ON ERROR)"]
    kind, got = _ours(env, "jfdocs", "JSON_VALUE(fdoc, 'lax $.items[?(@.opt)].name' DEFAULT 'r' ON ERROR)")
    assert kind == "error"
    assert "existence test" in got and "NoClassDefFoundError" in got, got


def test_a_failing_expression_does_not_hide_its_batchs_answers(env):
    """A job failing on one expression of a batch: that one fails alone, the others keep Flink's answers."""
    failing = "JSON_EXISTS(fdoc, 'lax $.items[?(@.opt)].name' TRUE ON ERROR)"  # Flink's job failed on it
    answered = [e for e in CASES if EXPECTED[e]["table"] == "jfdocs" and "rows" in EXPECTED[e]][:3]
    got = _outcomes(env, "jfdocs", [answered[0], failing, *answered[1:]])
    assert got[failing][0] == "error", got[failing]
    assert {e: got[e] for e in answered} == {e: ("rows", EXPECTED[e]["rows"]) for e in answered}

"""JSON_VALUE / JSON_QUERY / JSON_EXISTS over the path grid: StreamSQL must answer as Flink 2.3 did.

``flink_json_paths.json`` holds Flink's answers (``scripts/flink_json_paths.py``) for the
expressions of ``json_path_grid.py``: every function with its clauses over documents with no, one
and many matches, nested arrays, missing members and text that is not JSON, with paths in both
modes that Jayway reads as definite (members, indexes) or indefinite (wildcards, scans, several
indexes, slices), path texts Jayway does not compile, and a NULL path, the path a column (each
row its own path) or a literal; and the filter / function grid (``jfgrid``, ``jfdocs``): Jayway's
filters ``[?(...)]`` with each operator, its functions ``.f()`` with their RETURNING types, and
several bracketed members, over numbers (int, decimal, big), strings, booleans, nulls, nested
arrays and objects and missing members. Each expression runs here as Flink ran it, ``SELECT id, e FROM
t``, and every row's value must be Flink's; an expression Flink refused must be refused, one whose
job failed must fail.
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
    yield e
    e.close()


def _ours(env, table: str, expr: str) -> tuple:
    try:
        result = env.execute_sql(f"SELECT id, {expr} FROM {table}")
    except StreamSQLError as e:
        return ("refused", str(e))
    try:
        rows = [row for _, row in result.collect(timeout=120)]
    except StreamSQLError as e:
        return ("error", str(e))
    return ("rows", {str(r[0]): (list(r[1]) if isinstance(r[1], tuple) else r[1]) for r in rows})


def test_the_grid_is_the_recorded_one():
    """The recorded answers are of this grid's expressions (re-record after changing it)."""
    assert sorted(g.GRID_EXPRS + g.DOC_EXPRS + g.FGRID_EXPRS + g.FDOC_EXPRS) == CASES


@pytest.mark.parametrize("expr", CASES)
def test_as_flink(env, expr):
    want = EXPECTED[expr]
    kind, got = _ours(env, want["table"], expr)
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

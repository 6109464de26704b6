"""TO_CHANGELOG and FROM_CHANGELOG against Apache Flink 2.3's recorded answers.

``changelog_ptf_flink.json`` is written by ``scripts/flink_changelog_ptf.py`` (PyFlink 2.3, one
split per table so rows arrive in file order): per scenario the query, and Flink's result columns
and changelog in order, or its error. Here each query runs over the same tables, one row per batch
(as Flink's operators see them), and must give Flink's columns, types (as PyFlink's result schema
prints them: VARCHAR for STRING, without NOT NULL) and changelog row for row, or be refused with Flink's
innermost message (for a failed job, up to Flink's list of op codes, whose order is a Java hash
set's). Also: a batch of many rows gives the same rows, and the operators keep no state.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ExecutionError, SqlError, StreamSQLError
from tests.runtime.oracle import fold, make_env

ORACLE = json.loads(Path(__file__).with_name("changelog_ptf_flink.json").read_text())
SCENARIOS = ORACLE["scenarios"]
KINDS = {k.short: k for k in RowKind}


def _env(tmp_path, batch_size: int | None = 1):
    env = make_env(tmp_path, batch_size=batch_size)
    for name, table in ORACLE["tables"].items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in table["rows"]))
        env.execute_sql(f"CREATE TABLE {name} ({table['columns']}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = 'json')")
    for view in ORACLE["views"]:
        env.execute_sql(view)
    return env


#: Where StreamSQL's message keeps only the start of Flink's (Flink's goes on with its own plan's
#: node or its argument types).
PARTIAL = {
    "to_err_too_many": "No match found for function signature TO_CHANGELOG",
    "from_err_updating_input": "StreamPhysicalProcessTableFunction doesn't support consuming update changes "
                               "which is produced by node ",
    "to_subquery_arg": 'Encountered "("',
    "to_of_from": 'Encountered "("',
    # Flink fails building the job (its Collectors.toMap); its error text is the Java stack trace
    "from_map_code_twice": "Duplicate key c (attempted merging values INSERT and DELETE)",
}
#: Where StreamSQL's changelog differs from Flink's but gives the same table.
SAME_TABLES = {
    # deleting one of two equal rank-1 rows: Flink's RetractableTopNFunction emits -D and +I of the
    # same row, StreamSQL nothing (the other copy keeps rank 1)
    "from_odd_topn",
}
#: What Flink 2.3 answers and StreamSQL refuses, with the reason (docs/queries.md).
OURS_REFUSED = {
    # Flink ignores a named argument no parameter has; refused here rather than ignored
    "to_err_unknown_param": "Unknown parameter 'foo' for TO_CHANGELOG",
}


ANSWERED = sorted(n for n, s in SCENARIOS.items()
                  if "changelog" in s and n not in OURS_REFUSED and not n.startswith("describe_"))


def _innermost(error: str) -> str:
    """Flink's innermost message, without its list of op codes (a Java hash set's order)."""
    last = error.split(" / ")[-1]
    return re.split(r" (Defined op codes are|Valid values are): ", last)[0]


def _type(flink: str) -> str:
    """A type as PyFlink's result schema prints it, in StreamSQL's name (STRING for VARCHAR)."""
    return "STRING" if flink == "VARCHAR" else flink


@pytest.mark.parametrize("name", ANSWERED)
def test_changelog_is_flinks(tmp_path, name):
    s = SCENARIOS[name]
    with _env(tmp_path) as env:
        result = env.execute_sql(s["query"])
        got = [[kind.short, *row] for kind, row in result.collect(timeout=60)]
    if name in SAME_TABLES:
        assert fold([(KINDS[r[0]], tuple(r[1:])) for r in got]) == _final(s["changelog"])
    else:
        assert got == s["changelog"]
    assert result.columns == [n for n, _ in s["schema"]]
    assert [str(t) for t in result.column_types] == [_type(t) for _, t in s["schema"]]


def _final(changelog: list[list]):
    """The table ``changelog`` (``[kind, cell, ...]`` rows) leaves."""
    return fold([(KINDS[r[0]], tuple(r[1:])) for r in changelog])


#: Tables (and views over them) whose op codes make no well-formed changelog (updates before
#: inserts, deletes of absent rows): what an aggregate makes of them depends on how the rows are
#: cut into batches, as in Flink (its MiniBatchGroupAggFunction skips only a key's leading
#: retractions in a bundle, its GroupAggFunction every retraction that finds no accumulator).
OUT_OF_ORDER = ("TABLE odd", "TABLE codes")


@pytest.mark.parametrize("name", sorted(n for n, s in SCENARIOS.items() if "flink_error" in s))
def test_refused_as_flink(tmp_path, name):
    s = SCENARIOS[name]
    with _env(tmp_path) as env, pytest.raises(StreamSQLError) as e:
        list(env.execute_sql(s["query"]).collect(timeout=60))
    expected = PARTIAL.get(name) or _innermost(s["flink_error"])
    assert expected in str(e.value)
    if "Job execution failed" in s["flink_error"]:  # a bad op code fails the job, as Flink's
        assert isinstance(e.value, ExecutionError)
    else:  # refused when planned, at line:column
        assert isinstance(e.value, SqlError) and e.value.line == 1 and e.value.col


@pytest.mark.parametrize("name", sorted(OURS_REFUSED))
def test_refused_where_flink_answers(tmp_path, name):
    assert "changelog" in SCENARIOS[name]  # Flink answered it
    with _env(tmp_path) as env, pytest.raises(SqlError, match=OURS_REFUSED[name]):
        env.execute_sql(SCENARIOS[name]["query"])


@pytest.mark.parametrize("name", [n for n in ANSWERED if (n.startswith("from_") or n == "to_insert_only")
                                  and not any(t in SCENARIOS[n]["query"] for t in OUT_OF_ORDER)])
def test_whole_batches_give_the_same_table(tmp_path, name):
    """Read in one batch, a query over an append-only input gives Flink's final table.

    (Over an aggregate, TO_CHANGELOG shows the aggregate's changelog, which depends on how its
    input is cut into batches, as Flink's on its mini-batches: not compared here.)
    """
    s = SCENARIOS[name]
    with _env(tmp_path, batch_size=None) as env:
        got = [(kind, tuple(row)) for kind, row in env.execute_sql(s["query"]).collect(timeout=60)]
    assert fold(got) == fold([(KINDS[r[0]], tuple(r[1:])) for r in s["changelog"]])


def test_operators_are_stateless(tmp_path):
    """Neither plan node keeps state: a checkpoint has nothing of theirs to restore."""
    from streamsql.plan.changelog_ptf import ChangelogFunctionNode

    assert ChangelogFunctionNode.stateful is False
    with _env(tmp_path) as env:
        text = env.execute_sql("EXPLAIN SELECT * FROM FROM_CHANGELOG(input => TABLE ops)").message
    assert "ProcessTableFunction(invocation=[FROM_CHANGELOG(TABLE(#0), DEFAULT()" in text


def test_to_changelog_operator_maps_kinds_per_batch():
    """One batch of every kind: codes by kind, unmapped kinds dropped, every output row +I."""
    import numpy as np
    import pyarrow as pa

    from streamsql.runtime.operators.changelog_ptf import ToChangelogOperator

    schema = pa.schema([("o", pa.string()), ("k", pa.string())])
    op = ToChangelogOperator({0: "I", 2: "U"}, [0], schema)
    batch = Batch(pa.table({"k": ["a", "b", "c", "d"]}), np.array([0, 1, 2, 3], dtype=np.int8))
    [out] = op.process_batch(batch, 0)
    assert out.kinds is None and out.table.to_pylist() == [{"o": "I", "k": "a"}, {"o": "U", "k": "c"}]


def test_from_changelog_failure_names_the_record():
    """A bad op code fails with Flink's words and the record it came from."""
    import pyarrow as pa

    from streamsql.runtime.operators.changelog_ptf import FromChangelogOperator

    op = FromChangelogOperator({"c": 0, "d": 3}, 0, [1], pa.schema([("v", pa.int64())]))
    batch = Batch(pa.table({"op": ["c", "x"], "v": [1, 2]}), origin=lambda i: f"t[0]@{i}")
    expected = r"Received invalid op code 'x'\. Defined op codes are: \[c, d\]\. \(record t\[0\]@1\)"
    with pytest.raises(ExecutionError, match=expected):
        op.process_batch(batch, 0)
    [out] = op.process_batch(Batch(pa.table({"op": ["c", "d"], "v": [1, 2]})), 0)
    assert out.kinds.tolist() == [0, 3] and out.table.column("v").to_pylist() == [1, 2]


_PTF_LINE = re.compile(r"ProcessTableFunction\(invocation=\[(\w+)\(.*changelogMode=\[([A-Z,]+)\]")


@pytest.mark.parametrize("name", sorted(n for n, s in SCENARIOS.items() if "explain" in s))
def test_explain_changelog_mode_is_flinks(tmp_path, name):
    """The PTF's line of EXPLAIN CHANGELOG_MODE: Flink's function and changelog mode."""
    s = SCENARIOS[name]
    with _env(tmp_path) as env:
        ours = env.execute_sql(s["query"]).message
    flink = s["explain"].split("== Optimized Physical Plan ==")[1]
    assert _PTF_LINE.search(ours).groups() == _PTF_LINE.search(flink).groups()


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS if n.startswith("describe_")))
def test_describe_function_is_flinks(tmp_path, name):
    s = SCENARIOS[name]
    with _env(tmp_path) as env:
        rows = env.execute_sql(s["query"]).rows
    assert [list(r) for r in rows] == [r[1:] for r in s["changelog"]]

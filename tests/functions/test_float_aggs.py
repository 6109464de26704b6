"""Aggregates over DOUBLE/FLOAT -0.0, 0.0, NaN and the infinities, as Apache Flink 2.3 answers them.

``float_aggs_flink.json`` is written by ``scripts/flink_float_aggs.py`` (PyFlink 2.3, one task):
MIN/MAX over an insert-only table (Flink's ``MinAggFunction``: Java's primitive ``<``, the first
of -0.0/0.0 stays and a NaN only when first), over a debezium changelog
(``MinWithRetractAggFunction``: ``Double.compareTo`` order, -0.0 < 0.0 < ... < NaN) and over
another GROUP BY (MIN with retraction, but MAX of a MAX insert-only: its input only increases;
Flink's plans are recorded too, :func:`test_min_max_retract_as_flinks_plan`), in TUMBLE,
HOP and CUMULATE windows and in OVER windows; COUNT/SUM(DISTINCT) keyed by ``Double.equals``;
SUM/AVG added and retracted row by row (a SUM retracted to 0.0 keeps it), SUM/AVG(DISTINCT) as
Flink's running sum fed by its distinct map (a NaN or Infinity once added stays; DOUBLE, FLOAT,
INT with Java's wrap-around, DECIMAL; GROUP BY and a bounded OVER frame). The insert-only MIN/MAX
depend on row order: the file is read in order by one task on both sides, so only that order is
tested.

Each query runs with all rows in one batch and with one row per batch (then every row meets the
state an earlier batch wrote), and the final table must be Flink's: each key's last row, read from
both changelogs alike (:func:`flink_final`), since StreamSQL's GROUP BY, as Flink's, does not emit
an update its equaliser finds equal (-0.0 = 0.0) and may later retract the row its state holds.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from sqlglot import parse_one

from streamsql.core.elements import RowKind
from streamsql.core.errors import StreamSQLError
from streamsql.plan.agg_reduce import fewer_calls
from streamsql.plan.nodes import GroupAggNode
from streamsql.plan.planner import Planner
from streamsql.sql.dialect import Flink
from tests.runtime.oracle import make_env

FLINK = json.loads(Path(__file__).with_name("float_aggs_flink.json").read_text())


def _files(tmp_path: Path) -> dict[str, Path]:
    """Each table's file, as the script wrote it for Flink (a debezium table's ``{before, after, op}``)."""
    out = {}
    for name, (_, fmt) in FLINK["tables"].items():
        rows = FLINK["rows"][name]
        if fmt == "debezium-json":
            rows = [{"before": b, "after": a, "op": op} for op, b, a in rows]
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return out


_MINMAX = "SELECT g, " + ", ".join(f"CAST({f}({c}) AS STRING)" for c in "df" for f in ("MIN", "MAX"))
_SUMS = "SELECT g, " + ", ".join(f"CAST({f}({c}) AS STRING)" for c in "df" for f in ("SUM", "AVG"))
#: Known differences, each a strict xfail with its reason.
KNOWN: dict[str, str] = {}
QUERIES = [pytest.param(q, marks=pytest.mark.xfail(strict=True, reason=KNOWN[q])) if q in KNOWN else q
           for q in sorted(FLINK["queries"])]


def _env(tmp_path: Path, batch_size: int | None, settings: dict):
    env = make_env(tmp_path, "hashmap", batch_size, settings)
    for name, path in _files(tmp_path).items():
        columns, fmt = FLINK["tables"][name]
        env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{path}', 'format' = '{fmt}')")
    return env


@pytest.mark.parametrize("query", sorted(FLINK["plans"]))
def test_min_max_retract_as_flinks_plan(tmp_path, query):
    """Each GroupAggregate's MIN/MAX calls, outermost first, retract where Flink's (``MIN_RETRACT``) do."""
    env = _env(tmp_path, None, {})
    node, ours = Planner(env.catalog, env.config, query).plan_query(parse_one(query, read=Flink)), []
    todo = [node]
    while todo:
        n = todo.pop(0)
        if isinstance(n, GroupAggNode):
            ours.append([a.func.upper() for a in n.aggs if a.func.startswith(("min", "max"))])
        todo += n.inputs
    flinks = [re.findall(r"\b(M(?:IN|AX)(?:_RETRACT)?)\(", line) for line in FLINK["plans"][query]]
    assert ours == flinks


@pytest.mark.parametrize("query", sorted(FLINK.get("reduce_plans", {})))
def test_reduced_aggregates_as_flinks_plan(tmp_path, query):
    """An aggregate is rewritten into $SUM0 / COUNT calls where Flink 2.3's plan rewrote it (fewer calls)."""
    env = _env(tmp_path, None, {})
    node, ours = Planner(env.catalog, env.config, query).plan_query(parse_one(query, read=Flink)), []
    todo = [node]
    while todo:
        n = todo.pop(0)
        if hasattr(n, "aggs"):
            ours.append(any(a.func.startswith(("sum0", "avg_of_sum")) or fewer_calls(n.aggs) for a in n.aggs))
        todo += n.inputs
    flinks = [("$SUM0" in line) for line in FLINK["reduce_plans"][query]
              if "Aggregate(" in line and not line.startswith("Local")]  # a two-phase plan: its global
    assert ours == flinks


@pytest.mark.parametrize("batch_size", [None, 1])
@pytest.mark.parametrize("query", QUERIES)
def test_final_table_is_flinks(tmp_path, query, batch_size):
    settings = {"table.local-time-zone": "UTC"}
    if batch_size:  # no accumulator cache: every batch reads back what the last one wrote
        settings["state.cache.max-entries"] = "0"
    env = _env(tmp_path, batch_size, settings)
    flink = FLINK["queries"][query]
    if "error" in flink:  # Flink refuses it (SUM(DISTINCT) in a HOP window): so must we
        with pytest.raises(StreamSQLError):
            list(env.execute_sql(query))
        return
    changelog = [[RowKind(kind).short, *row] for kind, row in env.execute_sql(query)]
    keyed = " GROUP BY " in query  # else one row, updated in place: its last image
    assert flink_final(changelog, keyed) == flink_final(flink["rows"], keyed)


def flink_final(rows: list[list], keyed: bool = True) -> Counter:
    """The final table of Flink's changelog ``rows`` (``[kind, cell, ...]``).

    An insert-only one is its rows. An updating one (every GROUP BY here is keyed by its first
    column; ``keyed`` False: an aggregate without GROUP BY, one row) is each key's last row: Flink's
    GroupAggFunction does not emit an update whose row equals the previous one by its generated
    equaliser, which takes -0.0 for 0.0, so it later retracts a row it never emitted
    (``-U(1, '-0.0', '0.0')`` after ``+I(1, '-0.0', '-0.0')``) and a strict fold fails.
    """
    if all(r[0] == "+I" for r in rows):
        return Counter(tuple(r[1:]) for r in rows)
    last: dict = {}
    for r in rows:
        key = r[1] if keyed else None  # an aggregate without GROUP BY: one row
        if r[0] in ("+I", "+U"):
            last[key] = tuple(r[1:])
        elif r[0] == "-D":
            last.pop(key, None)
    return Counter(last.values())

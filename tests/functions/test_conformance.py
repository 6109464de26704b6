"""The function conformance suite: every case of cases.py through a real StreamSQL job, compared
with the value and result type Apache Flink 2.3 gave (flink_expected.json, written by
scripts/flink_oracle.py).

Each case is planned alone (``CREATE VIEW`` + ``DESCRIBE``: its result type, or the planning
error); the cases that plan run as the columns of one bounded job (a one-row file source →
collect). A case Flink fails on must fail here too (refused at planning or failing the job).
Cases recorded with a ``zone`` run in a session with that ``'table.local-time-zone'``; volatile
cases (the current time, random values) compare their type, and their value for plausibility.
Aggregate cases (``"aggregate": true``) run the same way over a file of cases.AGG_TABLE's rows;
their value is the streaming result's final row.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import time
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from streamsql.plan.describe import view_rows
from streamsql.plan.planner import Planner
from streamsql.sql.parser import parse_statement
from tests.functions.cases import AGG_TABLE, DIFFERENCES, REFUSED, normalize

EXPECTED = json.loads((Path(__file__).parent / "flink_expected.json").read_text())["cases"]

def _recent(v) -> bool:
    now = datetime.datetime.now(datetime.timezone.utc)
    v = v if v.tzinfo else v.replace(tzinfo=datetime.timezone.utc)
    return abs(v - now) < datetime.timedelta(hours=1)


def _recent_time(v) -> bool:
    now = datetime.datetime.now(datetime.timezone.utc)
    seconds = (now.hour * 3600 + now.minute * 60 + now.second) - (v.hour * 3600 + v.minute * 60 + v.second)
    return min(seconds % 86400, -seconds % 86400) < 3600


# Volatile cases (cases.VOLATILE): what a plausible value is (the session zone is UTC).
PLAUSIBLE = {
    "CURRENT_TIMESTAMP": _recent, "NOW()": _recent, "LOCALTIMESTAMP": _recent, "PROCTIME()": _recent,
    "CURRENT_ROW_TIMESTAMP()": _recent,
    "CURRENT_DATE": lambda v: abs(v - datetime.datetime.now(datetime.timezone.utc).date()).days <= 1,
    "LOCALTIME": lambda v: _recent_time(v), "CURRENT_TIME": lambda v: _recent_time(v),
    "UNIX_TIMESTAMP()": lambda v: abs(v - time.time()) < 3600,
    "UUID()": lambda v: re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                     r"[0-9a-f]{12}", v),
    "RAND()": lambda v: 0 <= v < 1, "RAND_INTEGER(10)": lambda v: 0 <= v < 10,
}


def flink_type(text: str) -> str:
    """Flink's type text as StreamSQL spells it where the plan does not carry it exactly: no NOT NULL
    (nullability is not tracked), CHAR(n)/VARCHAR(n) as STRING (an element's, key's, value's or
    field's too; BINARY(n)/VARBINARY(n) are carried exactly), TIMESTAMP(p) carried in milliseconds (p <= 3) or
    microseconds (a CAST's or literal's own precision is carried: see the test)."""
    t = text.replace(" NOT NULL", "")
    if t.endswith(" *PROCTIME*"):  # a PROCTIME() item is a time attribute, typed as Flink's
        return t
    t = re.sub(r"^(VAR)?CHAR\(\d+\)$", "STRING", t)
    t = re.sub(r"(?<=[<, ])(VAR)?CHAR\(\d+\)(?=[>,])", "STRING", t)  # an element, key, value, field
    if t.startswith("TIMESTAMP_LTZ("):  # expressions' instants are carried in microseconds
        return "TIMESTAMP_LTZ(6)"
    m = re.match(r"^TIMESTAMP\((\d)\)$", t)
    if m:
        t = f"TIMESTAMP({3 if int(m.group(1)) <= 3 else 6})"
    return t


MAY_FAIL = set(REFUSED) | {r["expr"] for r in EXPECTED if "error" in r}


def _id(record: dict) -> str:
    if record.get("aggregate"):
        return f"aggregate: {record['expr']}"
    return f"{record['zone']}: {record['expr']}" if "zone" in record else record["expr"]


ONE_ROW = ("x INT", [{"x": 1}])
AGG_ROWS = (", ".join(f"{n} {t}" for n, t in AGG_TABLE["columns"]),
            [dict(zip((n for n, _ in AGG_TABLE["columns"]), r)) for r in AGG_TABLE["rows"]])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """case id → ("value", value, type) | ("error", message, "planning" | "run time"), from StreamSQL."""
    out: dict[str, tuple] = {}
    scalars = [r for r in EXPECTED if not r.get("aggregate")]
    for zone in dict.fromkeys(r.get("zone", "UTC") for r in scalars):
        cases = [r["expr"] for r in scalars if r.get("zone", "UTC") == zone]
        found = _evaluate(tmp_path_factory.mktemp("functions"), cases, zone, ONE_ROW)
        out.update({(c if zone == "UTC" else f"{zone}: {c}"): v for c, v in found.items()})
    aggregates = [r["expr"] for r in EXPECTED if r.get("aggregate")]
    found = _evaluate(tmp_path_factory.mktemp("aggregates"), aggregates, "UTC", AGG_ROWS)
    out.update({f"aggregate: {c}": v for c, v in found.items()})
    return out


def _final(env, select: str) -> tuple:
    """The final row of a query's changelog (insert-only or a global aggregate's updates).

    The wait is long: under -n 2 on a loaded 2-core machine, 60 s ran out with no row (996 errors).
    """
    rows = [row for kind, row in env.execute_sql(select).collect(timeout=300) if kind.short in ("+I", "+U")]
    assert rows, select
    return rows[-1]


def _types(env, cases: list[str], together: bool = True) -> dict[str, tuple]:
    """case → ("type", its result type) | ("error", the planning error, "planning").

    ``together``: plan all as the columns of one query, each alone only if that fails. Together,
    the rows are DESCRIBE's of a view of that query (``describe.view_rows`` of its plan, as
    ``DESCRIBE`` computes them) from one planning: CREATE VIEW and DESCRIBE would plan the ~1,000
    columns once each (alone, each case still goes through CREATE VIEW and DESCRIBE).
    """
    if together and cases:
        select = "SELECT " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(cases)) + " FROM `one`"
        try:
            node = Planner(env.catalog, env.config, select).plan_query(parse_statement(select))
            return {c: ("type", row[1]) for c, row in zip(cases, view_rows(node), strict=True)}
        except StreamSQLError:
            pass
    out = {}
    for case in cases:
        try:
            env.execute_sql(f"CREATE OR REPLACE VIEW c AS SELECT {case} AS c FROM `one`")
            out[case] = ("type", env.execute_sql("DESCRIBE c").rows[0][1])
        except StreamSQLError as e:
            out[case] = ("error", str(e), "planning")
    return out


def _evaluate(tmp: Path, cases: list[str], zone: str, table: tuple[str, list[dict]]) -> dict[str, tuple]:
    columns, rows = table
    (tmp / "one.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out: dict[str, tuple] = {}
    config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp"),
              "table.local-time-zone": zone}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE `one` ({columns}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp}/one.json', 'format' = 'json')")
        planned, alone = [], []
        for together, run in ((True, planned), (False, alone)):  # the cases that may fail: a job each
            for case, typ in _types(env, [c for c in cases if (c in MAY_FAIL) != together], together).items():
                out[case] = typ
                if typ[0] == "type":
                    run.append(case)
        select = ", ".join(f"{c} AS c{i}" for i, c in enumerate(planned))
        for case, value in zip(planned, _final(env, f"SELECT {select} FROM `one`")):
            out[case] = ("value", value, out[case][1])
        for case in alone:  # a job each: a failure must not take the other cases with it
            try:
                out[case] = ("value", _final(env, f"SELECT {case} FROM `one`")[0], out[case][1])
            except StreamSQLError as e:
                out[case] = ("error", str(e), "run time")
    return out


@pytest.mark.parametrize("expected", EXPECTED, ids=[_id(r) for r in EXPECTED])
def test_case(results, expected):
    case = expected["expr"]
    got = results[_id(expected)]
    if "error" in expected or case in REFUSED:
        why = expected.get("error") or REFUSED[case]
        assert got[0] == "error", f"expected a refusal ({why}); StreamSQL returned {got[1]!r}"
        if got[2] == "planning":
            assert "(line 1, column " in got[1], got[1]  # positioned at the call
        return
    assert got[0] == "value", got[1]
    _, value, typ = got
    exact = expected["type"].replace(" NOT NULL", "")  # carried exactly: CHAR(3), TIMESTAMP(0)
    assert typ in (exact, flink_type(expected["type"])), f"type {typ}, Flink {expected['type']}"
    if expected.get("volatile"):
        assert value is not None and PLAUSIBLE[case](value), value
        return
    want = DIFFERENCES[case][0] if case in DIFFERENCES else expected["value"]
    have = normalize(value)
    if isinstance(want, float) and isinstance(have, float):
        assert math.isclose(have, want, rel_tol=1e-12), (have, want)
    else:
        assert have == want

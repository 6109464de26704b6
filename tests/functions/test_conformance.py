"""The function conformance suite: every case of cases.py through a real StreamSQL job, compared
with the value and result type Apache Flink 2.3 gave (flink_expected.json, written by
scripts/flink_oracle.py).

Each case is planned alone (``CREATE VIEW`` + ``DESCRIBE``: its result type, or the planning
error); the cases that plan run as the columns of one bounded job (a one-row file source →
collect). A case Flink fails on must fail here too (refused at planning or failing the job).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from tests.functions.cases import normalize

EXPECTED = json.loads((Path(__file__).parent / "flink_expected.json").read_text())["cases"]

# Deliberate differences (also in docs/functions.md): case → (StreamSQL's value, why).
DIFFERENCES = {
    "UPPER('straße')": ("STRASSE", "Flink truncates the upper-cased CHAR(6) literal to 6 characters"),
    "UPPER('ﬁ')": ("ﬁ", "DuckDB keeps characters whose upper case is longer (Java: 'FI', then Flink "
                        "truncates the CHAR(1) literal's result to 'F')"),
    "REGEXP_EXTRACT('ac', 'a(b)?c', 1)": ("", "DuckDB gives '' for a group that did not take part in "
                                              "the match"),
    "TO_TIMESTAMP('2024-02-30 00:00:00')": (None, "Flink moves a day past the month's end to its last day"),
}
# Cases StreamSQL refuses (at planning, or by failing the job) where Flink has an answer: better
# refused than wrong. Listed in docs/functions.md.
REFUSED = {
    "SHA2('abc', 224)": "DuckDB has no SHA-224", "SHA2('abc', 384)": "DuckDB has no SHA-384",
    "SHA2('abc', 512)": "DuckDB has no SHA-512", "SHA512('abc')": "DuckDB has no SHA-512",
    "2147483647 + 1": "integer overflow fails the job (Flink wraps around)",
    "CAST(3000000000 AS INT)": "an out-of-range CAST fails the job (Flink wraps around)",
    "ABS(CAST(-128 AS TINYINT))": "integer overflow fails the job (Flink wraps around)",
}


def flink_type(text: str) -> str:
    """Flink's type text as StreamSQL spells it: no NOT NULL (nullability is not tracked),
    CHAR(n)/VARCHAR(n) as STRING, TIMESTAMP(p) carried in milliseconds (p <= 3) or microseconds."""
    t = text.replace(" NOT NULL", "")
    t = re.sub(r"^(VAR)?CHAR\(\d+\)$", "STRING", t)
    m = re.match(r"^TIMESTAMP\((\d)\)$", t)
    if m:
        t = f"TIMESTAMP({3 if int(m.group(1)) <= 3 else 6})"
    return t


MAY_FAIL = set(REFUSED) | {r["expr"] for r in EXPECTED if "error" in r}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """case → ("value", value, type) | ("error", message, "planning" | "run time"), from StreamSQL."""
    tmp = tmp_path_factory.mktemp("functions")
    (tmp / "one.json").write_text('{"x": 1}\n')
    out: dict[str, tuple] = {}
    config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE one (x INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp}/one.json', 'format' = 'json')")
        planned, alone = [], []
        for i, case in enumerate(r["expr"] for r in EXPECTED):
            try:
                env.execute_sql(f"CREATE OR REPLACE VIEW c{i} AS SELECT {case} AS c FROM one")
            except StreamSQLError as e:
                out[case] = ("error", str(e), "planning")
                continue
            out[case] = ("type", env.execute_sql(f"DESCRIBE c{i}").rows[0][1])
            (alone if case in MAY_FAIL else planned).append(case)
        select = ", ".join(f"{c} AS c{i}" for i, c in enumerate(planned))
        rows = [row for _, row in env.execute_sql(f"SELECT {select} FROM one").collect(timeout=60)]
        assert len(rows) == 1
        for case, value in zip(planned, rows[0]):
            out[case] = ("value", value, out[case][1])
        for case in alone:  # a job each: a failure must not take the other cases with it
            try:
                rows = [row for _, row in env.execute_sql(f"SELECT {case} FROM one").collect(timeout=60)]
                out[case] = ("value", rows[0][0], out[case][1])
            except StreamSQLError as e:
                out[case] = ("error", str(e), "run time")
    return out


@pytest.mark.parametrize("expected", EXPECTED, ids=[r["expr"] for r in EXPECTED])
def test_case(results, expected):
    case = expected["expr"]
    got = results[case]
    if "error" in expected or case in REFUSED:
        why = expected.get("error") or REFUSED[case]
        assert got[0] == "error", f"expected a refusal ({why}); StreamSQL returned {got[1]!r}"
        if got[2] == "planning":
            assert "(line 1, column " in got[1], got[1]  # positioned at the call
        return
    assert got[0] == "value", got[1]
    _, value, typ = got
    assert typ == flink_type(expected["type"]), f"type {typ}, Flink {expected['type']}"
    want = DIFFERENCES[case][0] if case in DIFFERENCES else expected["value"]
    have = normalize(value)
    if isinstance(want, float) and isinstance(have, float):
        assert math.isclose(have, want, rel_tol=1e-12), (have, want)
    else:
        assert have == want

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
}
# Functions (or arguments) StreamSQL refuses at planning, where Flink has an answer: better refused
# than wrong. Listed in docs/functions.md.
REFUSED = {
    "SHA2('abc', 224)": "DuckDB has no SHA-224", "SHA2('abc', 384)": "DuckDB has no SHA-384",
    "SHA2('abc', 512)": "DuckDB has no SHA-512", "SHA512('abc')": "DuckDB has no SHA-512",
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


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """case → ("value", value, type) | ("error", message), from StreamSQL."""
    tmp = tmp_path_factory.mktemp("functions")
    (tmp / "one.json").write_text('{"x": 1}\n')
    out: dict[str, tuple] = {}
    config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE one (x INT) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp}/one.json', 'format' = 'json')")
        planned = []
        for i, case in enumerate(r["expr"] for r in EXPECTED):
            try:
                env.execute_sql(f"CREATE OR REPLACE VIEW c{i} AS SELECT {case} AS c FROM one")
            except StreamSQLError as e:
                out[case] = ("error", str(e))
                continue
            out[case] = ("type", env.execute_sql(f"DESCRIBE c{i}").rows[0][1])
            planned.append(case)
        select = ", ".join(f"{c} AS c{i}" for i, c in enumerate(planned))
        rows = [row for _, row in env.execute_sql(f"SELECT {select} FROM one").collect(timeout=60)]
        assert len(rows) == 1
        for case, value in zip(planned, rows[0]):
            out[case] = ("value", value, out[case][1])
    return out


@pytest.mark.parametrize("expected", EXPECTED, ids=[r["expr"] for r in EXPECTED])
def test_case(results, expected):
    case = expected["expr"]
    got = results[case]
    if "error" in expected or case in REFUSED:
        why = expected.get("error") or REFUSED[case]
        assert got[0] == "error", f"expected a refusal ({why}); StreamSQL returned {got[1]!r}"
        assert "(line 1, column " in got[1], got[1]  # positioned
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

"""TYPEOF's refusals: every argument whose Flink type (nullability included) is not certain is
refused at its position, never answered with a guess. Flink's own answers for the supported forms
are the compat cases tests/compat/cases/typeof_*; the answers Flink gives for the refused forms
below (from Flink 2.3, run while writing them) show why a guess would be wrong."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError
from streamsql.functions.scalars import binder, calls, typeof
from streamsql.functions.scalars.registry import REGISTRY, FunctionError, planning_session
from streamsql.sql.dialect import Flink

FLINK_CASES = json.loads((Path(__file__).parent / "flink_expected.json").read_text())["cases"]


@pytest.fixture
def env(tmp_path):
    (tmp_path / "t.json").write_text('{"id": 1, "n": 5, "s": "abc"}\n')
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as e:
        for name in ("t", "u"):
            e.execute_sql(f"CREATE TABLE {name} (id INT NOT NULL, n INT NOT NULL, s STRING, v VARCHAR) WITH ("
                          f"'connector' = 'filesystem', 'path' = '{tmp_path}/t.json', 'format' = 'json')")
        yield e


@pytest.mark.parametrize("sql, message, col", [
    # ELEMENT of other than an ARRAY[..] constructor: its element's nullability is not derived here
    ("SELECT TYPEOF(ELEMENT(SPLIT(s, ','))) FROM t", "ELEMENT of other than an ARRAY[..] constructor is not",
     15),
    ("SELECT TYPEOF(n = NULL) FROM t", "an operator over an untyped NULL is not", 15),
    # Flink: 'CHAR(3) NOT NULL' (the registry's result type says STRING)
    ("SELECT TYPEOF(UPPER('abc')) FROM t", "UPPER over a CHAR(n)/VARCHAR(n) argument may keep its length",
     15),
    # Flink: 'CHAR(32)' (the registry says STRING)
    ("SELECT TYPEOF(MD5(s)) FROM t", "MD5 is not one of those functions", 15),
    # the common type of CHARs of different lengths is not derived here
    ("SELECT TYPEOF(COALESCE('x', 'abc')) FROM t", "the common type of these values is not", 15),
    # a column of a subquery over a column of no certain type (VARCHAR: Flink's VARCHAR(1))
    ("SELECT TYPEOF(c) FROM (SELECT v AS c FROM t)", "the type of column c is not known here", 15),
    # an element of a string type: its CHAR(n) length is not kept (Flink: CHAR(1))
    ("SELECT TYPEOF(ARRAY['a', 'b'][1]) FROM t", "the type of an element of type STRING is not", 31),
    # the left side of a RIGHT JOIN may be NULL though its DDL says NOT NULL
    ("SELECT TYPEOF(t.n) FROM t RIGHT JOIN u ON t.id = u.id", "the type of column n is not known", 17),
    # Flink: VARCHAR is VARCHAR(1); StreamSQL keeps it as STRING
    ("SELECT TYPEOF(v) FROM t", "the type of column v is not known here", 15),
    # VARBINARY(3) is kept now: the CAST itself is refused, as Flink's validator refuses it
    ("SELECT TYPEOF(CAST(n AS VARBINARY(3))) FROM t",
     "Cast function cannot convert value of type INTEGER to type VARBINARY(3)", 20),
    ("SELECT TYPEOF(CAST(n AS VARCHAR)) FROM t", "the type of a CAST to VARCHAR is not", 20),
    ("SELECT TYPEOF(9223372036854775808) FROM t", "an integer literal beyond BIGINT is not", 15),
    ("SELECT TYPEOF('') FROM t", "the type of the empty string literal is not", 15),
    ("SELECT TYPEOF(n, n > 1) FROM t", "TYPEOF: force_serializable must be a BOOLEAN literal", 18),
])
def test_refused_at_the_argument(env, sql, message, col):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert message in ei.value.message, ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)


def test_try_cast_of_a_not_null_value_is_refused(env):
    with pytest.raises(SqlError) as ei:
        env.execute_sql("SELECT TYPEOF(TRY_CAST(n AS BIGINT)) FROM t")
    assert "TRY_CAST of a NOT NULL value is not" in ei.value.message, ei.value.message


def _answered() -> list[tuple[str, str, str, set[str]]]:
    """(case, TYPEOF's answer, Flink's type, the built-ins in it) of every conformance case over
    literals that TYPEOF answers (not refuses)."""
    out = []
    for case in FLINK_CASES:
        if "type" not in case or case.get("aggregate") or case.get("zone"):
            continue
        tree = sqlglot.parse_one(case["expr"], read=Flink)
        if tree.find(exp.Column):
            continue
        with planning_session(None):
            try:
                mine = typeof.flink_type(tree, binder.bind).sql()
            except FunctionError:
                continue
        names = {REGISTRY[calls.name_of(f)].names[0] for f in tree.find_all(exp.Func)
                 if not isinstance(f, exp.Cast) and calls.name_of(f) in REGISTRY}
        out.append((case["expr"], mine, case["type"], names))
    return out


def test_answers_are_flinks_types_in_the_conformance_cases():
    answered = _answered()
    wrong = [(e, mine, flink) for e, mine, flink, _ in answered if mine != flink]
    assert not wrong, wrong
    assert len(answered) > 200, len(answered)
    matched = set().union(*(names for *_, names in answered))
    # the BITMAP functions: Flink 2.3's answers in funcs33_flink.json (tests/functions/test_funcs33.py)
    funcs33 = json.loads(Path(__file__).with_name("funcs33_flink.json").read_text())["typeof"]
    matched |= {name for st in funcs33 for name in re.findall(r"BITMAP_[A-Z_]+", st["sql"])}
    assert typeof.VERIFIED <= matched, typeof.VERIFIED - matched  # each has a case (ABS's NOT NULL: compat)

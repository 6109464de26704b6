"""FLOAT with DOUBLE in UNION ALL, CASE, COALESCE, IN, = and VALUES, against Flink 2.3's answers.

``tests/connectors/negative_zero_flink.json``'s ``float_double`` is written by
``scripts/flink_negative_zero.py``: each query over a ``json`` table ``fd (f FLOAT, d DOUBLE)``
holding 0.1 / 0.1, with its rows and ``TYPEOF`` (compared with DESCRIBE of a view). Calcite's
``leastRestrictive`` in Flink's type system: the first approximate type wins in a UNION ALL, CASE or
VALUES column and a comparison; COALESCE is DOUBLE.
A FLOAT result is compared after rounding to float32 (PyFlink prints a FLOAT's shortest digits).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from streamsql import StreamEnvironment

ORACLE = json.loads((Path(__file__).parent.parent / "connectors" / "negative_zero_flink.json")
                    .read_text(encoding="utf-8"))["float_double"]


def _rounded(v, as_float: bool):
    return float(np.float32(v)) if as_float and isinstance(v, float) else v


#: Left: Flink keeps a constant ``CAST(0.1 AS FLOAT)`` as Calcite's exact literal 0.1, so a VALUES
#: column typed DOUBLE by its first row holds 0.1 where the FLOAT value widened here is
#: 0.10000000149011612 (a literal's value, not a type rule).
_LITERAL = pytest.mark.xfail(strict=True, reason="Calcite keeps CAST(0.1 AS FLOAT)'s exact literal value")


@pytest.mark.parametrize("key", [pytest.param(k, marks=_LITERAL) if k == "values_rows_double_first" else k
                                 for k in sorted(ORACLE)])
def test_float_with_double_is_flinks(key, tmp_path):
    case = ORACLE[key]
    folder = tmp_path / "fd"
    folder.mkdir()
    (folder / "r.json").write_text('{"f":0.1,"d":0.1}\n')
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE fd (f FLOAT, d DOUBLE) WITH ('connector' = 'filesystem', "
                        f"'path' = '{folder}', 'format' = 'json')")
        env.execute_sql(f"CREATE VIEW x AS {case['sql']}")
        (_, (_, name, nullable, *_)), = env.execute_sql("DESCRIBE x").collect(timeout=60)
        rows = [list(r[1]) for r in env.execute_sql(case["sql"]).collect(timeout=60)]
    # TYPEOF per row; the type's name only (a VALUES of CASTs is NOT NULL in Flink, nullable here)
    assert [name] * len(rows) == [t.removesuffix(" NOT NULL") for t in case["types"]]
    as_float = name == "FLOAT"
    expected = sorted([_rounded(v, as_float) for v in json.loads(r)] for r in case["rows"])
    assert sorted([_rounded(v, as_float) for v in r] for r in rows) == expected
    if as_float:  # the DOUBLE values were narrowed: no row keeps the DOUBLE 0.1
        assert all(v != 0.1 for r in rows for v in r)


_ORDER = json.loads((Path(__file__).parent.parent / "connectors" / "negative_zero_flink.json")
                    .read_text(encoding="utf-8"))["float_order"]


@pytest.fixture(scope="module")
def order_env(tmp_path_factory):
    """An environment with the ``json`` table ``fo (id INT, f FLOAT, d DOUBLE)`` of the recording's pairs."""
    d = tmp_path_factory.mktemp("fo")
    (d / "fo").mkdir()
    (d / "fo" / "r.json").write_text("\n".join(_ORDER["lines"]) + "\n")
    config = {"execution.checkpointing.dir": str(d / "chk"), "state.dir": str(d / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE fo (id INT, f FLOAT, d DOUBLE) WITH ('connector' = 'filesystem', "
                        f"'path' = '{d / 'fo'}', 'format' = 'json')")
        yield env


@pytest.mark.parametrize("key", sorted(_ORDER["queries"]))
def test_float_double_comparison_is_flinks(key, order_env):
    """``<`` / ``<=`` / ``>`` / ``>=`` / BETWEEN / IS DISTINCT FROM of a FLOAT with a DOUBLE compare in
    DOUBLE, ``=`` / ``<>`` in FLOAT, as Flink 2.3 (0.1, 16777217, past FLOAT's range, NaN, -0.0)."""
    case = _ORDER["queries"][key]
    rows = sorted(json.dumps(list(r)) for _, r in order_env.execute_sql(case["sql"]).collect(timeout=60))
    assert sorted(rows) == sorted(case["rows"])

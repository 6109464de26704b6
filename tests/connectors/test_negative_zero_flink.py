"""-0 and -0.0 read by the JSON formats, against Flink 2.3's answers.

``negative_zero_flink.json`` is written by ``scripts/flink_negative_zero.py``: filesystem tables in
``json``, ``debezium-json``, ``canal-json`` and ``maxwell-json`` (with and without a DECIMAL column)
whose numbers are spellings of a negative zero, at top level and in a ROW, an ARRAY and a MAP. The
changelog formats read ``-0`` as 0.0, and every negative zero number as 0.0 when the row type holds
a DECIMAL (Jackson's BigDecimal nodes); ``json`` keeps -0.0 (the integer ``-0`` too: Flink's
parser-based deserializer, where orjson's int 0 has no sign). The signs are compared as JSON text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

ORACLE = json.loads((Path(__file__).parent / "negative_zero_flink.json").read_text(encoding="utf-8"))


def _plain(v):
    """A value as the recording spells it: a ROW (a dict here) as its field list, a MAP as a dict."""
    if isinstance(v, dict):
        return [_plain(x) for x in v.values()]
    if isinstance(v, list) and v and all(isinstance(x, tuple) for x in v):
        return {k: _plain(x) for k, x in v}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _kind(k) -> str:
    return {0: "+I", 1: "-U", 2: "+U", 3: "-D"}[int(k)]


def _read(tmp_path, name: str, columns: str, fmt: str, messages: list[str], sql: str) -> list[str]:
    """The rows (sorted JSON texts: kind, then values) of ``sql`` over a filesystem table ``name``."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "r.json").write_text("\n".join(messages) + "\n")
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{folder}', 'format' = '{fmt}')")
        rows = list(env.execute_sql(sql).collect(timeout=60))
    return sorted(json.dumps([_kind(k), *_plain(list(r))]) for k, r in rows)


@pytest.mark.parametrize("name", sorted(ORACLE["formats"]))
def test_negative_zeros_are_flinks(name, tmp_path):
    case = ORACLE["formats"][name]
    assert _read(tmp_path, name, case["columns"], case["format"], case["messages"], f"SELECT * FROM {name}") \
        == case["rows"]


@pytest.mark.parametrize("name", ["t_debezium_json", "t_debezium_json_dec"])
def test_debezium_fast_path_negative_zeros(name, tmp_path):
    """Without the quoted ``"-0.0"`` record (id 5) the whole file fits debezium's vectorised path.

    Arrow reads ``-0`` as -0.0; the rows must still be Flink's (the recording's, less id 5's).
    """
    case = ORACLE["formats"][name]
    folder = tmp_path / name
    folder.mkdir()
    numeric = [m for m in case["messages"] if '"-0.0"' not in m]
    (folder / "r.json").write_text("\n".join(numeric) + "\n")
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE {name} ({case['columns']}) WITH ('connector' = 'filesystem', "
                        f"'path' = '{folder}', 'format' = 'debezium-json')")
        rows = list(env.execute_sql(f"SELECT * FROM {name}").collect(timeout=60))
    got = sorted(json.dumps([_kind(k), *_plain(list(r))]) for k, r in rows)
    assert got == [r for r in case["rows"] if json.loads(r)[1] != 5]


_FUNCTIONS = ORACLE["json_functions"]


@pytest.fixture(scope="module")
def js_env(tmp_path_factory):
    """An environment with the ``json`` table ``js (id INT, s STRING)`` of the recording's documents."""
    d = tmp_path_factory.mktemp("js")
    (d / "js").mkdir()
    (d / "js" / "r.json").write_text("\n".join(_FUNCTIONS["lines"]) + "\n")
    config = {"execution.checkpointing.dir": str(d / "chk"), "state.dir": str(d / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE js (id INT, s STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{d / 'js'}', 'format' = 'json')")
        yield env


@pytest.mark.parametrize("key", sorted(_FUNCTIONS["queries"]))
def test_json_functions_read_negative_zeros_as_flink(key, js_env):
    """JSON_VALUE / JSON_QUERY / PARSE_JSON of ``-0``, ``-0.0``, ``-0e0`` ...: Flink's rows, or a failure
    where Flink's job fails or its planner refuses (JSON_VALUE ... RETURNING DOUBLE of an integer, FLOAT)."""
    case = _FUNCTIONS["queries"][key]
    if isinstance(case["rows"], dict):
        with pytest.raises(StreamSQLError):
            list(js_env.execute_sql(case["sql"]).collect(timeout=60))
        return
    rows = sorted(json.dumps(list(r)) for _, r in js_env.execute_sql(case["sql"]).collect(timeout=60))
    assert rows == case["rows"]


_PROJECTED = ORACLE["projected"]


@pytest.mark.parametrize("key", sorted(_PROJECTED["queries"]))
def test_projection_decides_the_decimal_rule_as_flink(key, tmp_path):
    """A changelog JSON table with DECIMAL columns: -0.0 stays -0.0 when the query reads none of
    them (Flink's filesystem source pushes its projection into the format), 0.0 when it does."""
    case = _PROJECTED["queries"][key]
    name = key.split("/")[0]
    got = _read(tmp_path, name, _PROJECTED["columns"], case["format"], case["messages"], case["sql"])
    assert got == sorted(case["rows"])

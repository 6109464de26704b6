"""Maps and NULL keys against Apache Flink 2.3's recorded answers (``map_null_keys_flink.json``).

``scripts/flink_map_null_keys.py`` (PyFlink, never by hand) records what Flink does with a map
holding a NULL key: it keeps it (``{NULL=1, a=2}`` printed, ``CARDINALITY`` 2, ``m[NULL]`` NULL,
``GROUP BY m`` groups equal maps, the ``print`` sink ``{null=10}``, the ``json`` sink fails, drops
the entry or writes ``'json.map-null-key.literal'`` per ``'json.map-null-key.mode'``).

Here a map cannot hold a NULL key (Arrow and DuckDB maps refuse one), so every statement that
builds one fails its job with a clear, positioned error instead of losing the entry: that gap is
asserted as such (:data:`NULL_KEY_SCRIPTS`) and listed in docs/types.md. What needs no NULL key
answers as Flink: ``STR_TO_MAP`` (an empty key is a key), a JSON object's ``"null"`` key (text),
a JSON ``MAP<INT, ...>`` refused in Flink's words, and the ``json.map-null-key.*`` options, which
were refused as unknown (a Flink script with them failed) and now write Flink's lines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from tests.functions.bitmap_oracle import collected_text as _text
from tests.functions.test_bitmap import _cause, _execute, _fold

FLINK = json.loads((Path(__file__).parent / "map_null_keys_flink.json").read_text())
JSRC_ROWS = ['{"id": 1, "ms": {"null": 1, "a": 2}}', '{"id": 2, "mi": {"null": 1, "2": 3}}',
             '{"id": 3, "ms": {"": 4}}']
"""``jsrc.json``, as scripts/flink_map_null_keys.py writes it."""
#: Scripts whose queries build a map with a NULL key: the job fails here (the known gap).
NULL_KEY_SCRIPTS = ("literal", "from_arrays", "column", "json_sink")
_NULL_KEY_ERRORS = ("has a NULL key", "Map keys can not be NULL")
#: Statements answered otherwise, each with its reason.
DIFFERENT = {FLINK["json_source"][2]["sql"]: (
    "a JSON table with a MAP<INT, ...> column is refused here by any query (connectors/formats "
    "_string_map_keys checks the table's schema); Flink only when the column is read (its projection "
    "reaches the format)")}
#: PyFlink cannot collect a MAP value (its Python side fails to unpickle one); the PRINT of the
#: same query, recorded next to it, is Flink's answer.
_PYFLINK_COLLECT = "Ran out of input"


def _cases():
    for name, statements in FLINK.items():
        for i, st in enumerate(statements):
            if not st["sql"].startswith("CREATE") and st.get("error") != _PYFLINK_COLLECT:
                yield pytest.param(name, i, id=f"{name}-{i}")


def _prepared(tmp_path: Path, script: str, index: int) -> StreamEnvironment:
    (tmp_path / "jsrc.json").write_text("\n".join(JSRC_ROWS) + "\n")
    env = StreamEnvironment()
    for st in FLINK[script][:index]:
        if st["sql"].startswith("CREATE") and "error" not in st:
            _execute(env, st["sql"], tmp_path)
    return env


def _run(env: StreamEnvironment, sql: str, tmp_path: Path) -> list:
    result = _execute(env, sql.removeprefix("PRINT "), tmp_path)
    if result is None:
        return []
    return [[k.short] + [_text(v) for v in r] for k, r in result.collect(timeout=60)]


@pytest.mark.parametrize(("script", "index"), list(_cases()))
def test_as_flink_or_a_clear_failure_for_a_null_key(tmp_path, script, index):
    """Statement ``index`` of ``script``: Flink's answer, or (a NULL key built) a positioned job failure."""
    env = _prepared(tmp_path, script, index)
    want = FLINK[script][index]
    if want["sql"] in DIFFERENT:
        pytest.skip(DIFFERENT[want["sql"]])
    if script in NULL_KEY_SCRIPTS:
        with pytest.raises(StreamSQLError) as ei:
            _run(env, want["sql"], tmp_path)
        assert any(e in str(ei.value) for e in _NULL_KEY_ERRORS), str(ei.value)
        if "has a NULL key" in str(ei.value):
            assert "(its first key at line 1, column" in str(ei.value), str(ei.value)
        return
    if "error" in want:
        with pytest.raises(StreamSQLError) as ei:
            _run(env, want["sql"], tmp_path)
        assert _cause(want["error"]) in str(ei.value), (str(ei.value), want["error"])
        return
    assert _fold(_run(env, want["sql"], tmp_path)) == _fold(want["rows"]), want["sql"]


@pytest.mark.parametrize("mode", ["drop", "literal", "deflit"])
def test_json_sink_map_null_key_options_write_flinks_lines(tmp_path, mode):
    """A json sink with ``'json.map-null-key.mode'`` (and ``.literal``) is taken (it was refused as an
    unknown option): the row whose map has no NULL key is written as Flink wrote it."""
    statements = {st["sql"].split()[2]: st for st in FLINK["json_sink"]
                  if st["sql"].startswith("CREATE TABLE")}
    env = StreamEnvironment()
    _execute(env, FLINK["json_sink"][0]["sql"], tmp_path)  # the view v
    _execute(env, statements[f"s_{mode}"]["sql"], tmp_path)
    _execute(env, f"INSERT INTO s_{mode} SELECT id, m FROM v WHERE id = 2", tmp_path)
    files = [p for p in (tmp_path / mode).rglob("*") if p.is_file() and not p.name.startswith(".")]
    written = "".join(p.read_text() for p in files).splitlines()
    flinks = next(st["files"] for st in FLINK["json_sink"] if st["sql"].startswith(f"INSERT INTO s_{mode} "))
    assert written == [ln for ln in flinks if ln.startswith('{"id":2,')]


def test_an_unknown_map_null_key_mode_is_refused():
    """``'json.map-null-key.mode'`` takes Flink's FAIL, DROP or LITERAL (any case), nothing else."""
    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE ok_t (m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '/x', "
                    "'format' = 'json', 'json.map-null-key.mode' = 'drop')")
    with pytest.raises(StreamSQLError) as ei:
        env.execute_sql("CREATE TABLE bad_t (m MAP<STRING, INT>) WITH ('connector' = 'filesystem', "
                        "'path' = '/x', 'format' = 'json', 'json.map-null-key.mode' = 'KEEP')")
        env.execute_sql("INSERT INTO bad_t SELECT MAP['a', 1]")
    assert "json.map-null-key.mode" in str(ei.value), str(ei.value)

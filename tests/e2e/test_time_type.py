"""TIME / TIME(p) as Apache Flink 2.3 has it, compared with Flink's answers in ``time_flink.json``.

``scripts/flink_time.py`` recorded them on PyFlink 2.3: DESCRIBE of TIME columns (TIME is TIME(0),
TIME(p > 3) is TIME(3), NOT NULL, inside ROW / ARRAY / MAP) and of TIME expressions; which
statements Flink plans and which it refuses (bad literals, casts, arithmetic); query results as
text; the text the json, csv and debezium-json formats write for TIME values, and what they read
from TIME text. Expression values are conformance cases too (tests/functions/cases.py), whole
scripts compat cases (``tests/compat/cases/time_*``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql.core.errors import StreamSQLError
from streamsql.output import shown_changelog
from tests.runtime.oracle import make_env

FLINK = json.loads((Path(__file__).parent / "time_flink.json").read_text())

#: The session setup of scripts/flink_time.py: its table and views.
SETUP = [FLINK["table"], *FLINK["views"]]
#: Statements Flink plans but whose job fails (the conformance cases record it: "unit DAY can not be
#: applied to time variable"): refused here while planning.
_FAIL_WHEN_RUN = {"SELECT YEAR(TIME '12:00:00')", "SELECT EXTRACT(DAY FROM TIME '12:00:00')"}


@pytest.fixture
def env(tmp_path):
    e = make_env(tmp_path)
    for statement in SETUP:
        e.execute_sql(statement)
    yield e
    e.close()


@pytest.mark.parametrize("name", sorted(FLINK["describe"]))
def test_describe_types_as_flink(env, name):
    ours = env.execute_sql(f"DESCRIBE {name}").rows
    flink = FLINK["describe"][name]
    assert [(r[0], r[1]) for r in ours] == [(r[0], r[1]) for r in flink]
    if name == "t":  # a table's nullability as declared (a view's is derived: not compared)
        assert [str(r[2]) for r in ours] == [r[2] for r in flink]


@pytest.mark.parametrize("statement", sorted(FLINK["plans"]))
def test_planned_or_refused_as_flink(env, statement):
    answer = FLINK["plans"][statement]
    if "error" in answer or statement in _FAIL_WHEN_RUN:
        with pytest.raises(StreamSQLError):
            _run(env, statement)
        return
    _run(env, statement)


@pytest.mark.parametrize("query", sorted(FLINK["queries"]))
def test_query_text_as_flink(env, query):
    answer = FLINK["queries"][query]
    if "error" in answer:
        with pytest.raises(StreamSQLError):
            _rows(env, query)
        return
    ours = _rows(env, query)
    if "MIN(" in query:  # an updating aggregate: Flink's collected rows are its changelog; the last one
        assert ours[-1:] == answer["rows"][-1:]
        return
    assert sorted(ours, key=str) == sorted(answer["rows"], key=str)


@pytest.mark.parametrize("fmt", ["json", "csv", "debezium-json"])
def test_format_writes_time_text_as_flink(tmp_path, fmt):
    e = make_env(tmp_path)
    out = tmp_path / "out"
    e.execute_sql(f"CREATE TABLE s (id INT, a TIME, b TIME(3), c TIME(6)) WITH ('connector' = 'filesystem', "
                  f"'path' = '{out}', 'format' = '{fmt}')")
    e.execute_sql(f"INSERT INTO s VALUES {FLINK['sinks']['rows']}").wait(120)
    files = [p for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith(".")] \
        if out.is_dir() else [out]
    text = "".join(p.read_text() for p in files)
    assert sorted(text.splitlines()) == sorted(FLINK["sinks"][fmt]["text"].splitlines())
    e.close()


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_format_reads_time_text_as_flink(tmp_path, fmt):
    for i, case in enumerate(FLINK["reads"][fmt]["rows"]):
        folder = tmp_path / f"in{i}"
        folder.mkdir()
        (folder / "in.txt").write_text(case["line"] + "\n")
        e = make_env(tmp_path / f"env{i}")
        e.execute_sql(f"CREATE TABLE r (a TIME(0), b TIME(3), c TIME(6)) WITH ('connector' = 'filesystem', "
                      f"'path' = '{folder}', 'format' = '{fmt}')")
        query = "SELECT CAST(a AS STRING), CAST(b AS STRING), CAST(c AS STRING) FROM r"
        if "error" in case:
            with pytest.raises(StreamSQLError):
                _rows(e, query)
        else:
            assert _rows(e, query) == case["rows"], case["line"]
        e.close()


def test_client_text_is_flinks_cast_to_string(env):
    """The shell prints a TIME as Flink's SQL client: its CAST to STRING (first recorded query)."""
    query = next(q for q in FLINK["queries"] if q.startswith("SELECT CAST(TIME '12:34:56.123456' AS STRING)"))
    values = ("TIME '12:34:56.123456'", "TIME '12:34:56.1'", "TIME '00:00:00'",
              "CAST(TIME '12:34:56.987654' AS TIME(6))", "CAST(TIME '12:34:56.987654' AS TIME(0))",
              "CAST(TIME '12:34:56.987' AS TIME(1))")
    result = env.execute_sql("SELECT " + ", ".join(values))
    (_, row), = shown_changelog(result.collect(timeout=60), result.column_types, result.time_zone)
    assert [str(v) for v in row] == FLINK["queries"][query]["rows"][0]


def _run(env, statement: str) -> None:
    result = env.execute_sql(statement)
    if statement.startswith("SELECT"):
        list(result.collect(timeout=60))


def _rows(env, query: str) -> list[list[str | None]]:
    rows = env.execute_sql(query).collect(timeout=60)
    return [[None if v is None else str(v) for v in row] for _, row in rows]

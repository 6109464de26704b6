"""TIME through every operator, compared with Flink 2.3's answers in ``time_break_flink.json``.

``scripts/flink_time_break.py`` recorded them on PyFlink 2.3 (streaming mode, zone UTC): each
query's changelog (every value CAST to STRING in the query, so no Python conversion is involved)
or its error, and what a json / csv sink writes for a TIME of another precision. A query Flink
answers must give the same rows once its changelog is folded; a query Flink refuses (or whose
job fails) must be refused here with a :class:`StreamSQLError`, never a bare traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql.core.errors import StreamSQLError
from tests.runtime.oracle import assert_answer_as_flink, fold_text, make_env, text_rows

FLINK = json.loads((Path(__file__).parent / "time_break_flink.json").read_text())

#: Queries where StreamSQL's answer still differs from Flink's (see the reason).
KNOWN: dict[str, str] = {}

#: Sink cases where StreamSQL's answer still differs from Flink's.
SINK_KNOWN = {
    "col3_into_t0": "Flink's code generator fails on a VALUES mixing TIME(3) and TIME(1) literals "
                    "(CodeGenException: Incompatible types of expression and result type: the literal "
                    "TIME(1) 00:00:00.5 is not widened to the column's TIME(3) before code generation, "
                    "an internal error of Flink's planner, not a refusal of the query); the rows are "
                    "written here, as Flink writes them for the same values as columns (cast3_into_t0)",
}


@pytest.fixture
def env(tmp_path):
    e = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    yield e
    e.close()


@pytest.mark.parametrize("query", sorted(FLINK["queries"]))
def test_query_as_flink(env, query):
    if query in KNOWN:
        pytest.xfail(KNOWN[query])
    assert_answer_as_flink(env, query, FLINK["queries"][query])


@pytest.mark.parametrize("key", sorted(FLINK["zoned"]))
def test_zoned_cast_as_flink(tmp_path, key):
    """CAST between TIME and TIMESTAMP_LTZ in a session time zone: its wall clock there."""
    zone, query = key.split("|", 1)
    e = make_env(tmp_path, settings={"table.local-time-zone": zone})
    ours = text_rows(e, query)
    e.close()
    assert ours == fold_text(FLINK["zoned"][key]["rows"])


@pytest.mark.parametrize("case", sorted(k for k in FLINK["sinks"] if k != "cases"))
def test_sink_of_another_precision_as_flink(tmp_path, case):
    """A TIME(3) into a TIME(0) / TIME(1) sink column, and what Flink refuses to insert."""
    fmt, name = case.split(":")
    if name in SINK_KNOWN:
        pytest.xfail(SINK_KNOWN[name])
    column, select = FLINK["sinks"]["cases"][name]
    answer = FLINK["sinks"][case]
    e = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    out = tmp_path / "out"
    e.execute_sql(f"CREATE TABLE s ({column}) WITH ('connector' = 'filesystem', 'path' = '{out}', "
                  f"'format' = '{fmt}')")
    if "error" in answer:
        with pytest.raises(StreamSQLError):
            e.execute_sql(f"INSERT INTO s {select}").wait(60)
        e.close()
        return
    e.execute_sql(f"INSERT INTO s {select}").wait(60)
    files = [p for p in sorted(out.rglob("*")) if p.is_file() and not p.name.startswith(".")]
    text = "".join(p.read_text() for p in files)
    back = [str(row[0]) for _, row in e.execute_sql("SELECT CAST(a AS STRING) FROM s").collect(timeout=60)]
    e.close()
    assert sorted(text.splitlines()) == sorted(answer["text"].splitlines())
    assert sorted(back) == sorted(answer["back"])

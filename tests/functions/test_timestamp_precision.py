"""Timestamp precision as Flink 2.3: nanoseconds, casts to a precision, the json and csv formats.

``timestamp_precision_flink.json`` is written by ``scripts/flink_timestamp_precision.py`` on PyFlink
2.3 (zone UTC): each query's changelog with every value CAST to STRING in the query (so no Python
conversion is involved) or its error; and, per format, one record read into TIMESTAMP(0..9),
TIMESTAMP_LTZ(0..9) or TIME(0..3) columns from text with more fraction digits than some declare:
the columns' text, comparisons with literals, the bytes the format writes back. A query Flink
answers must give the same rows once folded; one Flink refuses must be refused here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from streamsql.core.errors import StreamSQLError
from tests.runtime.oracle import assert_answer_as_flink, fold_text, make_env, text_rows

FLINK = json.loads(Path(__file__).with_name("timestamp_precision_flink.json").read_text())

def _queries_with(*parts: str) -> list[str]:
    return [q for q in FLINK.get("queries", {}) if all(p in q for p in parts)]


#: Queries whose answer still differs from Flink's, and why (docs/types.md, Timestamp precision).
KNOWN: dict[str, str] = {
    **dict.fromkeys(_queries_with("CAST(CAST(a AS TIME(3))"),
                    "Flink's TIME of a timestamp before 1970 is negative milliseconds (00:00:00.999 for "
                    "1969-12-31 23:59:59.999999999); 23:59:59.999 here (docs/types.md, TIME differences)"),
    **dict.fromkeys(_queries_with("DATE_FORMAT(a, 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')"),
                    "DATE_FORMAT writing digits below the microsecond of a TIMESTAMP(9) is refused here"),
    **dict.fromkeys(_queries_with("TO_TIMESTAMP_LTZ('", "SSSSSSS"),
                    "TO_TIMESTAMP_LTZ with a format ending in 7 to 9 S is refused here (Flink: "
                    "TIMESTAMP_LTZ(7..9) keeping the digits; docs/functions.md)"),
    **dict.fromkeys(_queries_with("TO_TIMESTAMP_LTZ(1704103200123456789, 9)"),
                    "TO_TIMESTAMP_LTZ of precision 9 is refused here (docs/functions.md)"),
    **dict.fromkeys(_queries_with("TYPEOF(CURRENT_TIMESTAMP)"),
                    "TYPEOF of CURRENT_TIMESTAMP is refused here"),
    **dict.fromkeys(_queries_with("LAG(a) OVER (ORDER BY PROCTIME())"),
                    "LAG over a processing-time order is refused here (Flink 2.3's job fails on "
                    "other types)"),
}

_EXTRA_DIGITS = ("Flink's json and csv formats keep every fraction digit of the text whatever the column's "
                 "precision (a TIMESTAMP(0) column read from .123456789 compares unequal to 10:00:00, "
                 "EXTRACT(NANOSECOND) is 123456789 and the format writes the nine digits back); here a "
                 "TIMESTAMP(0..3) column holds milliseconds and a TIMESTAMP(4..6) microseconds, cut down "
                 "(docs/types.md, known difference)")


def _more_digits_than_held(key: str) -> bool:
    """A timestamp read whose text has more fraction digits than a TIMESTAMP(0..3) column holds."""
    _, kind, text = key.split("|", 2)
    fraction = text.rstrip("Z").partition(".")[2]
    return kind in ("ts", "ltz") and len(fraction) > 3


#: Reads (``format|kind|text``) whose answer still differs from Flink's, and why.
READ_KNOWN: dict[str, str] = dict.fromkeys(filter(_more_digits_than_held, FLINK.get("reads", {})),
                                           _EXTRA_DIGITS)


@pytest.fixture
def env(tmp_path):
    e = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    yield e
    e.close()


@pytest.mark.parametrize("query", sorted(FLINK.get("queries", {})))
def test_query_as_flink(env, query):
    if query in KNOWN:
        pytest.xfail(KNOWN[query])
    assert_answer_as_flink(env, query, FLINK["queries"][query])


@pytest.mark.parametrize("key", sorted(FLINK.get("reads", {})))
def test_read_and_write_as_flink(tmp_path, key):
    """One record of a format read into every precision, compared, and written back."""
    if key in READ_KNOWN:
        pytest.xfail(READ_KNOWN[key])
    fmt, kind, _ = key.split("|", 2)
    answer = FLINK["reads"][key]
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part-0").write_text(answer["line"] + "\n")
    columns = FLINK["columns"][kind]
    names = [c.split(" ")[0] for c in columns]
    e = make_env(tmp_path, settings={"table.local-time-zone": "UTC"})
    try:
        for name, path in (("r", tmp_path / "in"), ("w", tmp_path / "out")):
            e.execute_sql(f"CREATE TABLE {name} ({', '.join(columns)}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = '{fmt}')")
        for part, query in (("values", f"SELECT {', '.join(f'CAST({n} AS STRING)' for n in names)} FROM r"),
                            ("comparisons", f"SELECT {', '.join(FLINK['comparisons'][kind])} FROM r")):
            assert_answer_as_flink(e, query, answer[part])
        if "written_error" in answer:
            with pytest.raises(StreamSQLError):
                e.execute_sql("INSERT INTO w SELECT * FROM r").wait(60)
            return
        e.execute_sql("INSERT INTO w SELECT * FROM r").wait(60)
        files = [p for p in sorted((tmp_path / "out").rglob("*"))
                 if p.is_file() and not p.name.startswith(".")]
        assert "".join(p.read_text() for p in files) == answer["written"]
    finally:
        e.close()


_V9 = ("(VALUES (1, CAST('2024-01-01 10:00:00.123456789' AS TIMESTAMP(9))), "
       "(1, CAST('2024-01-01 10:00:00.123456788' AS TIMESTAMP(9)))) AS v(k, b)")


@pytest.mark.parametrize(("query", "message"), [
    # Flink holds the years 0000..9999; nanoseconds in an int64 reach 1677..2262
    ("SELECT CAST(CAST('9999-12-31 23:59:59.999999999' AS TIMESTAMP(9)) AS STRING)", "years 1677..2262"),
])
def test_nanoseconds_refused_where_not_held(env, query, message):
    """Where a TIMESTAMP(9) cannot keep its nanoseconds here, the job fails saying so (never cut)."""
    with pytest.raises(StreamSQLError, match=message):
        text_rows(env, query)


#: Markers of the recorded queries whose TIMESTAMP(9) values go through operators that hold Python
#: objects here (COUNT(DISTINCT), a retracting MIN/MAX, ARRAY_AGG, FIRST_VALUE, Top-N, joins).
_PYTHON_STATE = ("COUNT(DISTINCT", "ARRAY_AGG(", "FIRST_VALUE(", "ROW_NUMBER()", " JOIN ", "MIN(m)")


def _run_without_or_with_pandas(pandas: str, backend: str, job: dict) -> dict:
    """The answers of :mod:`tests.functions.nanos_state_run` to ``job``, in a subprocess."""
    proc = subprocess.run([sys.executable, "-m", "tests.functions.nanos_state_run", pandas, backend],
                          input=json.dumps(job), capture_output=True, text=True, timeout=600,
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["pandas"] is (pandas == "pandas")
    return out["answers"]


def _assert_as_flink(recorded: dict, answers: dict) -> None:
    for q, flink in recorded.items():
        ours = answers[q]
        if "error" in flink:
            assert "error" in ours, q
            continue
        assert "rows" in ours, (q, ours)
        assert Counter({tuple(r): n for r, n in ours["rows"]}) == fold_text(flink["rows"]), q


@pytest.mark.parametrize(("pandas", "backend"), [("no-pandas", "hashmap"), ("no-pandas", "rocksdb"),
                                                 ("pandas", "hashmap")])
def test_nanoseconds_through_python_state_as_flink(pandas, backend):
    """Flink's answers whether pandas is importable or not: TIMESTAMP(9) values in Python-object state
    (COUNT(DISTINCT), a retracting MIN/MAX, ARRAY_AGG, FIRST_VALUE, Top-N, joins; OVER windows, ORDER BY
    a rowtime, MATCH_RECOGNIZE, window aggregates over a table with a rowtime) keep their nanoseconds
    (two values 1 ns apart count 2), on both backends.

    pyarrow gives a nanosecond value as ``pandas.Timestamp`` when it can import pandas, and fails
    without it; the operators take epoch nanoseconds instead (``streamsql/core/py_values.py``).
    Each case runs in a subprocess, since pyarrow imports pandas once per process.
    """
    rowtime = FLINK["rowtime"]
    recorded = {q: a for q, a in FLINK["queries"].items()
                if any(m in q for m in _PYTHON_STATE) and q not in KNOWN}
    recorded.update(rowtime["queries"])
    job = {"queries": list(recorded), "lines": rowtime["lines"], "ddl": rowtime["ddl"]}
    _assert_as_flink(recorded, _run_without_or_with_pandas(pandas, backend, job))


def test_date_format_of_nanoseconds_refused_at_its_position(env):
    with pytest.raises(StreamSQLError, match=r"DATE_FORMAT: .*below the microsecond.*line 1, column 11"):
        text_rows(env, f"SELECT k, DATE_FORMAT(b, 'HH:mm:ss.SSSSSSS') FROM {_V9}")

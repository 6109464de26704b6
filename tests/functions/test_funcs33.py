"""Session 33's small function gaps against Apache Flink 2.3's recorded answers.

``funcs33_flink.json`` is written by ``scripts/flink_funcs33.py`` (PyFlink, never by hand): per
script each statement with Flink's kind-tagged rows (values as text), the lines its ``print`` sink
or ``TableResult.print()`` wrote, or its error. Each script runs here in one environment,
statement by statement, as ``tests/functions/test_bitmap.py`` runs its own: a query's changelog
folded into its final table must equal Flink's folded the same way; an error where Flink fails.
Scripts: ``variance`` (VAR_POP / VAR_SAMP / STDDEV_POP / STDDEV_SAMP with DISTINCT: GROUP BY over
insert-only rows and a changelog, TUMBLE and HOP windows, an OVER window), ``typeof`` (TYPEOF of
the BITMAP functions), ``to_timestamp`` (an hour 24 read by ``H``), ``collect`` (COLLECT's MULTISET
printed, a MULTISET column).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from streamsql.output import print_result
from tests.functions.bitmap_oracle import TSRC_ROWS
from tests.functions.bitmap_oracle import collected_text as _text
from tests.functions.test_bitmap import _cause, _execute, _fold

FLINK = json.loads((Path(__file__).parent / "funcs33_flink.json").read_text())
MTAB_ROWS = ['{"k": "a", "m": {"x": 2, "y": 1}}', '{"k": "b", "m": {}}', '{"k": "c", "m": null}']
"""``mtab.json``, as scripts/flink_funcs33.py writes it."""
#: Statements answered otherwise on purpose, each with its reason.
_ARRAY_COLUMN = ("TYPEOF over a column of an ARRAY type is refused here (Flink's spelling of ARRAY types "
                 "is not checked: streamsql/functions/scalars/typeof.py), so BITMAP_BUILD(a) of one is too")
DIFFERENT: dict[str, str] = {
    st["sql"]: _ARRAY_COLUMN for st in FLINK["typeof"] if "BITMAP_BUILD(a)" in st["sql"]}
#: Flink's tables that are refused here, each with the words the refusal must contain.
REFUSED = {st["sql"]: "MULTISET is not supported yet" for st in FLINK["collect"] if "MULTISET<" in st["sql"]}
_MULTISET_COLUMN = ("a MULTISET column in a DDL is refused here (a clear planning error naming it: "
                    "declare MAP<T, INT>), so a statement over such a table is too")
DIFFERENT.update({st["sql"]: _MULTISET_COLUMN for st in FLINK["collect"]
                  if st["sql"].startswith("INSERT INTO p ") or "FROM mtab" in st["sql"]})


def _tableau_rows(lines: list[str]) -> Counter:
    """The rows of a tableau with an ``op`` column (``| +I | a | {1=1} |``) folded to the final table."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines
            if line.startswith("| +") or line.startswith("| -")]
    return _fold(rows)


def _cases():
    for name, statements in FLINK.items():
        for i, st in enumerate(statements):
            if not st["sql"].startswith("CREATE"):
                yield pytest.param(name, i, id=f"{name}-{i}")


def _prepared(tmp_path: Path, script: str, index: int) -> StreamEnvironment:
    """An environment that ran the script's CREATE statements before ``index`` (Flink's files written)."""
    (tmp_path / "tsrc.json").write_text("\n".join(TSRC_ROWS) + "\n")
    (tmp_path / "mtab.json").write_text("\n".join(MTAB_ROWS) + "\n")
    env = StreamEnvironment()
    for st in FLINK[script][:index]:
        if st["sql"].startswith("CREATE") and "error" not in st and st["sql"] not in REFUSED:
            _execute(env, st["sql"], tmp_path)
    return env


@pytest.mark.parametrize(("script", "index"), list(_cases()))
def test_as_flink(tmp_path, capfd, script, index):
    """Statement ``index`` of ``script`` answers as Flink 2.3 (after the CREATE statements before it)."""
    env = _prepared(tmp_path, script, index)
    want = FLINK[script][index]
    sql = want["sql"]
    if sql in DIFFERENT:
        pytest.skip(DIFFERENT[sql])
    if "error" in want:
        with pytest.raises(StreamSQLError) as ei:
            result = _execute(env, sql, tmp_path)
            if result is not None:
                list(result.collect(timeout=60))  # a job's failure
        assert _cause(want["error"]).rstrip(".") in str(ei.value), (str(ei.value), want["error"])
        return
    if "tableau" in want:  # TableResult.print(): the shell's tableau, folded
        out = io.StringIO()
        print_result(_execute(env, sql.removeprefix("PRINT "), tmp_path), out)
        assert _tableau_rows(out.getvalue().splitlines()) == _tableau_rows(want["tableau"])
        return
    capfd.readouterr()
    result = _execute(env, sql, tmp_path)
    if "print" in want:
        printed = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith(("+", "-"))]
        assert sorted(printed) == want["print"]
        return
    rows = [[kind.short] + [_text(v) for v in row] for kind, row in result.collect(timeout=60)]
    assert _fold(rows) == _fold(want["rows"]), sql


@pytest.mark.parametrize("sql", sorted(REFUSED))
def test_a_multiset_column_is_refused_naming_it(sql):
    """A MULTISET<T> column in a DDL (Flink takes it) is a clear refusal here, positioned at the type."""
    with pytest.raises(StreamSQLError) as ei:
        StreamEnvironment().execute_sql(sql.replace("${DIR}", "/nonexistent"))
    assert REFUSED[sql] in str(ei.value) and "line 1, column" in str(ei.value)


def test_a_distinct_variance_accumulator_survives_state():
    """VAR_SAMP(DISTINCT x)'s accumulator (``[{value: count}, Welford's]``) round-trips through keyed
    state's codec with -0.0, NaN and DECIMAL keys, and goes on as the one never stored."""
    from decimal import Decimal

    from streamsql.functions.distinct_view import DistinctView
    from streamsql.functions.variance import Welford
    from streamsql.state.layout import decode_value, encode_value

    view = DistinctView(Welford("VAR_SAMP", sample=True, root=False))
    for values in ([1.5, -0.0, 0.0, float("nan"), 1.5], [Decimal("1.25"), Decimal("2.50"), Decimal("1.25")]):
        kept, stored = view.create_accumulator(), view.create_accumulator()
        for v in values:
            view.accumulate(kept, v)
            view.accumulate(stored, v)
        stored = decode_value(encode_value(stored))
        for acc in (kept, stored):
            view.retract(acc, values[0])  # one copy of a repeated value left: no change
            view.accumulate(acc, 7)
        assert len(stored[0]) == len(kept[0]) == len(set(map(repr, values))) + 1
        assert repr(view.get_value(stored)) == repr(view.get_value(kept))

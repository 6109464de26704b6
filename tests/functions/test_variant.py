"""VARIANT and structured types against Apache Flink 2.3's answers: PARSE_JSON, access, OBJECT_OF, refusals.

``variant_flink.json`` is written by ``scripts/flink_variant.py``: over a table of JSON texts
(``k INT, s STRING``), per case the lines Flink's ``print`` sink wrote for an ``INSERT`` (a VARIANT
cannot be collected by PyFlink) or Flink's error, and what the JSON format and DESCRIBE say of a
VARIANT column. The same statements run here through the ``print`` connector; a changelog is
compared by its final table (Flink and StreamSQL batch rows differently). An error is compared by
the words of Flink's innermost message (or of a case's :data:`WORDS`), and a refusal at planning
must carry a line and column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from tests.compat.changelog import fold

ORACLE = json.loads((Path(__file__).parent / "variant_flink.json").read_text(encoding="utf-8"))
CASES = ORACLE["cases"]
#: Cases whose Flink error is Jackson's or Java's own text (a parser's position, a class name): the
#: words of it that StreamSQL's message carries.
WORDS: dict[str, str] = {
    "max_refused": "Max aggregate function does not support type: ''VARIANT''.",
    "min_refused": "Min aggregate function does not support type: ''VARIANT''.",
    "parse_bad_fails": "Failed to parse json string: {bad",
    "parse_comma_fails": "Failed to parse json string: [1,]",
    "to_string_column_refused": "do not match", "to_variant_column_refused": "do not match",
    "upper_refused": "UPPER(<VARIANT>)",  # Calcite's "Cannot apply 'UPPER' ..." is "No match found ..." here
    "json_functions": "Unsupported call: JSON_EXISTS(VARIANT, ",  # Flink names the literal path CHAR(3)
    "object_update_unknown_refused": "Invalid function call:",
    "object_duplicate_refused": "Invalid function call:",
    "object_update_type_refused": "do not match",
}
_ORIGIN = ("Flink's `=` of VARIANTs is BinaryVariant.equals: the whole document's bytes and the value's "
           "position in it, so a value accessed from a document equals only the same element of an identical "
           "document (v[2] = TRY_PARSE_JSON('1.0') is FALSE there); GROUP BY keys compare the value's own "
           "bytes. Here a VARIANT is its value (docs/types.md#variant)")
#: Cases where StreamSQL differs from Flink (documented in docs/types.md#variant): each must still
#: differ (strict xfail).
KNOWN = {"kinds_equal_parsed": _ORIGIN, "equal_positions": _ORIGIN}
#: Refusals Flink makes while validating or planning: StreamSQL's carry a position too.
PLANNING = re.compile(r"SQL validation failed|Cannot apply|No match found|Cast function|aggregate function "
                      r"does not support|No assign rules|Unsupported type|Not support to parse")


def _environment(d: Path, **config: str) -> StreamEnvironment:
    """An environment under folder ``d`` with the oracle's tables ``src`` and ``obj`` (JSON lines, files)."""
    src, obj = d / "src.json", d / "obj.json"
    src.write_text("".join(json.dumps({"k": k, "s": s}) + "\n" for k, s in ORACLE["docs"]), encoding="utf-8")
    obj.write_text("".join(json.dumps(r) + "\n" for r in ORACLE["objects"]), encoding="utf-8")
    e = StreamEnvironment({"execution.checkpointing.dir": str(d / "chk"), "state.dir": str(d / "state"),
                           "table.local-time-zone": "UTC", "restart-strategy.type": "none", **config})
    for name, columns, path in (("src", ORACLE["source"], src), ("obj", ORACLE["objects_source"], obj)):
        e.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                      f"'path' = '{path}', 'format' = 'json')")
    return e


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """One environment for the cases (see :func:`_environment`)."""
    with _environment(tmp_path_factory.mktemp("variant")) as e:
        yield e


def _printed(env, name: str, capsys) -> list[str]:
    """The lines StreamSQL's print sink writes for case ``name`` (raises what the job raises)."""
    case = CASES[name]
    sink = f"p_{name}"
    env.execute_sql(f"CREATE TABLE {sink} ({case['columns']}) WITH ('connector' = 'print')")
    capsys.readouterr()
    env.execute_sql(f"INSERT INTO {sink} {case['query']}").wait()
    return continued([ln for ln in capsys.readouterr().out.splitlines() if not ln.startswith("[INFO]")])


def continued(lines: list[str]) -> list[str]:
    """Printed lines with a line the capture split (``str.splitlines`` splits at U+2028) joined again.

    Flink's lines were split so when recorded; StreamSQL's are split the same way, then both joined.
    """
    out: list[str] = []
    for ln in lines:
        if out and not re.match(r"^[+-][IUD]\[", ln):
            out[-1] += "\u2028" + ln
        else:
            out.append(ln)
    return out


def _words(name: str) -> str:
    """What StreamSQL's error for case ``name`` must say: :data:`WORDS`, else Flink's innermost message's
    first line (StreamSQL's position follows it)."""
    return WORDS.get(name) or CASES[name]["error"].split(" / ")[-1].strip().splitlines()[0].rstrip(".")


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "lines" in c))
def test_values_are_flinks(name, env, capsys, request):
    if name in KNOWN:
        request.applymarker(pytest.mark.xfail(reason=KNOWN[name], strict=True))
    ours, flinks = fold(_printed(env, name, capsys)), fold(continued(CASES[name]["lines"]))
    assert sorted(ours, key=repr) == sorted(flinks, key=repr)  # a NULL cell beside text: sorted as text


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if "error" in c))
def test_failures_are_flinks(name, env, capsys):
    with pytest.raises(Exception) as e:  # noqa: PT011  (a planning error or a failed job, as Flink's)
        _printed(env, name, capsys)
    text = str(e.value)
    assert _words(name) in text
    if PLANNING.search(CASES[name]["error"]):
        assert re.search(r"line \d+, column \d+", text), text


def test_format_refusals_and_describe_are_flinks(env, tmp_path):
    for step in ORACLE["ddl"]:
        statement = step["statement"].format(dir=tmp_path)
        if step["flink"] == "error":
            with pytest.raises(Exception) as e:  # noqa: PT011
                result = env.execute_sql(statement)
                if statement.startswith("INSERT"):
                    result.wait()
                elif statement.startswith("SELECT"):
                    list(result.collect(timeout=30))
            if step["error"].startswith("SQL parse failed"):  # Flink's parser's expected tokens
                assert "VARIANT" in str(e.value) and re.search(r"line \d+, column \d+", str(e.value))
            else:
                assert step["error"].split(" / ")[-1].strip() in str(e.value), statement
        elif "rows" in step:
            rows = [[str(c) for c in r] for r in env.execute_sql(statement).rows]
            assert rows == step["rows"], statement
        else:
            env.execute_sql(statement)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_variant_values_in_keyed_state_through_checkpoints(backend, tmp_path, capsys):
    """FIRST_VALUE / LAST_VALUE keep VARIANTs in keyed state, checkpointed by either backend, as Flink."""
    with _environment(tmp_path, **{"state.backend.type": backend,
                                   "execution.checkpointing.interval": "50 ms"}) as e:
        lines = _printed(e, "first_last", capsys)
    assert sorted(fold(lines)) == sorted(fold(continued(CASES["first_last"]["lines"])))


@pytest.mark.parametrize("name", ["parse_all", "kinds_json_string", "access_array"])
def test_collected_variants_are_flinks_text(name, env):
    """A query's collected VARIANT is the text Flink prints (a number's kind not shown: ``1.0`` is ``1``)."""
    case = CASES[name]
    rows = [r for _, r in env.execute_sql(case["query"]).collect(timeout=60)]
    lines = ["+I[" + ", ".join("null" if v is None else str(v) for v in r) + "]" for r in rows]
    assert sorted(lines) == sorted(continued(case["lines"]))

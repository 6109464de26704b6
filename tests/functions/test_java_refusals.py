"""Where a Flink answer is not reproduced, the job fails with a message instead of answering otherwise.

Flink's answers themselves are in the difffuzz regressions (session 25: ARRAY_SORT with NaN, the
REGEXP family over a column pattern); these are the cases beyond them: TimSort's merges (32
elements or more) and Java regex syntax Python's engine reads otherwise.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError, SqlError

_NAN_ARRAY = "ARRAY[" + ", ".join(["CAST('NaN' AS DOUBLE)"] + [f"{n}.0E0 * x" for n in range(40)]) + "]"


@pytest.mark.parametrize(("expr", "message"), [
    (f"CAST(ARRAY_SORT({_NAN_ARRAY}) AS STRING)",
     "ARRAY_SORT of 41 DOUBLE or FLOAT elements holding a NaN, or both 0.0 and -0.0, is not supported"),
    ("CAST(REGEXP('ab', p) AS STRING)", "uses Java syntax that is not supported here (\\p)"),
    ("REGEXP_REPLACE('ab', CONCAT('[a[', CAST(x AS STRING), ']]'), 'x')",
     "a nested character class or set operation"),
])
def test_an_answer_not_reproduced_fails_the_job(expr, message):
    env = StreamEnvironment({})
    query = f"SELECT {expr} FROM (VALUES (1.0E0, '\\p{{L}}'), (2.0E0, '[b]')) AS t(x, p)"
    with pytest.raises(ExecutionError) as failure:
        list(env.execute_sql(query).collect())
    assert message in str(failure.value)


def test_a_short_array_with_nan_is_sorted_as_flink():
    # Flink 2.3: ARRAY_SORT(ARRAY[2.0E0, NaN, 1.0E0]) is [1.0, NaN, 2.0] (difffuzz regression)
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT ARRAY_SORT(ARRAY[2.0E0 * x, CAST('NaN' AS DOUBLE), x]) "
                                "FROM (VALUES (1.0E0)) AS t(x)").collect())
    (_, (values,)), = rows
    assert values[0] == 1.0 and values[1] != values[1] and values[2] == 2.0


@pytest.mark.parametrize(("call", "what"), [
    # Java: [ab]; RE2: one of 'a' '[' 'b' then ']'
    ("REGEXP(s, '[a[b]]')", "a nested character class or set operation"),
    # Java: a, c-z; RE2: a-z, '&', '[', '^', 'b' then ']'
    ("REGEXP_EXTRACT(s, '([a-z&&[^b]]+)', 1)", "a nested character class or set operation"),
    # Java: one of [ : a l p h ]; RE2: a POSIX class
    ("REGEXP_REPLACE(s, '[[:alpha:]]', 'x')", "a nested character class or set operation"),
    ("REGEXP_COUNT(s, '\\v')", "\\v"),  # Java: any vertical white space; RE2: U+000B only
    ("REGEXP_INSTR(s, 'b\\Z')", "\\Z"),  # RE2 refuses it when the job runs, in its own words
])
def test_a_literal_pattern_re2_reads_otherwise_is_refused_at_its_call(call, what):
    """A literal pattern runs on DuckDB's RE2: Java syntax RE2 reads otherwise is refused while
    planning, at the call, instead of answering otherwise than Flink's java.util.regex.

    Flink 2.3 (scripts/flink_difffuzz.py --exprs, 2026-12-05): REGEXP('b', '[a[b]]') true (DuckDB:
    false), REGEXP(CONCAT('x', CHR(10)), 'x\\v') true (DuckDB: false), REGEXP('a&', '[a-z&&[^b]]+')
    true, REGEXP_REPLACE('alpha:', '[[:alpha:]]', 'x') 'xxxxxx' (RE2's POSIX class: 'xxxxx:'),
    REGEXP_INSTR('ab', 'b\\Z') 2 (DuckDB refuses the pattern when the job runs)."""
    env = StreamEnvironment({})
    with pytest.raises(SqlError) as refusal:
        env.execute_sql(f"SELECT {call} FROM (VALUES ('ab')) AS t(s)")
    text = str(refusal.value)
    assert f"uses Java syntax that this engine reads otherwise ({what})" in text, text
    assert "line 1, column 8" in text, text


def test_a_literal_pattern_java_and_re2_read_alike_still_runs():
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT REGEXP(s, '[]a]'), REGEXP_EXTRACT(s, '[\\[x](b)', 1) "
                                "FROM (VALUES ('[b')) AS t(s)").collect())
    assert [values for _, values in rows] == [(False, "b")]


@pytest.mark.parametrize(("call", "what"), [
    # Flink 2.3 answers each (flink_difffuzz --exprs, session 26): Java reads properties RE2 has no
    # class for (Alphabetic: letters, Nl and Other_Alphabetic marks; blocks; java.lang.Character's)
    ("REGEXP(s, '\\p{IsAlphabetic}+')", "\\p{IsAlphabetic} (a binary property RE2 has no class for)"),
    ("REGEXP_EXTRACT(s, '(\\p{InGreek})', 1)", "\\p{InGreek} (a Unicode block)"),
    ("REGEXP_COUNT(s, '\\p{javaLowerCase}')", "\\p{javaLowerCase} (a java.lang.Character class)"),
    ("REGEXP(s, '[\\P{Alpha}x]')", "\\P{Alpha} inside a character class"),
    ("REGEXP(s, '\\p{Latin}')", "\\p{Latin} (a name Java does not know)"),  # Java: IsLatin
])
def test_a_java_property_re2_cannot_read_alike_is_refused_at_its_call(call, what):
    env = StreamEnvironment({})
    with pytest.raises(SqlError) as refusal:
        env.execute_sql(f"SELECT {call} FROM (VALUES ('ab')) AS t(s)")
    text = str(refusal.value)
    assert f"uses a character property that this engine cannot read as Java does: {what}" in text, text
    assert "line 1, column 8" in text, text


def test_a_braced_repetition_in_a_literal_pattern_runs():
    """REGEXP(s, 'a{2}') failed with an IndexError (the pattern went into a template unescaped)."""
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT REGEXP(s, 'a{2}'), REGEXP_SUBSTR(s, '\\p{Ll}{2}'), "
                                "s SIMILAR TO 'a{2}b' FROM (VALUES ('aab')) AS t(s)").collect())
    assert [r for _, r in rows] == [(True, "aa", True)]  # as DuckDB's RE2 and Java both read them

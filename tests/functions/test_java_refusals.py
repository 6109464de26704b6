"""Where a Flink answer is not reproduced, the job fails with a message instead of answering otherwise.

Flink's answers themselves are in the difffuzz regressions (session 25: ARRAY_SORT with NaN, the
REGEXP family over a column pattern); these are the cases beyond them: TimSort's merges (32
elements or more) and the Java regex syntax java_pattern.py does not write for the regex module.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError

_NAN_ARRAY = "ARRAY[" + ", ".join(["CAST('NaN' AS DOUBLE)"] + [f"{n}.0E0 * x" for n in range(40)]) + "]"


@pytest.mark.parametrize(("expr", "message"), [
    (f"CAST(ARRAY_SORT({_NAN_ARRAY}) AS STRING)",
     "ARRAY_SORT of 41 DOUBLE or FLOAT elements holding a NaN, or both 0.0 and -0.0, is not supported"),
    # Java syntax the translation for the regex module does not write (the rest: test_regex_java.py)
    ("CAST(REGEXP('ab', CONCAT('(?U)', p)) AS STRING)", "(?U) (Unicode character classes)"),
    ("REGEXP_REPLACE('ab', CONCAT('\\p{javaJavaIdentifierStart}', CAST(x AS STRING)), 'x')",
     "a java.lang.Character identifier class"),
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


@pytest.mark.parametrize(("call", "value"), [
    ("REGEXP('b', '[a[b]]')", True),  # RE2: one of 'a' '[' 'b' then ']'
    ("REGEXP('a&', '[a-z&&[^b]]+')", True),  # RE2: a-z, '&', '[', '^', 'b' then ']'
    ("REGEXP_REPLACE('alpha:', '[[:alpha:]]', 'x')", "xxxxxx"),  # RE2: a POSIX class, 'xxxxx:'
    ("REGEXP(CONCAT('x', CHR(10)), 'x\\v')", True),  # RE2: U+000B only
    ("REGEXP_INSTR('ab', 'b\\Z')", 2),  # RE2 refuses it when the job runs
])
def test_a_literal_pattern_re2_reads_otherwise_runs_on_java_s_engine(call, value):
    """A literal pattern runs on DuckDB's RE2 where RE2 reads it as Java; Java syntax RE2 reads
    otherwise runs on Java's engine row by row (it was refused at the call).

    Flink 2.3's answers (scripts/flink_difffuzz.py --exprs, 2026-12-05)."""
    env = StreamEnvironment({})
    (_, (got,)), = list(env.execute_sql(f"SELECT {call} FROM (VALUES (1)) AS t(x)").collect())
    assert got == value


def test_a_literal_pattern_java_and_re2_read_alike_still_runs():
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT REGEXP(s, '[]a]'), REGEXP_EXTRACT(s, '[\\[x](b)', 1) "
                                "FROM (VALUES ('[b')) AS t(s)").collect())
    assert [values for _, values in rows] == [(False, "b")]


def test_a_java_property_java_does_not_know_is_answered_as_flink():
    """Java refuses \\p{Latin} (its name is IsLatin): Flink answers REGEXP false, the others NULL, as
    for any pattern Java refuses (flink_regex_java.json, \\p{Nope}); it was refused at the call."""
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT REGEXP(s, '\\p{Latin}'), REGEXP_EXTRACT(s, '\\p{Latin}') "
                                "FROM (VALUES ('ab')) AS t(s)").collect())
    assert [r for _, r in rows] == [(False, None)]


def test_a_braced_repetition_in_a_literal_pattern_runs():
    """REGEXP(s, 'a{2}') failed with an IndexError (the pattern went into a template unescaped)."""
    env = StreamEnvironment({})
    rows = list(env.execute_sql("SELECT REGEXP(s, 'a{2}'), REGEXP_SUBSTR(s, '\\p{Ll}{2}'), "
                                "s SIMILAR TO 'a{2}b' FROM (VALUES ('aab')) AS t(s)").collect())
    assert [r for _, r in rows] == [(True, "aa", True)]  # as DuckDB's RE2 and Java both read them

"""Where a Flink answer is not reproduced, the job fails with a message instead of answering otherwise.

Flink's answers themselves are in the difffuzz regressions (session 25: ARRAY_SORT with NaN, the
REGEXP family over a column pattern); these are the cases beyond them: TimSort's merges (32
elements or more) and Java regex syntax Python's engine reads otherwise.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError

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

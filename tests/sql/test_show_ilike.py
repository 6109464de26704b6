"""SHOW ... ILIKE where Flink 2.3's parser refuses it: its words, and the words it expected instead.

Flink's texts (``scripts/flink_show_ilike_text.py``; the first lines are recorded in
``flink_statements/flink.json``, script ``show_ilike``)::

    SQL parse failed. Encountered "ILIKE" at line 1, column 13.
    Was expecting one of: <EOF> "FROM" ... "IN" ... "LIKE" ... "NOT" ... ";" ...

Ours said ``SHOW TABLES, VIEWS and COLUMNS take [NOT] LIKE`` for every one of them, SHOW MODELS too.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError


@pytest.mark.parametrize(("sql", "expected", "col"), [
    ("SHOW MODELS ILIKE 'm%'", '<EOF>, "FROM", "IN", "LIKE", "NOT", ";"', 13),
    ("SHOW TABLES ILIKE 'm%'", '<EOF>, "FROM", "IN", "LIKE", "NOT", ";"', 13),
    ("SHOW COLUMNS FROM x ILIKE 'a'", '<EOF>, "LIKE", "NOT", ";", "."', 21),
    ("SHOW JARS ILIKE 'x'", '<EOF>, ";"', 11),
])
def test_show_ilike_is_refused_in_flinks_words(sql, expected, col):
    with StreamEnvironment() as env, pytest.raises(SqlError) as e:
        env.execute_sql(sql)
    assert e.value.message == f'SQL parse failed. Encountered "ILIKE". Was expecting one of: {expected}'
    assert (e.value.line, e.value.col) == (1, col)

"""A reserved word as a name in a query or DDL, against Flink 2.3's parser.

``reserved_names_flink.json`` is written by ``scripts/flink_reserved_names.py`` from Flink's own
parser (``FlinkSqlParserImpl``), never by hand: 24 reserved words (``out``, ``value``, ``year``,
``groups``, ``window``, ``rank`` ... and ``user``, ``current_date``, ``current_user``, ``localtime``
..., ``default``, which Flink reads as values where a column could stand) and 8 non-reserved ones
(``name``, ``data``, ``key``, ``type`` ...) in 16 places of a name (select item, alias, table,
table alias, qualified column, view, CTE, WHERE, GROUP BY, ORDER BY, call argument, INSERT target,
CREATE TABLE).

As Flink, StreamSQL refuses a reserved word wherever a name stands (``SELECT value FROM t``,
``INSERT INTO out``) with ``SQL parse failed. Encountered "value"`` at Flink's line and column.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql.core.errors import SqlError
from streamsql.sql.parser import parse_statement

ORACLE = json.loads((Path(__file__).parent / "reserved_names_flink.json").read_text())["statements"]
REFUSED = [s for s in ORACLE if s["flink"] != "OK"]
ACCEPTED = [s["sql"] for s in ORACLE if s["flink"] == "OK"]


def test_what_flink_parses_parses_here():
    """``SELECT user FROM t``, ``current_date``, ``COUNT(default)`` ...: values, not names."""
    assert len(ACCEPTED) == 15 + 8 * 16 + 4 * 7  # + current_user, session_user, localtime, ...: 7 each
    for sql in ACCEPTED:
        parse_statement(sql)


def test_a_reserved_word_as_a_name_is_refused_where_flink_refuses_it():
    """Refused, and where Flink's error names the word itself, with its sentence and position."""
    wrong = []
    for s in REFUSED:
        flink = re.search(r'Encountered "(\w+)" at line (\d+), column (\d+)', s["flink"])
        try:
            parse_statement(s["sql"])
        except SqlError as e:
            if flink is None or flink.group(1).upper() not in s["sql"].upper().split():
                continue  # Flink stumbles later (". year", ")"): refused is enough
            word = flink.group(1)
            if not e.message.startswith(f'SQL parse failed. Encountered "{word}"') \
                    and f"write `{word}` to use it as a name" not in e.message:  # sqlglot stumbled on it
                wrong.append((s["sql"], e.message))
            elif (e.line, e.col) != (int(flink.group(2)), int(flink.group(3))):
                wrong.append((s["sql"], (e.line, e.col), s["flink"]))
        else:
            wrong.append((s["sql"], "parsed"))
    assert not wrong, f"{len(wrong)} of {len(REFUSED)}: {wrong[:5]}"


def test_the_error_says_where_and_how_to_quote():
    """Line:column and a caret at the word, and the backquoted spelling that Flink takes."""
    with pytest.raises(SqlError) as e:
        parse_statement("SELECT COUNT(*)\n  AS groups FROM t")
    assert (e.value.line, e.value.col) == (2, 6)
    assert "write `groups` (in backquotes)" in str(e.value)
    assert "^^^^^^" in str(e.value)
    parse_statement("SELECT COUNT(*) AS `groups` FROM t")


@pytest.mark.parametrize("word", ["user", "USER", "CURRENT_USER", "session_user", "current_role"])
def test_a_context_variable_has_no_value_as_in_flink(word):
    """Flink 2.3 parses ``SELECT USER`` / ``CURRENT_USER`` ... and gives them no value: ``Column
    'USER' not found in any table`` from line 1, column 8 (scripts/flink_statements.py, script
    ``values``). sqlglot read CURRENT_USER as a call ("No match found for function signature"),
    and with no table the message ended in an empty "available columns: " list."""
    from streamsql import StreamEnvironment

    with StreamEnvironment() as env, pytest.raises(SqlError) as caught:
        env.execute_sql(f"SELECT {word}")
    assert caught.value.message == f"Column '{word}' not found in any table"
    assert (caught.value.line, caught.value.col, caught.value.length) == (1, 8, len(word))

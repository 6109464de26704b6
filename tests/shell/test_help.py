"""HELP lists a form of every statement the parser runs (ALTER TABLE was missing when it arrived)."""

from __future__ import annotations

from streamsql.shell.commands import SQL_STATEMENTS

from streamsql.sql.parser import _STATEMENT_WORDS


def test_help_lists_a_statement_for_every_first_word_the_parser_runs():
    listed = {word for syntax, _ in SQL_STATEMENTS for part in syntax.split("|")
              for word in part.split()[:1]}
    # Each '|' alternative counts: "CREATE|DROP DATABASE" lists DROP too.
    missing = sorted(w for w in _STATEMENT_WORDS if w not in listed)
    assert missing == []

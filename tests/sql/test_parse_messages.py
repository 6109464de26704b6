"""Syntax errors in the user's terms: no sqlglot internals (token reprs) in the message."""

from __future__ import annotations

import pytest
from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.sql.parser import parse_statement


@pytest.mark.parametrize(("sql", "says", "col"), [
    ("SELECT * FROM 2", "Expected table name near '2'", 15),
    ("SELECT a FROM t JOIN 3 ON x", "Expected table name near '3'", 22),
    ("INSERT INTO 5 SELECT 1", "Expected table name near '5'", 13),
    # an empty item of a list: sqlglot skipped it, so VALUES (1,,2) was the row (1, 2) and
    # COALESCE(1,,2), ARRAY[1,,2], SELECT 1,, 2 ran; Flink's parser stops there
    ("INSERT INTO o VALUES (1,,2)", "an item is missing after ',' near ','", 25),
    ("INSERT INTO o VALUES (1, 2,)", "an item is missing after ',' near ')'", 28),
    ("INSERT INTO o VALUES (1, 2), ", "an item is missing after ',' at end of input", 29),
    ("INSERT INTO o VALUES (1, 2),, (3, 4)", "an item is missing after ',' near ','", 29),
    ("SELECT COALESCE(1,,2)", "an item is missing after ',' near ','", 19),
    ("SELECT ARRAY[1,,2]", "an item is missing after ',' near ','", 16),
    ("SELECT 1,, 2", "an item is missing after ',' near ','", 10),
    ("SELECT CONCAT('a',)", "an item is missing after ',' near ')'", 19),
    ("SELECT a, FROM t", "an item is missing after ',' near 'FROM'", 11),  # ran as SELECT a FROM t
])
def test_a_syntax_error_shows_no_token_repr(sql, says, col):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    text = str(ei.value)
    assert says in text and ei.value.col == col, text
    assert "<Token" not in text and "TokenType" not in text, text



@pytest.mark.parametrize(("sql", "says", "col", "length"), [
    # Flink 2.3 (Calcite's checkLeadFieldInRange): the leading field has 2 digits unless written
    ("SELECT ts + INTERVAL '100' HOUR FROM t", "Interval field value 100 exceeds precision of HOUR(2) field",
     13, 19),
    ("SELECT INTERVAL '-100' MINUTE TO SECOND",
     "Interval field value -100 exceeds precision of MINUTE(2) field", 8, 32),
    ("SELECT INTERVAL '10:00' HOUR(1) TO MINUTE",
     "Interval field value 10 exceeds precision of HOUR(1) field", 8, 34),
    ("SELECT INTERVAL '1' YEAR(11)",
     "Interval leading field precision '11' out of range for INTERVAL YEAR(11)", 8, 21),
    ("SELECT INTERVAL '1' MINUTE(5)", "DAY_INTERVAL_TYPES precision is not supported: 5", 8, 22),
    # Calcite reads POSITION's first operand as an atomic expression
    ("SELECT POSITION(('a') IN s) FROM t", 'Encountered "("', 17, 1),
])
def test_flinks_validation_wording_without_near(sql, says, col, length):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    assert ei.value.message == says and (ei.value.col, ei.value.length) == (col, length), str(ei.value)


def test_position_in_from_is_calcites_three_argument_position():
    """POSITION(sub IN s FROM n) failed with 'Expected table name but got <Token ...>'."""
    position = parse_statement("SELECT POSITION('a' IN s FROM 3) FROM t").find(exp.StrPosition)
    parts = (position.args["substr"].sql(), position.this.sql(), position.args["position"].sql())
    assert parts == ("'a'", "s", "3")


@pytest.mark.parametrize(("sql", "line", "col"), [
    # sqlglot turned these CREATEs into an opaque command, refused as "Unsupported statement
    # 'CREATE TABLE ...'" at line 1, column 1, while CREATE TABLE is supported
    ("CREATE TABLE a (x INT) WITH ('k' = 'v')\nCREATE TABLE b (y INT) WITH ('k' = 'v')", 2, 1),
    ("CREATE TEMPORARY VIEW v AS SELECT x FROM a\nINSERT INTO b SELECT 1", 2, 1),
    # the SET became one more option of the table, 'a' = 'b'
    ("CREATE TABLE a (x INT) WITH ('k' = 'v')\nSET 'a' = 'b'", 2, 1),
    ("SELECT 1\nINSERT INTO b SELECT 1", 2, 1),
])
def test_a_missing_semicolon_is_pointed_at(sql, line, col):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    assert "is the ';' before it missing?" in ei.value.message
    assert (ei.value.line, ei.value.col) == (line, col), str(ei.value)


def test_a_word_after_create_tables_options_is_a_syntax_error():
    with pytest.raises(SqlError) as ei:
        parse_statement("CREATE TABLE a (x INT) WITH ('k' = 'v') garbage")
    assert ei.value.message == "Syntax error: unexpected token near 'garbage'"
    assert ei.value.col == 41

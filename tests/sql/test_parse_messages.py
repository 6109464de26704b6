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
    # ran as LIMIT 10 / LIMIT 3; Flink 2.3 (PyFlink, 2026-12-04): Encountered "PERCENT" at line 1,
    # column 27 / "ROWS" at column 26
    ("SELECT id FROM t LIMIT 10 PERCENT", "unexpected token near 'PERCENT'", 27),
    ("SELECT id FROM t LIMIT 3 ROWS", "unexpected token near 'ROWS'", 26),
    # Flink 2.3 (PyFlink): Encountered ", HAVING" / ", ORDER" / ", WHERE"; the trailing , was taken here
    ("SELECT a FROM t GROUP BY a, HAVING COUNT(*) > 1", "an item is missing after ',' near 'HAVING'", 29),
    ("SELECT a, COUNT(*) FROM t GROUP BY a, ORDER BY a", "an item is missing after ',' near 'ORDER BY'", 39),
    ("SELECT SUM(a) OVER (PARTITION BY a, ORDER BY ts) FROM t",
     "an item is missing after ',' near 'ORDER BY'", 37),
    ("SELECT a FROM t, WHERE a > 1", "an item is missing after ',' near 'WHERE'", 18),
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
    # Flink 2.3 (PyFlink): 'SQL parse failed. Encountered ")" at line 1, column 29.'; sqlglot read an
    # IN of nothing, false on every row (the query ran and dropped every row)
    ("SELECT a FROM t WHERE a IN ()", 'Encountered ")"', 29, 1),
    ("SELECT a FROM t WHERE a NOT IN ( )", 'Encountered ")"', 34, 1),
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


@pytest.mark.parametrize(("sql", "says", "line", "col", "length"), [
    # a statement that does not parse and starts with no statement's word is said at that word;
    # these were "Missing operand near 'FROM'", "unexpected token near '1'" / "near 'INTO'"
    ("SELEC * FROM orders", "Unsupported statement 'SELEC ...'; did you mean 'SELECT'?", 1, 1, 5),
    ("SELEC 1", "Unsupported statement 'SELEC ...'; did you mean 'SELECT'?", 1, 1, 5),
    ("INSRT INTO t SELECT 1", "Unsupported statement 'INSRT ...'; did you mean 'INSERT'?", 1, 1, 5),
    ("-- orders\n  CRATE TABLE t (x INT)", "Unsupported statement 'CRATE ...'; did you mean 'CREATE'?",
     2, 3, 5),
    # one that parses (as an opaque command: DESCRIB t) gets the same hint
    ("EXPLAN SELECT 1", "Unsupported statement 'EXPLAN ...'; did you mean 'EXPLAIN'?", 1, 1, 6),
    ("DESCRIB t", "Unsupported statement 'DESCRIB t ...'; did you mean 'DESCRIBE'?", 1, 1, 1),
    # Flink SQL client's jar statements: "unexpected token near '/tmp/k.jar'" before
    ("ADD JAR '/tmp/k.jar'", "ADD JAR is not supported: StreamSQL's connectors and formats are built in",
     1, 1, 7),
    ("remove jar '/tmp/k.jar'", "REMOVE JAR is not supported", 1, 1, 10),
])
def test_a_statement_no_statement_starts_with_is_said_at_its_first_word(sql, says, line, col, length):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    e = ei.value
    assert e.message.startswith(says) and (e.line, e.col, e.length) == (line, col, length), str(e)


def test_a_word_that_is_no_typo_lists_the_statements():
    with pytest.raises(SqlError) as ei:
        parse_statement("UPSERT INTO t SELECT 1")
    assert ei.value.message.startswith("Unsupported statement 'UPSERT ...'; supported: SELECT, INSERT INTO")


@pytest.mark.parametrize(("sql", "says", "col"), [
    # sqlglot read an empty GROUP BY as none (a global aggregate ran) and an empty PARTITION BY as
    # an unpartitioned window; Flink's parser stops at the token after BY
    ("SELECT COUNT(*) FROM t GROUP BY", "Incomplete GROUP BY clause at end of input", 32),
    ("SELECT COUNT(*) FROM t GROUP BY;", "Incomplete GROUP BY clause at end of input", 32),
    ("SELECT COUNT(*) FROM t GROUP BY HAVING COUNT(*) > 1", "Incomplete GROUP BY clause near 'HAVING'", 33),
    ("SELECT ROW_NUMBER() OVER (PARTITION BY ORDER BY x) FROM t",
     "Incomplete PARTITION BY clause near 'ORDER BY'", 40),
    ("SELECT COUNT(*) OVER (PARTITION BY) FROM t", "Incomplete PARTITION BY clause near ')'", 35),
    ("SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
     "Incomplete PARTITION BY clause near ','", 49),
])
def test_an_empty_group_or_partition_by_is_a_syntax_error(sql, says, col):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    assert ei.value.message == says and ei.value.col == col, str(ei.value)


@pytest.mark.parametrize("sql", [
    "SELECT k, COUNT(*) FROM t GROUP BY k",
    "SELECT ROW_NUMBER() OVER (PARTITION BY k ORDER BY x) FROM t",
    "SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
])
def test_a_group_or_partition_by_with_keys_still_parses(sql):
    parse_statement(sql)


@pytest.mark.parametrize("sql", [
    "SELECT id FROM t LIMIT 3 OFFSET 2", "SELECT id FROM t OFFSET 1 ROW FETCH NEXT 2 ROWS ONLY",
    "SELECT id FROM t FETCH FIRST 1 ROW ONLY", "SELECT id FROM t ORDER BY id LIMIT 3"])
def test_limit_and_fetch_forms_flink_parses_still_parse(sql):
    assert parse_statement(sql).args["limit"] is not None


def test_several_statements_say_how_to_run_a_script():
    # a newcomer passing a .sql file's text to execute_sql read "run them as a script" and found
    # no such thing in the docs: the message names the API and the command
    with pytest.raises(SqlError) as ei:
        parse_statement("CREATE TABLE t (a INT) WITH ('connector' = 'blackhole');\nSELECT a FROM t;")
    e = ei.value
    assert e.message == ("Expected one statement but found several; run them as a script: "
                         "StreamEnvironment.execute_script(text) in Python, or streamsql run FILE"), str(e)
    assert (e.line, e.col) == (2, 1), str(e)


@pytest.mark.parametrize(("sql", "hint"), [
    # a clause's word where an item is missing: no "write `from` to use it as a name" (was given)
    ("select a, from t", False), ("select a from t where a between 1 from u", False),
    ("select a from t where a = 1 and or b", False),
    # a reserved word sqlglot stumbles on where a name stands: the hint stays
    ("create table t (a int, value string)", True), ("create table t (order int)", True),
])
def test_the_quote_hint_is_for_a_word_meant_as_a_name(sql, hint):
    with pytest.raises(SqlError) as ei:
        parse_statement(sql)
    assert ("to use it as a name" in ei.value.message) is hint, str(ei.value)


@pytest.mark.parametrize(("sql", "word", "col"), [
    ("SELECT CAST(a AS VARCHAR(10) NOT NULL) FROM t", "NOT", 30),
    ("SELECT CAST(NULL AS INT NOT NULL)", "NOT", 25),
    ("SELECT CAST(1 AS INT NULL)", "NULL", 22),
    ("SELECT TRY_CAST(1 AS INT NOT NULL)", "NOT", 26),
])
def test_a_casts_type_takes_no_nullability_as_flinks_parser(sql, word, col):
    """Flink 2.3: ``SQL parse failed. Encountered "NOT" at line 1, column 30.``
    (scripts/flink_statements.py, script ``casts``); here the same word and place, and why
    (sqlglot read NOT NULL and stumbled at the ')' after it)."""
    with pytest.raises(SqlError) as caught:
        parse_statement(sql)
    assert caught.value.message.startswith(f'Encountered "{word}": a CAST\'s type takes no NOT NULL')
    assert (caught.value.line, caught.value.col, caught.value.length) == (1, col, len(word))


def test_a_nested_types_not_null_stays():
    """``ARRAY<INT NOT NULL>`` inside a CAST is an element's nullability, as Flink's."""
    parse_statement("SELECT CAST(ARRAY[1] AS ARRAY<INT NOT NULL>)")

"""Statement splitting, the shell's completeness predicate, and positioned parse errors."""

from __future__ import annotations

import pytest

from streamsql.core.errors import PlanError, SqlError
from streamsql.sql import nodes
from streamsql.sql.parser import (
    Statement,
    error_at,
    error_in_script,
    is_complete,
    parse_script,
    parse_statement,
    split_statements,
)


def texts(script: str) -> list[str]:
    return [s.text for s in split_statements(script)]


# --- split_statements -----------------------------------------------------------------------


def test_split_basic_positions():
    script = "SELECT 1;\n  SELECT 2;\n\nSHOW TABLES"
    assert split_statements(script) == [
        Statement("SELECT 1", 1, 1, 0),
        Statement("SELECT 2", 2, 3, 12),
        Statement("SHOW TABLES", 4, 1, 23),
    ]


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("SELECT ';' ; SELECT 2", ["SELECT ';'", "SELECT 2"]),
        ("SELECT 'it''s; fine'; SELECT 2", ["SELECT 'it''s; fine'", "SELECT 2"]),
        ("SELECT `a;b`, \"c;d\" FROM t; SELECT 2", ["SELECT `a;b`, \"c;d\" FROM t", "SELECT 2"]),
        ("SELECT `a``;b` FROM t; X", ["SELECT `a``;b` FROM t", "X"]),
        ("SELECT 1 /* ; */ + 1; X", ["SELECT 1 /* ; */ + 1", "X"]),
        ("SELECT 1 -- trailing; comment\n+ 1; X", ["SELECT 1 -- trailing; comment\n+ 1", "X"]),
        ("SELECT 1; -- trailing comment", ["SELECT 1"]),
        ("SELECT 1; /* block */", ["SELECT 1"]),
        ("-- header\n/* more */\nSELECT 1;", ["SELECT 1"]),
        (";;  ;\n;", []),
        ("", []),
        ("-- only; a comment", []),
        ("a;;b", ["a", "b"]),
        ("SELECT 1", ["SELECT 1"]),
        ("SELECT 1   \n\n", ["SELECT 1"]),
    ],
)
def test_split_edge_cases(script, expected):
    assert texts(script) == expected


def test_statement_set_is_one_statement():
    script = (
        "SET 'a' = 'b';\n"
        "EXECUTE STATEMENT SET\nBEGIN\n"
        "  INSERT INTO x SELECT CASE WHEN a THEN 1 END FROM s;\n"
        "  INSERT INTO y SELECT 2;\n"
        "END;\n"
        "SHOW JOBS;"
    )
    stmts = split_statements(script)
    assert [s.line for s in stmts] == [1, 2, 7]
    assert stmts[1].text.startswith("EXECUTE STATEMENT SET") and stmts[1].text.endswith("END")
    assert isinstance(parse_statement(stmts[1].text), nodes.StatementSet)


def test_explain_of_a_statement_set_is_one_statement():
    """Flink's SQL client explains ``EXPLAIN STATEMENT SET BEGIN ...; END;`` as one statement; a script
    or the shell split it at the first INSERT's ';' ('Expecting ; after the INSERT statement')."""
    stmts = split_statements("EXPLAIN STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\n"
                             "INSERT INTO b SELECT 2;\nEND;\nSHOW JOBS;")
    assert [s.line for s in stmts] == [1, 5]
    assert stmts[0].text.endswith("END")


def test_begin_statement_set_is_split_for_the_shell():
    assert texts("BEGIN STATEMENT SET; INSERT INTO a SELECT 1; END;") == [
        "BEGIN STATEMENT SET", "INSERT INTO a SELECT 1", "END",
    ]


def test_unterminated_string_keeps_the_rest_together():
    assert texts("SELECT 'abc; SELECT 2") == ["SELECT 'abc; SELECT 2"]


# --- is_complete ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("SELECT 1;", True),
        ("SELECT 1;  \n", True),
        ("SELECT 1; -- done", True),
        ("SELECT 1", False),
        ("SELECT ';'", False),
        ("SELECT 'abc;", False),
        ("SELECT 1 /* ; */", False),
        ("SELECT 1; /* open", False),
        ("SELECT `a;", False),
        ("SELECT 1 -- ;", False),
        ("quit", True),
        ("QUIT;", True),
        ("exit", True),
        ("HELP", True),
        ("clear  ", True),
        ("help me", False),
        ("SHOW TABLES", False),
        ("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;", False),
        ("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END", False),
        ("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; END;", True),
        ("", True),
        ("-- just a comment", True),
    ],
)
def test_is_complete(text, complete):
    assert is_complete(text) is complete


# --- parse errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parse", "text", "pos", "lines"),
    [
        pytest.param(parse_statement, "SELECT a,\n       b\nFROM t GROUP key", (3, 14), [
            "Syntax error: unexpected token near 'key' (line 3, column 14)",
            "  FROM t GROUP key",
            "               ^^^",
        ], id="statement-line-three"),
        pytest.param(parse_script, "SELECT 1;\n\nSELECT a\n  FROM t\n  WHERE a = = 1;\nSELECT 3;", (5, 13), [
            "Missing operand near '=' (line 5, column 13)",
            "    WHERE a = = 1;",
            "              ^",
        ], id="script-positioned-in-the-script"),
        # just after WHERE, where input ran out, on the first line of an indented statement
        pytest.param(parse_script, "SELECT 1;   SELECT a FROM t WHERE;", (1, 34), [
            "Incomplete WHERE clause at end of input (line 1, column 34)",
            "  SELECT 1;   SELECT a FROM t WHERE;",
            " " * 35 + "^",
        ], id="script-first-line-indented"),
    ],
)
def test_error_has_line_column_and_caret(parse, text, pos, lines):
    with pytest.raises(SqlError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.col) == pos
    assert err.sql == text
    assert str(err).splitlines() == lines


def test_error_at_end_of_input_points_after_last_token():
    with pytest.raises(SqlError) as info:
        parse_statement("SELECT a FROM t\nWHERE (a > 1")
    err = info.value
    assert "at end of input" in err.message and (err.line, err.col) == (2, 13)


@pytest.mark.parametrize(
    ("sql", "line", "col", "fragment"),
    [
        ("INSERT INTO t SELEC 1", 1, 15, "unexpected token near 'SELEC'"),
        ("SELECT \"a\" FROM t", 1, 8, "backticks"),
        ("SELECT 'abc", 1, 8, "Unterminated string literal"),
        ("SELECT 1 /* x", 1, 10, "Unterminated comment"),
        ("SELECT `abc", 1, 8, "Unterminated quoted identifier"),
        ("SHOW FOO", 1, 6, "Expecting TABLES, VIEWS, COLUMNS, JOBS, [USER] FUNCTIONS, CREATE TABLE"),
        ("SET 'a' 'b'", 1, 9, "Expecting ="),
        ("STOP JOB 1", 1, 10, "quoted job id"),
        ("SELECT * FROM TABLE(TUMBLE(TABLE t, ts, INTERVAL '1' SECOND))", 1, 37, "DESCRIPTOR"),
        ("SELECT * FROM TABLE(HOP(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))", 1, 33,
         "only allowed in SESSION"),
        ("EXECUTE STATEMENT SET BEGIN SELECT 1; END", 1, 29, "Only INSERT"),
        # Flink 2.3 (PyFlink): ParseException 'Encountered "CREATE" at line 1, column 29.'
        ("EXECUTE STATEMENT SET BEGIN CREATE TABLE o WITH ('connector' = 'print') AS SELECT 1 AS a; "
         "INSERT INTO p SELECT 1; END", 1, 29, 'Encountered "CREATE"'),
        ("SELECT a FROM t WHERE", 1, 22, "Incomplete WHERE clause"),
        ("SELECT a FROM t WHERE a = ) ", 1, 27, "Missing operand"),
        ("SELECT 1; SELECT 2", 1, 11, "found several"),  # at the second statement's SELECT
    ],
)
def test_error_positions(sql, line, col, fragment):
    with pytest.raises(SqlError) as info:
        parse_statement(sql)
    assert fragment in info.value.message
    assert (info.value.line, info.value.col) == (line, col)


@pytest.mark.parametrize("sql", ["", "   ", "-- nothing"])
def test_empty_statement(sql):
    with pytest.raises(SqlError, match="Empty statement"):
        parse_statement(sql)


# --- parse_script ---------------------------------------------------------------------------


def test_parse_script_pairs():
    pairs = parse_script("SET 'a' = 'b';\nSELECT 1;\nQUIT")
    assert [type(tree).__name__ for _, tree in pairs] == ["SetOption", "Select", "ClientCommand"]
    assert [stmt.line for stmt, _ in pairs] == [1, 2, 3]


@pytest.mark.parametrize(
    "sql",
    ["UPDATE t SET a = 1", "DELETE FROM t", "CREATE SCHEMA d", "USE ROLE r",
     "ALTER DATABASE d SET ('a' = 'b')", "hello world", "STOP it"],
)
def test_unsupported_statements(sql):
    with pytest.raises(SqlError, match="Unsupported statement") as info:
        parse_statement(sql)
    assert (info.value.line, info.value.col) == (1, 1)


def test_explain_needs_a_query_or_insert():
    with pytest.raises(SqlError, match="EXPLAIN supports"):
        parse_statement("EXPLAIN SHOW TABLES")


@pytest.mark.parametrize("sql", ["SELECT 1; -- done", "SELECT 1 -- c\n;", "SELECT 1; /* x */", "SELECT 1;"])
def test_trailing_semicolon_and_comments(sql):
    assert parse_statement(sql).sql() == "SELECT 1" or parse_statement(sql).sql().startswith("SELECT 1 /*")


def test_error_in_script_with_file_prefix():
    script = "SET 'a' = 'b';   SELECT a FROM t WHERE a = = 1;"
    stmt = split_statements(script)[1]
    with pytest.raises(SqlError) as info:
        parse_statement(stmt.text)
    err = error_in_script(info.value, stmt, script, file="job.sql")
    assert err.message.startswith("job.sql: Missing operand")
    assert (err.line, err.col) == (1, 44) and script[err.col - 1:err.col + 2] == "= 1"


def test_error_in_script_keeps_a_plan_errors_class():
    script = "SET 'a' = 'b';\nINSERT INTO t\n  SELECT a FROM s;"
    stmt = split_statements(script)[1]
    err = PlanError("Table sink 't' only accepts inserts", stmt.text, 1, 13, 1)
    moved = error_in_script(err, stmt, script, file="job.sql")
    assert isinstance(moved, PlanError) and (moved.line, moved.col) == (2, 13)
    assert moved.message == "job.sql: Table sink 't' only accepts inserts"
    unpositioned = error_in_script(PlanError("no position"), stmt, script)
    assert isinstance(unpositioned, PlanError) and (unpositioned.line, unpositioned.col) == (2, 1)


def test_multi_line_message_keeps_the_position_after_its_first_line():
    err = SqlError("Types do not match.\n  Query schema: [a]", "SELECT a FROM t", 1, 8)
    assert str(err).splitlines() == [
        "Types do not match. (line 1, column 8)", "  SELECT a FROM t", "         ^", "  Query schema: [a]",
    ]


@pytest.mark.parametrize(("sql", "path", "word"), [
    ("SELECT DISTINCT a FROM t", ("distinct",), "DISTINCT"),
    ("SELECT a FROM t LIMIT 3", ("limit",), "LIMIT"),
    ("SELECT a FROM t\n  ORDER BY a", ("order",), "ORDER BY"),
    ("SELECT a FROM t OFFSET 2", ("offset",), "OFFSET"),
    ("SELECT a FROM t WHERE a > 1", ("where",), "WHERE"),
    ("SELECT a FROM t UNION ALL SELECT a FROM u", (), "UNION"),
    ("SELECT a FROM t UNION ALL SELECT a FROM u LIMIT 1", ("limit",), "LIMIT"),
    ("WITH v AS (SELECT a FROM t) SELECT a FROM v", ("with_",), "WITH"),
    ("INSERT INTO s SELECT a FROM t", ("expression",), "SELECT"),
])
def test_clauses_the_planner_rejects_carry_their_keyword_position(sql, path, word):
    node = parse_statement(sql)
    for key in path:
        node = node.args[key]
    err = error_at(node, "x", sql)
    start = sum(len(ln) + 1 for ln in sql.splitlines()[:err.line - 1]) + err.col - 1
    assert sql[start:start + err.length] == word


def test_drop_of_several_tables_is_rejected():
    with pytest.raises(SqlError, match="one table or view at a time") as info:
        parse_statement("DROP TABLE a, b")
    assert info.value.col == 15

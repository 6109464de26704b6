"""A breaker's session: typos, multi-line statements, Ctrl-C mid-statement, a failing INSERT, SET of
unknown keys, and values DuckDB would have answered in its own words.

Every error is ours: a SQL error at its line and column with a caret under the line; a job's
failure in one notice; never a traceback, never DuckDB's text (``Unimplemented type for cast``,
``Could not decode string``) and never a misspelt key's value.
"""

from __future__ import annotations

import re

SECRET = "Breaker-Secret-77"
DUCKDB_WORDS = ("Unimplemented type", "Could not decode", "Expression evaluation failed", "Binder Error",
                "Conversion Error", "Traceback")


def test_a_breakers_session_gets_clear_errors(shell):
    sh = shell()
    m = sh.mark()
    # a typo, then a multi-line statement whose error is on its third line
    sh.send_expect("SELEC 1;\n", r"\[ERROR\] Unsupported statement 'SELEC \.\.\.'; did you mean 'SELECT'\? "
                                 r"\(line 1, column 1\)\n  SELEC 1\n  \^\^\^\^\^")
    sh.send_expect("CREATE TABLE t (a INT) WITH (\n 'connector' = 'datagen',\n 'number-of-rows' = '3');\n",
                   r"Execute statement succeeded")
    sh.send_expect("SELECT a\nFROM t\nWHERE b > 1;\n",
                   r"Column 'b' not found.*\(line 3, column 7\)\n  WHERE b > 1\n        \^")
    # Ctrl-C in the middle of a statement drops it; the next one runs alone
    sh.send("SELECT * FROM\n")
    sh.expect(r"-> $", after=m)
    sh.send("\x03")
    sh.send_expect("SELECT COUNT(*) AS n FROM t;\n", r"Received a total of \d+ rows?")
    # SET of a key no one reads: a warning naming it, its value never shown
    sh.send_expect(f"SET 'properties.sasl.passwd' = '{SECRET}';\n", r"'properties.sasl.passwd' is not a key "
                                                                   r"StreamSQL reads; it is ignored")
    sh.send_expect("SET;\n", r"properties\.sasl\.passwd \|\s+\*{6} \|")
    sh.send_expect(f"SET 'properties.sasl.passwd' = '{SECRET}' oops;\n",
                   r"\(line 1, column \d+\)\n  SET 'properties.sasl.passwd' = '\*{6}' oops\n")
    # a failing INSERT: wrong type at the column, then an unknown sink
    sh.send_expect("CREATE TABLE snk (a INT) WITH ('connector' = 'blackhole');\n", r"succeeded")
    sh.send_expect("INSERT INTO snk SELECT 'x';\n",
                   r"STRING into INT.*\(line 1, column 24\)\n  INSERT INTO snk SELECT 'x'")
    sh.send_expect("INSERT INTO nope SELECT 1;\n", r"Table or view 'nope' not found.*\(line 1, column 13\)")
    # what DuckDB would answer in its words: refused as Flink refuses it, or failed in ours
    sh.send_expect("SELECT CAST(ARRAY[1] AS INT);\n",
                   r"Cast function cannot convert value of type .* \(line 1, column \d+\)")
    sh.send_expect("SELECT FROM_BASE64('***');\n", r"\[ERROR\] FROM_BASE64 failed: Illegal base64 character "
                                                   r"2a")
    sh.send_expect("SHOW TABLES;\n", r"2 rows in set")
    screen = sh.screen()[m:]
    shown = re.findall(rf".*{SECRET}.*", screen)  # the terminal echoes what was typed; nothing else may
    assert len(shown) >= 2 and all(line.startswith("streamsql> ") and "SET 'properties" in line
                                   for line in shown), shown
    assert not [w for w in DUCKDB_WORDS if w in screen]
    sh.send("QUIT\n")
    assert sh.wait() == 0

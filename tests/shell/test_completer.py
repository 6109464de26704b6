"""Completion from the catalog, the connector registry and the configuration."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from streamsql.shell.completer import SqlCompleter

from streamsql.environment import StreamEnvironment


@pytest.fixture(scope="module")
def completer():
    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE orders (order_id BIGINT, amount DOUBLE, customer STRING) "
                    "WITH ('connector' = 'datagen')")
    env.execute_sql("CREATE TABLE clicks (url STRING, user_id INT) WITH ('connector' = 'datagen')")
    env.execute_sql("CREATE VIEW big AS SELECT order_id, amount FROM orders WHERE amount > 10")
    return SqlCompleter(env)


def complete(completer, text: str, cursor: int | None = None) -> list[str]:
    doc = Document(text, len(text) if cursor is None else cursor)
    return [c.text for c in completer.get_completions(doc, CompleteEvent(completion_requested=True))]


def test_tables_after_from(completer):
    assert complete(completer, "SELECT * FROM ") == ["big", "clicks", "orders"]
    assert complete(completer, "SELECT * FROM o") == ["orders"]


def test_columns_of_tables_in_the_statement(completer):
    got = complete(completer, "SELECT am", cursor=9) + complete(completer, "SELECT am FROM orders", cursor=9)
    assert got == ["amount"]  # only once the statement names the table
    assert complete(completer, "SELECT o.cu FROM orders o", cursor=11) == ["customer"]
    assert "amount" in complete(completer, "SELECT a FROM big", cursor=8)  # a view's columns


def test_keywords_follow_the_typed_case(completer):
    assert "SELECT" in complete(completer, "SEL")
    assert "select" in complete(completer, "sel")


def test_connector_names_and_their_options_inside_with(completer):
    ddl = "CREATE TABLE t (x INT) WITH ('connector' = '"
    names = complete(completer, ddl)
    assert {"datagen", "blackhole", "print", "filesystem"} <= set(names)
    assert complete(completer, ddl + "da") == ["datagen"]
    opts = complete(completer, "CREATE TABLE t (x INT) WITH ('connector' = 'datagen', '")
    assert {"number-of-rows", "rows-per-second", "fields."} <= set(opts) and "connector" not in opts
    partial = "CREATE TABLE t (x INT) WITH ('connector' = 'datagen', 'nu"
    assert complete(completer, partial) == ["number-of-rows"]
    unquoted = complete(completer, "CREATE TABLE t (x INT) WITH ('connector' = 'print', ")
    assert "'print-identifier'" in unquoted
    fmt = complete(completer, "CREATE TABLE t (x INT) WITH ('connector' = 'filesystem', 'format' = 'json', '")
    assert "json.ignore-parse-errors" in fmt


def test_set_keys(completer):
    assert "sql-client.execution.result-mode" in complete(completer, "SET 'sql-client.")

"""A misspelt option key may hold a secret: its value is shown masked wherever options are shown.

The rule (``streamsql.core.secrets.hidden``): sensitive, or unknown to its connector. SHOW CREATE
TABLE followed it; ``SET;``, the statement line under an error's caret (a bad option's error at
SELECT quotes the CREATE TABLE), the shell's history and log records did not:
``'properties.sasl.passwd' = 'hunter2'`` (no ``password`` in the name) was printed in clear.
"""

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError
from streamsql.core.secrets import MASK, redact

SECRET = "Hunter2-Misspelt"


def _error(env: StreamEnvironment, *statements: str) -> str:
    """The text of the error the last of ``statements`` fails with (the others succeed)."""
    for st in statements[:-1]:
        env.execute_sql(st)
    with pytest.raises(StreamSQLError) as e:
        env.execute_sql(statements[-1])
    return str(e.value)


def test_set_lists_a_key_streamsql_does_not_read_masked():
    """``SET;`` masks the value of a key StreamSQL does not read (a misspelt secret), not a known one's."""
    with StreamEnvironment() as env:
        env.execute_sql(f"SET 'properties.sasl.passwd' = '{SECRET}'")
        env.execute_sql(f"SET 'sasl.passwd' = '{SECRET}'")
        env.execute_sql("SET 'pipeline.name' = 'my-job'")
        rows = dict(env.execute_sql("SET").rows)
    assert rows["properties.sasl.passwd"] == MASK and rows["sasl.passwd"] == MASK
    assert rows["pipeline.name"] == "my-job" and rows["execution.checkpointing.interval"] == "5 s"
    assert SECRET not in str(rows)


@pytest.mark.parametrize(("statements", "shown"), [
    # datagen's unknown field key, refused when the table is read: the error quotes the CREATE TABLE
    ((f"CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'fields.a.passwd' = '{SECRET}', "
      "'number-of-rows' = '2')", "SELECT * FROM t"), "'number-of-rows' = '2'"),
    # a format's unknown key
    ((f"CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '/nonexistent/p32', "
      f"'format' = 'csv', 'csv.passwd' = '{SECRET}')", "SELECT * FROM t"), "'format' = 'csv'"),
    # an unknown connector knows no key
    ((f"CREATE TABLE t (a INT) WITH ('connector' = 'datagenn', 'fields.a.passwd' = '{SECRET}')",),
     "'connector' = 'datagenn'"),
    # a syntax error elsewhere in the statement
    ((f"CREATE TABLE t (a INTT) WITH ('connector' = 'datagen', 'fields.a.passwd' = '{SECRET}')",),
     "'connector' = 'datagen'"),
    # a hint's misspelt key, the error about another of its keys
    (("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')",
      f"SELECT * FROM t /*+ OPTIONS('fields.a.passwd' = '{SECRET}', 'number-of-rows' = 'zz') */"),
     "'number-of-rows' = 'zz'"),
    # a SET of a key no one reads, with a syntax error after it
    ((f"SET 'properties.sasl.passwd' = '{SECRET}' garbage",), "garbage"),
])
def test_an_error_quoting_the_statement_masks_unknown_keys(statements, shown):
    """The caret's statement line masks the values of keys no connector named there knows."""
    with StreamEnvironment() as env:
        text = _error(env, *statements)
    assert SECRET not in text and f"= '{MASK}'" in text and "^" in text
    assert shown in text  # the known keys' values stay readable


def test_history_and_logs_mask_unknown_keys():
    """:func:`redact` (the history file, log records) masks a connector's unknown keys, keeps known ones."""
    text = (f"CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 't', "
            f"'properties.sasl.passwd' = '{SECRET}', 'properties.bootstrap.servers' = 'b:9092', "
            f"'json.ignore-parse-errors' = 'true', 'key.json.fail-on-missing-field' = 'true');")
    assert redact(text) == text.replace(SECRET, MASK)
    assert redact("SET 'execution.checkpointing.interval' = '10 s';") == (
        "SET 'execution.checkpointing.interval' = '10 s';")
    assert redact(f"SET 'sasl.passwd' = '{SECRET}';") == f"SET 'sasl.passwd' = '{MASK}';"


def test_explain_masks_a_hints_unknown_key():
    """EXPLAIN prints a hint's options (Flink's ``hints=[[[OPTIONS ...]]]``): a key its connector does
    not know is masked, the others shown."""
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 'polish32_explain', "
                        "'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json', "
                        "'scan.startup.mode' = 'earliest-offset')")
        text = env.execute_sql(f"EXPLAIN SELECT * FROM k /*+ OPTIONS('properties.sasl.passwd' = '{SECRET}', "
                               "'scan.startup.mode' = 'latest-offset') */").message
    assert f"properties.sasl.passwd={MASK}, scan.startup.mode=latest-offset" in text and SECRET not in text


def test_show_create_view_masks_its_hints_secrets():
    """A view's text keeps its hints: SHOW CREATE VIEW masks their secrets and unknown keys' values."""
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 'polish32_view', "
                        "'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json')")
        env.execute_sql("CREATE VIEW v AS SELECT * FROM k /*+ OPTIONS("
                        f"'properties.sasl.password' = '{SECRET}1', 'properties.sasl.passwd' = '{SECRET}2', "
                        "'scan.startup.mode' = 'latest-offset') */")
        text = env.execute_sql("SHOW CREATE VIEW v").message
    assert text == (f"CREATE VIEW v AS SELECT * FROM k /*+ OPTIONS('properties.sasl.password' = '{MASK}', "
                    f"'properties.sasl.passwd' = '{MASK}', 'scan.startup.mode' = 'latest-offset') */")


def test_other_hints_and_literals_keep_their_values():
    """STATE_TTL and LOOKUP hints name tables, not options: their pairs are shown as written."""
    text = (f"SELECT /*+ STATE_TTL('orders' = '1d'), OPTIONS('properties.sasl.passwd' = '{SECRET}') */ * "
            "FROM o JOIN c /*+ LOOKUP('table' = 'c', 'async' = 'true') */ ON o.id = c.id")
    assert redact(text) == text.replace(SECRET, MASK)

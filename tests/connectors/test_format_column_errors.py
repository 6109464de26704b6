"""A format that cannot carry a column's type points at that column in the CREATE TABLE.

Flink 2.3 refuses these tables when they are used (its words are kept: the compat cases
``kafka_json_map_key_not_string_refused``, ``scripts/flink_variant.py``, docs/types.md#formats
for ``avro``'s legacy timestamp mapping); the error used to name the table and the column but
carried no line:column, so ``streamsql run`` showed ``file:LINE:`` of the query and no caret.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import OptionError

KAFKA = ("'connector' = 'kafka', 'topic' = 'format-column-errors', "
         "'properties.bootstrap.servers' = '127.0.0.1:1', 'scan.startup.mode' = 'earliest-offset'")


@pytest.mark.parametrize(
    ("column", "fmt", "words"),
    [
        ("ts TIMESTAMP_LTZ(3)", "avro",
         "the 'avro' format cannot carry column 'ts' of type TIMESTAMP_LTZ(3)"),
        ("r ROW<a INT, ts TIMESTAMP(6)>", "avro", "cannot carry column 'ts' of type TIMESTAMP(6)"),
        ("m MAP<INT, STRING>", "json", "JSON format doesn't support non-string as key type of map"),
        ("m ARRAY<MAP<INT, STRING>>", "canal-json", "non-string as key type of map"),
        ("v VARIANT", "json", "Unsupported type: VARIANT"),
    ],
)
def test_a_column_the_format_cannot_carry_is_pointed_at(tmp_path, column, fmt, words):
    script = ("SET 'parallelism.default' = '1';\n"
              "CREATE TABLE t (\n"
              "  id INT,\n"
              f"  {column}\n"
              f") WITH ({KAFKA}, 'format' = '{fmt}');\n"
              "SELECT * FROM t;\n")
    with StreamEnvironment({"state.dir": str(tmp_path / "s"),
                            "execution.checkpointing.dir": str(tmp_path / "c")}) as env:
        with pytest.raises(OptionError) as ei:
            env.execute_script(script, file="t.sql")
    e = ei.value
    assert words in e.message
    # the column's name in the CREATE TABLE (line 4 of the script), not the SELECT (line 6)
    assert (e.line, e.col) == (4, 3), str(e)
    assert "^" in str(e) and column in str(e)

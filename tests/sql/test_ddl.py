"""CREATE TABLE/VIEW to catalog definitions, their errors, and SHOW CREATE TABLE text."""

from __future__ import annotations

import re

import pytest
from sqlglot import exp

from streamsql.core.catalog import TableDef
from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.sql.ddl import show_create_table, table_def_from_create, view_def_from_create
from streamsql.sql.dialect import Flink
from streamsql.sql.parser import parse_statement

ORDERS = """CREATE TEMPORARY TABLE orders (
  id BIGINT,
  s STRING,
  v VARCHAR(10),
  ok BOOLEAN NOT NULL,
  f FLOAT,
  d DOUBLE,
  price DECIMAL(10, 2),
  dt DATE,
  ts TIMESTAMP(3),
  lt TIMESTAMP_LTZ(3),
  total AS price * 2 /* computed */,
  kafka_ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` INT METADATA VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'orders' WITH ('connector' = 'kafka', 'topic' = 'orders', 'it''s' = 'quoted')"""


def table(sql: str, base: TableDef | None = None) -> TableDef:
    return table_def_from_create(parse_statement(sql), sql, base)


def test_table_def_fields():
    td = table(ORDERS)
    assert td.name == "orders" and td.temporary and td.sql == ORDERS
    assert [c.name for c in td.columns] == [
        "id", "s", "v", "ok", "f", "d", "price", "dt", "ts", "lt", "total", "kafka_ts", "partition",
    ]
    types = {c.name: c.type for c in td.columns}
    assert types["id"] == SqlType("BIGINT", nullable=False)  # primary-key columns are NOT NULL
    assert types["s"] == SqlType("STRING")
    assert types["v"] == SqlType("STRING", 10)
    assert types["ok"] == SqlType("BOOLEAN", nullable=False)
    assert types["price"] == SqlType("DECIMAL", 10, 2)
    assert types["ts"] == SqlType("TIMESTAMP", 3)
    assert types["lt"] == SqlType("TIMESTAMP_LTZ", 3)
    assert types["total"] is None


def test_computed_metadata_and_virtual_columns():
    td = table(ORDERS)
    total = td.column("total")
    assert isinstance(total.computed, exp.Mul) and total.computed.sql(Flink).startswith("price * 2")
    assert not total.is_physical
    assert (td.column("kafka_ts").metadata_key, td.column("kafka_ts").virtual) == ("timestamp", False)
    part = td.column("partition")
    assert (part.metadata_key, part.virtual) == ("partition", True)  # no FROM: key = column name
    assert [c.name for c in td.metadata_columns] == ["kafka_ts", "partition"]
    assert td.physical_schema.names == ["id", "s", "v", "ok", "f", "d", "price", "dt", "ts", "lt"]


def test_watermark_primary_key_and_options():
    td = table(ORDERS)
    assert td.watermark.column == "ts"
    assert td.watermark.expr.sql(Flink) == "ts - INTERVAL '5' SECOND"
    assert td.primary_key == ["id"]
    assert td.options == {"connector": "kafka", "topic": "orders", "it's": "quoted"}
    assert td.connector == "kafka"


def test_minimal_and_inline_key():
    td = table("CREATE TABLE t (A INT PRIMARY KEY NOT ENFORCED, `b c` STRING) WITH ('connector' = 'x')")
    assert td.primary_key == ["A"] and not td.temporary and td.watermark is None
    assert [c.name for c in td.columns] == ["A", "b c"]


def test_watermark_resolves_case_insensitively_to_declared_name():
    td = table("CREATE TABLE t (Ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'x')")
    assert td.watermark.column == "Ts"


def test_watermark_on_computed_column():
    td = table("CREATE TABLE t (s BIGINT, ts AS TO_TIMESTAMP_LTZ(s, 3), WATERMARK FOR ts AS ts)")
    assert td.watermark.column == "ts"


@pytest.mark.parametrize(
    ("sql", "fragment", "line", "col"),
    [
        ("CREATE TABLE t (\n  a INT,\n  b INT,\n  A STRING\n) WITH ('k' = 'v')", "Duplicate column", 4, 3),
        ("CREATE TABLE t (\n  a INT,\n  WATERMARK FOR ts AS ts\n) WITH ('k' = 'v')",
         "WATERMARK FOR refers to unknown column 'ts'", 3, 17),
        ("CREATE TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED) WITH ('k' = 'v')",
         "PRIMARY KEY refers to unknown column 'b'", 1, 37),
        ("CREATE TABLE t (a INT, PRIMARY KEY (a)) WITH ('k' = 'v')", "NOT ENFORCED", 1, 37),
        ("CREATE TABLE t (a INT, b INT PRIMARY KEY NOT ENFORCED, PRIMARY KEY (a) NOT ENFORCED)",
         "only one PRIMARY KEY", 1, 69),
        ("CREATE TABLE t (a INT, WATERMARK FOR a AS a) WITH ('k' = 'v')", "field type is INT", 1, 38),
        ("CREATE TABLE t (a FOO) WITH ('k' = 'v')", "Unknown type 'FOO'", 1, 17),
        # a query after the options (AS forgotten, or CTAS) was parsed and silently dropped
        ("CREATE TABLE t (a INT) WITH ('k' = 'v')\nSELECT 1", "AS SELECT is not supported", 2, 1),
        ("CREATE TABLE t WITH ('k' = 'v')\nSELECT 1", "AS SELECT is not supported", 2, 1),
        ("CREATE TABLE t WITH ('k' = 'v') AS SELECT a FROM s", "then INSERT INTO t SELECT", 1, 36),
        # a PRIMARY KEY written inside WITH (...) was parsed and silently dropped: the table had no
        # key (Flink's parser refuses it: Encountered "PRIMARY")
        ("CREATE TABLE t (a INT) WITH ('k' = 'v',\n  PRIMARY KEY (a) NOT ENFORCED)",
         "WITH (...) takes only 'key' = 'value' options, not PRIMARY KEY (a) NOT ENFORCED (a PRIMARY KEY "
         "goes in the column list)", 2, 16),
    ],
)
def test_ddl_errors_are_positioned(sql, fragment, line, col):
    with pytest.raises(SqlError) as info:
        table(sql)
    assert fragment in info.value.message
    assert (info.value.line, info.value.col) == (line, col)
    assert info.value.sql == sql


def test_multiple_watermarks_and_like_without_its_base_are_rejected():
    with pytest.raises(SqlError, match="only one WATERMARK"):
        table("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts, WATERMARK FOR ts AS ts)")
    with pytest.raises(SqlError, match="LIKE needs its base table"):  # merged in tests/catalog
        table("CREATE TABLE t (a INT) LIKE other")


def test_view_def():
    sql = "CREATE TEMPORARY VIEW IF NOT EXISTS v AS SELECT a FROM t"
    create = parse_statement(sql)
    vd = view_def_from_create(create, sql)
    assert vd.name == "v" and vd.temporary and vd.sql == sql
    assert isinstance(vd.query, exp.Select) and vd.query.sql(Flink) == "SELECT a FROM t"
    assert create.args["exists"]
    plain = view_def_from_create(parse_statement("CREATE VIEW w AS SELECT 1"), "CREATE VIEW w AS SELECT 1")
    assert not plain.temporary


def test_view_column_list_names_the_columns_and_refuses_a_name_twice():
    sql = "CREATE VIEW v (x, y) AS SELECT 1, 2"
    assert view_def_from_create(parse_statement(sql), sql).columns == ("x", "y")
    sql = "CREATE VIEW v (x, X) AS SELECT 1, 2"  # names are case-insensitive, as Flink's
    with pytest.raises(SqlError, match="Column `X` has been specified") as info:
        view_def_from_create(parse_statement(sql), sql)
    assert (info.value.line, info.value.col) == (1, 19)


def _unquoted(e: exp.Expr) -> str:
    return e.transform(lambda n: exp.to_identifier(n.name) if isinstance(n, exp.Identifier) else n).sql(Flink)


def test_show_create_table_text():
    text = show_create_table(table(ORDERS))
    assert text == """CREATE TEMPORARY TABLE `orders` (
  `id` BIGINT NOT NULL,
  `s` STRING,
  `v` VARCHAR(10),
  `ok` BOOLEAN NOT NULL,
  `f` FLOAT,
  `d` DOUBLE,
  `price` DECIMAL(10, 2),
  `dt` DATE,
  `ts` TIMESTAMP(3),
  `lt` TIMESTAMP_LTZ(3),
  `total` AS `price` * 2 /* computed */,
  `kafka_ts` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` INT METADATA VIRTUAL,
  WATERMARK FOR `ts` AS `ts` - INTERVAL '5' SECOND,
  PRIMARY KEY (`id`) NOT ENFORCED
)
COMMENT 'orders'
WITH (
  'connector' = 'kafka',
  'it''s' = 'quoted',
  'topic' = 'orders'
)"""


def test_show_create_table_reparses_to_the_same_definition():
    td = table(ORDERS)
    again = table(show_create_table(td))
    assert [(c.name, c.type, c.metadata_key, c.virtual) for c in again.columns] == [
        (c.name, c.type, c.metadata_key, c.virtual) for c in td.columns
    ]
    assert _unquoted(again.column("total").computed) == _unquoted(td.column("total").computed)
    assert _unquoted(again.watermark.expr) == _unquoted(td.watermark.expr)
    assert (again.primary_key, again.options, again.temporary) == (td.primary_key, td.options, td.temporary)


def test_not_null_inside_composite_types_nested_rows_and_field_comments():
    """Flink's DDL accepts these (compat cases types_*); they were parse errors."""
    td = table("CREATE TABLE t (a ARRAY<INT NOT NULL> NOT NULL, m MAP<STRING NOT NULL, INT NOT NULL>, "
               "r ROW<a ROW<b INT>, c ROW(d BIGINT NOT NULL)>, n ROW<a INT NOT NULL 'the a', b STRING 'x'>, "
               "z ARRAY<ROW<c INT NOT NULL>>) WITH ('connector' = 'blackhole')")
    types = {c.name: c.type for c in td.columns}
    assert types["a"] == SqlType.array(SqlType("INT", nullable=False), nullable=False)
    assert types["m"] == SqlType.map(SqlType("STRING", nullable=False), SqlType("INT", nullable=False))
    assert types["r"].sql() == "ROW<`a` ROW<`b` INT>, `c` ROW<`d` BIGINT NOT NULL>>"
    assert types["n"].sql() == "ROW<`a` INT NOT NULL, `b` STRING>", "a field's description is dropped"
    assert types["z"].sql() == "ARRAY<ROW<`c` INT NOT NULL>>"
    assert table(show_create_table(td)).columns == td.columns, "SHOW CREATE TABLE reparses to the same"


def test_multiset_is_refused_with_what_to_declare():
    with pytest.raises(SqlError) as e:
        parse_statement("CREATE TABLE t (id INT, ms MULTISET<STRING>) WITH ('connector' = 'blackhole')")
    assert "MULTISET is not supported yet; declare MAP<T, INT>" in e.value.message
    assert (e.value.line, e.value.col) == (1, 28)


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        ("CREATE TABLE t (a INT CHECK (a > 0))", "Unsupported column constraint: CHECK (a > 0)"),
        ("CREATE TABLE t (a INT DEFAULT 5)", "Unsupported column constraint: DEFAULT 5"),
    ],
)
def test_clauses_flink_would_not_ignore_are_refused(ddl, message):
    """They parsed and were ignored: rows were not checked, no default filled (Flink's parser refuses
    CHECK and DEFAULT)."""
    with pytest.raises(SqlError, match=re.escape(message)):
        table(ddl)


def test_partitioned_by_is_kept_and_checked():
    """PARTITIONED BY names physical columns, kept in its order (a filesystem table's folders); an
    unknown one is refused in Flink's words at the name."""
    td = table("CREATE TABLE t (a INT, b STRING, c INT) PARTITIONED BY (c, `b`)")
    assert td.partition_keys == ["c", "b"]
    assert ")\nPARTITIONED BY (`c`, `b`)\nWITH (" in show_create_table(td)  # Flink 2.3's SHOW CREATE TABLE
    td = table("CREATE TABLE t (a INT, b STRING) COMMENT 'x' PARTITIONED BY (b)")
    assert ")\nCOMMENT 'x'\nPARTITIONED BY (`b`)\nWITH (" in show_create_table(td)
    with pytest.raises(SqlError) as e:
        table("CREATE TABLE t (a INT, k STRING) PARTITIONED BY (zz)")
    assert e.value.message == ("Partition column 'zz' not defined in the table schema. "
                               "Available columns: ['a', 'k']")
    assert (e.value.line, e.value.col) == (1, 50)


def test_like_includes_partitions_unless_excluded():
    base = table("CREATE TABLE b (a INT, k STRING) PARTITIONED BY (k) WITH ('connector' = 'filesystem')")
    assert table("CREATE TABLE t WITH ('path' = '/x') LIKE b", base=base).partition_keys == ["k"]
    assert table("CREATE TABLE t LIKE b (EXCLUDING PARTITIONS)", base=base).partition_keys == []
    with pytest.raises(SqlError, match="The base table already has partitions defined. You might want to "
                                       "specify EXCLUDING PARTITIONS."):
        table("CREATE TABLE t (c INT) PARTITIONED BY (c) LIKE b", base=base)


def test_column_comments_and_nullability_are_kept():
    td = table("CREATE TABLE t (a INT NOT NULL COMMENT 'x', b INT NULL) COMMENT 'it''s c'")
    assert [c.name for c in td.columns] == ["a", "b"]
    assert [c.comment for c in td.columns] == ["x", None]
    assert td.comment == "it's c"
    assert "`a` INT NOT NULL COMMENT 'x',\n" in show_create_table(td)
    assert show_create_table(td).endswith(")\nCOMMENT 'it''s c'\nWITH (\n\n)")


def test_an_option_written_twice_keeps_its_last_value_as_flink():
    # Flink 2.3 runs `WITH ('number-of-rows' = '3', 'number-of-rows' = '5', ...)` with 5 rows and its
    # SHOW CREATE TABLE lists the key once, with '5' (checked on PyFlink 2.3.0, session 32)
    td = table("CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
               "'fields.a.kind' = 'sequence', 'number-of-rows' = '5')")
    assert td.options["number-of-rows"] == "5"
    assert show_create_table(td).count("'number-of-rows'") == 1

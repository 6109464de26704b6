"""Round trips of every statement form through the Flink dialect, and the trees the planner sees."""

from __future__ import annotations

import pytest
from sqlglot import exp, parse_one

from streamsql.sql import nodes
from streamsql.sql.dialect import Flink
from tests.sql.helpers import Validator

V = Validator()

CREATE_TABLE = (
    "CREATE TABLE t (a INT, s STRING, v VARCHAR(10), b BOOLEAN, x BIGINT, f FLOAT, d DOUBLE, "
    "p DECIMAL(10, 2), dt DATE, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), c AS a + 1 /* computed column */, "
    "m TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', part INT METADATA VIRTUAL, "
    "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (a) NOT ENFORCED) "
    "COMMENT 'orders' WITH ('connector' = 'kafka', 'topic' = 'x')"
)


# --- DDL ------------------------------------------------------------------------------------


def test_create_table_round_trip():
    tree = V.validate_identity(CREATE_TABLE)
    assert isinstance(tree, exp.Create) and tree.kind == "TABLE"
    assert isinstance(tree.this, exp.Schema)
    items = tree.this.expressions
    assert any(isinstance(i, exp.WatermarkColumnConstraint) for i in items)
    assert any(isinstance(i, exp.PrimaryKey) for i in items)
    meta = [c.args["kind"] for d in items if isinstance(d, exp.ColumnDef) for c in d.constraints]
    assert any(isinstance(k, nodes.MetadataColumnConstraint) for k in meta)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'datagen')",
        "CREATE TABLE IF NOT EXISTS t (a INT) WITH ('connector' = 'datagen')",
        "CREATE TEMPORARY TABLE IF NOT EXISTS `my table` (`a b` INT NOT NULL, `by` BYTES) "
        "WITH ('k' = 'it''s')",
        "CREATE TABLE t (a INT PRIMARY KEY NOT ENFORCED, b STRING COMMENT 'hi') WITH ('connector' = 'x')",
        "CREATE TABLE t (a INT, CONSTRAINT pk PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'x')",
        "CREATE TABLE t (a INT, pt AS PROCTIME(), m INT METADATA) WITH ('connector' = 'x')",
        "CREATE TABLE t (a INT, b STRING) PARTITIONED BY (b) WITH ('connector' = 'filesystem')",
        "CREATE TEMPORARY VIEW v AS SELECT a FROM t",
        "CREATE VIEW IF NOT EXISTS v AS SELECT a, COUNT(*) AS n FROM t GROUP BY a",
        "DROP TABLE t",
        "DROP TABLE IF EXISTS t",
        "DROP VIEW v",
        "DROP VIEW IF EXISTS v",
    ],
)
def test_ddl_identity(sql):
    V.validate_identity(sql)


def test_flink_type_spellings():
    V.validate_identity("CREATE TABLE t (l TIMESTAMP(3) WITH LOCAL TIME ZONE) WITH ('k' = 'v')",
                        "CREATE TABLE t (l TIMESTAMP_LTZ(3)) WITH ('k' = 'v')")
    V.validate_identity("SELECT CAST(a AS INTEGER), CAST(b AS BYTES)",
                        "SELECT CAST(a AS INT), CAST(b AS BYTES)")


def test_view_and_drop_trees():
    view = V.validate_identity("CREATE TEMPORARY VIEW IF NOT EXISTS v AS SELECT a FROM t")
    assert view.kind == "VIEW" and isinstance(view.expression, exp.Select) and view.args["exists"]
    assert any(isinstance(p, exp.TemporaryProperty) for p in view.args["properties"].expressions)
    drop = V.validate_identity("DROP TABLE IF EXISTS t")
    assert isinstance(drop, exp.Drop) and drop.kind == "TABLE" and drop.args["exists"]
    assert [t.name for t in drop.args["tables"]] == ["t"]  # sqlglot 30 keeps DROP targets in "tables"


# --- DML and queries ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t SELECT * FROM s",
        "INSERT INTO t (a, b) SELECT x, y FROM s",
        "INSERT INTO t VALUES (1, 'a''b'), (2, NULL)",
        "SELECT a FROM t UNION ALL SELECT b FROM u",
        "SELECT k, COUNT(*), SUM(v) FROM t WHERE v > 0 GROUP BY k HAVING COUNT(*) > 1",
        "SELECT CASE WHEN a > 1 THEN 'x' WHEN a IS NULL THEN 'n' ELSE 'y' END FROM t",
        "SELECT CAST(a AS STRING), CAST(b AS DECIMAL(10, 2)), CAST(c AS TIMESTAMP(3)), CAST(d AS VARCHAR(5))",
        "SELECT COALESCE(a, b, 'z'), NULLIF(a, ''), IFNULL(a, 0), IF(a > 1, 'x', 'y')",
        "SELECT SUBSTR(s, 1, 2), SUBSTRING(s, 2), UPPER(s), LOWER(s), TRIM(s), LTRIM(s), RTRIM(s)",
        "SELECT CONCAT(a, b), CONCAT_WS('-', a, b), a || b, CHAR_LENGTH(s), REPLACE(s, 'a', 'b')",
        "SELECT POSITION('a' IN s), LOCATE('a', s), LOCATE('a', s, 3), TRIM(BOTH ' ' FROM s)",
        "SELECT REGEXP_REPLACE(s, 'a+', 'b'), REGEXP_EXTRACT(s, 'a(b)', 1), INITCAP(s), LPAD(s, 5, 'x')",
        "SELECT a FROM t WHERE s LIKE 'x%' AND b IS NOT NULL AND c IN (1, 2) AND d BETWEEN 1 AND 2",
        "SELECT `select`, `a b` FROM `t`",
        "SELECT CURRENT_TIMESTAMP, LOCALTIMESTAMP, PROCTIME(), DATE_FORMAT(ts, 'yyyy-MM-dd')",
        "SELECT EXTRACT(HOUR FROM ts), FLOOR(ts TO HOUR), CEIL(ts TO DAY)",
        "SELECT TIMESTAMPDIFF(SECOND, a, b), TIMESTAMPADD(HOUR, 1, ts)",
        "SELECT a, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t",
        "SELECT * FROM o JOIN c FOR SYSTEM_TIME AS OF o.pt AS c2 ON o.id = c2.id",
        "SELECT * FROM a LEFT JOIN b ON a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '1' HOUR AND a.ts",
        "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
        "SELECT INTERVAL '10' MINUTES, INTERVAL '1 10' DAY TO HOUR",
        # Calcite's interval qualifier keeps its precisions (YEAR(4) was read as a call of YEAR())
        "SELECT INTERVAL '8000' YEAR(4), INTERVAL '100 10' DAY(3) TO HOUR, INTERVAL '1-2' YEAR(3) TO MONTH",
        "SELECT INTERVAL '1.5' SECOND(2, 3), INTERVAL '1 1:1:1.5' DAY TO SECOND(3), INTERVAL '100' MINUTE(3)",
    ],
)
def test_query_identity(sql):
    V.validate_identity(sql)


def test_insert_tree():
    tree = V.validate_identity("INSERT INTO t (a, b) SELECT x, y FROM s")
    assert isinstance(tree, exp.Insert)
    assert isinstance(tree.this, exp.Schema) and tree.this.this.name == "t"
    assert [c.name for c in tree.this.expressions] == ["a", "b"]
    assert isinstance(tree.expression, exp.Select)
    plain = V.validate_identity("INSERT INTO t SELECT 1")
    assert isinstance(plain.this, exp.Table) and plain.this.name == "t"
    values = V.validate_identity("INSERT INTO t VALUES (1)")
    assert isinstance(values.expression, exp.Values)


def test_semantics_of_reordered_functions():
    # LOCATE(sub, s) and POSITION(sub IN s) put the substring first; the node must agree.
    for sql in ("SELECT LOCATE('a', s)", "SELECT POSITION('a' IN s)"):
        node = parse_one(sql, read=Flink).find(exp.StrPosition)
        assert node.args["substr"].name == "a" and node.this.name == "s"
    diff = parse_one("SELECT TIMESTAMPDIFF(SECOND, a, b)", read=Flink).find(exp.TimestampDiff)
    assert diff.this.name == "b" and diff.expression.name == "a" and diff.unit.name == "SECOND"


# --- window TVFs ----------------------------------------------------------------------------


def _tvf(tree: exp.Expr) -> nodes.WindowTVF:
    source = tree.find(exp.TableFromRows)
    assert source is not None
    return source.this


def test_tumble_tree():
    tree = V.validate_identity(
        "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end"
    )
    tvf = _tvf(tree)
    assert isinstance(tvf, nodes.Tumble) and tvf.kind == "TUMBLE"
    assert isinstance(tvf.this, exp.Table) and tvf.this.name == "t"
    assert isinstance(tvf.args["time_col"], exp.Column) and tvf.args["time_col"].name == "ts"
    size = tvf.args["size"]
    assert isinstance(size, exp.Interval) and size.this.name == "10" and size.unit.name == "SECOND"


@pytest.mark.parametrize(
    ("sql", "cls", "args"),
    [
        ("SELECT * FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) AS w",
         nodes.Hop, ("slide", "size")),
        ("SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))",
         nodes.Cumulate, ("step", "size")),
        ("SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' SECOND))",
         nodes.Session, ("gap",)),
        ("SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '30' SECOND))",
         nodes.Session, ("gap",)),
        ("SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '5' MINUTE)) AS w "
         "JOIN u ON w.a = u.a", nodes.Tumble, ("size", "offset")),
    ],
)
def test_window_tvfs(sql, cls, args):
    tvf = _tvf(V.validate_identity(sql))
    assert isinstance(tvf, cls)
    for arg in args:
        assert isinstance(tvf.args[arg], exp.Interval)


def test_session_partition_keys_and_alias():
    tree = V.validate_identity(
        "SELECT * FROM TABLE(SESSION(TABLE t PARTITION BY (k, j), DESCRIPTOR(ts), INTERVAL '30' SECOND)) AS s"
    )
    source = tree.find(exp.TableFromRows)
    assert source.alias == "s"
    assert [k.name for k in source.this.args["partition_by"]] == ["k", "j"]


def test_named_tvf_arguments_become_positional():
    V.validate_identity(
        "SELECT * FROM TABLE(CUMULATE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), "
        "STEP => INTERVAL '1' MINUTE, SIZE => INTERVAL '1' HOUR))",
        "SELECT * FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))",
    )


def test_legacy_group_window_stays_a_function():
    tree = V.validate_identity("SELECT COUNT(*) FROM t GROUP BY TUMBLE(ts, INTERVAL '1' HOUR)")
    assert not list(tree.find_all(nodes.WindowTVF))


# --- client statements ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "cls"),
    [
        ("SET 'parallelism.default' = '2'", nodes.SetOption),
        ("SET", nodes.SetOption),
        ("RESET 'parallelism.default'", nodes.ResetOption),
        ("RESET", nodes.ResetOption),
        ("SHOW TABLES", nodes.ShowTables),
        ("SHOW VIEWS", nodes.ShowViews),
        ("SHOW TABLES FROM c.db", nodes.ShowTables),
        ("SHOW VIEWS FROM db", nodes.ShowViews),
        ("SHOW CATALOGS", nodes.ShowNamespace),
        ("SHOW CURRENT DATABASE", nodes.ShowNamespace),
        ("SHOW FULL MODULES", nodes.ShowNamespace),
        ("CREATE CATALOG IF NOT EXISTS c WITH ('type' = 'generic_in_memory')", nodes.CreateCatalog),
        ("DROP CATALOG IF EXISTS c", nodes.DropCatalog),
        ("USE CATALOG c", exp.Use),
        ("USE c.db", exp.Use),
        ("CREATE DATABASE IF NOT EXISTS c.db", exp.Create),
        ("DROP DATABASE IF EXISTS db CASCADE", exp.Drop),
        ("SHOW JOBS", nodes.ShowJobs),
        ("SHOW CREATE TABLE t", nodes.ShowCreateTable),
        ("SHOW CREATE VIEW v", nodes.ShowCreateTable),
        ("DESCRIBE t", nodes.DescribeTable),
        ("EXPLAIN SELECT a FROM t", nodes.Explain),
        ("EXPLAIN PLAN FOR INSERT INTO t SELECT 1", nodes.Explain),
        ("EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT 1", nodes.Explain),
        ("STOP JOB 'abc-123'", nodes.StopJob),
        ("STOP JOB 'abc' WITH SAVEPOINT WITH DRAIN", nodes.StopJob),
        ("PRINT TOPIC orders", nodes.PrintTopic),
        ("PRINT TOPIC orders FROM BEGINNING LIMIT 10", nodes.PrintTopic),
        ("PRINT TOPIC `my-topic.v1` LIMIT 5", nodes.PrintTopic),
        ("EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM b; INSERT INTO c SELECT 1; END",
         nodes.StatementSet),
        ("BEGIN STATEMENT SET", nodes.BeginStatementSet),
        ("END", nodes.EndStatementSet),
        ("HELP", nodes.ClientCommand),
        ("QUIT", nodes.ClientCommand),
        ("EXIT", nodes.ClientCommand),
        ("CLEAR", nodes.ClientCommand),
    ],
)
def test_client_statement_identity(sql, cls):
    assert isinstance(V.validate_identity(sql), cls)


def test_client_statement_normalisations():
    V.validate_identity("DESC t", "DESCRIBE t")
    V.validate_identity("quit", "QUIT")
    V.validate_identity("SHOW TABLES IN db", "SHOW TABLES FROM db")
    V.validate_identity("SET execution.runtime-mode = batch", "SET 'execution.runtime-mode' = 'batch'")
    V.validate_identity("PRINT TOPIC my-topic.v1", "PRINT TOPIC `my-topic.v1`")
    V.validate_identity("set 'a'='b'", "SET 'a' = 'b'")


def test_client_statement_args():
    s = V.validate_identity("SET 'table.exec.mini-batch.enabled' = 'true'")
    assert (s.option, s.value) == ("table.exec.mini-batch.enabled", "true")
    bare = V.validate_identity("SET")
    assert (bare.option, bare.value) == (None, None)
    assert V.validate_identity("RESET 'k'").option == "k"
    assert V.validate_identity("RESET").option is None
    assert V.validate_identity("SHOW CREATE TABLE db.t").this.name == "t"
    assert V.validate_identity("DESCRIBE t").this.name == "t"
    explain = V.validate_identity("EXPLAIN PLAN FOR INSERT INTO t SELECT 1")
    assert isinstance(explain.this, exp.Insert) and explain.args["plan_for"]
    stop = V.validate_identity("STOP JOB 'j1' WITH SAVEPOINT")
    assert stop.name == "j1" and stop.args["savepoint"] and not stop.args["drain"]
    topic = V.validate_identity("PRINT TOPIC orders FROM BEGINNING LIMIT 10")
    assert topic.name == "orders" and topic.args["from_beginning"] and topic.args["limit"].name == "10"
    sset = V.validate_identity(
        "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM b; "
        "INSERT INTO c SELECT 1; END"
    )
    assert [i.this.name for i in sset.expressions] == ["a", "c"]
    assert all(isinstance(i, exp.Insert) for i in sset.expressions)
    assert V.validate_identity("EXIT").name == "EXIT"


def test_dialect_parse_handles_statement_sets_in_scripts():
    script = "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END; SHOW JOBS"
    trees = Flink().parse(script)
    assert [type(t) for t in trees] == [nodes.StatementSet, nodes.ShowJobs]


def test_block_comments_do_not_nest_as_in_flink():
    """Calcite's comments end at the first ``*/``: PyFlink 2.3 answers (1, 2) to the first query and
    applies the hint of the second (sqlglot nests comments, so both were refused as unreadable)."""
    tree = parse_one("SELECT 1 AS x /* a /* b */, 2 AS y", read=Flink)
    assert [e.alias for e in tree.expressions] == ["x", "y"]
    hinted = parse_one("SELECT id /* a /* b */ FROM nums /*+ OPTIONS('k' = 'v') */", read=Flink)
    table = hinted.find(exp.Table)
    assert table.name == "nums" and table.comments == [nodes.HINT_MARK + " OPTIONS('k' = 'v') "]


def test_hint_comments_are_marked_and_kept_with_the_name_before_them():
    """A table's hint keeps to the table on a line of its own, and reads as a hint, not a comment,
    when the tree is generated again (a plain comment and a ``--+`` line comment stay comments)."""
    sql = "SELECT * FROM a /* c */\n/*+ OPTIONS('k' = 'v') */\nJOIN b --+ OPTIONS('x' = 'y')\nON a.id = b.id"
    tree = parse_one(sql, read=Flink)
    a, b = tree.find_all(exp.Table)
    assert a.comments == [" c ", "+ OPTIONS('k' = 'v') "]
    assert b.comments == [" + OPTIONS('x' = 'y')"]
    assert tree.sql(dialect=Flink) == ("SELECT * FROM a /* c */ /*+ OPTIONS('k' = 'v') */ JOIN b "
                                       "/* + OPTIONS('x' = 'y') */ ON a.id = b.id")

"""A sink whose PRIMARY KEY is not the query's upsert key, and INSERT ... ON CONFLICT, as Flink 2.3.

Each shape below was asked of Flink 2.3 (PyFlink 2.3.0, ``explain_sql`` of the same statement
over the same kind of tables, blackhole / print sinks): whether it plans, or the words of its
ValidationException. StreamSQL used to plan every one of them (the sink kept whatever row came
last per key, and ON CONFLICT DO NOTHING was silently ignored). See
:mod:`streamsql.plan.conflicts`; the compat cases ``upsert_key_*`` / ``on_conflict_*`` run a few
of them on Flink for the oracle's own words and rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import PlanError, SqlError

MISMATCH = "The query has an upsert key that differs from the primary key of the sink table 'snk'"
APPEND_ONLY = ("ON CONFLICT clause is only allowed for upsert sinks. The sink 'snk' is not an upsert "
               "sink because it only accepts INSERT (append-only) changes.")
AGG_AB = "SELECT a, b, SUM(v) FROM src GROUP BY a, b"
SUMS = "(SELECT a, SUM(v) s FROM src GROUP BY a) l"
COUNTS = "(SELECT a, COUNT(*) s FROM src GROUP BY a) r"
J3 = "a INT, b INT, s BIGINT"


@pytest.fixture
def env(tmp_path):
    cdc = tmp_path / "cdc.json"
    cdc.write_text('{"before":null,"after":{"id":1,"x":10},"op":"c"}\n')
    e = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql("CREATE TABLE src (a INT, b INT, v INT) WITH ('connector' = 'datagen', "
                  "'number-of-rows' = '5')")
    e.execute_sql("CREATE TABLE wm (a INT, b INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
                  "WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
    e.execute_sql("CREATE TABLE k1 (id INT, x INT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                  "'connector' = 'datagen', 'number-of-rows' = '5')")
    for name, pk in (("c1", ", PRIMARY KEY (id) NOT ENFORCED"), ("c2", "")):
        e.execute_sql(f"CREATE TABLE {name} (id INT, x INT{pk}) WITH ('connector' = 'filesystem', "
                      f"'path' = '{cdc}', 'format' = 'debezium-json')")
    yield e
    e.close()


def sink(env, pk: str, cols: str = "a INT, b INT, s INT", connector: str = "blackhole") -> None:
    key = f", PRIMARY KEY ({pk}) NOT ENFORCED" if pk else ""
    env.execute_sql(f"CREATE TABLE snk ({cols}{key}) WITH ('connector' = '{connector}')")


@pytest.mark.parametrize(
    ("pk", "cols", "query"),
    [
        ("a,b,s", None, AGG_AB),  # the sink key contains the upsert key
        ("a,b", None, AGG_AB),
        ("a", None, "SELECT a, b, v FROM src"),  # insert-only into a keyed sink
        ("", None, AGG_AB),  # no sink key
        ("a", "a INT, b INT", "SELECT id, x FROM c1"),  # a changelog source's PRIMARY KEY
        ("a", "a INT, b INT", "SELECT id, x FROM c1 WHERE x > 3"),
        ("a", "a INT, b BIGINT", "SELECT 1, COUNT(*) FROM src"),  # a global aggregate: one row
        ("b", "a INT, b BIGINT", "SELECT 1, COUNT(*) FROM src"),
        ("a", J3, f"SELECT l.a, l.s, r.s FROM {SUMS} JOIN {COUNTS} ON l.a = r.a"),
        ("a", J3, f"SELECT l.a, l.s, r.s FROM {SUMS} LEFT JOIN {COUNTS} ON l.a = r.a"),
        ("a", None, "SELECT a, b, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a ORDER BY v DESC) rn "
                    "FROM src) WHERE rn = 1"),
        ("a", "a BIGINT, s INT", "SELECT a, SUM(v) FROM src GROUP BY a"),  # the key through the sink's CAST
        ("a", "a INT, s INT", "SELECT a, s FROM (SELECT a, SUM(v) s FROM src GROUP BY a) "
                              "WHERE a IN (SELECT b FROM src)"),
        ("a,b", None, f"{AGG_AB} ON CONFLICT DO DEDUPLICATE"),  # keys agree: nothing to deduplicate
        ("", None, f"{AGG_AB} ON CONFLICT DO DEDUPLICATE"),
        ("", None, f"{AGG_AB} on conflict do deduplicate"),
    ],
)
def test_flink_plans_it(env, pk, cols, query):
    sink(env, pk, *([cols] if cols else []))
    env.execute_sql(f"EXPLAIN INSERT INTO snk {query}")


#: (sink key, sink columns, query, the key mismatch Flink names) of queries Flink refuses without ON CONFLICT
MISMATCHES = [
    ("a", None, AGG_AB, "Primary key: [a], upsert key: [a, b]."),
    ("a", None, f"{AGG_AB} HAVING SUM(v) > 3", "Primary key: [a], upsert key: [a, b]."),
    ("s", None, "SELECT a, MAX(b), SUM(v) FROM src GROUP BY a", "Primary key: [s], upsert key: [a]."),
    ("b", "a INT, b INT", "SELECT id, x FROM c1", "Primary key: [b], upsert key: [a]."),
    ("a", "a INT, b INT", "SELECT id, x FROM c2", "upsert key: none"),  # no source key
    ("a", None, "SELECT a, 1, SUM(v) FROM src GROUP BY a, b", "Primary key: [a], upsert key:"),
    ("a", None, f"SELECT l.a, l.s, r.v FROM {SUMS} JOIN src r ON l.a = r.a", "Primary key: [a]"),
    # an anti join's rows: no upsert key, even over an append-only table with a PRIMARY KEY
    ("a", "a INT, b INT", "SELECT id, 0 FROM k1 WHERE NOT EXISTS (SELECT 1 FROM src WHERE src.a = k1.x)",
     "Primary key: [a]"),
    ("a", J3, f"SELECT l.a, l.s, r.s FROM {SUMS} FULL JOIN {COUNTS} ON l.a = r.a", "Primary key: [a]"),
    ("a", J3, f"SELECT l.b, l.s, r.s FROM (SELECT a, b, SUM(v) s FROM src GROUP BY a, b) l JOIN {COUNTS} "
              "ON l.a = r.a", "Primary key: [a]"),
    ("a", None, "SELECT a, b, s FROM (SELECT a, b, SUM(v) s FROM src GROUP BY a, b) UNION ALL "
                "SELECT a, b, s FROM (SELECT a, b, SUM(v) s FROM src GROUP BY a, b)", "Primary key: [a]"),
    ("a", None, "SELECT a, b, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a ORDER BY v DESC) rn "
                "FROM src) WHERE rn <= 2", "upsert key: none"),
    ("a", None, "SELECT a, b, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a, b ORDER BY v DESC) rn "
                "FROM src) WHERE rn = 1", "Primary key: [a], upsert key: [a, b]."),
    # ORDER BY ... LIMIT over a GROUP BY keyed like the sink (PyFlink 2.3, 2026-12-04: Flink's
    # SortLimit names no key, so ranking.md's top-K into upsert-kafka needs ON CONFLICT there too)
    ("a", "a INT, c BIGINT", "SELECT a, COUNT(*) AS c FROM src GROUP BY a ORDER BY c DESC LIMIT 5",
     "Primary key: [a], upsert key: . "),
]


@pytest.mark.parametrize(("pk", "cols", "query", "key"), MISMATCHES)
def test_flink_refuses_a_key_mismatch_without_on_conflict(env, pk, cols, query, key):
    sink(env, pk, *([cols] if cols else []))
    with pytest.raises(PlanError) as ei:
        env.execute_sql(f"EXPLAIN INSERT INTO snk {query}")
    assert MISMATCH in ei.value.message
    assert key in ei.value.message
    assert "Please specify an ON CONFLICT clause" in ei.value.message
    assert (ei.value.line, ei.value.col) == (1, 21)  # the sink table's name


@pytest.mark.parametrize(("pk", "cols", "query", "key"), MISMATCHES)
def test_on_conflict_do_deduplicate_materializes_a_key_mismatch(env, pk, cols, query, key):
    """As Flink's ``upsertMaterialize=[true], conflictStrategy=[DEDUPLICATE]`` sink."""
    sink(env, pk, *([cols] if cols else []))
    text = env.execute_sql(f"EXPLAIN INSERT INTO snk {query} ON CONFLICT DO DEDUPLICATE").message
    assert f"SinkUpsertMaterializer(pk=[{pk}]" in text
    assert "conflictStrategy=[DEDUPLICATE]" in text


def test_config_keys_as_flink(env):
    """'require-on-conflict' = false makes the mismatch DO DEDUPLICATE; 'upsert-materialize' = NONE
    skips the check (Flink plans it without a materializer: the sink keeps the last row per key)."""
    sink(env, "a")
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    env.execute_sql(f"EXPLAIN INSERT INTO snk {AGG_AB}")
    env.execute_sql("RESET 'table.exec.sink.upsert-materialize'")
    with pytest.raises(PlanError, match="upsert key that differs"):
        env.execute_sql(f"EXPLAIN INSERT INTO snk {AGG_AB}")
    env.execute_sql("SET 'table.exec.sink.require-on-conflict' = 'false'")
    text = env.execute_sql(f"EXPLAIN INSERT INTO snk {AGG_AB}").message
    assert "SinkUpsertMaterializer(pk=[a], upsertKey=[a, b]" in text


@pytest.mark.parametrize(
    ("pk", "connector", "query", "message"),
    [
        ("a", "blackhole", "SELECT a, b, v FROM src ON CONFLICT DO NOTHING", APPEND_ONLY),
        ("a", "blackhole", "SELECT a, b, v FROM src ON CONFLICT DO DEDUPLICATE", APPEND_ONLY),
        ("a", "print", "SELECT a, b, v FROM src ON CONFLICT DO DEDUPLICATE", APPEND_ONLY),
        ("a,b", "blackhole", f"{AGG_AB} ON CONFLICT DO ERROR",
         "ON CONFLICT DO ERROR requires all source tables to define watermarks, but the following "
         "source(s) do not: src. Please add a WATERMARK declaration to these tables."),
        ("a", "blackhole", f"{AGG_AB} ON CONFLICT DO NOTHING",
         "ON CONFLICT DO NOTHING requires all source tables to define watermarks"),
        ("", "blackhole", f"{AGG_AB} ON CONFLICT DO NOTHING", "source(s) do not: src."),
        # Flink runs these; StreamSQL refuses them at the clause rather than ignore them
        ("a", "blackhole", "SELECT a, b, SUM(v) FROM wm GROUP BY a, b ON CONFLICT DO NOTHING",
         "ON CONFLICT DO NOTHING is not supported"),
        ("a", "blackhole", "SELECT a, b, SUM(v) FROM wm GROUP BY a, b ON CONFLICT DO ERROR",
         "ON CONFLICT DO ERROR is not supported"),
    ],
)
def test_on_conflict_refusals_at_the_clause(env, pk, connector, query, message):
    sink(env, pk, connector=connector)
    stmt = f"EXPLAIN INSERT INTO snk {query}"
    with pytest.raises(PlanError) as ei:
        env.execute_sql(stmt)
    assert message in ei.value.message
    assert (ei.value.line, ei.value.col) == (1, stmt.index("ON CONFLICT") + 1)


@pytest.mark.parametrize(
    ("clause", "col"),
    [("ON CONFLICT (a) DO NOTHING", 72), ("ON CONFLICT DO UPDATE SET s = 1", 75),
     ("ON DUPLICATE KEY UPDATE s = 1", 60)],
)
def test_other_conflict_syntax_is_a_parse_error(env, clause, col):
    """Flink: 'SQL parse failed. Encountered "(" at line 1, column 72.' (and "UPDATE" at 75)."""
    sink(env, "a")
    with pytest.raises(SqlError) as ei:
        env.execute_sql(f"INSERT INTO snk {AGG_AB} {clause}")
    assert (ei.value.line, ei.value.col) == (1, col)


# -- an insert-only query into an upsert sink ----------------------------------------------------
# Flink 2.3 (PyFlink 2.3.0 with flink-sql-connector-kafka 5.0.0-2.2, explain_sql of each statement
# into an 'upsert-kafka' table keyed as below) refuses these without ON CONFLICT, with the message
# above: an upsert sink declares an upsert changelog whatever its input, so an insert-only query's
# rows are upserts too, and rows without an upsert key within the sink key would overwrite each
# other. StreamSQL used to plan every one of them (the last row per key won, silently).
TUMBLE = "TABLE(TUMBLE(TABLE wm, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
WINDOW_COLS = "ws TIMESTAMP(3), we TIMESTAMP(3), a INT, c BIGINT"


def upsert_sink(env, pk: str, cols: str = "a INT, b INT") -> None:
    env.execute_sql(f"CREATE TABLE usnk ({cols}, PRIMARY KEY ({pk}) NOT ENFORCED) WITH ('connector' = "
                    "'upsert-kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:1', "
                    "'key.format' = 'json', 'value.format' = 'json')")


@pytest.mark.parametrize(
    ("pk", "cols", "query", "key"),
    [
        ("a", None, "SELECT a, v FROM src", "Primary key: [a], upsert key: . "),  # a table without a key
        ("a", None, "SELECT x, id FROM k1", "Primary key: [a], upsert key: [b]."),  # another key
        ("a", None, "VALUES (1, 2)", "Primary key: [a], upsert key: none."),
        ("a", None, "SELECT id, x FROM k1 UNION ALL SELECT id, x FROM k1", "upsert key: . "),
        # a window aggregate: Flink 2.3 names no upsert key for its rows, whatever the sink key
        ("ws, we, a", WINDOW_COLS, f"SELECT window_start, window_end, a, COUNT(*) FROM {TUMBLE} "
                                   "GROUP BY window_start, window_end, a", "upsert key: . "),
        ("ws, a", "ws TIMESTAMP(3), a INT, c BIGINT",
         f"SELECT window_start, a, COUNT(*) FROM {TUMBLE} GROUP BY window_start, window_end, a",
         "upsert key: . "),
    ],
)
def test_flink_refuses_an_insert_only_query_into_an_upsert_sink_keyed_otherwise(env, pk, cols, query, key):
    upsert_sink(env, pk, cols or "a INT, b INT")
    with pytest.raises(PlanError) as ei:
        env.execute_sql(f"EXPLAIN INSERT INTO usnk {query}")
    assert ei.value.message.startswith(
        "The query has an upsert key that differs from the primary key of the sink table 'usnk'")
    assert key in ei.value.message
    assert (ei.value.line, ei.value.col) == (1, 21)


@pytest.mark.parametrize(
    ("pk", "cols", "query"),
    [
        ("a", None, "SELECT id, x FROM k1"),  # the table's PRIMARY KEY
        ("a", None, "SELECT id AS k, x FROM k1 WHERE x > 0"),
        ("ws, we, a", "ws TIMESTAMP(3), we TIMESTAMP(3), a INT, v INT",  # a window Top-N's partition keys
         f"SELECT window_start, window_end, a, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
         f"window_start, window_end, a ORDER BY v DESC) rn FROM {TUMBLE}) WHERE rn = 1"),
    ],
)
def test_flink_plans_an_insert_only_query_by_the_sink_key(env, pk, cols, query):
    upsert_sink(env, pk, cols or "a INT, b INT")
    text = env.execute_sql(f"EXPLAIN INSERT INTO usnk {query}").message
    assert "SinkUpsertMaterializer" not in text


def test_an_insert_only_query_into_an_upsert_sink_with_flinks_options(env):
    """ON CONFLICT DO DEDUPLICATE plans it as it is (Flink: ``conflictStrategy=[DEDUPLICATE]``, no
    materializer: the sink keeps the latest row per key); 'require-on-conflict' = 'false' puts a
    materializer before the sink (``upsertMaterialize=[true]``); 'upsert-materialize' = 'NONE'
    plans it as it is."""
    upsert_sink(env, "a")
    query = "EXPLAIN INSERT INTO usnk SELECT a, v FROM src"
    assert "SinkUpsertMaterializer" not in env.execute_sql(f"{query} ON CONFLICT DO DEDUPLICATE").message
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    assert "SinkUpsertMaterializer" not in env.execute_sql(query).message
    env.execute_sql("RESET 'table.exec.sink.upsert-materialize'")
    env.execute_sql("SET 'table.exec.sink.require-on-conflict' = 'false'")
    assert "SinkUpsertMaterializer(pk=[a], upsertKey=[]" in env.execute_sql(query).message


# -- 'table.exec.sink.upsert-materialize' = 'FORCE' ----------------------------------------------
# Flink 2.3's analyzeUpsertMaterializeStrategy: FORCE puts the materializer before every sink with
# a PRIMARY KEY that is not a retract sink (one whose changelog has -U rows whatever it is asked:
# a debezium-json format), whatever the keys and ON CONFLICT say; StreamSQL planned FORCE as AUTO.
def _sinks(env, tmp_path):
    upsert_sink(env, "a", "a INT, s INT")
    sink(env, "a", "a INT, s INT")
    env.execute_sql("CREATE TABLE psnk (a INT, s INT, PRIMARY KEY (a) NOT ENFORCED) WITH ("
                    "'connector' = 'print')")
    env.execute_sql("CREATE TABLE nokey (a INT, s INT) WITH ('connector' = 'print')")
    for name, fmt in (("fjson", "json"), ("fdbz", "debezium-json")):
        env.execute_sql(f"CREATE TABLE {name} (a INT, s INT, PRIMARY KEY (a) NOT ENFORCED) WITH ("
                        f"'connector' = 'filesystem', 'path' = '{tmp_path}/{name}', 'format' = '{fmt}')")


@pytest.mark.parametrize(
    ("table", "query", "materialized"),
    [
        ("usnk", "SELECT a, SUM(v) FROM src GROUP BY a", True),  # keys agree
        ("snk", "SELECT a, SUM(v) FROM src GROUP BY a", True),
        ("psnk", "SELECT a, SUM(v) FROM src GROUP BY a", True),
        ("psnk", "SELECT a, v FROM src", True),  # insert-only
        ("usnk", "SELECT a, v FROM src ON CONFLICT DO DEDUPLICATE", True),
        ("nokey", "SELECT a, v FROM src", False),  # no PRIMARY KEY
        ("fdbz", "SELECT a, SUM(v) FROM src GROUP BY a", False),  # a retract sink
        # an append-only sink: Flink materializes, but writes each row as it comes, one per row
        ("fjson", "SELECT a, v FROM src", False),
    ],
)
def test_force_materializes_where_flink_does(env, tmp_path, table, query, materialized):
    _sinks(env, tmp_path)
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'force'")  # an enum: any case, as Flink
    text = env.execute_sql(f"EXPLAIN INSERT INTO {table} {query}").message
    assert ("SinkUpsertMaterializer(pk=[a]" in text) is materialized


def test_force_into_an_upsert_sink_by_the_query_key_asks_no_update_before(env, tmp_path):
    """As Flink's sink, the materializer's input builds no -U rows when the sink upserts by its key."""
    _sinks(env, tmp_path)
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'FORCE'")
    text = env.execute_sql("EXPLAIN INSERT INTO usnk SELECT a, SUM(v) FROM src GROUP BY a").message
    assert "SinkUpsertMaterializer(pk=[a], upsertKey=[a]" in text
    assert "changelog=[upsert]" in text.split("SinkUpsertMaterializer")[1]
    text = env.execute_sql("EXPLAIN INSERT INTO psnk SELECT a, SUM(v) FROM src GROUP BY a").message
    assert "changelog=[retract]" in text.split("SinkUpsertMaterializer")[1]  # print shows -U rows


def test_a_retract_sink_is_never_checked_nor_materialized(env, tmp_path):
    """Flink's AUTO skips a sink whose changelog has -U rows (debezium-json), and refuses ON CONFLICT
    into it: 'it requires UPDATE_BEFORE (retract mode)'."""
    _sinks(env, tmp_path)
    env.execute_sql("CREATE TABLE fdbz2 (a INT, b INT, s INT, PRIMARY KEY (a) NOT ENFORCED) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{tmp_path}/fdbz2', 'format' = 'debezium-json')")
    text = env.execute_sql(f"EXPLAIN INSERT INTO fdbz2 {AGG_AB}").message
    assert "SinkUpsertMaterializer" not in text
    with pytest.raises(PlanError, match="because it requires UPDATE_BEFORE \\(retract mode\\)"):
        env.execute_sql(f"EXPLAIN INSERT INTO fdbz2 {AGG_AB} ON CONFLICT DO DEDUPLICATE")


def test_upsert_materialize_takes_flinks_values_only(env):
    from streamsql.core.errors import ConfigError

    with pytest.raises(ConfigError, match="upsert-materialize"):
        env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'ALWAYS'")


#: Flink 2.3's answers for joins keyed otherwise than their sink (scripts/flink_join_upsert_keys.py)
JOIN_KEYS_FLINK = json.loads((Path(__file__).parent / "join_upsert_keys_flink.json").read_text())


@pytest.mark.parametrize("name", sorted(JOIN_KEYS_FLINK))
def test_join_upsert_keys_as_flink(env, name):
    """A join's upsert keys come only from input keys that contain that input's join columns.

    ``orders JOIN customers ON o.customer_id = c.id`` into a sink keyed by the order's id has no
    upsert key in Flink 2.3 (the join shuffles orders by customer): it is refused without ON
    CONFLICT, where StreamSQL used to take the order's key through the join.
    """
    case = JOIN_KEYS_FLINK[name]
    sink(env, case["pk"], case["columns"])
    statement = f"EXPLAIN INSERT INTO snk {case['query']}"
    if case["flink"] == "planned":
        env.execute_sql(statement)
        return
    with pytest.raises(PlanError) as ei:
        env.execute_sql(statement)
    assert MISMATCH in ei.value.message  # Flink names the table 'default_catalog.default_database.snk'
    keys = case["flink"][case["flink"].index("Primary key:"):].split(" This can lead")[0]
    assert keys in ei.value.message  # e.g. "Primary key: [a], upsert key: ."

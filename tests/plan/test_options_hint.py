"""Dynamic table options (``/*+ OPTIONS(...) */``), as Flink's; Flink's own answers are in
tests/compat/cases/options_hint_*."""

from __future__ import annotations

import pytest
import sqlglot

from streamsql import StreamEnvironment
from streamsql.core.catalog import Catalog
from streamsql.core.errors import ConfigError, SqlError
from streamsql.plan import options_hint
from streamsql.plan.fingerprint import job_fingerprint
from streamsql.plan.nodes import ScanNode, walk
from streamsql.plan.planner import Planner
from streamsql.sql.dialect import Flink

NUMS = ("CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100')")


@pytest.mark.parametrize(("body", "options"), [
    (" OPTIONS('a' = '1') ", {"a": "1"}),
    ("options('a'='1','b' = 'it''s')", {"a": "1", "b": "it's"}),
    (" OPTIONS('a' = '1', 'a' = '2') ", {"a": "2"}),  # within one OPTIONS the later key wins
    (" OPTIONS('a' = '1'), OPTIONS('a' = '2', 'b' = '3') ", {"a": "1", "b": "3"}),  # the first OPTIONS wins
    # a key may be an identifier, plain (its case kept) or quoted, as in Flink (PyFlink 2.3 reads
    # OPTIONS(path = '...') and OPTIONS(`json.ignore-parse-errors` = 'true'); PATH is not 'path')
    (" OPTIONS(path = '/x', PATH = 'y', `json.x` = 'true', `a``b` = '') ",
     {"path": "/x", "PATH": "y", "json.x": "true", "a`b": ""}),
])
def test_parse(body, options):
    assert options_hint.parse(body) == options


@pytest.mark.parametrize(("body", "message"), [
    (" OPTIONS() ", "Hint [OPTIONS] only support non empty key value options"),
    (" OPTIONS('a') ", "Hint [OPTIONS] only support non empty key value options"),
    (" OPTIONS('a' = 1) ", "Cannot parse the hint"),  # Flink: SQL parse failed (table_hints_flink.json)
    (" LOOKUP('a' = '1') ", "Invalid LOOKUP hint: incomplete required option"),
    (" FOO('a' = '1') ", "Hint: FOO should be registered in the HintStrategyTable"),
    (" OPTIONS('a' = '1') junk ", "Cannot parse the hint"),
])
def test_parse_refuses(body, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        options_hint.parse(body)


def _ids(env, sql):
    return sorted(r[0] for _, r in env.execute_sql(sql).collect())


def test_the_options_reach_the_source_of_that_reference_only():
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        assert _ids(env, "SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '3') */") == [1, 2, 3]
        assert _ids(env, "SELECT id FROM nums") == [1, 2, 3, 4, 5]
        rows = env.execute_sql("SELECT a.id, b.id FROM nums /*+ OPTIONS('number-of-rows' = '2') */ a "
                               "JOIN nums b ON a.id = b.id").collect()
        assert sorted(tuple(r) for _, r in rows) == [(1, 1), (2, 2)]


def test_the_options_reach_a_sink(capfd):
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        env.execute_sql("CREATE TABLE out_rows (id BIGINT) WITH ('connector' = 'print', "
                        "'print-identifier' = 'declared')")
        env.execute_sql("INSERT INTO out_rows /*+ OPTIONS('print-identifier' = 'hinted') */ "
                        "SELECT id FROM nums").wait()
    lines = [line for line in capfd.readouterr().out.splitlines() if "+I[" in line]
    assert sorted(lines) == [f"hinted> +I[{i}]" for i in range(1, 6)]


def test_a_bad_option_in_a_hint_fails_as_in_the_ddl():
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        with pytest.raises((SqlError, ConfigError), match="no-such"):
            env.execute_sql("SELECT id FROM nums /*+ OPTIONS('no-such' = '3') */").collect()


@pytest.mark.parametrize(("sql", "message", "line", "col"), [
    ("SELECT id FROM nums\n  /*+ OPTIONS('rows-per-second' = '1',\n    'no-such' = '3') */",
     "unknown option 'no-such' for connector 'datagen'", 3, 5),
    ("SELECT id FROM nums /*+ OPTIONS('number-of-rows' = 'two') */",
     "options 'number-of-rows' and 'seed' must be integers", 1, 33),
    ("INSERT INTO out_rows /*+ OPTIONS('number-of-rows' = '2') */ SELECT id FROM nums",
     "unknown option 'number-of-rows' for connector 'print'", 1, 34),
])
def test_a_bad_option_in_a_hint_is_shown_in_the_hint(sql, message, line, col):
    """The hint's bad key or value is pointed at in the statement: it was shown without a position,
    or at the CREATE TABLE's declaration of the key, which holds another value."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        env.execute_sql("CREATE TABLE out_rows (id BIGINT) WITH ('connector' = 'print')")
        with pytest.raises(ConfigError) as e:
            env.execute_sql(sql)
    assert message in str(e.value)
    assert (e.value.line, e.value.col, e.value.sql) == (line, col, sql)


def test_switched_off_as_in_flink():
    with StreamEnvironment({options_hint.ENABLED_KEY: "false"}) as env:
        env.execute_sql(NUMS)
        with pytest.raises(SqlError, match="The 'OPTIONS' hint is allowed only when the config option "
                                           "'table.dynamic-table-options.enabled' is set to true."):
            env.execute_sql("SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '3') */")


def test_a_plain_comment_is_a_comment_as_in_flink():
    """PyFlink 2.3 reads all 5 rows of ``FROM nums /* OPTIONS('number-of-rows' = '2') */`` (was
    refused here: "This OPTIONS hint was not checked"); a ``--+`` line comment is one too."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        assert _ids(env, "SELECT id FROM nums /* OPTIONS('number-of-rows' = '2') */") == [1, 2, 3, 4, 5]
        assert _ids(env, "SELECT id FROM nums --+ OPTIONS('number-of-rows' = '2')\n") == [1, 2, 3, 4, 5]
        assert _ids(env, "SELECT id FROM nums /* OPTIONS('number-of-rows' = '4') */ "
                         "/*+ OPTIONS('number-of-rows' = '2') */") == [1, 2]


def test_a_hint_never_checked_is_refused_not_ignored():
    """A tree planned without its text (no position to check the hint against) refuses the hint."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        tree = sqlglot.parse_one("SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '2') */", read=Flink)
        with pytest.raises(SqlError, match="hint was not checked"):
            Planner(env.catalog, env.config).plan_query(tree)


def test_a_hint_on_a_line_of_its_own_is_the_table_s():
    """Flink reads a hint after a table's name wherever the lines break (PyFlink 2.3: 2 rows; compat
    case options_hint_own_line); it was refused here (`Encountered "/*+"`), the comment having gone
    to the next word."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        own_line = "SELECT id FROM nums\n  /*+ OPTIONS('number-of-rows' = '2') */\nWHERE id > 0"
        assert _ids(env, own_line) == [1, 2]
        rows = env.execute_sql("SELECT a.id, b.id FROM nums\n/*+ OPTIONS('number-of-rows' = '2') */ a\n"
                               "JOIN nums\n  /*+ OPTIONS('number-of-rows' = '3') */\n"
                               "  b ON a.id = b.id").collect()
        assert sorted(tuple(r) for _, r in rows) == [(1, 1), (2, 2)]


def test_each_insert_of_a_statement_set_has_its_own_hints(capfd):
    """Hints in two INSERTs of one statement set: the second INSERT's hint was refused as misplaced
    when planning the first (both were looked for in the whole block's text)."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        for name in ("a_out", "b_out"):
            env.execute_sql(f"CREATE TABLE {name} (id BIGINT) WITH ('connector' = 'print', "
                            f"'print-identifier' = '{name}')")
        env.execute_sql("EXECUTE STATEMENT SET BEGIN\n"
                        "INSERT INTO a_out SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '2') */;\n"
                        "INSERT INTO b_out /*+ OPTIONS('print-identifier' = 'hinted') */\n"
                        "  SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '3') */;\n"
                        "END").job.wait()
        stmts = env.create_statement_set()
        stmts.add_insert_sql("INSERT INTO a_out /*+ OPTIONS('print-identifier' = 'api') */ "
                             "SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '1') */")
        stmts.add_insert_sql("INSERT INTO b_out SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '1') */")
        stmts.execute().job.wait()
    lines = sorted(line for line in capfd.readouterr().out.splitlines() if "+I[" in line)
    assert lines == ["a_out> +I[1]", "a_out> +I[2]", "api> +I[1]", "b_out> +I[1]",
                     "hinted> +I[1]", "hinted> +I[2]", "hinted> +I[3]"]


def _scans(env, sql):
    root = Planner(env.catalog, env.config, sql).plan_query(sqlglot.parse_one(sql, read=Flink))
    return {id(n) for n in walk([root]) if isinstance(n, ScanNode)}


def test_equally_hinted_scans_are_one_scan_as_in_flink():
    """Flink's plan reuses two scans of one table with equal hints (its EXPLAIN: ``Reused``), not a
    hinted and an unhinted one; here every hinted reference was a scan of its own."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        same = ("SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '2') */ UNION ALL "
                "SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '2') */")
        assert len(_scans(env, same)) == 1
        assert len(_scans(env, same.replace("'2'", "'3'", 1))) == 2
        assert len(_scans(env, "SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '5') */ UNION ALL "
                               "SELECT id FROM nums")) == 2


def test_no_hint_on_a_window_tvf_s_table():
    """Flink's parser refuses ``TUMBLE(TABLE t /*+ OPTIONS(...) */, ...)`` (`Encountered "/*+"` at
    line 1, column 57); the hint was applied here."""
    with StreamEnvironment() as env:
        env.execute_sql("CREATE TABLE w (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
                        "WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
        with pytest.raises(SqlError, match=r'Encountered "/\*\+".*\(line 1, column 57\)'):
            env.execute_sql("SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE w /*+ OPTIONS("
                            "'number-of-rows' = '2') */, DESCRIPTOR(ts), INTERVAL '1' HOUR)) "
                            "GROUP BY window_start, window_end")


def test_a_hint_that_changes_what_is_read_makes_another_job():
    """A checkpoint of the job without the hint must not be resumed by the job with it (and
    the reverse); a tuning option (datagen's rate) leaves the job the same, as in the WITH clause."""
    catalog = Catalog()
    env = StreamEnvironment()
    try:
        env.execute_sql(NUMS)
        env.execute_sql("CREATE TABLE out_rows (id BIGINT) WITH ('connector' = 'blackhole')")
        catalog = env.catalog

        def fingerprint(sql):
            return job_fingerprint([sqlglot.parse_one(sql, read=Flink)], catalog).digest

        plain = fingerprint("INSERT INTO out_rows SELECT id FROM nums")
        hinted = "INSERT INTO out_rows SELECT id FROM nums /*+ OPTIONS('{}' = '3') */"
        assert fingerprint(hinted.format("number-of-rows")) != plain
        assert fingerprint(hinted.format("rows-per-second")) == plain
        # a hint on a line of its own is the table's too (it was no part of the fingerprint)
        own_line = "INSERT INTO out_rows SELECT id FROM nums\n/*+ OPTIONS('number-of-rows' = '3') */\n"
        assert fingerprint(own_line) == fingerprint(hinted.format("number-of-rows"))
        # a plain comment is not a hint: not what identifies the job
        comment = "INSERT INTO out_rows SELECT id FROM nums /* OPTIONS('number-of-rows' = '3') */"
        assert fingerprint(comment) == plain
    finally:
        env.close()


def test_explain_shows_each_scan_s_and_sink_s_hint_as_flink():
    """Flink's EXPLAIN names the hint's options on the scan and the sink (``hints=[[[OPTIONS
    options:{number-of-rows=2, rows-per-second=7}]]]``); here two scans of ``nums`` looked alike.
    A secret is masked."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        env.execute_sql("CREATE TABLE out_rows (id BIGINT) WITH ('connector' = 'print')")
        env.execute_sql("CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'k', "
                        "'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json')")
        plan = env.execute_sql(
            "EXPLAIN INSERT INTO out_rows "
            "/*+ OPTIONS('print-identifier' = 'zz', 'sink.parallelism' = '1') */ "
            "SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '2', 'rows-per-second' = '7') */ UNION ALL "
            "SELECT id FROM k /*+ OPTIONS(`properties.ssl.key.password` = 'p4ssw0rd!') */").message
    assert ("Sink(table=[out_rows], connector=[print], fields=[id], hints=[[[OPTIONS options:"
            "{print-identifier=zz, sink.parallelism=1}]]], input=[insert-only]") in plan
    assert ("TableSourceScan(table=[nums], connector=[datagen], fields=[id], hints=[[[OPTIONS options:"
            "{number-of-rows=2, rows-per-second=7}]]])") in plan
    assert "hints=[[[OPTIONS options:{properties.ssl.key.password=******}]]]" in plan
    assert "p4ssw0rd" not in plan


@pytest.mark.parametrize(("sql", "col"), [
    ("CREATE TABLE t2 LIKE nums /*+ OPTIONS('number-of-rows' = '2') */", 27),
    ("SHOW CREATE TABLE nums /*+ OPTIONS('number-of-rows' = '2') */", 24),
    ("DESCRIBE nums /*+ OPTIONS('number-of-rows' = '2') */", 15),
    ("DROP TABLE nums /*+ OPTIONS('number-of-rows' = '2') */", 17),
    ("CREATE VIEW v /*+ OPTIONS('number-of-rows' = '2') */ AS SELECT id FROM nums", 15),
])
def test_a_statement_that_takes_no_hint_refuses_it_as_flink(sql, col):
    """PyFlink 2.3's parser refuses each (`Encountered "/*+"` at these columns); all but the view
    were run here with the hint taken for a comment: CREATE TABLE ... LIKE t /*+ OPTIONS(...) */
    created a table with t's options, without the hint's."""
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        with pytest.raises(SqlError, match=r'Encountered "/\*\+"') as e:
            env.execute_sql(sql)
        assert (e.value.line, e.value.col) == (1, col)
        assert _ids(env, "SELECT id FROM nums") == [1, 2, 3, 4, 5]  # nothing dropped or created
        assert [r[0] for r in env.execute_sql("SHOW TABLES").rows] == ["nums"]

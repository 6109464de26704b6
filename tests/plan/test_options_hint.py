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
from streamsql.sql.dialect import Flink

NUMS = ("CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100')")


@pytest.mark.parametrize(("body", "options"), [
    (" OPTIONS('a' = '1') ", {"a": "1"}),
    ("options('a'='1','b' = 'it''s')", {"a": "1", "b": "it's"}),
    (" OPTIONS('a' = '1', 'a' = '2') ", {"a": "2"}),  # within one OPTIONS the later key wins
    (" OPTIONS('a' = '1'), OPTIONS('a' = '2', 'b' = '3') ", {"a": "1", "b": "3"}),  # the first OPTIONS wins
])
def test_parse(body, options):
    assert options_hint.parse(body) == options


@pytest.mark.parametrize(("body", "message"), [
    (" OPTIONS() ", "Hint [OPTIONS] only support non empty key value options"),
    (" OPTIONS('a') ", "Hint [OPTIONS] only support non empty key value options"),
    (" OPTIONS(a = '1') ", "Hint [OPTIONS] only support non empty key value options"),
    (" LOOKUP('a' = '1') ", "Hint: LOOKUP should be registered in the HintStrategyTable"),
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


def test_switched_off_as_in_flink():
    with StreamEnvironment({options_hint.ENABLED_KEY: "false"}) as env:
        env.execute_sql(NUMS)
        with pytest.raises(SqlError, match="OPTIONS hint is allowed only when table.dynamic-table-options"):
            env.execute_sql("SELECT id FROM nums /*+ OPTIONS('number-of-rows' = '3') */")


def test_a_plain_comment_that_reads_like_a_hint_is_never_applied_silently():
    with StreamEnvironment() as env:
        env.execute_sql(NUMS)
        with pytest.raises(SqlError, match="OPTIONS hint was not checked"):
            env.execute_sql("SELECT id FROM nums /* OPTIONS('number-of-rows' = '3') */")


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
    finally:
        env.close()

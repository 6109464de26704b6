"""``streamsql.output.print_result``, what ``streamsql run`` prints of a result: rows counted as Flink counts.

A newcomer's report: ``streamsql run`` (and the embedding API's printer) said ``1 rows in set``
and ``Received a total of 1 rows`` where Flink's SQL client, and ``streamsql shell``, say ``1 row``.
"""

import io

from streamsql import StreamEnvironment
from streamsql.output import print_result

ONE_ROW = ("CREATE TABLE {name} (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1', "
           "'fields.x.kind' = 'sequence', 'fields.x.start' = '7', 'fields.x.end' = '7')")


def _printed(env, sql: str) -> str:
    out = io.StringIO()
    print_result(env.execute_sql(sql), out)
    return out.getvalue()


def test_one_row_is_one_row_and_more_are_rows(tmp_path):
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        env.execute_sql(ONE_ROW.format(name="t"))
        assert _printed(env, "SHOW TABLES").endswith("|          t |\n+------------+\n1 row in set\n")
        one = _printed(env, "SELECT x FROM t")
        assert one.endswith("| +I | 7 |\n+----+---+\nReceived a total of 1 row\n")
        env.execute_sql(ONE_ROW.format(name="u"))
        assert _printed(env, "SHOW TABLES").endswith("\n2 rows in set\n")
        two = _printed(env, "SELECT x FROM t UNION ALL SELECT x FROM u")
        assert two.endswith("Received a total of 2 rows\n")


def test_no_rows_is_empty_set_as_flinks_client(tmp_path):
    # a newcomer's report (session 32): `streamsql run` printed "0 rows in set" for SHOW JOBS with no
    # job, where Flink's SQL client and our shell print "Empty set"
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")}) as env:
        assert _printed(env, "SHOW TABLES") == "Empty set\n"
        assert _printed(env, "SHOW JOBS") == "Empty set\n"

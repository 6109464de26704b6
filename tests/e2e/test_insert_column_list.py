"""``INSERT INTO t (cols) ...``: values land in the named columns, unlisted ones are NULL (as Flink).

Found by a newcomer run: the column list was used for counting only and the values were written
by position, so ``INSERT INTO s (b, a) SELECT x, x * 100`` stored x in ``a``.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError


@pytest.fixture
def env(tmp_path):
    (tmp_path / "src.json").write_text("".join(json.dumps({"x": x}) + "\n" for x in (1, 2)))
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql(f"CREATE TABLE src (x INT) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/src.json', 'format' = 'json')")
    e.execute_sql(f"CREATE TABLE s (a INT, b INT, c STRING, d INT NOT NULL) WITH ('connector' = "
                  f"'filesystem', 'path' = '{tmp_path}/out.json', 'format' = 'json')")
    yield e
    e.close()


def _rows(tmp_path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "out.json").read_text().splitlines()]


def test_values_go_to_the_listed_columns_and_the_rest_are_null(env, tmp_path):
    env.execute_sql("INSERT INTO s (d, b, a) SELECT x, x, x * 100 FROM src").wait(60)
    assert sorted(_rows(tmp_path), key=lambda r: r["b"]) == [
        {"a": 100, "b": 1, "c": None, "d": 1}, {"a": 200, "b": 2, "c": None, "d": 2}]


def test_a_listed_column_gets_its_own_type_check(env):
    with pytest.raises(SqlError, match="sink column 'd'"):
        env.execute_sql("INSERT INTO s (a, d) SELECT x, CAST(x AS STRING) FROM src")


def test_an_unlisted_not_null_column_is_refused(env):
    with pytest.raises(SqlError, match="Column 'd' .* does not allow NULLs"):
        env.execute_sql("INSERT INTO s (b, a) SELECT x, x FROM src")


def test_a_column_listed_twice_is_refused(env):
    with pytest.raises(SqlError, match="'a' is assigned more than once"):
        env.execute_sql("INSERT INTO s (a, a, d) SELECT x, x, x FROM src")

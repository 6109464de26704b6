"""Fixtures shared by the planning tests."""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment


@pytest.fixture
def planning_env(tmp_path):
    """A factory of environments to plan in: ``make(columns, names, rows)``.

    Each environment keeps its state and checkpoints under ``tmp_path`` and has one bounded
    ``datagen`` table per name of ``names``, all with the column list ``columns`` (``"(k INT, ...)"``)
    and ``rows`` rows; every environment made is closed after the test.
    """
    made: list[StreamEnvironment] = []

    def make(columns: str, names: tuple[str, ...], rows: int) -> StreamEnvironment:
        env = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                                 "execution.checkpointing.dir": str(tmp_path / "cp")})
        made.append(env)
        for name in names:
            env.execute_sql(f"CREATE TABLE {name} {columns} WITH ('connector' = 'datagen', "
                            f"'number-of-rows' = '{rows}')")
        return env

    yield make
    for env in made:
        env.close()


def oracle_environment(tmp_path_factory, ddl: list[str]):
    """Yield an environment holding the tables of a Flink oracle's ``ddl`` (for a module fixture)."""
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path_factory.mktemp("chk"))})
    for statement in ddl:
        env.execute_sql(statement)
    yield env
    env.close()

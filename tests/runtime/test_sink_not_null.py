"""The sink not-null enforcer: a NULL into a NOT NULL or PRIMARY KEY sink column, as Flink 2.3.

Flink's ConstraintEnforcer (``NotNullConstraint``, 'table.exec.sink.not-null-enforcer', default
ERROR) fails the job with "Column 'b' is NOT NULL, however, a null value is being written into it.
You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this
exception and drop such records silently." (the text of Flink 2.3's NotNullConstraint class);
DROP drops the row. A PRIMARY KEY column is NOT NULL (DESCRIBE says so, as Flink's). StreamSQL
wrote the NULLs: into a NOT NULL column, into a key column, and as the sink key of ON CONFLICT DO
DEDUPLICATE (whose materializer then held every NULL-keyed row under one key).
"""

from __future__ import annotations

from collections import Counter

import pytest
from streamsql.connectors.registry import _REGISTRY, register

from streamsql.core.connector import ConnectorSpec, OptionSpec, Sink
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ExecutionError
from tests.runtime.oracle import create_table, fold, make_env, write_debezium, write_jsonl

WRITTEN: list[tuple[RowKind, tuple]] = []
FLINK = ("Column 'b' is NOT NULL, however, a null value is being written into it. You can set job "
         "configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop "
         "such records silently.")


class RecordingSink(Sink):
    accepts_updates = True

    def __init__(self, ctx):
        pass

    def write(self, batch: Batch) -> None:
        for kind, row in zip(batch.kind_array().tolist(), batch.table.to_pylist()):
            WRITTEN.append((RowKind(kind), tuple(row.values())))


@pytest.fixture(autouse=True)
def recorder():
    register(ConnectorSpec(name="test-record", options=[OptionSpec("connector", required=True)],
                           create_sink=RecordingSink, sink_accepts_updates=lambda table: True,
                           sink_upserts=lambda table: True))
    WRITTEN.clear()
    yield
    _REGISTRY.pop("test-record", None)


ROWS = [{"id": 1, "b": 1}, {"id": 2, "b": None}, {"id": 3, "b": 3}]
SINKS = {"not_null": "(id INT, b INT NOT NULL)",
         "primary_key": "(id INT, b INT, PRIMARY KEY (b) NOT ENFORCED)"}


def _run(tmp_path, sink: str, settings: dict[str, str] | None = None):
    env = make_env(tmp_path)
    for k, v in (settings or {}).items():
        env.execute_sql(f"SET '{k}' = '{v}'")
    create_table(env, "s", write_jsonl(tmp_path / "s.json", ROWS), "json",
                 [("id", "INT", ""), ("b", "INT", "")])
    env.execute_sql(f"CREATE TABLE o {sink} WITH ('connector' = 'test-record')")
    return env.execute_sql("INSERT INTO o SELECT id, b FROM s").job


@pytest.mark.parametrize("sink", sorted(SINKS))
def test_a_null_into_a_not_null_column_fails_the_job_in_flinks_words(tmp_path, sink):
    with pytest.raises(ExecutionError) as e:
        _run(tmp_path, SINKS[sink]).wait(60)
    assert FLINK in str(e.value)
    assert (RowKind.INSERT, (2, None)) not in WRITTEN


@pytest.mark.parametrize("sink", sorted(SINKS))
def test_drop_drops_the_row(tmp_path, sink):
    job = _run(tmp_path, SINKS[sink], {"table.exec.sink.not-null-enforcer": "drop"})
    assert job.wait(60) == "FINISHED"
    assert WRITTEN == [(RowKind.INSERT, (1, 1)), (RowKind.INSERT, (3, 3))]


def test_a_null_sink_key_of_on_conflict_do_deduplicate_fails(tmp_path):
    env = make_env(tmp_path, batch_size=1)
    events = [("c", None, {"id": 1, "a": 1, "b": None, "v": 10}),
              ("c", None, {"id": 2, "a": 2, "b": None, "v": 20})]
    create_table(env, "src", write_debezium(tmp_path / "cdc.json", events), "debezium-json",
                 [("id", "INT", ""), ("a", "INT", ""), ("b", "INT", ""), ("v", "INT", "")])
    env.execute_sql("CREATE TABLE snk (a INT, b INT, s INT, PRIMARY KEY (b) NOT ENFORCED) "
                    "WITH ('connector' = 'test-record')")
    job = env.execute_sql("INSERT INTO snk SELECT a, b, SUM(v) FROM src GROUP BY a, b "
                          "ON CONFLICT DO DEDUPLICATE").job
    with pytest.raises(ExecutionError) as e:
        job.wait(60)
    assert FLINK in str(e.value)
    assert WRITTEN == []


def test_drop_happens_before_the_upsert_materializer(tmp_path):
    """Flink 2.3 runs the enforcer before the SinkUpsertMaterializer (compat case
    sink_not_null_drop_before_materializer, Flink's final table): a dropped row never holds a sink
    key. Enforced at the sink only, (1, NULL) was held for k=1 and the delete of k=1's only written
    row (1, 1) deleted nothing, so (1, 1) stayed; (2, 4) too, by the same turn."""
    env = make_env(tmp_path, batch_size=1)
    env.execute_sql("SET 'table.exec.sink.not-null-enforcer' = 'DROP'")
    events = [("c", None, {"id": 1, "k": 1, "v": 1}), ("c", None, {"id": 2, "k": 1, "v": None}),
              ("c", None, {"id": 3, "k": 2, "v": None}), ("c", None, {"id": 4, "k": 2, "v": 4}),
              ("d", {"id": 1, "k": 1, "v": 1}, None),
              ("u", {"id": 4, "k": 2, "v": 4}, {"id": 4, "k": 2, "v": 5})]
    create_table(env, "src", write_debezium(tmp_path / "cdc.json", events), "debezium-json",
                 [("id", "INT", ""), ("k", "INT", ""), ("v", "INT", "")])
    env.execute_sql("CREATE TABLE snk (k INT, v INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) "
                    "WITH ('connector' = 'test-record')")
    job = env.execute_sql("INSERT INTO snk SELECT k, v FROM src ON CONFLICT DO DEDUPLICATE").job
    assert job.wait(60) == "FINISHED"
    assert fold(WRITTEN) == Counter({(2, 5): 1})

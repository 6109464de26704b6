"""examples/cdc/revenue.sql plans as the README says: a changelog from mysql-cdc, two sinks."""

from pathlib import Path

from streamsql.environment import StreamEnvironment
from streamsql.sql.split import split_statements

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cdc" / "revenue.sql"


def test_the_example_plans_into_upsert_kafka_and_postgres():
    env = StreamEnvironment()
    statements = [s.text for s in split_statements(EXAMPLE.read_text())]
    for text in statements[:-1]:
        env.execute_sql(text)
    plan = env.execute_sql("EXPLAIN " + statements[-1]).message
    assert plan.count("connector=[mysql-cdc]") == 2
    assert "revenue_kafka: exactly-once" in plan
    assert "revenue_pg: at-least-once (jdbc upserts and deletes by primary key" in plan
    assert "streamsql-test-password" not in plan

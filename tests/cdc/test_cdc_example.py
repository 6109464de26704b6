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
    # one binlog reader and one GROUP BY feed both sinks (a statement set is one plan, as in Flink)
    assert plan.count("connector=[mysql-cdc]") == 1 and "Reused(reference_id=[1])" in plan
    assert "revenue_kafka: exactly-once" in plan
    assert "revenue_pg: at-least-once (jdbc upserts and deletes by primary key" in plan
    assert "streamsql-test-password" not in plan


def test_shop_setup_prepares_what_the_example_writes():
    """shop.py setup creates revenue.sql's sink topic (StreamSQL creates none without
    'sink.topic.auto-create': the README's walkthrough failed with "topic 'customer-revenue' does
    not exist") and forgets the run of its job, so the names must stay the example's."""
    import importlib.util
    import re

    spec = importlib.util.spec_from_file_location("shop", EXAMPLE.parent / "shop.py")
    shop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shop)
    text = EXAMPLE.read_text()
    assert re.search(rf"'pipeline.name' = '{shop.JOB}'", text)
    assert re.search(rf"'connector' = 'upsert-kafka', 'topic' = '{shop.TOPIC}'", text)
    assert "sink.topic.auto-create" not in text and "transactional-id-prefix" not in text

"""Differential: orders changing in MariaDB while a job runs → revenue per customer in Kafka and PostgreSQL.

The workload (inserts, updates to values and to NULL, primary-key updates, deletes, transactions
of one to four statements, DECIMAL and DATETIME(6) values) runs during the snapshot and the
binlog reading; both outputs must equal MariaDB's own GROUP BY over its final table.
"""

from __future__ import annotations

import threading
import uuid

from streamsql.environment import StreamEnvironment
from streamsql.testing.chaos_cdc import (
    REVENUE_SQL,
    expected_revenue,
    kafka_revenue,
    load_orders,
    postgres_revenue,
    run_workload,
)
from tests.cdc.helpers import cdc_options, upsert_kafka_options, wait_for
from tests.db_fixtures import DB_PASSWORD, DB_USER

COLUMNS = "customer INT, orders BIGINT, revenue DECIMAL(38, 2), last_placed TIMESTAMP(6)"


def test_revenue_in_kafka_and_postgres_equals_mariadb_group_by(mariadb_db, postgres_db, kafka_bootstrap,
                                                                 kafka_topic_factory, tmp_path):
    address = f"{mariadb_db.host}:{mariadb_db.port}"
    with mariadb_db.mysql() as c, c.cursor() as cur:
        load_orders(cur, 3000)
    with postgres_db.pg() as c:
        c.execute("CREATE TABLE revenue (customer INT PRIMARY KEY, orders BIGINT NOT NULL, "
                  "revenue DECIMAL(38, 2), last_placed TIMESTAMP(6))")
    topic = kafka_topic_factory("cdc_revenue", config={"cleanup.policy": "compact"})
    env = StreamEnvironment({"execution.checkpointing.interval": "200 ms", "execution.batch-size": "200",
                             "pipeline.name": f"cdc-diff-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.dir": str(tmp_path / "chk")})
    source = cdc_options(mariadb_db, "orders", **{"scan.incremental.snapshot.chunk.size": "200"})
    env.execute_sql("CREATE TABLE orders (order_id INT, customer INT, amount DECIMAL(10, 2), "
                    f"placed TIMESTAMP(6), PRIMARY KEY (order_id) NOT ENFORCED) WITH ({source})")
    env.execute_sql(f"CREATE TABLE revenue_kafka ({COLUMNS}, PRIMARY KEY (customer) NOT ENFORCED) "
                    f"WITH ({upsert_kafka_options(kafka_bootstrap, topic)})")
    env.execute_sql(f"CREATE TABLE revenue_pg ({COLUMNS}, PRIMARY KEY (customer) NOT ENFORCED) WITH ("
                    f"'connector' = 'jdbc', 'url' = 'jdbc:postgresql://{postgres_db.host}:{postgres_db.port}/"
                    f"{postgres_db.database}', 'table-name' = 'revenue', 'username' = '{DB_USER}', "
                    f"'password' = '{DB_PASSWORD}')")
    env.execute_sql(f"CREATE TEMPORARY VIEW revenue AS {REVENUE_SQL}")
    done = threading.Event()
    workload = threading.Thread(target=run_workload,
                                args=(address, mariadb_db.database, 4.0, done, 11, 3000))
    job = env.execute_sql("EXECUTE STATEMENT SET BEGIN INSERT INTO revenue_kafka SELECT * FROM revenue; "
                          "INSERT INTO revenue_pg SELECT * FROM revenue; END").job
    workload.start()
    try:
        assert done.wait(60)
        expected = expected_revenue(address, mariadb_db.database)
        pg = f"{postgres_db.host}:{postgres_db.port}"
        wait_for(lambda: kafka_revenue(kafka_bootstrap, topic) == expected
                 and postgres_revenue(pg, postgres_db.database) == expected,
                 60, "both outputs to equal MariaDB's GROUP BY")
    finally:
        job.cancel()
    assert job.status == "CANCELED"
    assert sum(n for n, _, _ in expected.values()) > 3000 * 0.8  # the workload did not empty the table

"""The crash campaign with the ``mysql-cdc`` source: orders in MariaDB → revenue per customer.

A MariaDB table ``orders (order_id PK, customer, amount DECIMAL(10, 2) NULL, placed
DATETIME(6))`` starts with ``--rows`` rows; while the campaign runs, a workload thread changes it
in transactions of one to four statements (inserts, updates of amounts to values or NULL, updates
of the primary key, deletes). The job (a ``streamsql run`` subprocess) reads it through
``mysql-cdc`` (``initial``: snapshot, then binlog) and writes ``COUNT(*)``, ``SUM(amount)`` and
``MAX(placed)`` per customer both to an ``upsert-kafka`` topic and to a PostgreSQL table through
the ``jdbc`` sink. The campaign ``kill -9``s it — first as soon as a checkpoint was taken while
the snapshot is read, then
once at every fault-injection point and at random times — restarting it each time with the same
``pipeline.name`` (and the job's restart strategy retries a failure, e.g. the server refusing
a replica id a killed run still holds). After the workload has stopped, the job runs until both
outputs equal MariaDB's (or a time limit passes); then the Kafka topic (``read_committed``,
folded by key) and the PostgreSQL table are compared with MariaDB's own ``GROUP BY`` over its
final table.

usage (the long campaign of issue 13; the tests run a short one)::

    python -m streamsql.testing.chaos_cdc --rows 200000 --kills 12

Needs MariaDB (``--mariadb``, default ``$STREAMSQL_MARIADB`` or 127.0.0.1:3306), PostgreSQL
(``--postgres``) and Kafka (``--bootstrap``), e.g. from ``scripts/*-local.sh start``, with the
test user ``streamsql``. Prints kills (and how many hit the snapshot), lost and duplicated
orders and wrong sums; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime

import orjson

from streamsql.testing.chaos import POINTS, create_topics, kill_once, read_committed

USER, PASSWORD = "streamsql", "streamsql-test-password"
ORDERS_DDL = ("CREATE TABLE orders (order_id INT PRIMARY KEY, customer INT NOT NULL, "
              "amount DECIMAL(10, 2) NULL, placed DATETIME(6) NOT NULL)")
REVENUE_SQL = ("SELECT customer, COUNT(*), SUM(amount), MAX(placed) FROM orders GROUP BY customer")

_JOB = """SET 'pipeline.name' = '{job}';
SET 'execution.checkpointing.interval' = '{interval}';
SET 'restart-strategy.type' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '10';
SET 'restart-strategy.fixed-delay.delay' = '1 s';
CREATE TABLE orders (order_id INT, customer INT, amount DECIMAL(10, 2), placed TIMESTAMP(6),
  PRIMARY KEY (order_id) NOT ENFORCED) WITH (
  'connector' = 'mysql-cdc', 'hostname' = '{mhost}', 'port' = '{mport}', 'username' = '{user}',
  'password' = '{password}', 'database-name' = '{db}', 'table-name' = 'orders', 'server-id' = '{sid}',
  'scan.incremental.snapshot.chunk.size' = '{chunk}');
CREATE TABLE revenue_kafka (customer INT, orders BIGINT, revenue DECIMAL(38, 2), last_placed TIMESTAMP(6),
  PRIMARY KEY (customer) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE revenue_pg (customer INT, orders BIGINT, revenue DECIMAL(38, 2), last_placed TIMESTAMP(6),
  PRIMARY KEY (customer) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://{phost}:{pport}/{pdb}', 'table-name' = 'revenue',
  'username' = '{user}', 'password' = '{password}');
CREATE TEMPORARY VIEW revenue AS {revenue};
EXECUTE STATEMENT SET BEGIN
INSERT INTO revenue_kafka SELECT * FROM revenue;
INSERT INTO revenue_pg SELECT * FROM revenue;
END;
"""


def _hostport(text: str) -> tuple[str, int]:
    host, port = text.rsplit(":", 1)
    return host, int(port)


def mysql(address: str, database: str | None = None):
    """A pymysql connection (autocommit) with the test user."""
    import pymysql

    host, port = _hostport(address)
    return pymysql.connect(host=host, port=port, user=USER, password=PASSWORD, database=database,
                           autocommit=True)


def postgres(address: str, database: str = "postgres"):
    """A psycopg connection (autocommit) with the test user."""
    import psycopg

    host, port = _hostport(address)
    return psycopg.connect(host=host, port=port, user=USER, password=PASSWORD, dbname=database,
                           autocommit=True)


def load_orders(cur, rows: int, seed: int = 3) -> None:
    """Create ``orders`` with ``rows`` rows (ids 1..rows)."""
    rnd = random.Random(seed)
    cur.execute(ORDERS_DDL)
    batch = []
    for i in range(1, rows + 1):
        batch.append((i, rnd.randrange(50), None if i % 17 == 0 else rnd.randrange(1, 100000) / 100,
                      f"2024-01-01 00:00:00.{i % 1000000:06d}"))
        if len(batch) == 5000 or i == rows:
            cur.executemany("INSERT INTO orders VALUES (%s, %s, %s, %s)", batch)
            batch = []


def change_orders(cur, rnd: random.Random, next_id: list[int], id_space: int) -> None:
    """One transaction of 1-4 random changes (see module docstring); ``next_id`` is bumped for inserts."""
    cur.execute("BEGIN")
    for _ in range(rnd.randint(1, 4)):
        r = rnd.random()
        k = rnd.randint(1, id_space)
        if r < 0.35:
            next_id[0] += 1
            amount = None if rnd.random() < 0.1 else rnd.randrange(1, 100000) / 100
            placed = f"2025-0{rnd.randint(1, 9)}-1{rnd.randint(0, 9)} 12:00:00.{rnd.randrange(10**6):06d}"
            cur.execute("INSERT INTO orders VALUES (%s, %s, %s, %s)",
                        (next_id[0], rnd.randrange(50), amount, placed))
        elif r < 0.6:
            amount = None if rnd.random() < 0.2 else rnd.randrange(1, 100000) / 100
            cur.execute("UPDATE orders SET amount = %s, customer = %s WHERE order_id = %s",
                        (amount, rnd.randrange(50), k))
        elif r < 0.75:  # a new primary key (IGNORE: the new id may be taken)
            next_id[0] += 1
            cur.execute("UPDATE IGNORE orders SET order_id = %s WHERE order_id = %s", (next_id[0], k))
        else:
            cur.execute("DELETE FROM orders WHERE order_id = %s", (k,))
    cur.execute("COMMIT")


def run_workload(address: str, database: str, seconds: float, done: threading.Event, seed: int = 5,
                 rows: int = 1000) -> None:
    """Change ``orders`` for about ``seconds`` (see :func:`change_orders`); set ``done`` at the end."""
    rnd = random.Random(seed)
    next_id = [rows * 10]
    conn = mysql(address, database)
    try:
        with conn.cursor() as cur:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                change_orders(cur, rnd, next_id, rows)
                time.sleep(0.005)
    finally:
        conn.close()
        done.set()


def expected_revenue(address: str, database: str) -> dict:
    """MariaDB's GROUP BY over its final table: customer -> (orders, revenue text, last placed text)."""
    conn = mysql(address, database)
    try:
        with conn.cursor() as cur:
            cur.execute(REVENUE_SQL)
            return {c: (n, None if s is None else str(s), str(p)) for c, n, s, p in cur.fetchall()}
    finally:
        conn.close()


def kafka_revenue(bootstrap: str, topic: str) -> dict:
    """The committed upsert topic folded by key, in :func:`expected_revenue`'s form."""
    out: dict = {}
    for key, value in read_committed(bootstrap, topic):
        c = orjson.loads(key)["customer"]
        if value is None:
            out.pop(c, None)
        else:
            v = orjson.loads(value)
            out[c] = (v["orders"], None if v["revenue"] is None else f"{v['revenue']:.2f}",
                      _ts(v["last_placed"]))
    return out


def _ts(text: str) -> str:
    """A TIMESTAMP(6) as MariaDB's driver prints it (six fraction digits, none when it is zero).

    The json sink writes Flink's text, which drops a fraction's trailing zeros ('...:00.5').
    """
    return str(datetime.fromisoformat(text))


def postgres_revenue(address: str, database: str) -> dict:
    """The PostgreSQL table, in :func:`expected_revenue`'s form."""
    with postgres(address, database) as c:
        rows = c.execute("SELECT customer, orders, revenue, last_placed FROM revenue").fetchall()
    return {c: (n, None if s is None else f"{s:.2f}", str(p)) for c, n, s, p in rows}


def differences(expected: dict, actual: dict) -> tuple[int, int, int]:
    """(lost orders, duplicated orders, customers with a wrong sum or maximum)."""
    lost = sum(max(0, n - actual.get(c, (0,))[0]) for c, (n, _, _) in expected.items())
    dup = sum(max(0, n - expected.get(c, (0,))[0]) for c, (n, _, _) in actual.items())
    wrong = sum(1 for c in expected
                if c in actual and actual[c][0] == expected[c][0] and actual[c] != expected[c])
    return lost, dup, wrong


def _in_snapshot(work: str) -> bool:
    """True when the newest checkpoint of the job in ``work`` was taken during the snapshot."""
    metas = glob.glob(os.path.join(work, ".streamsql", "**", "chk-*", "_metadata"), recursive=True)
    if not metas:
        return False
    try:
        with open(max(metas, key=os.path.getmtime), "rb") as f:
            meta = orjson.loads(f.read())
    except (OSError, orjson.JSONDecodeError):  # pruned or being written meanwhile
        return False
    return any(isinstance(p, dict) and p.get("snapshot") for p in meta.get("positions", {}).values())


def _kill_in_snapshot(script: str, work: str, limit_s: float, log) -> int:
    """Run the job; ``kill -9`` it once a checkpoint was taken during the snapshot (or after ``limit_s``)."""
    env = {k: v for k, v in os.environ.items() if k != "STREAMSQL_FAULT"}
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", script], cwd=work, env=env,
                            stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None and not _in_snapshot(work):
        time.sleep(0.05)
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return -9


def _settle(script: str, work: str, log, a: argparse.Namespace, topic: str, db: str,
            expected: dict) -> tuple[dict, dict]:
    """Run the job until both outputs equal ``expected`` or ``a.settle_seconds`` pass; the outputs."""
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", "run", script], cwd=work,
                            env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + a.settle_seconds
    try:
        while True:
            time.sleep(2)
            kafka, pg = kafka_revenue(a.bootstrap, topic), postgres_revenue(a.postgres, db)
            caught_up = kafka == expected and pg == expected
            if caught_up or proc.poll() is not None or time.monotonic() > deadline:
                return kafka, pg
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait()


def campaign(a: argparse.Namespace) -> int:
    """Run one campaign (see module docstring); returns the exit code."""
    run = uuid.uuid4().hex[:8]
    db, topic, job = f"chaos_{run}", f"chaos_revenue_{run}", f"chaos-cdc-{run}"
    with mysql(a.mariadb) as conn, conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {db}")
        cur.execute(f"USE {db}")
        load_orders(cur, a.rows)
    with postgres(a.postgres) as c:
        c.execute(f"CREATE DATABASE {db}")
    with postgres(a.postgres, db) as c:
        c.execute("CREATE TABLE revenue (customer INT PRIMARY KEY, orders BIGINT NOT NULL, "
                  "revenue DECIMAL(38, 2), last_placed TIMESTAMP(6))")
    create_topics(a.bootstrap, [(topic, 1, {"cleanup.policy": "compact"})])
    work = tempfile.mkdtemp(prefix="streamsql-chaos-cdc-")
    mhost, mport = _hostport(a.mariadb)
    phost, pport = _hostport(a.postgres)
    script = os.path.join(work, "job.sql")
    with open(script, "w") as f:
        f.write(_JOB.format(job=job, interval=a.interval, mhost=mhost, mport=mport, user=USER,
                            password=PASSWORD, db=db, sid=6500 + int(run, 16) % 10000, chunk=a.chunk,
                            topic=topic,
                            bootstrap=a.bootstrap, phost=phost, pport=pport, pdb=db, revenue=REVENUE_SQL))
    rnd = random.Random(a.seed)
    plan = [("point", p) for p in POINTS] + [("random", None)] * max(0, a.kills - len(POINTS) - 1)
    rnd.shuffle(plan)
    plan.insert(0, ("snapshot", None))
    done = threading.Event()  # the workload runs during the snapshot and the binlog reading
    threading.Thread(target=run_workload, args=(a.mariadb, db, a.feed_seconds, done, a.seed, a.rows),
                     daemon=True).start()
    log = open(os.path.join(work, "jobs.log"), "ab")  # noqa: SIM115 -- open for the whole campaign
    kills = in_snapshot = 0
    for kind, point in plan:
        if kind == "snapshot":
            rc, how = _kill_in_snapshot(script, work, a.max_run_seconds, log), "kill -9"
        else:
            rc, how = kill_once(script, work, point, rnd, a, log)
        if rc not in (137, -9):
            print(f"job exited by itself with code {rc}; see {work}/jobs.log", flush=True)
            return 1
        kills += 1
        snap = _in_snapshot(work)
        in_snapshot += snap
        print(f"kill {kills}: {how}{' (during the snapshot)' if snap else ''}", flush=True)
    done.wait()
    expected = expected_revenue(a.mariadb, db)
    kafka, pg = _settle(script, work, log, a, topic, db, expected)
    k_lost, k_dup, k_wrong = differences(expected, kafka)
    p_lost, p_dup, p_wrong = differences(expected, pg)
    print(f"kills={kills} during_snapshot={in_snapshot} rows={a.rows} customers={len(expected)} "
          f"kafka: lost={k_lost} duplicated={k_dup} wrong={k_wrong} "
          f"postgres: lost={p_lost} duplicated={p_dup} wrong={p_wrong}", flush=True)
    if kafka != expected or pg != expected:
        print(f"DIFFERENCE: the outputs do not match MariaDB's GROUP BY; see {work}/jobs.log", flush=True)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line (see module docstring)."""
    ap = argparse.ArgumentParser(description="Kill a mysql-cdc job repeatedly; check exactly-once.")
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"))
    ap.add_argument("--mariadb", default=os.environ.get("STREAMSQL_MARIADB", "127.0.0.1:3306"))
    ap.add_argument("--postgres", default=os.environ.get("STREAMSQL_POSTGRES", "127.0.0.1:5432"))
    ap.add_argument("--rows", type=int, default=200_000, help="rows of the table before the job starts")
    ap.add_argument("--kills", type=int, default=12,
                    help="at least 6: the snapshot, each fault point, random")
    ap.add_argument("--chunk", type=int, default=4096, help="'scan.incremental.snapshot.chunk.size'")
    ap.add_argument("--interval", default="300 ms", help="checkpoint interval")
    ap.add_argument("--feed-seconds", type=float, default=20.0, help="the workload runs this long")
    ap.add_argument("--min-kill", type=float, default=1.0)
    ap.add_argument("--max-kill", type=float, default=4.0)
    ap.add_argument("--max-run-seconds", type=float, default=15.0,
                    help="a fault point not reached by then: kill -9")
    ap.add_argument("--settle-seconds", type=float, default=180.0, help="the last run catches up within this")
    ap.add_argument("--seed", type=int, default=1)
    return campaign(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

"""The mysql-cdc source resumed from its checkpointed positions: mid-snapshot, mid-transaction.

The source is driven directly (open / poll / position / close, as the runtime does) against the
real MariaDB while rows change; after any sequence of restores, the changelog it emitted folds to
the table's final content, with no row missing and none twice.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from streamsql.connectors.cdc.source import MySqlCdcSource

from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import RowKind
from streamsql.environment import StreamEnvironment
from tests.cdc.helpers import cdc_options, execute


def _source(db, table="acct", **extra) -> MySqlCdcSource:
    env = StreamEnvironment()
    env.execute_sql(f"CREATE TABLE src (id INT, name STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
                    f"WITH ({cdc_options(db, table, **extra)})")
    return MySqlCdcSource(ConnectorContext(env.catalog.get("src"), "job", {}))


class Folded:
    """The upsert table a changelog folds to; fails on a row inserted twice or retracted unseen."""

    def __init__(self):
        self.rows: dict[int, tuple] = {}

    def apply(self, batch) -> None:
        for kind, row in zip(batch.kind_array(), batch.table.to_pylist()):
            key, value = row["id"], (row["name"], row["v"])
            if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
                assert key not in self.rows, f"row {key} added twice"
                self.rows[key] = value
            else:
                assert self.rows.get(key) == value, f"row {key} retracted as {value}, is {self.rows.get(key)}"
                del self.rows[key]


def _mariadb_rows(db) -> dict[int, tuple]:
    with db.mysql() as c, c.cursor() as cur:
        cur.execute("SELECT id, name, v FROM acct")
        return {r[0]: (r[1], r[2]) for r in cur.fetchall()}


def _drain(src, folded, db):
    """Poll until the source has passed the binlog's current end (every change is read)."""
    with db.mysql() as c, c.cursor() as cur:
        cur.execute("SHOW MASTER STATUS")
        end = tuple(cur.fetchone()[:2])
    deadline = time.monotonic() + 60
    while tuple(src.position()["binlog"]) < end:
        assert time.monotonic() < deadline, f"the source did not reach the binlog's end {end}"
        b = src.poll(50, 0.3)
        if b is not None:
            folded.apply(b)


def _workload(cur, rng, n):
    """Random single- and multi-row transactions: inserts, updates (also of the key), deletes."""
    for _ in range(n):
        stmts = []
        for _ in range(rng.randint(1, 4)):
            k = rng.randint(1, 400)
            r = rng.random()
            if r < 0.4:
                stmts.append(f"INSERT INTO acct VALUES ({k}, 'n{k}', {rng.randint(-5, 5)}) "
                             f"ON DUPLICATE KEY UPDATE v = v + 1")
            elif r < 0.7:
                stmts.append(f"UPDATE acct SET v = v * 2, name = NULL WHERE id = {k}")
            elif r < 0.85:
                stmts.append(f"UPDATE IGNORE acct SET id = {rng.randint(401, 900)} WHERE id = {k}")
            else:
                stmts.append(f"DELETE FROM acct WHERE id = {k}")
        cur.execute("BEGIN")
        for stmt in stmts:
            cur.execute(stmt)
        cur.execute("COMMIT")


@pytest.mark.parametrize("seed", [1])
def test_restores_mid_snapshot_and_mid_transaction_lose_and_repeat_nothing(mariadb_db, seed):
    rng = random.Random(seed)
    execute(mariadb_db, "CREATE TABLE acct (id INT PRIMARY KEY, name VARCHAR(20), v BIGINT)")
    execute(mariadb_db, "INSERT INTO acct SELECT seq, CONCAT('n', seq), seq FROM seq_1_to_100")
    folded, position, cuts = Folded(), None, set()
    conn = mariadb_db.mysql()
    cur = conn.cursor()
    step = 0
    # At least 6 crashes, and on until both kinds of cut were restored from: how far a poll gets
    # in its 0.2 s depends on the machine's load, so a fixed count may miss the mid-transaction one.
    while step < 6 or not {"snapshot", "transaction"} <= cuts:
        assert step < 40, f"40 crashes did not cut both mid-snapshot and mid-transaction: {cuts}"
        src = _source(mariadb_db, **{"scan.incremental.snapshot.chunk.size": "30"})
        src.open(position)
        for _ in range(rng.randint(1, 3)):  # part of the snapshot or of the binlog, then a "crash"
            _workload(cur, rng, 3)
            b = src.poll(rng.choice([1, 2, 3, 40]), 0.2)
            if b is not None:
                folded.apply(b)
        position = json.loads(json.dumps(src.position()))  # what a checkpoint stores
        cuts.add("snapshot" if position["snapshot"] else "transaction" if position["skip"] else "boundary")
        src.close()
        if step == 0:
            assert position["snapshot"] is not None  # the first crash is mid-snapshot
        step += 1
    conn.close()
    src = _source(mariadb_db)
    src.open(position)
    _drain(src, folded, mariadb_db)
    src.close()
    assert folded.rows == _mariadb_rows(mariadb_db)


def test_a_restore_checkpointed_again_before_replaying_keeps_the_rows_to_skip(mariadb_db):
    execute(mariadb_db, "CREATE TABLE acct (id INT PRIMARY KEY, name VARCHAR(20), v BIGINT)")
    src = _source(mariadb_db, **{"scan.startup.mode": "latest-offset"})
    src.open(None)
    execute(mariadb_db, "INSERT INTO acct VALUES (1, 'a', 1)", "INSERT INTO acct VALUES (2, 'b', 2)")
    first = None
    while first is None:
        first = src.poll(1, 1.0)  # one row of the two-row transaction
    mid = src.position()
    src.close()
    assert mid["skip"] == 1
    again = _source(mariadb_db)
    again.open(json.loads(json.dumps(mid)))
    assert again.position() == mid  # checkpointed before it re-read the transaction: same position
    folded = Folded()
    folded.apply(first)
    _drain(again, folded, mariadb_db)
    again.close()
    assert folded.rows == _mariadb_rows(mariadb_db) == {1: ("a", 1), 2: ("b", 2)}

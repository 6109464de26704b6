"""A few seeds of the random-query oracle over Kafka (:mod:`tests.runtime.query_fuzz_kafka`) in the
default suite: the query at parallelism 2; stopped with a savepoint at a cut and restored at another
parallelism (2 -> 3, 3 -> 2, 1 -> 2, 1 -> 3); and in one task stopped and restored with another
batch size. Each folded changelog (the recorder's, or an exactly-once Kafka topic's) equals DuckDB's
answer over all the input. Long campaigns: ``python -m tests.runtime.query_fuzz --parallel 2 |
--rescale mix | --kafka --seeds A:B``.
"""

from __future__ import annotations

import pytest

from tests.runtime import query_fuzz
from tests.runtime.query_fuzz import data_files
from tests.runtime.query_fuzz_kafka import check_kafka

#: (seed, parallelism of each run): cheap seeds (a few seconds each): an aggregate of cdc and a
#: CUMULATE at parallelism 2; an aggregate of an aggregate of cdc 2 -> 3 and an aggregate of cdx
#: 3 -> 2; a CASE over aggregates of cdx and a TUMBLE in one task. 31 and 25 write into an
#: exactly-once debezium-json topic, read back at the end.
#: 87 (2 -> 2): a UNION ALL of cdc, one stage, into the topic (a sink with its own transactional id
#: prefix): the restore's reset missed its tasks' progress groups, and the restored task failed
#: ("checkpoint 10 is committed but its files are missing")
#: 2 (1 -> 2, a GROUP BY with HAVING) and 32 (1 -> 3, an INTERSECT of cdc, stopped while reading): a
#: single-process savepoint split into the tasks (refused before session 22)
#: 306 (2 -> 3 -> 2, an interval join of tw, into the topic): the second restore refused the job,
#: "Cannot rescale the state of operator 'watermark-2': its operator-wide entry b'\xff\xff\x00S1'
#: differs between the snapshots" (the first rescale gave every task every split's maximum)
CASES = [(1, (2,)), (16, (2,)), (31, (2, 3)), (4, (3, 2)), (3, (1, 1)), (25, (1, 1)), (87, (2, 2)),
         (2, (1, 2)), (32, (1, 3)), (306, (2, 3, 2))]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return data_files(tmp_path_factory.mktemp("query-fuzz-kafka"))


@pytest.mark.parametrize(("seed", "parallelism"), CASES, ids=[f"{s}-p{'-'.join(map(str, p))}"
                                                                for s, p in CASES])
def test_random_query_over_kafka_matches_duckdb(seed, parallelism, files, tmp_path, kafka_bootstrap):
    check_kafka(seed, files, tmp_path, kafka_bootstrap, parallelism)


#: ``--extras`` seeds (:func:`~tests.runtime.query_fuzz.extras_query`): 35 a temporal sort 3 -> 2 (one
#: task behind a keyless exchange; its rows checked in rowtime order too), 9 ``tm``'s partition and
#: offset (metadata columns) under an OPTIONS hint 2 -> 2, 12 a join under STATE_TTL 1 -> 2 whose
#: tables are made bounded by ALTER TABLE between the stop and the restore
EXTRA_CASES = [(35, (3, 2)), (9, (2, 2)), (12, (1, 2))]


@pytest.mark.parametrize(("seed", "parallelism"), EXTRA_CASES, ids=[f"{s}-p{'-'.join(map(str, p))}"
                                                                      for s, p in EXTRA_CASES])
def test_extras_over_kafka_match_duckdb(seed, parallelism, files, tmp_path, kafka_bootstrap, monkeypatch):
    monkeypatch.setattr(query_fuzz, "EXTRAS", "kafka")
    assert query_fuzz.make_query(seed).shape in ("tsort", "meta", "ttl_join")
    check_kafka(seed, files, tmp_path, kafka_bootstrap, parallelism)

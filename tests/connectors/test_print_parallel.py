"""The ``print`` sink at parallelism > 1 prints Flink's subtask prefix (``2> +I[...]``, ``id:2> ...``).

``print_parallel_flink.json`` is written by ``scripts/flink_print_parallel.py``: the lines Flink
2.3's print sink wrote for each scenario. The same script runs here through ``streamsql run``.
Which task reads a Kafka partition depends on the topic's name (Flink's ``getSplitOwner``), so the
topic here is given a name whose start is Flink's topic's modulo 2: each partition's rows are then
printed by the same subtask. Lines carried no subtask prefix before.

Left out: Flink's VALUES scenarios at ``'parallelism.default'`` = 2 (no prefix: a VALUES source runs
at parallelism 1 and the sink follows it), which StreamSQL refuses (a parallel job exchanges rows
through Kafka), and the GROUP BY one: Flink's key groups hash its binary rows, ours the key
encoding of ``streamsql.state.layout``, so a key may be printed by another subtask.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Producer
from streamsql.connectors.kafka.assignment import flink_start

from tests.integration.test_kafka_key_prefix import fold

ORACLE = json.loads((Path(__file__).parent / "print_parallel_flink.json").read_text())
SCENARIOS = {s["name"]: s for s in ORACLE["scenarios"]}
PREFIX = re.compile(r"^(?:([^>]*)> )?([+-][IUD]\[.*)$")


@pytest.fixture(scope="module")
def topic(kafka_bootstrap, kafka_admin) -> str:
    """A 2-partition topic with Flink's records, whose partitions go to the tasks they went to in Flink."""
    from confluent_kafka.admin import NewTopic

    want = flink_start(ORACLE["topic"]) % 2
    name = next(t for t in (f"print-parallel-{uuid.uuid4().hex[:8]}" for _ in range(100))
                if flink_start(t) % 2 == want)
    kafka_admin.create_topics([NewTopic(name, 2, 1)])[name].result(60)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for partition, values in enumerate(ORACLE["partitions"]):
        for v in values:
            p.produce(name, json.dumps(v, separators=(",", ":")).encode(), partition=partition)
    p.flush(30)
    yield name
    for f in kafka_admin.delete_topics([name], operation_timeout=10).values():
        try:
            f.result(15)
        except Exception:  # noqa: BLE001  (cleanup only)
            pass


def _printed(name: str, topic: str, bootstrap: str, tmp_path: Path) -> list[str]:
    """The lines ``streamsql run`` prints for scenario ``name`` (its ``[INFO]`` lines left out)."""
    s = SCENARIOS[name]
    lines = [f"SET 'pipeline.name' = 'print-parallel-{uuid.uuid4().hex[:8]}';",
             "SET 'restart-strategy.type' = 'none';"]
    lines += [f"SET '{k}' = '{v}';" for k, v in s["set"].items()]
    if s.get("kafka"):
        lines.append(ORACLE["source"].format(topic=topic, bootstrap=bootstrap) + ";")
    lines.append(f"CREATE TABLE p ({s['sink']}) WITH ('connector' = 'print'{s['with']});")
    lines.append(f"INSERT INTO p {s['insert']};")
    path = tmp_path / "job.sql"
    path.write_text("\n".join(lines) + "\n")
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return [ln for ln in run.stdout.splitlines() if PREFIX.match(ln)]


@pytest.mark.parametrize("name", ["kafka_default2", "kafka_default2_ident"])
def test_each_partitions_rows_carry_flinks_subtask(name, topic, kafka_bootstrap, tmp_path):
    assert sorted(_printed(name, topic, kafka_bootstrap, tmp_path)) == sorted(SCENARIOS[name]["lines"])


@pytest.mark.parametrize("name", ["values_sink_parallelism2", "values_sink_parallelism2_ident"])
def test_sink_parallelism_deals_rows_over_the_subtasks(name, topic, kafka_bootstrap, tmp_path):
    """Flink's rebalance starts at a random subtask: the same rows, as many per subtask."""
    ours = [PREFIX.match(ln).groups() for ln in _printed(name, topic, kafka_bootstrap, tmp_path)]
    flink = [PREFIX.match(ln).groups() for ln in SCENARIOS[name]["lines"]]
    assert sorted(row for _, row in ours) == sorted(row for _, row in flink)
    assert sorted(Counter(p for p, _ in ours).values()) == sorted(Counter(p for p, _ in flink).values())
    assert {p for p, _ in ours} == {p for p, _ in flink}


def test_a_global_aggregate_prints_from_one_subtask(topic, kafka_bootstrap, tmp_path):
    """Flink runs a global aggregate, and the sink after it, at parallelism 1: no subtask number."""
    name = "kafka_default2_global_agg"
    ours = [PREFIX.match(ln).groups() for ln in _printed(name, topic, kafka_bootstrap, tmp_path)]
    flink = [PREFIX.match(ln).groups() for ln in SCENARIOS[name]["lines"]]
    assert {p for p, _ in ours} == {p for p, _ in flink} == {"out"}

    def table(lines):
        return fold([[row[:2], row[3:-1]] for _, row in lines])

    assert table(ours) == table(flink)  # the changelog's batching may differ, not its end

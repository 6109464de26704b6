"""Per-table parallelism: ``'scan.parallelism'`` and ``'sink.parallelism'`` (Flink's FactoryUtil).

Flink 2.3 gives a source or sink that sets one of these its own number of subtasks; the Kafka,
upsert-kafka and datagen connectors accept ``'scan.parallelism'``, the Kafka, upsert-kafka,
filesystem, print and JDBC ones ``'sink.parallelism'`` (filesystem's ``'scan.parallelism'`` is
refused, by Flink 2.3 too). Here every stage of a
job runs at ``'parallelism.default'`` tasks (docs/parallelism.md), so a table's own parallelism
is validated as Flink validates it and then changes nothing that a query's answer depends on:

- ``'scan.parallelism'`` = N: the source is read by the tasks of the stage that reads it (a Kafka
  source's partitions split between them). Flink's readers keep a watermark per Kafka partition
  (per split), so the number of readers changes which subtask reads a partition, not a row or a
  window's result.
- ``'sink.parallelism'`` = N: the sink writes from the tasks of its input. The rows are the same,
  and so is each row's Kafka partition under ``'sink.partitioner'`` = ``'default'`` (the key's
  hash). Flink's checks are kept: a value below 1 fails (``Invalid configured parallelism``), and
  so does an updating input into a sink without a PRIMARY KEY (Flink could not keep a key's
  changes in order across subtasks; it compares with an input parallelism its planner has not
  set, -1, so every value fails there, and here); and ``'scan.parallelism'`` on a changelog
  source without a PRIMARY KEY.

What differs is told when the job is submitted (:func:`parallelism_notes`, one ``[INFO]`` line per
table): with ``'sink.partitioner'`` = ``'fixed'`` each task writes one partition (task index
modulo partitions), where Flink's N sink subtasks each write one; the print sink prints Flink's
``<subtask>>`` prefix of N subtasks, dealing rows round-robin where Flink's rebalance starts at a
random subtask (:mod:`streamsql.connectors.print_sink`). Validated when a job reads or writes the
table, not at CREATE TABLE (Flink: a table used only as a source may carry any
``'sink.parallelism'``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.catalog import TableDef
from streamsql.core.errors import PlanError
from streamsql.plan.nodes import (
    INSERT_ONLY,
    PlanNode,
    ScanNode,
    SinkNode,
    ValuesNode,
    walk,
)

_INTEGER = re.compile(r"\s*[+-]?[0-9]{1,10}\s*")

SCAN = "scan.parallelism"
SINK = "sink.parallelism"


def configured_parallelism(planner, table: TableDef, key: str, at: exp.Expression) -> int | None:
    """The value of option ``key`` (:data:`SCAN` or :data:`SINK`) of ``table``, or None when unset.

    Args:
        planner: the statement's planner (errors point into its statement).
        table: the table read or written.
        key: the option.
        at: where the table is named in the statement.

    Raises:
        PlanError: at ``at``, in Flink's words: ``Could not parse value 'x' for key '...'`` for a
            value that is not an integer, ``Invalid configured parallelism 0 for table '...'``
            for one below 1.
    """
    value = table.options.get(key)
    if value is None:
        return None
    if not _INTEGER.fullmatch(value):  # Java's Integer.parseInt of the trimmed text
        msg = f"Table '{table.name}': Could not parse value '{value}' for key '{key}'."
        planner._fail(at, msg, PlanError)
    n = int(value)
    if n <= 0:
        planner._fail(at, f"Invalid configured parallelism {n} for table '{table.name}'.", PlanError)
    return n


def check_scan_parallelism(planner, table: TableDef, changelog: bool, at: exp.Expression) -> None:
    """Validate ``'scan.parallelism'`` of the source ``table``, as Flink's CommonExecTableSourceScan.

    Args:
        planner: the statement's planner (errors point into its statement).
        table: the table read.
        changelog: the source produces updates or deletes.
        at: where the table is named in the statement.

    Raises:
        PlanError: a bad value (:func:`configured_parallelism`), or a changelog source without a
            PRIMARY KEY (Flink 2.3 keys its rows by the primary key after a source of its own
            parallelism, so it refuses one without), in Flink's words.
    """
    n = configured_parallelism(planner, table, SCAN, at)
    if n is not None and changelog and not table.primary_key:
        msg = (f"Configured parallelism {n} for upsert table '{table.name}' while can not find primary key "
               "field. (Flink 2.3 refuses 'scan.parallelism' on a changelog source without a PRIMARY KEY.)")
        planner._fail(at, msg, PlanError)


def check_sink_parallelism(planner, table: TableDef, node: PlanNode, at: exp.Expression) -> None:
    """Validate ``'sink.parallelism'`` of the sink ``table`` fed by ``node``, as Flink's CommonExecSink.

    Raises:
        PlanError: a bad value (:func:`configured_parallelism`), or an updating input into a table
            without a PRIMARY KEY, in Flink's words. Flink compares the value with the parallelism
            its planner has set on the sink's input, and an updating input's is unset then
            (``ExecutionConfig.PARALLELISM_DEFAULT``, -1: after an aggregate, and after a changelog
            source, whose own 'scan.parallelism' is followed by a keyed exchange), so it refuses
            every value (PyFlink 2.3: "while the input parallelism is -1", even for '1').
    """
    n = configured_parallelism(planner, table, SINK, at)
    if n is None or node.mode == INSERT_ONLY or table.primary_key:
        return
    msg = (f"The sink for table '{table.name}' has a configured parallelism of {n}, while the input "
           f"parallelism is -1. Since the configured parallelism is different from the input's "
           "parallelism and the changelog mode is not insert-only, a primary key is required but could "
           "not be found.")
    planner._fail(at, msg, PlanError)


def parallelism_notes(roots: list[PlanNode], parallelism: int) -> list[str]:
    """One ``[INFO]`` line per table of the job that sets its own parallelism: what it does here.

    Args:
        roots: the job's planned sinks.
        parallelism: ``'parallelism.default'`` (the tasks each stage runs).
    """
    notes: dict[str, str] = {}
    tasks = f"the job's {parallelism} task{'s' * (parallelism != 1)} ('parallelism.default')"
    for node in walk(roots):
        table = getattr(node, "table", None)
        if (isinstance(node, ScanNode) and node.kind == ScanNode.kind and not isinstance(node, ValuesNode)
                and SCAN in table.options):
            notes.setdefault(f"{table.name}/{SCAN}", (
                f"[INFO] Table '{table.name}': '{SCAN}' = '{table.options[SCAN]}' is accepted; the source "
                f"is read by {tasks}, which changes no result (Flink's sources keep a watermark per "
                "partition)."))
        if isinstance(node, SinkNode) and node.kind == SinkNode.kind and SINK in table.options:
            notes.setdefault(f"{table.name}/{SINK}", _sink_note(table, tasks))
    return list(notes.values())


def _sink_note(table: TableDef, tasks: str) -> str:
    value = table.options[SINK]
    text = f"[INFO] Table '{table.name}': '{SINK}' = '{value}' is accepted; the sink writes from {tasks}"
    if table.options.get("sink.partitioner") == "fixed":
        return (text + f". With 'sink.partitioner' = 'fixed' each task writes one partition (task index "
                f"modulo partitions), where Flink's {value} sink subtasks each write one: the same rows, "
                "spread over other partitions.")
    if table.connector == "print" and value.strip() != "1":
        return text + (f"; lines carry the '<subtask>> ' prefix of {value} subtasks, rows dealt round-robin "
                       "(Flink's rebalance starts at a random subtask, so a row's number may differ).")
    return text + ", which changes no row written."

"""The Nexmark scripts for either engine: events table + views + a query, with the source and sink chosen.

Standard library only (the Flink venv imports it too). The query files in ``queries/`` are the
Nexmark project's (``nexmark-flink/src/main/resources/queries``), each writing to a
``nexmark_qN`` table; :func:`script` swaps that table's ``WITH (...)`` for the sink wanted here
(blackhole for the benchmark, print for comparing results), dropping a ``PARTITIONED BY``;
but a query of :data:`FILE_SINK_QUERIES` (q10) keeps its own filesystem table, as the benchmark
defines it, writing under a given folder.
The events table is ``ddl_table.sql`` (Nexmark's ddl_gen.sql / ddl_kafka.sql) with the
source's options; the views are Nexmark's ``ddl_views.sql``.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUERIES = [f"q{i}" for i in range(23)]
TABLE = "nexmark"
BLACKHOLE = "'connector' = 'blackhole'"
PRINT = "'connector' = 'print'"
#: Queries on processing time (PROCTIME()): their results depend on the wall clock, never compared.
PROCTIME_QUERIES = ("q12", "q13")
SIDE_INPUT_ROWS = 10_000  # q13 joins on MOD(auction, 10000)
#: Queries whose sink is a filesystem table of their own (q10: partitioned by dt, hm, committed by
#: partition time with success files): they write it, and their result is its committed files.
FILE_SINK_QUERIES = ("q10",)
#: Where a file-sink query's table writes in the query text: replaced by the run's folder.
OUTPUT_DIR = "${NEXMARK_DIR}/data/output/${SUBMIT_TIME}"


def nexmark_options(events: int, rate: int = 10_000_000, base_time_ms: int | None = None,
                    extra: dict[str, str] | None = None) -> str:
    """WITH options of the ``nexmark`` connector: ``events`` events, ``rate`` events/s of event time.

    ``extra``: more of the connector's options (``seed``, ``bid.proportion``, ...), as given.
    """
    opts = {"connector": "nexmark", "first-event.rate": rate, "next-event.rate": rate, "events.num": events}
    if base_time_ms is not None:
        opts["base-time"] = base_time_ms
    return _with({**opts, **(extra or {})})


def file_options(path: str) -> str:
    """WITH options of a filesystem table over a JSON-lines file of the events."""
    return _with({"connector": "filesystem", "path": path, "format": "json"})


def kafka_options(topic: str, bootstrap: str, extra: dict[str, str] | None = None,
                  bounded: bool = True) -> str:
    """WITH options of a Kafka table over the events topic (JSON), read from the start to the end.

    ``bounded=False``: read on after the end (an idle source; processing-time windows still fire).
    """
    opts = {
        "connector": "kafka",
        "topic": topic,
        "properties.bootstrap.servers": bootstrap,
        "properties.group.id": "nexmark",
        "scan.startup.mode": "earliest-offset",
        "scan.bounded.mode": "latest-offset",
        "format": "json",
        **(extra or {}),
    }
    if not bounded:
        del opts["scan.bounded.mode"]
    return _with(opts)


def _with(opts: dict) -> str:
    return ",\n".join(f"    '{k}' = '{v}'" for k, v in opts.items())


def events_table(source_with: str, table: str = TABLE) -> str:
    """CREATE TABLE of the events (``ddl_table.sql``) with the given WITH options."""
    return (
        (HERE / "ddl_table.sql")
        .read_text()
        .replace("${NEXMARK_TABLE}", table)
        .replace("${WITH}", source_with)
    )


def views(table: str = TABLE) -> str:
    """The person, auction and bid views over the events table."""
    return (HERE / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", table)


def query_text(query: str) -> str:
    """The query file's text (``queries/qN.sql``)."""
    return (HERE / "queries" / f"{query}.sql").read_text()


def with_sink(query: str, text: str, sink_with: str) -> str:
    """The query script with the ``nexmark_qN`` table's WITH options replaced by ``sink_with``.

    Raises:
        ValueError: the script declares no ``nexmark_qN`` table.
    """
    m = re.search(rf"CREATE TABLE\s+nexmark_{query}\s*\(", text, re.IGNORECASE)
    if not m:
        msg = f"{query}.sql declares no table nexmark_{query}"
        raise ValueError(msg)
    depth, i = 1, m.end()
    while depth:  # to the parenthesis closing the column list
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    end = text.index(";", i)
    return text[:i] + f" WITH (\n{sink_with}\n)" + text[end:]


def write_side_input(path: str | Path, rows: int = SIDE_INPUT_ROWS) -> None:
    """q13's side input as Nexmark's SideInputGenerator writes it: lines ``i,i`` for i < rows."""
    Path(path).write_text("".join(f"{i},{i}\n" for i in range(rows)))


def script(query: str, source_with: str, sink_with: str = BLACKHOLE, side_input: str = "",
           output_dir: str | None = None) -> str:
    """The whole script of one query: events table, views, the query's statements.

    ``side_input`` is the path of q13's side input file (:func:`write_side_input`); ``output_dir``
    the folder a query of :data:`FILE_SINK_QUERIES` writes its table in (``<output_dir>/bid/`` for
    q10), which keeps its own sink then instead of ``sink_with``.
    """
    if query in FILE_SINK_QUERIES and output_dir is not None:
        text = query_text(query).replace(OUTPUT_DIR, output_dir.rstrip("/"))
    else:
        text = with_sink(query, query_text(query), sink_with)
    text = text.replace("${UDF_FILE}", str(HERE / "nexmark_udf.py")).replace("${SIDE_INPUT}", side_input)
    return events_table(source_with) + ";\n\n" + views() + "\n\n" + text

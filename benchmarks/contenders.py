"""The contenders, each run in its own process: ``python -m benchmarks.contenders SPEC.json``.

The spec (written by :mod:`benchmarks.run`) names the contender, the workload, the input topic
and its end offsets (the run is bounded: it ends when every partition reached them), the output
topic, the commit/checkpoint interval and where to write the result JSON:

``{"t_first": first record consumed (epoch s), "t_end": last commit done (epoch s),
"events": records consumed, "produced": records written, "checkpoint_ms": [...],
"peak_rss": bytes (getrusage of this process; the harness replaces it with its sampled tree peak),
"error": null | "text"}``

- ``raw`` — the limit: consume, no processing, produce the same bytes (same key and partition)
  in Kafka transactions committed every interval with the consumed offsets
  (``send_offsets_to_transaction``). It does the same on every workload.
- ``streamsql`` — the workload as SQL (:data:`SQL`), EXACTLY_ONCE, RocksDB, checkpoints every
  interval; kafka source bounded (``'scan.bounded.mode'``), exactly-once kafka / upsert-kafka sink.
- ``quix`` — the workload with Quix Streams, ``processing_guarantee='exactly-once'``, RocksDB
  state (with its default changelog topics), ``commit_interval`` = the interval.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import traceback

from benchmarks.common import peak_rss_bytes, write_json

# ----------------------------------------------------------------------------------------------
# SQL of each workload (the source table is the same; sinks differ by output shape)

BIDS = """CREATE TABLE bids (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  date_time TIMESTAMP(3), extra STRING{watermark}
) WITH ("""
SOURCE_DDL = BIDS + """
  'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
  'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
  {bounded}
)"""

SINK_OPTS = (
    "'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}', "
    "'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once'{sink_extra}"
)
# Both buffer-flush options: StreamSQL and Flink both reduce each key's changes per flush (as
# Flink's ReducingUpsertWriter); without them both write every change (benchmarks/README.md), as
# the workloads labelled ``.../every-change`` do (``AGG10k/every-change``: Flink's default sink).
BUFFER_FLUSH = ", 'sink.buffer-flush.max-rows' = '100000', 'sink.buffer-flush.interval' = '1 s'"
UPSERT_OPTS = (
    "'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}', "
    "'key.format' = 'json', 'value.format' = 'json'" + BUFFER_FLUSH + "{sink_extra}"
)
EVERY_CHANGE = "every-change"
# Engine-only runs (no Kafka): the same columns from the datagen connector into a blackhole.
ENGINE_SOURCE_DDL = BIDS + """
  'connector' = 'datagen', 'number-of-rows' = '{events}', 'rows-per-second' = '1000000000',
  'fields.auction.min' = '1000', 'fields.auction.max' = '{max_auction}',
  'fields.bidder.min' = '1000', 'fields.bidder.max' = '1000000',
  'fields.price.min' = '100', 'fields.price.max' = '10000000',
  'fields.channel.length' = '8', 'fields.url.length' = '60', 'fields.extra.length' = '20'
)"""
BLACKHOLE_OPTS = "'connector' = 'blackhole'"


SQL: dict[str, tuple[str, list[str]]] = {
    # workload: (sink DDL, [INSERT variants tried in order])
    "Q0": (
        "CREATE TABLE out_t (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
        "date_time TIMESTAMP(3), extra STRING) WITH (" + SINK_OPTS + ")",
        ["INSERT INTO out_t SELECT auction, bidder, price, channel, url, date_time, extra FROM bids"],
    ),
    "Q1": (
        "CREATE TABLE out_t (auction BIGINT, bidder BIGINT, price DOUBLE, channel STRING, url STRING, "
        "date_time TIMESTAMP(3), extra STRING) WITH (" + SINK_OPTS + ")",
        [
            "INSERT INTO out_t SELECT auction, bidder, CAST(price * 0.908 AS DOUBLE) AS price, channel, url, "
            "date_time, extra FROM bids"
        ],
    ),
    # The cost of the function layer: Q1's shape with common string and time functions.
    "FN": (
        "CREATE TABLE out_t (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
        "date_time TIMESTAMP(3), extra STRING, bid_minute STRING) WITH (" + SINK_OPTS + ")",
        [
            "INSERT INTO out_t SELECT auction, bidder, price, LOWER(channel) AS channel, "
            "REGEXP_EXTRACT(url, 'channel_id=([0-9]+)', 1) AS url, date_time, UPPER(extra) AS extra, "
            "DATE_FORMAT(date_time, 'yyyy-MM-dd HH:mm') AS bid_minute FROM bids"
        ],
    ),
    "Q2": (
        "CREATE TABLE out_t (auction BIGINT, price BIGINT, date_time TIMESTAMP(3)) WITH (" + SINK_OPTS + ")",
        ["INSERT INTO out_t SELECT auction, price, date_time FROM bids WHERE auction % 123 = 0"],
    ),
    "AGG": (
        "CREATE TABLE out_t (auction BIGINT, cnt BIGINT, max_price BIGINT, last_ts TIMESTAMP(3), "
        "PRIMARY KEY (auction) NOT ENFORCED) WITH (" + UPSERT_OPTS + ")",
        [
            "INSERT INTO out_t SELECT auction, COUNT(*) AS cnt, MAX(price) AS max_price, "
            "MAX(date_time) AS last_ts FROM bids GROUP BY auction"
        ],
    ),
    "WIN": (
        "CREATE TABLE out_t (auction BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), cnt BIGINT) "
        "WITH (" + SINK_OPTS + ")",
        [
            # Flink's windowing table-valued function (the recommended form) ...
            "INSERT INTO out_t SELECT auction, window_start, window_end, COUNT(*) AS cnt "
            "FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) "
            "GROUP BY auction, window_start, window_end",
            # ... and the legacy group-window syntax
            "INSERT INTO out_t SELECT auction, TUMBLE_START(date_time, INTERVAL '10' SECOND), "
            "TUMBLE_END(date_time, INTERVAL '10' SECOND), COUNT(*) AS cnt "
            "FROM bids GROUP BY auction, TUMBLE(date_time, INTERVAL '10' SECOND)",
        ],
    ),
}


def base_workload(w: str) -> str:
    """``AGG10k`` → ``AGG``, ``WIN/hashmap`` → ``WIN`` (the row label's backend suffix dropped)."""
    w = w.split("/")[0]
    return "AGG" if w.startswith("AGG") else w


def workload_sql(spec: dict, sink_extra: dict[str, dict[str, str]] | None = None,
                 source_extra: str = "") -> tuple[str, str, list[str]]:
    """``(source DDL, sink DDL, [INSERT variants])`` of the spec's workload, for any engine.

    Args:
        spec: the contender spec (workload, topics, end offsets, ``engine`` for datagen → blackhole).
        sink_extra: more WITH options of the sink by sink connector (``kafka`` / ``upsert-kafka``).
        source_extra: more WITH options of the kafka source (``, 'k' = 'v'`` text).
    """
    w = base_workload(spec["workload"])
    wm = ",\n  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND" if w == "WIN" else ""
    sink_ddl, inserts = SQL[w]
    upsert = "upsert-kafka" in sink_ddl
    if EVERY_CHANGE in spec["workload"].split("/")[1:]:  # Flink's default upsert sink: no buffering
        sink_ddl = sink_ddl.replace(BUFFER_FLUSH, "")
    if spec.get("engine"):
        source = ENGINE_SOURCE_DDL.format(watermark=wm, events=spec["events"],
                                          max_auction=1000 + spec["keys"] - 1)
        start = sink_ddl.index("WITH (") + len("WITH (")
        sink = sink_ddl[:start] + BLACKHOLE_OPTS + ")"
        return source, sink.replace(", PRIMARY KEY (auction) NOT ENFORCED", ""), inserts
    ends = ";".join(
        f"partition:{k},offset:{v}" for k, v in sorted(spec["ends"].items(), key=lambda kv: int(kv[0]))
    )
    # backlog runs read to the end offsets at open; paced (latency) runs to offsets known ahead
    bounded = (
        "'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = '" + ends + "'"
        if spec.get("paced")
        else "'scan.bounded.mode' = 'latest-offset'"
    )
    extra = (sink_extra or {}).get("upsert-kafka" if upsert else "kafka", {})
    fmt = {
        "topic": spec["input"],
        "bootstrap": spec["bootstrap"],
        "bounded": bounded + source_extra,
        "out": spec["output"],
        "watermark": wm,
        "sink_extra": "".join(f", '{k}' = '{v}'" for k, v in extra.items()),
    }
    return SOURCE_DDL.format(**fmt), sink_ddl.format(**fmt), inserts


def ready(spec: dict) -> None:
    """Tell the harness the contender is set up (paced runs start producing then)."""
    if spec.get("ready"):
        open(spec["ready"], "w").close()


class NotSupported(Exception):
    """The contender cannot run this workload (e.g. planning failed)."""


def first_insert(execute, inserts: list[str]):
    """``(execute(sql), sql)`` for the first INSERT variant the engine plans.

    Raises:
        NotSupported: every variant failed (their errors).
    """
    errors = []
    for ins in inserts:
        try:
            return execute(ins), ins
        except Exception as e:  # noqa: BLE001  (planning errors: try the next form)
            errors.append(f"{type(e).__name__}: {str(e)[:500]}")
    raise NotSupported("; ".join(errors))


# ----------------------------------------------------------------------------------------------
# raw


def run_raw(spec: dict, res: dict) -> None:
    from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

    topic, out, ends = spec["input"], spec["output"], {int(k): v for k, v in spec["ends"].items()}
    interval = spec["interval_ms"] / 1000
    c = Consumer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "group.id": spec["group"],
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "fetch.max.bytes": 52428800,
            "max.partition.fetch.bytes": 10485760,
            # As StreamSQL's reader (6ac54ed): librdkafka 2.2+ waits 1 s before fetching again for a
            # partition whose queue was full, which capped this loop at ~120k records/s.
            "fetch.queue.backoff.ms": 1,
        }
    )
    p = Producer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "transactional.id": spec["group"] + "-tx",
            "linger.ms": 5,
            "batch.size": 1_000_000,
            "queue.buffering.max.messages": 1_000_000,
            "queue.buffering.max.kbytes": 1_048_576,
        }
    )
    p.init_transactions(30)
    c.assign([TopicPartition(topic, part, 0) for part, e in ends.items() if e > 0])
    nxt = {part: 0 for part in ends}
    done = {part for part, e in ends.items() if e <= 0}
    cps = res["checkpoint_ms"]
    p.begin_transaction()
    ready(spec)
    last = time.time()
    produce = p.produce
    while len(done) < len(ends):
        msgs = c.consume(num_messages=10_000, timeout=0.1)
        for m in msgs:
            if m.error() is not None:
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise RuntimeError(m.error().str())
            if res["t_first"] is None:
                res["t_first"] = time.time()
            part = m.partition()
            try:
                produce(out, m.value(), m.key(), partition=part, timestamp=m.timestamp()[1])
            except BufferError:
                p.poll(0.05)
                produce(out, m.value(), m.key(), partition=part, timestamp=m.timestamp()[1])
            nxt[part] = m.offset() + 1
        res["events"] += len(msgs)
        res["produced"] += len(msgs)
        for part in list(nxt):
            if part not in done and nxt[part] >= ends[part]:
                done.add(part)
        p.poll(0)
        now = time.time()
        if now - last >= interval or len(done) == len(ends):
            t0 = time.monotonic()
            p.send_offsets_to_transaction(
                [TopicPartition(topic, k, v) for k, v in nxt.items()], c.consumer_group_metadata(), 30
            )
            p.commit_transaction(60)
            cps.append((time.monotonic() - t0) * 1000)
            last = time.time()
            if len(done) < len(ends):
                p.begin_transaction()
    res["t_end"] = time.time()
    c.close()


# ----------------------------------------------------------------------------------------------
# streamsql


def _instrument_streamsql_consumer(res: dict, topic: str) -> None:
    """Note the time the source first gets a record of ``topic`` (wraps the Consumer class).

    The module that creates the source's consumer moved once (``kafka_common`` before the
    ``connectors/kafka/`` package); both are tried so ``--baseline`` trees of either age work.
    """
    import importlib

    from confluent_kafka import Consumer

    for name in ("streamsql.connectors.kafka.reader", "streamsql.connectors.kafka_common"):
        try:
            kafka_reader = importlib.import_module(name)
            break
        except ModuleNotFoundError:
            continue

    class TimedConsumer(Consumer):
        def consume(self, *a, **kw):  # noqa: D102
            msgs = super().consume(*a, **kw)
            if res["t_first"] is None and msgs:
                for m in msgs:
                    if m.error() is None and m.topic() == topic:
                        res["t_first"] = time.time()
                        break
            return msgs

    kafka_reader.Consumer = TimedConsumer


def run_streamsql(spec: dict, res: dict) -> None:
    from streamsql import StreamEnvironment

    _instrument_streamsql_consumer(res, spec["input"])
    probe = None
    if spec.get("memory_probe"):  # benchmarks.memory_ab: what the RSS peak is made of
        from benchmarks.memprobe import MemoryProbe

        probe = MemoryProbe()
        probe.start()
    d = spec["workdir"]
    env = StreamEnvironment(
        {
            "pipeline.name": spec["group"],
            "execution.checkpointing.interval": f"{spec['interval_ms']} ms",
            "execution.checkpointing.mode": "EXACTLY_ONCE",
            "state.backend.type": spec.get("backend") or "rocksdb",
            "execution.checkpointing.dir": os.path.join(d, "checkpoints"),
            "state.dir": os.path.join(d, "state"),
            **spec.get("streamsql_config", {}),
        }
    )
    # more WITH options of the kafka source (benchmarks.memory_ab's src.KEY=VALUE)
    source_extra = "".join(f", '{k}' = '{v}'" for k, v in (spec.get("source_options") or {}).items())
    sink_options = spec.get("sink_options") or {}  # benchmarks.run --sink-set
    source_ddl, sink_ddl, inserts = workload_sql(
        spec, {"kafka": sink_options, "upsert-kafka": sink_options}, source_extra=source_extra)
    env.execute_sql(source_ddl)
    env.execute_sql(sink_ddl)
    if spec.get("engine"):  # no consumer to time: the run starts at the INSERT
        res["t_first"] = time.time()
    result, res["sql"] = first_insert(env.execute_sql, inserts)
    job = result.job
    ready(spec)
    seen: dict[int, float] = {}
    stop = threading.Event()

    def watch():  # checkpoint durations (the coordinator keeps only the last 20)
        while True:
            c = job.runner.coordinator
            if c is not None:
                for h in list(c.history):
                    if h.status == "committed":
                        seen[h.checkpoint_id] = h.duration_ms
            if stop.wait(0.25):
                break

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    try:
        job.wait()
    finally:
        res["t_end"] = time.time()
        stop.set()
        th.join()
        if probe is not None:
            probe.halt.set()
            res["memory_at_peak"] = probe.snapshot()
    m = job.metrics
    res["events"], res["produced"] = m["rows_in"], m["rows_out"]
    res["checkpoint_ms"] = [seen[k] for k in sorted(seen)]


# ----------------------------------------------------------------------------------------------
# quix


def run_quix(spec: dict, res: dict) -> None:
    import logging

    import quixstreams.checkpointing.checkpoint as qcp
    from quixstreams import Application

    w = base_workload(spec["workload"])
    ends = {int(k): v for k, v in spec["ends"].items()}
    nxt = {p: 0 for p in ends}
    remaining = {p for p, e in ends.items() if e > 0}
    counter = {"events": 0, "produced": 0}

    orig_commit = qcp.Checkpoint.commit

    def timed_commit(self, *a, **kw):
        t0 = time.monotonic()
        try:
            return orig_commit(self, *a, **kw)
        finally:
            res["checkpoint_ms"].append((time.monotonic() - t0) * 1000)

    qcp.Checkpoint.commit = timed_commit

    app = None

    def on_processed(topic, partition, offset):
        counter["events"] += 1
        nxt[partition] = offset + 1
        if partition in remaining and offset + 1 >= ends[partition]:
            remaining.discard(partition)
            if not remaining:
                app.stop()

    app = Application(
        broker_address=spec["bootstrap"],
        consumer_group=spec["group"],
        auto_offset_reset="earliest",
        processing_guarantee="exactly-once",
        commit_interval=spec["interval_ms"] / 1000,
        state_dir=os.path.join(spec["workdir"], "quix-state"),
        on_message_processed=on_processed,
        loglevel=logging.WARNING,
        auto_create_topics=True,
    )
    src = app.topic(spec["input"], value_deserializer="json", key_deserializer="str")
    out = app.topic(spec["output"], value_serializer="json", key_serializer="str")
    sdf = app.dataframe(src)

    def first(v):
        if res["t_first"] is None:
            res["t_first"] = time.time()

    sdf = sdf.update(first)
    if w == "Q0":
        pass
    elif w == "Q1":
        sdf = sdf.apply(lambda v: {**v, "price": v["price"] * 0.908})
    elif w == "FN":
        import re

        channel_id = re.compile(r"channel_id=([0-9]+)")

        def functions(v):
            m = channel_id.search(v["url"])
            return {**v, "channel": v["channel"].lower(), "url": m.group(1) if m else None,
                    "extra": v["extra"].upper(), "bid_minute": v["date_time"][:16]}

        sdf = sdf.apply(functions)
    elif w == "Q2":
        sdf = sdf.filter(lambda v: v["auction"] % 123 == 0)
        sdf = sdf.apply(lambda v: {"auction": v["auction"], "price": v["price"], "date_time": v["date_time"]})
    elif w == "AGG":

        def agg(v, state):
            cnt = state.get("cnt", 0) + 1
            mx = max(state.get("max_price", v["price"]), v["price"])
            last = max(state.get("last_ts", v["date_time"]), v["date_time"])
            state.set("cnt", cnt)
            state.set("max_price", mx)
            state.set("last_ts", last)
            return {"auction": v["auction"], "cnt": cnt, "max_price": mx, "last_ts": last}

        sdf = sdf.apply(agg, stateful=True)  # keyed by the message key = auction
    elif w == "WIN":
        from benchmarks.datagen import fmt_ts

        sdf = sdf.tumbling_window(duration_ms=10_000, grace_ms=1_000).count().final()
        sdf = sdf.apply(
            lambda r: {"window_start": fmt_ts(r["start"]), "window_end": fmt_ts(r["end"]), "cnt": r["value"]}
        )
    else:
        raise NotSupported(w)

    def count_out(v):
        counter["produced"] += 1

    sdf = sdf.update(count_out)
    sdf.to_topic(out)
    orig_assign = app._on_assign  # noqa: SLF001

    def on_assign(*a):
        orig_assign(*a)
        ready(spec)

    app._on_assign = on_assign  # noqa: SLF001
    try:
        app.run()
    finally:
        res["t_end"] = time.time()
        res["events"], res["produced"] = counter["events"], counter["produced"]
        res["changelog_topics"] = [t.name for t in app._topic_manager.changelog_topics_list]  # noqa: SLF001


def run_streamsql_baseline(spec: dict, res: dict) -> None:
    """StreamSQL as checked out in ``spec['streamsql_tree']`` (a before/after comparison in one run)."""
    sys.path.insert(0, spec["streamsql_tree"])
    run_streamsql(spec, res)
    import streamsql

    res["streamsql_file"] = streamsql.__file__


RUNNERS = {"raw": run_raw, "streamsql": run_streamsql, "streamsql-baseline": run_streamsql_baseline,
           "quix": run_quix}


def run_spec(argv: list[str], run, measure=None) -> None:
    """Run ``run(spec, res)`` for the spec file ``argv[0]``, write the result JSON and exit.

    ``measure(res)``, if given, runs last (after ``peak_rss``), before the result is written.
    """
    spec = json.loads(open(argv[0]).read())
    res: dict = {
        "contender": spec["contender"],
        "workload": spec["workload"],
        "t_first": None,
        "t_end": None,
        "t_start": time.time(),
        "events": 0,
        "produced": 0,
        "checkpoint_ms": [],
        "error": None,
        "not_supported": False,
    }
    code = 0
    try:
        run(spec, res)
    except NotSupported as e:
        res["error"], res["not_supported"] = str(e), True
        code = 3
    except BaseException as e:  # noqa: BLE001  (the harness reports it)
        res["error"] = f"{type(e).__name__}: {str(e)[:3000]}\n{traceback.format_exc()[-3000:]}"
        code = 1
    res["peak_rss"] = peak_rss_bytes()
    if measure is not None:
        measure(res)
    write_json(spec["result"], res)
    sys.stdout.flush()
    os._exit(code)  # no lingering non-daemon threads (librdkafka, job threads, Flink's gateway JVM)


def main(argv: list[str]) -> int:
    spec = json.loads(open(argv[0]).read())
    run_spec(argv, RUNNERS[spec["contender"]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Python UDFs written once for both engines: PyFlink 2.3 (scripts/flink_udf.py) and StreamSQL.

Only the base classes differ (PyFlink's when it is installed, else StreamSQL's, which have the
same method names); the SQL types are given where each engine registers the functions.
"""

try:  # the PyFlink run of these functions (scripts/flink_udf.py)
    from pyflink.table.udf import AggregateFunction, TableFunction
except ImportError:
    from streamsql.functions.udf import AggregateFunction, TableFunction


class WeightedAvg(AggregateFunction):
    """SUM(price * qty) // SUM(qty) over the rows with a price (None without one), with retraction."""

    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, value, weight):
        if value is not None:
            acc[0] += value * weight
            acc[1] += weight

    def retract(self, acc, value, weight):
        if value is not None:
            acc[0] -= value * weight
            acc[1] -= weight

    def merge(self, acc, accs):
        for other in accs:
            acc[0] += other[0]
            acc[1] += other[1]

    def get_value(self, acc):
        return None if acc[1] == 0 else acc[0] // acc[1]


class Words(TableFunction):
    """Each word of a line (split on white space) and its length."""

    def eval(self, line):
        for word in (line or "").split():
            yield word, len(word)


def initials(line):
    """The first letter of each word, one row per word (a generator function)."""
    for word in (line or "").split():
        yield word[0]


#: name -> the SQL run on both engines (``${DIR}``: this folder); the result is folded.
CASES = {
    "udaf_group_by_changelog": "SELECT shop, weighted_avg(price, qty) AS a, COUNT(*) AS n FROM items "
                               "GROUP BY shop",
    "udaf_over_group_by": "SELECT n, weighted_avg(n, n) AS a FROM (SELECT shop, COUNT(*) AS n FROM items "
                          "GROUP BY shop) GROUP BY n",
    "udaf_tumble": "SELECT k, window_start, weighted_avg(v, id) AS a FROM TABLE(TUMBLE(TABLE events, "
                   "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end",
    "udtf_cross": "SELECT id, word, n FROM lines, LATERAL TABLE(words(line)) AS T(word, n)",
    "udtf_left": "SELECT id, word, n FROM lines LEFT JOIN LATERAL TABLE(words(line)) AS T(word, n) ON TRUE",
    "udtf_generator_aggregated": "SELECT c, COUNT(*) AS n FROM lines, LATERAL TABLE(initials(line)) AS T(c) "
                                 "GROUP BY c",
    # the input's rowtime stays a time attribute through LATERAL TABLE (Flink's Correlate keeps it)
    "udtf_rowtime_temporal_join": "SELECT e.id, e.c, r.rate FROM (SELECT id, k, ts, c FROM events, "
                                  "LATERAL TABLE(initials(k)) AS T(c)) AS e "
                                  "JOIN rates FOR SYSTEM_TIME AS OF e.ts AS r ON e.k = r.k",
    "udtf_rowtime_group_window": "SELECT TUMBLE_START(ts, INTERVAL '10' SECOND) AS ws, c, COUNT(*) AS n "
                                 "FROM events, LATERAL TABLE(initials(k)) AS T(c) "
                                 "GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), c",
}

#: The tables of :data:`CASES` (``${DIR}``: this folder).
TABLES = [
    "CREATE TABLE items (id BIGINT, shop STRING, price BIGINT, qty BIGINT, PRIMARY KEY (id) NOT ENFORCED) "
    "WITH ('connector' = 'filesystem', 'path' = '${DIR}/items.jsonl', 'format' = 'debezium-json')",
    "CREATE TABLE lines (id INT, line STRING) WITH ('connector' = 'filesystem', "
    "'path' = '${DIR}/lines.jsonl', 'format' = 'json')",
    "CREATE TABLE events (id BIGINT, k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
    "'connector' = 'filesystem', 'path' = '${DIR}/events.jsonl', 'format' = 'json')",
    "CREATE TABLE rates (k STRING, rate BIGINT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, "
    "WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${DIR}/rates.jsonl', "
    "'format' = 'debezium-json')",
]

#: name -> (function, result type(s), kind) as both engines register them.
FUNCTIONS = {
    "weighted_avg": (WeightedAvg, "BIGINT", "aggregate"),
    "words": (Words, ["STRING", "INT"], "table"),
    "initials": (initials, ["STRING"], "table"),
}

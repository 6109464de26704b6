"""ARRAY_AGG(DISTINCT i) FILTER keeps one NULL, as Flink 2.3's streaming mode.

Flink's answer was printed by ``scripts/flink_array_agg_distinct_filter.py`` (streaming: the final
row ``3, [1, NULL, 4]``; its batch mode gives ``[NULL, NULL, 1, 4]``, which fuzz32 saw in a batch
conformance job and left open).
"""

from streamsql import StreamEnvironment

QUERY = ("SELECT CARDINALITY(ARRAY_AGG(DISTINCT i) FILTER (WHERE b IS NULL OR b > 6)) AS c, "
         "CAST(ARRAY_AGG(DISTINCT i) FILTER (WHERE b IS NULL OR b > 6) AS STRING) AS a FROM (VALUES (1, 7), "
         "(CAST(NULL AS INT), 8), (4, CAST(NULL AS INT)), (4, 9), (5, 1)) AS t(i, b)")


def test_distinct_filtered_array_agg_as_flink_streaming():
    with StreamEnvironment() as env:
        rows = [row for _, row in env.execute_sql(QUERY).collect()]
    assert rows[-1] == (3, "[1, NULL, 4]")

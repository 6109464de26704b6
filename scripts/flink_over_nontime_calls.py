"""Ask Apache Flink 2.3 which calls it runs in an OVER window ordered by a non-time column.

DISTINCT aggregates, LAG / LEAD, FIRST_VALUE / LAST_VALUE and ROW_NUMBER / RANK in an OVER
window ordered by a column that is no time attribute: this script runs each over the events of
``scripts/flink_over_changelog.py`` (same source, same recording: Flink's changelog, or its error)
and writes ``tests/runtime/over_nontime_calls_flink.json``, which
``tests/runtime/test_over_nontime_calls.py`` compares StreamSQL with (the same changelog, or a
refusal in Flink's words)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_over_nontime_calls.py [SCENARIO ...]
"""

from __future__ import annotations

import sys

import flink_over_changelog
from flink_over_changelog import CHANGELOG, CHANGES, EV, W_RANGE, W_ROWS
from flink_session import ROOT

OUT = ROOT / "tests" / "runtime" / "over_nontime_calls_flink.json"
W_DEFAULT = "WINDOW w AS (PARTITION BY k ORDER BY p)"

SCENARIOS = [
    {"name": "rows_count_distinct", "rows": EV,
     "query": f"SELECT id, k, p, COUNT(DISTINCT v) OVER ({W_ROWS}) FROM ev"},
    {"name": "range_sum_distinct", "rows": EV,
     "query": f"SELECT id, k, p, SUM(DISTINCT v) OVER ({W_RANGE}) FROM ev"},
    {"name": "rows_first_value", "rows": EV,
     "query": f"SELECT id, k, p, FIRST_VALUE(v) OVER ({W_ROWS}) FROM ev"},
    {"name": "rows_last_value", "rows": EV,
     "query": f"SELECT id, k, p, LAST_VALUE(v) OVER ({W_ROWS}) FROM ev"},
    {"name": "range_first_value", "rows": EV,
     "query": f"SELECT id, k, p, FIRST_VALUE(v) OVER ({W_RANGE}) FROM ev"},
    {"name": "lag", "rows": EV,
     "query": "SELECT id, k, p, LAG(v) OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "lead", "rows": EV,
     "query": "SELECT id, k, p, LEAD(v) OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "row_number", "rows": EV,
     "query": "SELECT id, k, p, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "rank", "rows": EV, "query": "SELECT id, k, p, RANK() OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "dense_rank", "rows": EV,
     "query": "SELECT id, k, p, DENSE_RANK() OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "rows_sum_distinct", "rows": EV,
     "query": f"SELECT id, k, p, SUM(DISTINCT v) OVER ({W_ROWS}) FROM ev"},
    {"name": "range_count_distinct", "rows": EV,
     "query": f"SELECT id, k, p, COUNT(DISTINCT v) OVER ({W_RANGE}) FROM ev"},
    {"name": "range_last_value", "rows": EV,
     "query": f"SELECT id, k, p, LAST_VALUE(v) OVER ({W_RANGE}) FROM ev"},
    {"name": "range_first_value_sum", "rows": EV,
     "query": f"SELECT id, k, p, FIRST_VALUE(v) OVER w, SUM(v) OVER w FROM ev WINDOW w AS ({W_RANGE})"},
    {"name": "row_number_no_partition", "rows": EV,
     "query": "SELECT id, k, p, ROW_NUMBER() OVER (ORDER BY p) FROM ev"},
    {"name": "changelog_range_first_value", "rows": CHANGES, **CHANGELOG,
     "query": f"SELECT id, k, p, FIRST_VALUE(v) OVER ({W_RANGE}) FROM ev"},
    # ROW_NUMBER's frame is ROWS (Calcite's), the others' RANGE: two windows, which Flink refuses
    {"name": "row_number_beside_sum", "rows": EV,
     "query": f"SELECT id, k, p, ROW_NUMBER() OVER w, SUM(v) OVER w FROM ev {W_DEFAULT}"},
    {"name": "row_number_beside_count", "rows": EV,
     "query": "SELECT id, k, p, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p), COUNT(*) OVER (PARTITION BY k "
              "ORDER BY p) FROM ev"},
    {"name": "row_number_beside_rank", "rows": EV,
     "query": f"SELECT id, k, p, ROW_NUMBER() OVER w, RANK() OVER w FROM ev {W_DEFAULT}"},
    {"name": "rank_beside_sum", "rows": EV,
     "query": f"SELECT id, k, p, RANK() OVER w, SUM(v) OVER w FROM ev {W_DEFAULT}"},
    {"name": "row_number_rows_frame", "rows": EV,
     "query": f"SELECT id, k, p, ROW_NUMBER() OVER w, SUM(v) OVER w FROM ev WINDOW w AS ({W_ROWS})"},
    # the same window: ROW_NUMBER's ROWS frame spelled out for the other call; the default frame spelled out
    {"name": "row_number_beside_rows_sum", "rows": EV,
     "query": f"SELECT id, k, p, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p), SUM(v) OVER ({W_ROWS}) "
              "FROM ev"},
    {"name": "default_beside_explicit_range", "rows": EV,
     "query": f"SELECT id, k, p, SUM(v) OVER (PARTITION BY k ORDER BY p), COUNT(*) OVER ({W_RANGE}) "
              "FROM ev"},
    {"name": "changelog_row_number", "rows": CHANGES, **CHANGELOG,
     "query": "SELECT id, k, p, ROW_NUMBER() OVER (PARTITION BY k ORDER BY p) FROM ev"},
]


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`.

    ``flink_over_changelog.main`` over this script's scenarios and file.
    """
    flink_over_changelog.SCENARIOS, flink_over_changelog.OUT = SCENARIOS, OUT
    return flink_over_changelog.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

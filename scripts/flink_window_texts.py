"""Record the ``window=[...]`` texts of Apache Flink 2.3's EXPLAIN for window aggregates (EXPLAIN only).

Each query of ``QUERIES`` (over ``scripts/flink_window_calcs.py``'s tables) is a TUMBLE, HOP,
CUMULATE or SESSION aggregate whose size, slide, step, gap or offset is a number of milliseconds,
seconds, minutes, hours or days that another unit divides or not (``INTERVAL '90' SECOND``,
``INTERVAL '1' DAY``), and SESSION aggregates with a PARTITION BY key with and without a Calc
pushed under the TVF. Flink spells a duration in the largest unit that divides it
(``TimeUtils.formatWithHighestUnit``: ``1 min``, ``90 s``, ``1500 ms``, ``1 d``). Written to
``tests/plan/window_texts_flink.json`` (query: texts, bottom first), which
``tests/plan/test_window_texts.py`` compares StreamSQL's EXPLAIN with. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_window_texts.py
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

_CALCS = Path(__file__).resolve().parent / "flink_window_calcs.py"
_spec = importlib.util.spec_from_file_location("flink_window_calcs", _CALCS)
calcs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calcs)  # its DDL and window_texts (PyFlink is imported in main only)

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "window_texts_flink.json"
G = "GROUP BY window_start, window_end"


def _agg(tvf: str) -> str:
    return f"SELECT window_start, window_end, COUNT(*) FROM TABLE({tvf}) {G}"


QUERIES = [
    *(_agg(f"TUMBLE(TABLE ev, DESCRIPTOR(ts), {size})") for size in (
        "INTERVAL '1' MINUTE", "INTERVAL '60' SECOND", "INTERVAL '90' SECOND", "INTERVAL '1.5' SECOND",
        "INTERVAL '0.25' SECOND", "INTERVAL '2' HOUR", "INTERVAL '90' MINUTE", "INTERVAL '60' MINUTE",
        "INTERVAL '36' HOUR", "INTERVAL '48' HOUR", "INTERVAL '1' DAY", "INTERVAL '61' SECOND")),
    _agg("TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY, INTERVAL '8' HOUR)"),
    _agg("TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '90' SECOND)"),
    _agg("HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE)"),
    _agg("HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '15' MINUTE, INTERVAL '1' HOUR)"),
    _agg("HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '0.5' SECOND, INTERVAL '2' SECOND)"),
    _agg("CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' HOUR, INTERVAL '1' DAY)"),
    _agg("CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '2' MINUTE)"),
    _agg("SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' MINUTE)"),
    _agg("SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '99' SECOND)"),
    _agg("SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '1.5' SECOND)"),
    "SELECT k, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE ev PARTITION BY k, "
    "DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end",
    "SELECT k, window_start, window_end, COUNT(*) FROM (SELECT * FROM TABLE(SESSION(TABLE ev PARTITION BY k, "
    "DESCRIPTOR(ts), INTERVAL '2' MINUTE)) WHERE v > 0) GROUP BY k, window_start, window_end",
]


def main() -> None:
    """EXPLAIN every query on Flink 2.3 and write its ``window=[...]`` texts."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    for st in calcs.DDL:
        tenv.execute_sql(st)
    texts = {}
    for q in QUERIES:
        try:
            texts[q] = calcs.window_texts(tenv.explain_sql(q))
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            texts[q] = "error: " + calcs.refusal(str(e))
    OUT.write_text(json.dumps(texts, indent=1) + "\n")


if __name__ == "__main__":
    main()

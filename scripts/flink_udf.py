"""Run the Python UDF cases of tests/functions/udf_flink on Apache Flink 2.3 and record the results.

The functions (tests/functions/udf_flink/udfs.py) are written once against PyFlink's API; this
script registers them on PyFlink (``udaf`` / ``udtf`` with ``DataTypes``), runs each case in
streaming mode (parallelism 1, UTC), folds the changelog into the final table and writes
``tests/functions/udf_flink/expected.json`` (``{case: {"rows": [...]}}``, values as text, or
``{"flink_error": ...}``). ``tests/functions/test_udf_flink.py`` runs the same cases here and
compares. Regenerate (serialized with the other Flink users)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_udf.py
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "tests" / "functions" / "udf_flink"
sys.path.insert(0, str(HERE))

import udfs  # noqa: E402  (after the path: the cases' module)
from pyflink.table import DataTypes, EnvironmentSettings, TableEnvironment  # noqa: E402
from pyflink.table.udf import udaf, udtf  # noqa: E402

_TYPES = {"BIGINT": DataTypes.BIGINT(), "STRING": DataTypes.STRING(), "INT": DataTypes.INT()}


def main() -> int:
    """Run every case; write expected.json."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("table.local-time-zone", "UTC")
    for name, (fn, types, kind) in udfs.FUNCTIONS.items():
        obj = fn() if isinstance(fn, type) else fn
        if kind == "aggregate":
            # PyFlink needs the accumulator's type: the functions' accumulators are lists of BIGINT
            t_env.create_temporary_function(name, udaf(obj, result_type=_TYPES[types],
                                                       accumulator_type=DataTypes.ARRAY(DataTypes.BIGINT())))
        else:
            t_env.create_temporary_function(name, udtf(obj, result_types=[_TYPES[t] for t in types]))
    for ddl in udfs.TABLES:
        t_env.execute_sql(ddl.replace("${DIR}", str(HERE)))
    out = {}
    for case, sql in udfs.CASES.items():
        try:
            final: collections.Counter = collections.Counter()
            with t_env.execute_sql(sql).collect() as rows:
                for r in rows:
                    row = tuple(None if v is None else str(v) for v in r)
                    final[row] += 1 if r.get_row_kind().value in (0, 2) else -1  # +I, +U (else -U, -D)
            out[case] = {"rows": sorted((list(r) for r, n in final.items() for _ in range(n)), key=str)}
        except Exception as e:  # a case Flink refuses is recorded as such
            out[case] = {"flink_error": str(e).split("\n")[0][:500]}
        print(case, json.dumps(out[case])[:300], flush=True)
    (HERE / "expected.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Flink 2.3's ARRAY_AGG(DISTINCT i) FILTER over a NULL, in streaming and batch mode (session 32).

Streaming ends with ``3, [1, NULL, 4]`` (``tests/functions/test_array_agg_distinct_filter.py`` holds
it); batch gives ``4, [NULL, NULL, 1, 4]`` (its plan's distinct expansion; not followed: StreamSQL is
a streaming engine). Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_array_agg_distinct_filter.py
"""

import ast
from pathlib import Path

TEST = Path(__file__).resolve().parent.parent / "tests" / "functions" / "test_array_agg_distinct_filter.py"
#: the test's query, read from its source (this runs in PyFlink's venv, without StreamSQL)
QUERY = next(ast.literal_eval(node.value) for node in ast.parse(TEST.read_text()).body
             if isinstance(node, ast.Assign) and node.targets[0].id == "QUERY")


def main() -> None:
    """Print Flink's changelog of :data:`QUERY` in each mode (PyFlink cannot collect an ARRAY with a NULL)."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    for mode, settings in (("stream", EnvironmentSettings.in_streaming_mode()),
                           ("batch", EnvironmentSettings.in_batch_mode())):
        tenv = TableEnvironment.create(settings)
        tenv.get_config().set("parallelism.default", "1")
        with tenv.execute_sql(QUERY).collect() as it:
            print(mode, [(str(r.get_row_kind()), list(r)) for r in it])


if __name__ == "__main__":
    main()

"""Run queries in this process, pandas importable or not; print each one's folded rows as JSON.

``python -m tests.functions.nanos_state_run {pandas|no-pandas} BACKEND < input.json``: with
``no-pandas`` a ``sys.meta_path`` finder makes ``import pandas`` fail (as in a process without
pandas installed) before anything is imported. The input is ``{"queries": [...], "lines": [...],
"ddl": "..."}``: ``lines`` are written to a json file whose path ``ddl`` (a CREATE TABLE) takes as
``{path}``. Each query's answer is :func:`text_rows`' rows (``[[value, ...], count]``) or
``{"error": text}``. Run by ``test_timestamp_precision.py`` in a subprocess, since pyarrow imports
pandas once for the whole process.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path


class _NoPandas:
    """A meta path finder that makes ``import pandas`` fail as if it were not installed."""

    def find_spec(self, name, path=None, target=None):  # noqa: ARG002 - the finder protocol
        if name == "pandas" or name.startswith("pandas."):
            msg = f"No module named {name!r} (blocked by the test)"
            raise ModuleNotFoundError(msg)


def main() -> int:
    """Run the queries of stdin; print the answers and whether pandas got loaded."""
    if sys.argv[1] == "no-pandas":
        sys.meta_path.insert(0, _NoPandas())
    else:  # an embedding app that uses pandas: pyarrow would hand over pandas.Timestamp values
        import pandas  # noqa: F401
    from streamsql.core.errors import StreamSQLError
    from tests.runtime.oracle import make_env, text_rows

    answers = {}
    job = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as d:
        env = make_env(Path(d), backend=sys.argv[2], settings={"table.local-time-zone": "UTC"})
        try:
            if job.get("ddl"):
                (Path(d) / "t.json").write_text("\n".join(job["lines"]) + "\n")
                env.execute_sql(job["ddl"].format(path=Path(d) / "t.json"))
            for q in job["queries"]:
                try:
                    answers[q] = {"rows": [[list(r), n] for r, n in text_rows(env, q).items()]}
                except StreamSQLError as e:
                    answers[q] = {"error": str(e)}
        finally:
            env.close()
    json.dump({"answers": answers, "pandas": "pandas" in sys.modules}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

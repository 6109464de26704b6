"""The table ``t`` of a Flink recording's ``records`` (JSON lines) and ``columns``, in an environment.

Shared by the tests that replay a recording of queries over one filesystem ``json`` table
(``nan_equal_flink.json``, ``nan_not_flink.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from streamsql import StreamEnvironment


def recorded_table_env(folder: Path, recording: dict) -> Iterator[StreamEnvironment]:
    """Yield an environment with table ``t`` holding ``recording["records"]``; closed afterwards."""
    path = folder / "t.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in recording["records"]))
    e = StreamEnvironment({"state.dir": str(folder / "s"), "execution.checkpointing.dir": str(folder / "c")})
    e.execute_sql(f"CREATE TABLE t ({recording['columns']}) WITH ('connector' = 'filesystem', "
                  f"'path' = '{path}', 'format' = 'json')")
    yield e
    e.close()

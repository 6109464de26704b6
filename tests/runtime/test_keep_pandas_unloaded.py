"""pyarrow does not import pandas for a job's own checks (runtime/memory.keep_pandas_unloaded).

Process-wide and once per process, so every case runs in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pandas")

JOB = """
import sys
from streamsql import StreamEnvironment
env = StreamEnvironment({settings})
env.execute_sql("CREATE TABLE t (k BIGINT, v BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', "
                "'number-of-rows' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '50')")
# read to the end: the job's threads end before the interpreter does
rows = list(env.execute_sql("SELECT k, COUNT(*), MAX(v), MAX(ts) FROM t GROUP BY k").collect())
assert rows, rows
print("pandas after the job:", "pandas" in sys.modules)
"""


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_job_does_not_import_pandas_and_pandas_imported_later_converts_as_its_own():
    out = _run(JOB.format(settings="") + """
import importlib.resources
import pyarrow as pa
import pandas as pd
assert pa.array(pd.Series([1.0, None])).null_count == 1  # pandas' NaN-as-null, as without the hook
assert pa.types.is_dictionary(pa.array(pd.Categorical(["a", "b"])).type)
assert importlib.resources.files("pandas").is_dir()  # the loader is still pandas' own
df = pa.Table.from_pandas(pd.DataFrame({"a": [1, 2], "b": ["x", None]})).to_pandas()
assert df["a"].tolist() == [1, 2] and df["b"].isna().tolist() == [False, True], df
print("ok")
""")
    assert "pandas after the job: False" in out
    assert out.rstrip().endswith("ok")


def test_switched_off_pyarrow_imports_pandas():
    out = _run(JOB.format(settings="{'streamsql.exec.memory.keep-pandas-unloaded': 'false'}"))
    assert "pandas after the job: True" in out


def test_pandas_imported_first_is_left_alone():
    out = _run("""
import pandas as pd
import pyarrow as pa
from streamsql.runtime.memory import keep_pandas_unloaded
assert keep_pandas_unloaded() is False
assert pa.array([pd.Timedelta(1), None], pa.duration("ns")).to_pylist()[0].value == 1  # pandas' scalars
print("ok")
""")
    assert out.rstrip().endswith("ok")

"""The examples of docs/udf.md run as they are written (each ```python block alone)."""

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "udf.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)


def test_the_doc_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS, ids=[f"example{i + 1}" for i in range(len(BLOCKS))])
def test_example_runs(code):
    exec(compile(code, f"{DOC.name} example", "exec"), {"__name__": "udf_doc_example"})

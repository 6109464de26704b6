"""docs/functions.md is generated from the registry: it must be current."""

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_functions_doc_is_current():
    render = runpy.run_path(str(ROOT / "scripts" / "functions_doc.py"))["render"]
    doc = (ROOT / "docs" / "functions.md").read_text()
    assert doc == render(), "docs/functions.md is stale: run python scripts/functions_doc.py"

"""TRY_PARSE_JSON at the edges of Jackson's grammar, against Apache Flink 2.3's answers.

``variant_text_flink.json`` is written by ``scripts/flink_variant_text.py``: per text the line
Flink's ``print`` sink wrote for ``SELECT k, TRY_PARSE_JSON(s)``. Python's JSON reader stops
before what Jackson refuses after a root-level number or literal (``01``, ``1.``, ``1x``,
``truex``: a value here, NULL in Flink), its recursion limit is not Jackson's nesting limit
(1000 levels read, 1001 not), and a lone surrogate is ``?`` in Flink's UTF-8 variant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.functions.scalars.variant import VariantError, parse
from tests.functions.test_variant import continued

ORACLE = json.loads((Path(__file__).parent / "variant_text_flink.json").read_text(encoding="utf-8"))


def test_try_parse_json_is_flinks(tmp_path, capsys):
    src = tmp_path / "src.json"
    src.write_text("".join(json.dumps({"k": k, "s": s}) + "\n" for k, s in enumerate(ORACLE["texts"])),
                   "utf-8")
    config = {"execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "st"),
              "restart-strategy.type": "none"}
    with StreamEnvironment(config) as env:
        env.execute_sql(f"CREATE TABLE src (k INT, s STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{src}', 'format' = 'json')")
        env.execute_sql("CREATE TABLE sink (k INT, v VARIANT) WITH ('connector' = 'print')")
        capsys.readouterr()
        env.execute_sql(f"INSERT INTO sink {ORACLE['query']}").wait()
        lines = continued([ln for ln in capsys.readouterr().out.splitlines() if not ln.startswith("[INFO]")])
    assert sorted(lines) == sorted(ORACLE["lines"])


@pytest.mark.parametrize("text", ["01", "1x", "truex", "1.", "[" * 1001 + "]" * 1001])
def test_parse_json_fails_as_flink(text):
    with pytest.raises(VariantError, match="Failed to parse json string"):
        parse(text)

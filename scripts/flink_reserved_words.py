"""Write ``streamsql/sql/reserved.py``: the reserved words of Apache Flink 2.3's SQL parser.

Compiles and runs a small Java program against PyFlink's jars (the parser sits inside
``flink-table-planner-loader``'s ``flink-table-planner.jar``): every token of
``FlinkSqlParserImpl``'s metadata that ``isReservedWord``. No mini-cluster starts, so it needs no
lock; it needs ``javac``::

    python scripts/flink_reserved_words.py [/work/flinkvenv]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "streamsql" / "sql" / "reserved.py"
JAVA = """
import java.io.StringReader;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
public class Reserved {
  public static void main(String[] a) {
    SqlAbstractParserImpl.Metadata md =
        FlinkSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String t : md.getTokens()) if (md.isReservedWord(t)) out.add(t);
    java.util.Collections.sort(out);
    System.out.println(String.join(" ", out));
  }
}
"""
HEADER = '''"""The reserved words of Apache Flink 2.3's SQL parser: unquoted, none of them names a column.

Read from Flink's own parser (``FlinkSqlParserImpl``'s metadata: every token it cannot take as an
identifier) by ``scripts/flink_reserved_words.py``, which writes this module; never edited by hand.
``CREATE TABLE w (year INT)`` fails in Flink with ``SQL parse failed. Encountered "year" at line 1,
column 17.``; write ```year``` (``tests/e2e/test_ddl_flink.py`` checks 77 words against Flink).
"""

from __future__ import annotations

'''


def run_java(source: str, name: str, args: list[str], venv: Path) -> str:
    """Compile Java class ``name`` from ``source`` against Flink's parser and run it; its stdout."""
    lib = next(venv.glob("lib/python*/site-packages/pyflink/lib"))
    with tempfile.TemporaryDirectory() as tmp:
        loader = next(lib.glob("flink-table-planner-loader-*.jar"))
        with zipfile.ZipFile(loader) as z:
            z.extract("flink-table-planner.jar", tmp)
        jars = [Path(tmp) / "flink-table-planner.jar", *lib.glob("flink-table-api-java-uber-*.jar"),
                *lib.glob("flink-dist-*.jar"), *lib.glob("flink-table-runtime-*.jar")]
        cp = ":".join(str(j) for j in jars)
        (Path(tmp) / f"{name}.java").write_text(source)
        subprocess.run(["javac", "-cp", cp, f"{name}.java"], cwd=tmp, check=True)
        return subprocess.run(["java", "-cp", f"{cp}:.", name, *args], cwd=tmp, check=True,
                              capture_output=True, text=True).stdout


def main(argv: list[str]) -> int:
    """Read the words from Flink's parser and write :data:`OUT`."""
    words = run_java(JAVA, "Reserved", [], Path(argv[0] if argv else "/work/flinkvenv")).split()
    body = textwrap.fill(" ".join(words), width=100)
    table = f'RESERVED = frozenset("""\n{body}\n""".split())\n'
    OUT.write_text(HEADER + f"#: Upper-case words, {len(words)} of them.\n" + table)
    print(f"wrote {OUT}: {len(words)} words")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

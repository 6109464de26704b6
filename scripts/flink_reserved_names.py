"""Record which statements Apache Flink 2.3's SQL parser refuses for a reserved word used as a name.

Flink's parser takes no reserved word (``streamsql/sql/reserved.py``) as a name unless it is
backquoted, in queries as in DDL: ``SELECT value FROM t``, ``SELECT a AS year``, ``INSERT INTO
out``. A few are values where a column could stand (``SELECT user FROM t``, ``current_date``).
Each statement of :data:`TEMPLATES` x :data:`WORDS` is parsed by ``FlinkSqlParserImpl`` (as
Flink's ``SqlParser`` config: Java lexing, Flink's conformance; no mini-cluster, so no lock),
and the answer (``OK`` or the first line of its error) written to
``tests/sql/reserved_names_flink.json``, read by ``tests/sql/test_reserved_names.py``::

    python scripts/flink_reserved_names.py [/work/flinkvenv]   # needs javac
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_reserved_words import run_java  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "sql" / "reserved_names_flink.json"
#: Places of a name; ``{w}`` is the word.
TEMPLATES = [
    "SELECT {w} FROM t", "SELECT a AS {w} FROM t", "SELECT a {w} FROM t", "SELECT a FROM {w}",
    "SELECT a FROM t AS {w}", "SELECT x.{w} FROM t AS x", "SELECT {w}.a FROM t AS x",
    "CREATE VIEW {w} AS SELECT a FROM t", "WITH {w} AS (SELECT a FROM t) SELECT a FROM t",
    "SELECT a FROM t WHERE {w} = 1", "SELECT a FROM t GROUP BY {w}", "SELECT a FROM t ORDER BY {w}",
    "SELECT COUNT({w}) FROM t", "INSERT INTO {w} SELECT a FROM t", "CREATE TABLE {w} (a INT)",
    "SELECT a\nFROM t\nWHERE {w} > 1",
]
#: Reserved words people write as names (``out``, ``value``, ``year`` ...), some Flink reads as
#: values (``user``, ``current_date``, ``default`` in a call), and non-reserved words (``name``,
#: ``data``, ``key``, ``status``, ``type``, ``level`` ...) that stay names.
WORDS = ["value", "year", "out", "timestamp", "count", "raw", "day", "at", "groups", "one", "user",
         "current_date", "default", "upper", "window", "system_time", "result", "language", "rank",
         "comment", "name", "data", "key", "status", "type", "level", "hour_of_day", "total",
         "current_user", "session_user", "localtime", "current_catalog"]
JAVA = r"""
import java.nio.file.*;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.config.Lex;
public class Parse {
  public static void main(String[] a) throws Exception {
    SqlParser.Config cfg = SqlParser.config().withParserFactory(FlinkSqlParserImpl.FACTORY)
        .withLex(Lex.JAVA).withConformance(FlinkSqlConformance.DEFAULT).withIdentifierMaxLength(256);
    for (String line : Files.readAllLines(Paths.get(a[0]))) {
      String sql = line.replace("\\n", "\n");
      String res;
      try { SqlParser.create(sql, cfg).parseStmtList(); res = "OK"; }
      catch (Exception e) {
        String m = e.getMessage(); int i = m.indexOf('\n'); res = i > 0 ? m.substring(0, i) : m;
      }
      System.out.println(res);
    }
  }
}
"""


def main(argv: list[str]) -> int:
    """Parse every statement with Flink's parser and write :data:`OUT`."""
    statements = [t.format(w=w) for w in WORDS for t in TEMPLATES]
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(s.replace("\n", "\\n") for s in statements) + "\n")
        f.flush()
        answers = run_java(JAVA, "Parse", [f.name], Path(argv[0] if argv else "/work/flinkvenv")).splitlines()
    doc = {"about": "scripts/flink_reserved_names.py: FlinkSqlParserImpl of Flink 2.3",
           "statements": [{"sql": s, "flink": a} for s, a in zip(statements, answers, strict=True)]}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT}: {len(statements)} statements, {sum(a == 'OK' for a in answers)} parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Record Apache Flink 2.3's answers for maps holding a NULL key (session 34).

A NULL key comes from ``MAP[...]`` (a literal or a nullable column), ``MAP_FROM_ARRAYS`` and
``STR_TO_MAP``; each script asks what Flink does with such a map: the value collected and
printed (``TableResult.print()``, the tableau the SQL client shows), ``CAST(m AS STRING)``,
``CARDINALITY``, access by key (``m[NULL]``), ``MAP_KEYS`` / ``MAP_VALUES`` / ``MAP_ENTRIES``,
``GROUP BY`` a map column, a ``print`` sink, and the ``json`` format: a filesystem sink in each
``'json.map-null-key.mode'`` and a JSON source whose object has a ``"null"`` key.

Runs as ``scripts/flink_funcs33.py`` runs its scripts (its ``_script``: a fresh streaming
TableEnvironment, zone UTC, parallelism 1; a statement led by ``PRINT `` is printed with
``TableResult.print()``; an INSERT INTO ``p`` records the print sink's lines, into ``s_NAME`` the
files written under ``${DIR}/NAME``). Writes ``tests/functions/map_null_keys_flink.json``, which
``tests/functions/test_map_null_keys.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_map_null_keys.py [SCRIPT ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "functions" / "map_null_keys_flink.json"
sys.path.insert(0, str(ROOT / "scripts"))
from flink_compat import Capture  # noqa: E402  (the JVM's stdout)
from flink_funcs33 import _script  # noqa: E402  (the same runner, PRINT included)
from flink_session import record_scripts  # noqa: E402

LIT = "MAP[CAST(NULL AS STRING), 1, 'a', 2]"
ARRAYS = "MAP_FROM_ARRAYS(ARRAY[CAST(NULL AS STRING), 'b'], ARRAY[1, 2])"
# a nullable key column: rows whose key is NULL, one whose map has no NULL key
V = ("CREATE TEMPORARY VIEW v AS SELECT id, MAP[k, x] AS m FROM (VALUES (1, CAST(NULL AS STRING), 10), "
     "(2, 'a', 20), (3, CAST(NULL AS STRING), 10), (4, CAST(NULL AS STRING), 30)) AS t(id, k, x)")


def _probes(m: str) -> list[str]:
    """What is asked of the map expression ``m``."""
    return [
        f"SELECT {m} AS m",
        f"PRINT SELECT {m} AS m",
        f"SELECT CAST({m} AS STRING) AS s, CARDINALITY({m}) AS n",
        f"SELECT ({m})[CAST(NULL AS STRING)] AS at_null, ({m})['a'] AS at_a, ({m})['b'] AS at_b",
        f"SELECT MAP_KEYS({m}) AS k, MAP_VALUES({m}) AS v",
        f"SELECT CAST(MAP_ENTRIES({m}) AS STRING) AS e",
    ]


def _sink(name: str, options: str = "") -> str:
    return (f"CREATE TABLE s_{name} (id INT, m MAP<STRING, INT>) WITH ('connector' = 'filesystem', "
            f"'path' = '${{DIR}}/{name}', 'format' = 'json'{options})")


JSRC = ("CREATE TABLE jsrc (id INT, ms MAP<STRING, INT>, mi MAP<INT, INT>) WITH ("
        "'connector' = 'filesystem', 'path' = '${DIR}/jsrc.json', 'format' = 'json')")
JSRC_ROWS = ['{"id": 1, "ms": {"null": 1, "a": 2}}', '{"id": 2, "mi": {"null": 1, "2": 3}}',
             '{"id": 3, "ms": {"": 4}}']

SCRIPTS = {
    "literal": _probes(LIT),
    "from_arrays": _probes(ARRAYS),
    "str_to_map": [
        "SELECT STR_TO_MAP('a=1,b') AS m, STR_TO_MAP('=1,a=2') AS n",
        "SELECT CARDINALITY(STR_TO_MAP('=1,a=2')) AS n, STR_TO_MAP('=1,a=2')[''] AS at_empty",
    ],
    "column": [
        V,
        "SELECT id, m FROM v",
        "PRINT SELECT id, m FROM v",
        "SELECT id, CARDINALITY(m) AS n, m[CAST(NULL AS STRING)] AS at_null, CAST(m AS STRING) AS s FROM v",
        "SELECT m, COUNT(*) AS c FROM v GROUP BY m",
        "SELECT CAST(m AS STRING) AS s, COUNT(*) AS c FROM v GROUP BY m",
        "CREATE TABLE p (id INT, m MAP<STRING, INT>) WITH ('connector' = 'print')",
        "INSERT INTO p SELECT id, m FROM v",
    ],
    "json_sink": [
        V,
        _sink("fail"),
        "INSERT INTO s_fail SELECT id, m FROM v",
        _sink("drop", ", 'json.map-null-key.mode' = 'DROP'"),
        "INSERT INTO s_drop SELECT id, m FROM v",
        _sink("literal", ", 'json.map-null-key.mode' = 'LITERAL', 'json.map-null-key.literal' = 'nul'"),
        "INSERT INTO s_literal SELECT id, m FROM v",
        _sink("deflit", ", 'json.map-null-key.mode' = 'LITERAL'"),
        "INSERT INTO s_deflit SELECT id, m FROM v",
    ],
    "json_source": [
        JSRC,
        "SELECT id, ms, mi FROM jsrc",
        "SELECT id, CARDINALITY(ms) AS n, ms['null'] AS at_text FROM jsrc",
    ],
}


def main(argv: list[str]) -> None:
    """Run the named scripts (default: all) and write their answers to :data:`OUT`."""
    record_scripts(OUT, SCRIPTS, argv, _script, Capture(), label="flink_map_null_keys",
                   prepare=lambda folder: (folder / "jsrc.json").write_text("\n".join(JSRC_ROWS) + "\n"))


if __name__ == "__main__":
    main(sys.argv[1:])

"""The grid of JSON path cases Flink 2.3 answered (``scripts/flink_json_paths.py`` records them).

Shared by the recorder (PyFlink's venv imports it by path) and ``test_json_paths.py`` (the replay):
two input tables, ``jdocs`` (``id``, ``doc``: every document once) and ``jgrid`` (``id``, ``doc``,
``p``: every document with every path text, the path a column), and the expressions over them.
"""

from __future__ import annotations

import json

DOCS = [
    '{"a":[{"b":1},{"b":2}],"x":"y"}',     # many matches
    '{"a":[{"b":1}]}',                     # one match
    '{"a":[]}',                            # no match
    '{"a":[{"c":1},{"b":[1,2]}]}',         # a member missing in one element, an array in another
    "[1,2,3]",
    "[[1,2],[3]]",
    '{"a b":5,"x":"q"}',
    '{"a":{"b":1,"c":2}}',
    '{"a":[{"b":null},{"b":3}]}',
    "not json",
    '{"a":[1,[2,3]]}',
    "{}",
    '{"a":"s"}',
    None,
]

BASES = ["$", "$.a", "$.a[*]", "$.a[*].b", "$[*]", "$.*", '$."a b"', "$.'x'", "$['a b']", "$.a[0].b",
         "$..b", "$.a[0,1]", "$.a[0:1]", "$.a[*][*]", "$.a.*", "$.x", "$.a[-1:]", "$.a[:1]", "$..b[0]",
         "$.a[*].b[*]", "$[-2:-1]", "$.a[5,0]"]
INVALID = ["$.", "$[", "a", "", "$a", "lax", "strict $.a[", "$.a[*]x", "$..", "$['a'", "lax $.a b", "$.a[x]"]
PATHS = [p for b in BASES for p in (b, "lax " + b, "strict " + b)] + INVALID + [None]

# Expressions over ``jgrid`` (the path is the column p); their answers are per row.
_P = "p"
GRID_EXPRS = [
    f"JSON_VALUE(doc, {_P})",
    f"JSON_VALUE(doc, {_P} DEFAULT 'E' ON EMPTY DEFAULT 'R' ON ERROR)",
    f"JSON_VALUE(doc, {_P} RETURNING INT DEFAULT -1 ON EMPTY DEFAULT -2 ON ERROR)",
    f"JSON_QUERY(doc, {_P})",
    f"JSON_QUERY(doc, {_P} WITH CONDITIONAL ARRAY WRAPPER)",
    f"JSON_QUERY(doc, {_P} WITH UNCONDITIONAL ARRAY WRAPPER)",
    f"JSON_QUERY(doc, {_P} EMPTY ARRAY ON EMPTY EMPTY OBJECT ON ERROR)",
    f"JSON_QUERY(doc, {_P} RETURNING ARRAY<STRING>)",
    f"JSON_QUERY(doc, {_P} RETURNING ARRAY<STRING> WITH UNCONDITIONAL ARRAY WRAPPER)",
    f"JSON_EXISTS(doc, {_P})",
    f"JSON_EXISTS(doc, {_P} TRUE ON ERROR)",
    f"JSON_EXISTS(doc, {_P} UNKNOWN ON ERROR)",
]

# Expressions over ``jdocs`` with a literal path (planning may refuse them).
_LITERALS = ["$.a[*]", "lax $.a[*].b", "strict $.a[*].b", "$[*]", "lax $.*", '$."a b"', "lax $.'x'",
             "$..b", "$.", "a", "$[", "lax $.a[0:1]", "lax $.a[0,1]"]
DOC_EXPRS = [e for lit in _LITERALS for e in (
    f"JSON_VALUE(doc, '{lit.replace(chr(39), chr(39) * 2)}')",
    f"JSON_QUERY(doc, '{lit.replace(chr(39), chr(39) * 2)}' WITH CONDITIONAL ARRAY WRAPPER)",
    f"JSON_EXISTS(doc, '{lit.replace(chr(39), chr(39) * 2)}')")]
# Flink 2.3's code generator takes JSON_EXISTS's path as a literal only: every path text of the grid
DOC_EXPRS += [f"JSON_EXISTS(doc, '{p.replace(chr(39), chr(39) * 2)}'{tail})" for p in PATHS if p is not None
              for tail in ("", " TRUE ON ERROR")]
DOC_EXPRS = list(dict.fromkeys(DOC_EXPRS))


def grid_rows() -> list[tuple]:
    """``jgrid``'s rows: (id, doc, p), every document with every path."""
    return [(n * 1000 + m, d, p) for n, d in enumerate(DOCS) for m, p in enumerate(PATHS)]


def doc_rows() -> list[tuple]:
    """``jdocs``' rows: (id, doc)."""
    return list(enumerate(DOCS))


def json_lines(rows: list[tuple], names: tuple[str, ...]) -> str:
    """Rows as JSON lines (the ``json`` format's input)."""
    return "".join(json.dumps(dict(zip(names, r)), ensure_ascii=False) + "\n" for r in rows)


def ddl(table: str, path: str) -> str:
    """CREATE TABLE of ``jgrid`` or ``jdocs`` over the JSON-lines file ``path``."""
    cols = "id INT, doc STRING, p STRING" if table == "jgrid" else "id INT, doc STRING"
    return (f"CREATE TABLE {table} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
            "'format' = 'json')")

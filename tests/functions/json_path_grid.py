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


# The filter / function grid (jsonfilter29): Jayway's filters ``[?(...)]``, functions ``.f()`` and
# several bracketed members ``['a','b']``, over documents with ints, decimals, big numbers, strings,
# booleans, nulls, nested arrays and objects and missing members; tables ``jfgrid`` (``id``,
# ``fdoc``, ``fp``: the path a column) and ``jfdocs`` (``id``, ``fdoc``: literal paths).
FDOCS = [
    '{"items":[{"name":"a","price":5,"tag":"x","n":1},{"name":"b","price":12.5,"tag":"y","n":3,'
    '"tags":["x","z"]},{"name":"c","price":20,"tag":"x","n":2,"opt":true,"tags":[]}],'
    '"nums":[3,1.5,7,10000000000],"s":"hello","o":{"k2":"v","k1":1}}',
    '{"items":[{"name":"d","price":null,"tag":null},{"price":"15","tag":"z","opt":false},'
    '{"name":"e","price":11,"n":2.0,"tags":["x","y"]}],"nums":[],"s":"","o":{}}',
    '{"items":[{"name":"f","price":12345678901234567890},{"name":"g","price":1.5E+300,"tag":"xx"}],'
    '"nums":[2,2.50,-1],"s":"a\\"b","o":{"k1":[1,2],"k3":null}}',
    '{"nums":[1,2,3,4],"strs":["b","a","c"],"mixed":[1,"2",true,null,{"a":1},[1]],'
    '"items":{"name":"h","price":30}}',
    '[{"a":1,"b":2},{"a":3},{"b":4},5]',
    '{"items":[[1,2],{"name":"i","price":11}],"nums":"123","s":5,"strs":["x",1]}',
    '{"nums":[true,false],"strs":[],"s":null,"o":[1]}',
    "not json",
    "{}",
    None,
]
FILTERS = [
    "$.items[?(@.price > 10)].name", "$.items[?(@.price > 10)]", "$.items[?(@.price >= 12.5)].price",
    "$.items[?(@.tag == 'x' && @.n >= 2)].name", "$.items[?(@.tag == 'x' || @.n == 3)].name",
    "$.items[?(@.opt)].name", "$.items[?(!@.opt)].name", "$.items[?(@.price == null)].name",
    "$.items[?(@.price != 5)].name", "$.items[?(@.price == '15')].tag", '$.items[?(@.tag == "x")].n',
    "$.items[?(@.name =~ /[a-c]/)].name", "$.items[?(@.name =~ /A/i)].price",
    "$.items[?(@.tag in ['x','z'])].name", "$.items[?(@.tag nin ['x'])].name",
    "$.items[?(@.tags subsetof ['x','y','z'])].name", "$.items[?(@.tags anyof ['z'])].name",
    "$.items[?(@.tags noneof ['z'])].name", "$.items[?(@.tags size 2)].name",
    "$.items[?(@.name size 1)].price", "$.items[?(@.tags empty true)].name",
    "$.items[?(@.tags empty false)].name", "$.items[?(@.tags contains 'x')].name",
    "$.items[?(@.price > $.nums[0])].name", "$.items[?(@.price > 10 && @.price < 20)].name",
    "$.items[?(@.price<10)].name", "$.items[?(@['name'] == 'a')].price", "$.items[?(@.n == 2)].name",
    "$.items[?((@.n == 1 || @.n == 3) && @.tag)].name", "$.items[?(!(@.n == 1))].name",
    "$.nums[?(@ > 2)]", "$.strs[?(@ < 'c')]", "$.mixed[?(@ == 1)]", "$[?(@.a)]", "$[?(@.a > 1)].a",
    "$..[?(@.price > 10)].name", "$.items[?(@.price > 10)].name.length()",
    "$.items[?(@.price > 10]", "$.items[?(@.price >> 10)]", "$.items[?()]",
]
FUNCTIONS = [
    "$.nums.length()", "$.nums.size()", "$.nums.min()", "$.nums.max()", "$.nums.avg()", "$.nums.sum()",
    "$.nums.stddev()", "$.o.keys()", "$.nums.first()", "$.nums.last()", "$.nums.index(1)",
    "$.nums.index(-1)", "$.s.length()", "$.strs.concat()", "$.s.concat('!', 'x')", "$.nums.append(5)",
    "$.items[*].price.sum()", "$.items.length()", "$..price.max()", "$.length()", "$.nums.foo()",
    "$.nums.min().x", "$.strs.first()", "$.o.length()", "$.nums.sum(1)", "$.min(1, 2.5)",
    "$.o['k1','k2']", "$.items[*]['name','price']", "$['nums','s']", "$.items[0]['name','missing']",
]
FPATHS = [p for b in FILTERS + FUNCTIONS for p in (b, "lax " + b, "strict " + b)] + [None]
# Flink 2.3 fails the job on a filter's existence test (``@.a``, ``!@.a``), JSON literal (``in
# ['x']``) or array / object value (``@.tags size 2``): its shaded Jayway needs json-smart, which
# flink-table-runtime does not ship (NoClassDefFoundError: net/minidev/json/...). One such row
# fails a whole path-column expression, so those paths are in the literal-path expressions only.
_JOB_FAILS = ("[?(@.opt)", "[?(!@.opt)", " in [", " nin [", "subsetof [", "anyof [", "noneof [", "$[?(@.a)]",
              "&& @.tag)", "[?(@.tags ", "$.mixed[?(")
FGRID_PATHS = [p for p in FPATHS if p is None or not any(f in p for f in _JOB_FAILS)]

_FP = "fp"
FGRID_EXPRS = [
    f"JSON_VALUE(fdoc, {_FP})",
    f"JSON_VALUE(fdoc, {_FP} DEFAULT 'E' ON EMPTY DEFAULT 'R' ON ERROR)",
    f"JSON_QUERY(fdoc, {_FP})",
    f"JSON_QUERY(fdoc, {_FP} WITH CONDITIONAL ARRAY WRAPPER)",
    f"JSON_QUERY(fdoc, {_FP} EMPTY ARRAY ON EMPTY EMPTY OBJECT ON ERROR)",
    f"JSON_QUERY(fdoc, {_FP} RETURNING ARRAY<STRING>)",
]


def _lit(path: str) -> str:
    return "'" + path.replace("'", "''") + "'"


# Literal paths over ``jfdocs``: JSON_EXISTS takes literals only; RETURNING types of the functions
FDOC_EXPRS = [f"JSON_EXISTS(fdoc, {_lit(p)}{tail})" for p in FPATHS if p is not None
              for tail in ("", " TRUE ON ERROR")]
FDOC_EXPRS += [f"JSON_VALUE(fdoc, {_lit(m + f)}{r})" for f in FUNCTIONS[:26] for m in ("lax ", "strict ")
               for r in (" RETURNING INT DEFAULT -1 ON EMPTY DEFAULT -2 ON ERROR", " RETURNING DOUBLE")]
FDOC_EXPRS += [f"JSON_VALUE(fdoc, {_lit('lax ' + f)})" for f in FILTERS[:6]]
FDOC_EXPRS = list(dict.fromkeys(FDOC_EXPRS))


# The deep scan grid (gaps35): a scan ``..`` before each kind of step Jayway takes there (a
# wildcard, an index, several indexes, a slice, several members, a function, another scan), over
# nested objects and arrays, scalars, JSON nulls and text that is not JSON; tables ``jsgrid``
# (``id``, ``sdoc``, ``sp``: the path a column) and ``jsdocs`` (``id``, ``sdoc``: JSON_EXISTS's
# literal paths).
SDOCS = [
    '{"a":[{"b":1,"c":2},{"b":[3,4]}],"d":{"b":{"c":5}}}',
    '[[1,2],[3,[4,5]],{"b":6,"c":[7]}]',
    '{"a":{"b":{"b":1}},"c":[],"e":[[]]}',
    '{"x":1}',
    "[]",
    '{"a":[null,{"b":null,"c":null}],"c":{}}',
    "5",
    "not json",
    None,
]
SCANS = ["$..*", "$..[*]", "$..[0]", "$..[-1]", "$..[0,1]", "$..[1:]", "$..[:1]", "$..['b','c']",
         "$..['b','c'].c", "$..[0].b", "$..*.b", "$..[*].b", "$..[0][0]", "$..*[0]", "$..length()",
         "$..*.length()", "$..[0].length()", "$.a..[0]", "$..b..[0]", "$..b.*", "$..*..c", "$..[1:].b",
         "$.a..length()", "$.a..*"]
SPATHS = [p for b in SCANS for p in (b, "lax " + b, "strict " + b)] + [None]
#: Scans whose answer in Flink 2.3 depends on the rows evaluated before them (state Jayway keeps in
#: the cached path): refused here (tests/functions/test_planning.py), so out of the grid (their
#: rows keep their ids).
STATEFUL_SCANS = ("$..*.b", "$..[*].b", "$..length()", "$..*.length()", "$..[0].length()")


def _stateful(path: str | None) -> bool:
    return path is not None and path.split()[-1] in STATEFUL_SCANS


_SP = "sp"
SGRID_EXPRS = [
    f"JSON_VALUE(sdoc, {_SP})",
    f"JSON_VALUE(sdoc, {_SP} DEFAULT 'E' ON EMPTY DEFAULT 'R' ON ERROR)",
    f"JSON_QUERY(sdoc, {_SP})",
    f"JSON_QUERY(sdoc, {_SP} WITH CONDITIONAL ARRAY WRAPPER)",
    f"JSON_QUERY(sdoc, {_SP} WITH UNCONDITIONAL ARRAY WRAPPER)",
    f"JSON_QUERY(sdoc, {_SP} EMPTY ARRAY ON EMPTY EMPTY OBJECT ON ERROR)",
    f"JSON_QUERY(sdoc, {_SP} RETURNING ARRAY<STRING>)",
]
SDOC_EXPRS = [f"JSON_EXISTS(sdoc, {_lit(p)}{tail})" for p in SPATHS if p is not None and not _stateful(p)
              for tail in ("", " TRUE ON ERROR")]


def grid_rows() -> list[tuple]:
    """``jgrid``'s rows: (id, doc, p), every document with every path."""
    return [(n * 1000 + m, d, p) for n, d in enumerate(DOCS) for m, p in enumerate(PATHS)]


def doc_rows() -> list[tuple]:
    """``jdocs``' rows: (id, doc)."""
    return list(enumerate(DOCS))


def fgrid_rows() -> list[tuple]:
    """``jfgrid``'s rows: (id, fdoc, fp), every filter grid document with every path."""
    return [(n * 1000 + m, d, p) for n, d in enumerate(FDOCS) for m, p in enumerate(FGRID_PATHS)]


def fdoc_rows() -> list[tuple]:
    """``jfdocs``' rows: (id, fdoc)."""
    return list(enumerate(FDOCS))


def sgrid_rows() -> list[tuple]:
    """``jsgrid``'s rows: (id, sdoc, sp), every scan grid document with every path."""
    return [(n * 1000 + m, d, p) for n, d in enumerate(SDOCS) for m, p in enumerate(SPATHS)
            if not _stateful(p)]


def sdoc_rows() -> list[tuple]:
    """``jsdocs``' rows: (id, sdoc)."""
    return list(enumerate(SDOCS))


def json_lines(rows: list[tuple], names: tuple[str, ...]) -> str:
    """Rows as JSON lines (the ``json`` format's input)."""
    return "".join(json.dumps(dict(zip(names, r)), ensure_ascii=False) + "\n" for r in rows)


def ddl(table: str, path: str) -> str:
    """CREATE TABLE of a grid table (``jgrid``, ``jdocs``, ``jfgrid``, ...) over the JSON-lines ``path``."""
    cols = {"jgrid": "id INT, doc STRING, p STRING", "jdocs": "id INT, doc STRING",
            "jfgrid": "id INT, fdoc STRING, fp STRING", "jfdocs": "id INT, fdoc STRING",
            "jsgrid": "id INT, sdoc STRING, sp STRING", "jsdocs": "id INT, sdoc STRING"}[table]
    return (f"CREATE TABLE {table} ({cols}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
            "'format' = 'json')")

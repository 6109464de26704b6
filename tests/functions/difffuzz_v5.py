"""Version 5 of the differential fuzzer's generator (session 34, difffuzz34).

Version 4 (session 32) predates the types and functions of session 33. Version 5 is version 4 plus,
drawn more often than the older templates (:data:`FRESH` of the calls where a kind has some, and the
kinds ``VARIANT`` and ``BITMAP`` at the top of :data:`TOP_KINDS5`):

- a ``VARIANT`` kind: PARSE_JSON / TRY_PARSE_JSON (with ``allow_duplicate_keys``) of literal documents,
  of the table's text and of JSON_OBJECT / JSON_ARRAY / JSON_QUERY / JSON_STRING results; ``v['k']``
  and ``v[i]`` (edge indexes); JSON_VALUE / JSON_QUERY / JSON_STRING / JSON_OBJECT / JSON_ARRAY over a
  VARIANT; ``=``, ``<>``, IS DISTINCT FROM, IN, COALESCE, CASE, TYPEOF; printed as it is;
- a ``BITMAP`` kind: BITMAP_BUILD of arrays of the table's INTs (negatives, NULLs, extremes),
  BITMAP_AND / OR / XOR / ANDNOT, BITMAP_FROM_BYTES of BITMAP_TO_BYTES, BITMAP_TO_STRING /
  _TO_ARRAY / _TO_BYTES / _CARDINALITY, TYPEOF, CAST to STRING; printed as it is;
- OBJECT_OF / OBJECT_UPDATE (a field read back, JSON_STRING, CAST to STRING, ``=``, TYPEOF);
- aggregates (:data:`AGGREGATES5`, drawn :data:`FRESH_AGG` of the time): the BITMAP aggregates
  (BUILD, AND, OR, XOR and their CARDINALITY forms, DISTINCT, FILTER), COLLECT [DISTINCT] cast to
  STRING (a MULTISET sink column is not declared: StreamSQL refuses one, documented), VAR_POP /
  VAR_SAMP / STDDEV_POP / STDDEV_SAMP / VARIANCE / STDDEV with DISTINCT (and FILTER), COUNT(DISTINCT),
  FIRST_VALUE / LAST_VALUE of a VARIANT.

``VARIANT`` and ``BITMAP`` are not in the kinds that ``ANY`` draws (nearly every older template would
refuse them) and are never the target of the generator's random CAST (nothing casts to them). The
random generator's sequence of versions 1 to 4 is unchanged. Standard library only.
"""

from __future__ import annotations

from tests.functions import difffuzz_v4 as v4

FRESH = 0.65
"""The share of calls drawn from version 5's own templates, where the kind has some."""
FRESH_AGG = 0.6
"""The share of aggregate calls drawn from :data:`AGGREGATES5`."""

KINDS5 = v4.KINDS4
TOP_KINDS5 = (*KINDS5, "TOP", "TOP", "VARIANT", "VARIANT", "VARIANT", "BITMAP", "BITMAP", "NEWTOP", "NEWTOP",
              "STRING", "INT", "BOOLEAN")
"""The kinds of a whole expression: ``TOP`` and ``NEWTOP`` are printed as they are, so are VARIANT and
BITMAP values; the scalar kinds are repeated as version 5 has most of its templates there."""

_DOC_LITERALS = [
    "'{\"a\": 1, \"b\": [1, 2.50, {\"c\": \"x\"}]}'",
    "'[1, \"x\", null, true, -0.0]'",
    "'null'",
    "'1e2'",
    "'\"日本😀\"'",
    "'{\"b\": 1, \"a\": 2, \"A\": 3, \"é\": 4}'",
    "'12345678901234567890123'",
    "'0.1234567890123456789012345678901234567890'",
    "'{\"a\": {\"a\": [[], {}]}}'",
    "'-0.0'",
    "'1.0E-7'",
    "'[1e400, 2.5e-3]'",
    "'{\"a\": 1, \"a\": 2}'",
    "' [1 , 2] '",
    "'\"\\\\u00e9\\\\n\"'",
]
COLUMN_KINDS5 = {
    **v4.COLUMN_KINDS4,
    "VARIANT": [
        "TRY_PARSE_JSON(s)",
        "TRY_PARSE_JSON(u)",
        "PARSE_JSON(JSON_OBJECT('a' VALUE i, 'b' VALUE s, 'c' VALUE JSON_ARRAY(d, m)))",
        "PARSE_JSON(JSON_ARRAY(id, u, f, dt))",
        "PARSE_JSON(JSON_OBJECT('a' VALUE b, 'z' VALUE ts, 'b' VALUE ARRAY[j, id]))",
    ],
    "BITMAP": [
        "BITMAP_BUILD(ARRAY[i, j, id])",
        "BITMAP_BUILD(ARRAY[id, id * 65536])",
        "BITMAP_BUILD(ARRAY[j])",
        "BITMAP_BUILD(ARRAY[i, 7, CAST(b AS INT)])",
    ],
}
LITERALS5 = {
    **v4.LITERALS4,
    "VARIANT": [f"PARSE_JSON({d})" for d in _DOC_LITERALS[:12]]
    + ["PARSE_JSON('{\"a\": 1, \"a\": 2}', TRUE)", "TRY_PARSE_JSON('{\"a\": 1, \"a\": 2}')",
       "TRY_PARSE_JSON('{\"a\": ')", "PARSE_JSON(CAST(NULL AS STRING))"],
    "BITMAP": [
        "BITMAP_BUILD(ARRAY[1, 2, 3])",
        "BITMAP_BUILD(ARRAY[-1, 0, 2147483647])",
        "BITMAP_BUILD(ARRAY[CAST(NULL AS INT)])",
        "BITMAP_BUILD(ARRAY[-2147483648, 65535, 65536])",
        "BITMAP_BUILD(CAST(NULL AS ARRAY<INT>))",
        "BITMAP_FROM_BYTES(BITMAP_TO_BYTES(BITMAP_BUILD(ARRAY[5, 65536, 70000])))",
        "CAST(NULL AS BITMAP)",
        "BITMAP_BUILD(ARRAY[CAST(-128 AS TINYINT), CAST(3 AS TINYINT)])",
    ],
}
LISTS5 = {
    **v4.LISTS4,
    "VKEYS": ["'a'", "'b'", "'c'", "'A'", "'z'", "''", "'é'", "CAST(NULL AS STRING)", "u", "s"],
    "VIDX": ["1", "2", "3", "0", "-1", "5", "id", "CAST(NULL AS INT)", "2147483647", "CAST(2 AS BIGINT)",
             "CAST(1 AS TINYINT)"],
    "VPATHS": [*v4.JSON_PATHS, "'$.c[1]'", "'lax $.b[1]'", "'$[0]'", "'$[3]'", "'strict $[4]'", "'$.A'"],
    "CLASSES": ["'C'", "'com.example.P'", "'a.b.C'"],
}

_OBJ = "OBJECT_OF({L:CLASSES}, 'a', {0}, 'b', {1})"
NEW5 = [
    # VARIANT values
    ("VARIANT", "{0}[{L:VKEYS}]", ["VARIANT"]),
    ("VARIANT", "{0}[{L:VIDX}]", ["VARIANT"]),
    ("VARIANT", "{0}['b'][{L:VIDX}]", ["VARIANT"]),
    ("VARIANT", "{0}['c'][{L:VIDX}]", ["VARIANT"]),
    ("VARIANT", "PARSE_JSON({0})", ["STRING"]),
    ("VARIANT", "TRY_PARSE_JSON({0})", ["STRING"]),
    ("VARIANT", "TRY_PARSE_JSON({0}, {1})", ["STRING", "BOOLEAN"]),
    ("VARIANT", "PARSE_JSON(JSON_OBJECT('a' VALUE {0}, 'b' VALUE {1}{L:ON_NULL}))", ["ANY", "ANY"]),
    ("VARIANT", "PARSE_JSON(JSON_ARRAY({0}, {1}{L:ON_NULL}))", ["ANY", "ANY"]),
    ("VARIANT", "TRY_PARSE_JSON(JSON_STRING({0}))", ["ANY"]),
    ("VARIANT", "TRY_PARSE_JSON(JSON_QUERY({L:JSON_DOCS}, {L:JSON_PATHS}{L:JSON_WRAPPERS}))", []),
    ("VARIANT", "TRY_PARSE_JSON(JSON_STRING({0}))", ["VARIANT"]),
    ("VARIANT", "COALESCE({0}, {1})", ["VARIANT", "VARIANT"]),
    ("VARIANT", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "VARIANT", "VARIANT"]),
    ("VARIANT", "PARSE_JSON(JSON_OBJECT('o' VALUE {0}))", ["VARIANT"]),
    ("VARIANT", "PARSE_JSON(JSON_ARRAY({0}, {1}))", ["VARIANT", "VARIANT"]),
    # ... brought back to scalars
    ("STRING", "JSON_VALUE({0}, {L:VPATHS}{L:JSON_VALUE_CLAUSES})", ["VARIANT"]),
    ("STRING", "JSON_VALUE({0}, {L:VPATHS}{L:JSON_RETURNING}{L:JSON_VALUE_CLAUSES})", ["VARIANT"]),
    ("STRING", "JSON_QUERY({0}, {L:VPATHS}{L:JSON_WRAPPERS}{L:JSON_QUERY_CLAUSES})", ["VARIANT"]),
    ("INT", "JSON_VALUE({0}, {L:VPATHS} RETURNING INT NULL ON ERROR)", ["VARIANT"]),
    ("DOUBLE", "JSON_VALUE({0}, {L:VPATHS} RETURNING DOUBLE DEFAULT -1 ON ERROR)", ["VARIANT"]),
    ("STRING", "JSON_STRING({0})", ["VARIANT"]),
    ("STRING", "JSON_OBJECT('v' VALUE {0}, 'w' VALUE {1}{L:ON_NULL})", ["VARIANT", "ANY"]),
    ("STRING", "JSON_ARRAY({0}, {1}{L:ON_NULL})", ["VARIANT", "VARIANT"]),
    ("STRING", "TYPEOF({0})", ["VARIANT"]),
    ("BOOLEAN", "{0} = {1}", ["VARIANT", "VARIANT"]),
    ("BOOLEAN", "{0} <> {1}", ["VARIANT", "VARIANT"]),
    ("BOOLEAN", "{0} IS DISTINCT FROM {1}", ["VARIANT", "VARIANT"]),
    ("BOOLEAN", "{0} IN ({1}, {2})", ["VARIANT", "VARIANT", "VARIANT"]),
    ("BOOLEAN", "{0} IS NULL", ["VARIANT"]),
    ("BOOLEAN", "{0}[{L:VKEYS}] IS NOT NULL", ["VARIANT"]),
    # BITMAP values
    ("BITMAP", "BITMAP_AND({0}, {1})", ["BITMAP", "BITMAP"]),
    ("BITMAP", "BITMAP_OR({0}, {1})", ["BITMAP", "BITMAP"]),
    ("BITMAP", "BITMAP_XOR({0}, {1})", ["BITMAP", "BITMAP"]),
    ("BITMAP", "BITMAP_ANDNOT({0}, {1})", ["BITMAP", "BITMAP"]),
    ("BITMAP", "BITMAP_BUILD(ARRAY[{0}, {1}, {2}])", ["INT", "INT", "INT"]),
    ("BITMAP", "BITMAP_BUILD(ARRAY_CONCAT(BITMAP_TO_ARRAY({0}), ARRAY[{1}]))", ["BITMAP", "INT"]),
    ("BITMAP", "BITMAP_FROM_BYTES(BITMAP_TO_BYTES({0}))", ["BITMAP"]),
    ("BITMAP", "BITMAP_BUILD(ARRAY_REMOVE(BITMAP_TO_ARRAY({0}), {1}))", ["BITMAP", "INT"]),
    # ... brought back to scalars
    ("STRING", "BITMAP_TO_STRING({0})", ["BITMAP"]),
    ("BIGINT", "BITMAP_CARDINALITY({0})", ["BITMAP"]),
    ("INT", "CARDINALITY(BITMAP_TO_ARRAY({0}))", ["BITMAP"]),
    ("INT", "BITMAP_TO_ARRAY({0})[{L:GROUPS}]", ["BITMAP"]),
    ("STRING", "CAST({0} AS STRING)", ["BITMAP"]),
    ("STRING", "TYPEOF({0})", ["BITMAP"]),
    ("BOOLEAN", "ARRAY_CONTAINS(BITMAP_TO_ARRAY({0}), {1})", ["BITMAP", "INT"]),
    ("STRING", "TO_BASE64(BITMAP_TO_BYTES({0}))", ["BITMAP"]),
    ("BIGINT", "BITMAP_CARDINALITY({0}) - BITMAP_CARDINALITY({1})", ["BITMAP", "BITMAP"]),
    # OBJECT_OF / OBJECT_UPDATE
    *[(k, _OBJ + ".b", ["STRING", k]) for k in ("INT", "STRING", "DOUBLE", "DATE", "DECIMAL")],
    *[(k, "OBJECT_UPDATE(" + _OBJ + ", 'b', {2}).b", ["STRING", "ANY", k]) for k in ("INT", "STRING")],
    ("STRING", "JSON_STRING(" + _OBJ + ")", ["ANY", "ANY"]),
    ("STRING", "CAST(" + _OBJ + " AS STRING)", ["ANY", "ANY"]),
    ("STRING", "TYPEOF(" + _OBJ + ")", ["ANY", "ANY"]),
    ("STRING", "TYPEOF(OBJECT_UPDATE(" + _OBJ + ", {L:OBJFIELDS}, {2}))", ["ANY", "ANY", "ANY"]),
    ("STRING", "JSON_OBJECT('o' VALUE " + _OBJ + ")", ["ANY", "ANY"]),
    ("BOOLEAN", "OBJECT_OF('C', 'a', {0}) = OBJECT_OF('C', 'a', {1})", ["ANY", "=0"]),
    ("STRING", "CAST(OBJECT_UPDATE(" + _OBJ + ", 'a', {2}) AS STRING)", ["ANY", "ANY", "ANY"]),
]
LISTS5["OBJFIELDS"] = ["'a'", "'b'", "'c'"]
TOP5 = [
    ("NEWTOP", "ARRAY[{0}, {1}]", ["VARIANT", "VARIANT"]),
    ("NEWTOP", "ROW({0}, {1})", ["VARIANT", "ANY"]),
    ("NEWTOP", "MAP['k', {0}]", ["VARIANT"]),
    ("NEWTOP", "BITMAP_TO_ARRAY({0})", ["BITMAP"]),
    ("NEWTOP", "BITMAP_TO_BYTES({0})", ["BITMAP"]),
    ("NEWTOP", "ROW({0}, {1})", ["BITMAP", "ANY"]),
    ("NEWTOP", _OBJ, ["ANY", "ANY"]),
    ("NEWTOP", "OBJECT_UPDATE(" + _OBJ + ", 'a', {2})", ["ANY", "ANY", "ANY"]),
    ("NEWTOP", "ROW(" + _OBJ + ")", ["ANY", "ANY"]),
]

_KINDS_ALL = (*KINDS5, "TOP", "VARIANT", "BITMAP", "NEWTOP")
BY_KIND5 = {k: list(v4.BY_KIND4.get(k, [])) for k in _KINDS_ALL}
for _t in NEW5:
    BY_KIND5[_t[0]].append(_t)
BY_KIND5["NEWTOP"] = list(TOP5)
_FRESH_ALL = [*NEW5, *TOP5]
FRESH5 = {k: [t for t in _FRESH_ALL if t[0] == k] for k in _KINDS_ALL}
"""Version 5's own templates by kind: drawn :data:`FRESH` of the time (all of the time for the kinds
only version 5 has)."""
FRESH5 = {k: v for k, v in FRESH5.items() if v}

CAST_TARGETS5 = dict(v4.CAST_TARGETS4)
"""No VARIANT or BITMAP target: nothing casts to them (the generator's CAST skips those kinds)."""

VERSION5 = (KINDS5, COLUMN_KINDS5, LITERALS5, CAST_TARGETS5, BY_KIND5, LISTS5)

# -- aggregates ---------------------------------------------------------------------------------------

AGGREGATES5 = [
    ("BITMAP_TO_STRING(BITMAP_BUILD_AGG({0}))", ["INT"]),
    ("BITMAP_BUILD_AGG({0})", ["INT"]),
    ("BITMAP_TO_STRING(BITMAP_BUILD_AGG(DISTINCT {0}))", ["INT"]),
    ("BITMAP_BUILD_CARDINALITY_AGG({0})", ["INT"]),
    ("BITMAP_BUILD_CARDINALITY_AGG(DISTINCT {0})", ["INT"]),
    ("BITMAP_BUILD_CARDINALITY_AGG({0}) FILTER (WHERE {1})", ["INT", "BOOLEAN"]),
    ("BITMAP_TO_ARRAY(BITMAP_BUILD_AGG({0}) FILTER (WHERE {1}))", ["INT", "BOOLEAN"]),
    ("BITMAP_TO_STRING(BITMAP_OR_AGG({0}))", ["BITMAP"]),
    ("BITMAP_TO_STRING(BITMAP_AND_AGG({0}))", ["BITMAP"]),
    ("BITMAP_TO_STRING(BITMAP_XOR_AGG({0}))", ["BITMAP"]),
    ("BITMAP_OR_AGG({0})", ["BITMAP"]),
    ("BITMAP_AND_AGG(DISTINCT {0})", ["BITMAP"]),
    ("BITMAP_OR_CARDINALITY_AGG({0})", ["BITMAP"]),
    ("BITMAP_AND_CARDINALITY_AGG({0})", ["BITMAP"]),
    ("BITMAP_XOR_CARDINALITY_AGG({0})", ["BITMAP"]),
    ("BITMAP_XOR_CARDINALITY_AGG(DISTINCT {0})", ["BITMAP"]),
    ("BITMAP_OR_CARDINALITY_AGG({0}) FILTER (WHERE {1})", ["BITMAP", "BOOLEAN"]),
    ("BITMAP_CARDINALITY(BITMAP_AND_AGG({0}))", ["BITMAP"]),
    ("BITMAP_TO_STRING(BITMAP_XOR_AGG({0}) FILTER (WHERE {1}))", ["BITMAP", "BOOLEAN"]),
    ("CAST(COLLECT({0}) AS STRING)", ["STRING"]),
    ("CAST(COLLECT({0}) AS STRING)", ["INT"]),
    ("CAST(COLLECT({0}) AS STRING)", ["BOOLEAN"]),
    ("CAST(COLLECT(DISTINCT {0}) AS STRING)", ["STRING"]),
    ("CAST(COLLECT(DISTINCT {0}) AS STRING)", ["INT"]),
    ("CAST(COLLECT({0}) FILTER (WHERE {1}) AS STRING)", ["INT", "BOOLEAN"]),
    ("VAR_POP(DISTINCT {0})", ["NUM"]),
    ("VAR_SAMP(DISTINCT {0})", ["NUM"]),
    ("STDDEV_POP(DISTINCT {0})", ["NUM"]),
    ("STDDEV_SAMP(DISTINCT {0})", ["NUM"]),
    ("VARIANCE(DISTINCT {0})", ["NUM"]),
    ("STDDEV(DISTINCT {0})", ["NUM"]),
    ("VAR_SAMP(DISTINCT {0}) FILTER (WHERE {1})", ["NUM", "BOOLEAN"]),
    ("STDDEV_POP(DISTINCT {0}) + VAR_POP({1})", ["NUM", "NUM"]),
    ("COUNT(DISTINCT {0})", ["VARIANT"]),
    ("FIRST_VALUE({0})", ["VARIANT"]),
    ("LAST_VALUE({0})", ["VARIANT"]),
    ("JSON_STRING(LAST_VALUE({0}))", ["VARIANT"]),
    ("COUNT({0})", ["VARIANT"]),
    ("COUNT({0})", ["BITMAP"]),
]

"""Version 4 of the differential fuzzer's generator (session 32, difffuzz32).

Version 3 (session 21) predates the TIME type, several JSON and collection functions, the function
sweeps of sessions 24-26 and Flink's result-type work. Version 4 is version 3 plus, drawn more often
than the old templates (:data:`FRESH` of the calls at each level):

- a TIME kind (the table has none: its "columns" are CASTs of ``ts``), TIME(p) values, literals,
  arithmetic with intervals, EXTRACT/HOUR/MINUTE/SECOND, FLOOR/CEIL, TIMESTAMPADD/TIMESTAMPDIFF and
  CASTs to and from it;
- TIMESTAMP_LTZ values at daylight-saving edges, and about :data:`ZONED` of the expressions evaluated
  in another session time zone than UTC (a ``TZ=<zone> `` prefix: the fixture's ``"zone"``);
- nested ROW / ARRAY / MAP construction and access (results printed as Flink prints them, under the
  top-level pseudo kind ``TOP``), CARDINALITY, ELEMENT and the ARRAY_* / MAP_* functions;
- JSON_VALUE / JSON_QUERY with their RETURNING / WRAPPER / ON EMPTY / ON ERROR clauses over
  documents built by JSON_OBJECT / JSON_ARRAY (NULL / ABSENT ON NULL) and literal ones;
- string functions over unicode and empty strings with edge positions and lengths;
- DECIMAL arithmetic at 38 digits, scale changes, division, ROUND/TRUNCATE with negative places;
- CAST and TRY_CAST from every kind to every type (BOOLEAN, BYTES, TIME, TIMESTAMP_LTZ too), integer
  overflow of TINYINT .. BIGINT, date arithmetic at month ends and years 1 and 9999;
- IS DISTINCT FROM, BETWEEN SYMMETRIC across kinds, TYPEOF of CASE/COALESCE/NULLIF/IF/GREATEST
  (their result types), LIKE and SIMILAR TO with ESCAPE.

Standard library only (the Flink venv imports it through ``difffuzz``).
"""

from __future__ import annotations

from tests.functions import difffuzz as fz

FRESH = 0.6
"""The share of calls drawn from version 4's own templates, where the kind has some."""
ZONED = 0.15
"""The share of expressions evaluated in one of :data:`ZONES` instead of UTC."""
ZONES = ["America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]

KINDS4 = (*fz.KINDS2, "TIME")
TOP_KINDS4 = (*KINDS4, "TOP", "TOP", "TOP")
"""The kinds of a whole expression: ``TOP`` is printed as it is (ARRAY, MAP, ROW, any CAST)."""
# TIME "columns": not CAST(ts AS TIME), whose value before 1970 is a negative time of day in Flink
# (documented, not copied: every such expression would differ on the rows of 1969 and 1900).
COLUMN_KINDS4 = {
    **fz.COLUMN_KINDS2,
    "TIME": [
        "CAST(SUBSTRING(CAST(ts AS STRING), 12) AS TIME(3))",
        "TIMESTAMPADD(SECOND, id * 4321, TIME '00:00:00')",
        "TIMESTAMPADD(SECOND, MOD(i, 3600), TIME '12:00:00')",
    ],
}
LITERALS4 = {
    **fz.LITERALS2,
    "INT": [
        *fz.LITERALS2["INT"],
        "CAST(-32768 AS SMALLINT)",
        "CAST(-128 AS TINYINT)",
        "CAST(200 AS SMALLINT)",
    ],
    "BIGINT": [*fz.LITERALS2["BIGINT"], "CAST(-9223372036854775808 AS BIGINT)", "4294967296"],
    "DECIMAL": [
        *fz.LITERALS2["DECIMAL"],
        "CAST(99999999999999999999999999999999999999 AS DECIMAL(38, 0))",
        "CAST(-9999999999999999999.9999999999999999999 AS DECIMAL(38, 19))",
        "CAST(0.00000000000000000000000000000000000001 AS DECIMAL(38, 38))",
        "CAST(12345678901234567890123456.789 AS DECIMAL(38, 3))",
        "CAST(0.5 AS DECIMAL(1, 1))",
        "CAST(5 AS DECIMAL(38, 37))",
        "0.0000000001",
        "-999.995",
    ],
    "STRING": [
        *fz.LITERALS2["STRING"],
        "'e\u0301'",
        "'\u00e9'",
        "'ǅ'",
        "'a\u200bb'",
        "'\u00a0'",
        "'Ⅻ'",
        "'12:34:56'",
        "'12:34:56.789'",
        "'25:00:00'",
        "'{\"a\": 1}'",
        "'[1, 2]'",
        "'yes'",
        "'1'",
        "'0'",
        "'T'",
        "'9999-12-31 23:59:59.999'",
        "'0001-01-01'",
        "'2024-02-30'",
    ],
    "DATE": [
        *fz.LITERALS2["DATE"],
        "DATE '2023-01-31'",
        "DATE '2023-02-28'",
        "DATE '2024-12-31'",
        "DATE '9999-12-01'",
        "DATE '0001-01-31'",
    ],
    "TIMESTAMP": [
        *fz.LITERALS2["TIMESTAMP"],
        "TIMESTAMP '9999-12-31 23:59:59.999'",
        "TIMESTAMP '0001-01-01 00:00:00'",
        "TIMESTAMP '2024-01-31 12:00:00'",
        "TIMESTAMP '2024-11-03 01:30:00'",
        "CAST('2024-02-29 23:59:59.999999' AS TIMESTAMP(6))",
    ],
    "LTZ": [
        *fz.LITERALS2["LTZ"],
        "TO_TIMESTAMP_LTZ(1710054000000, 3)",
        "TO_TIMESTAMP_LTZ(1730611800000, 3)",
        "CAST(TIMESTAMP '2024-03-10 02:30:00' AS TIMESTAMP_LTZ(3))",
        "CAST(TIMESTAMP '2024-11-03 01:30:00' AS TIMESTAMP_LTZ(3))",
        "TO_TIMESTAMP_LTZ(253402300799999, 3)",
        "CAST('2024-02-29 13:45:30.5' AS TIMESTAMP_LTZ(3))",
    ],
    "TIME": [
        "TIME '00:00:00'",
        "TIME '23:59:59'",
        "TIME '12:34:56.789'",
        "TIME '13:45:30.5'",
        "CAST(TIMESTAMP '2024-02-29 13:45:30.123' AS TIME(3))",
        "CAST(NULL AS TIME)",
        "CAST('23:59:59.999' AS TIME(3))",
        "TIME '01:02:03'",
        "CAST(TIME '10:20:30.123' AS TIME(0))",
    ],
}
ALL_TYPES = [
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DECIMAL(5, 2)",
    "DECIMAL(38, 18)",
    "DECIMAL(38, 0)",
    "BOOLEAN",
    "STRING",
    "CHAR(3)",
    "VARCHAR(5)",
    "DATE",
    "TIME",
    "TIME(3)",
    "TIMESTAMP(3)",
    "TIMESTAMP(9)",
    "TIMESTAMP(0)",
    "TIMESTAMP_LTZ(3)",
    "TIMESTAMP_LTZ(6)",
    "BYTES",
    "BINARY(2)",
    "VARBINARY(3)",
]
CAST_TARGETS4 = {
    **fz.CAST_TARGETS2,
    "TIME": ["TIME", "TIME(3)", "TIME(0)"],
    "TOP": ALL_TYPES,
    "BOOLEAN": ["BOOLEAN"],
    "INT": [*fz.CAST_TARGETS2["INT"], "TINYINT"],
    "DECIMAL": [*fz.CAST_TARGETS2["DECIMAL"], "DECIMAL(38, 38)", "DECIMAL(2, 2)", "DECIMAL(19, 0)"],
}

TIME_UNITS = ["HOUR", "MINUTE", "SECOND", "MILLISECOND"]
TIME_EXTRACT = ["HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"]
TIME_INTERVALS = [
    "INTERVAL '1' HOUR",
    "INTERVAL '-90' MINUTE",
    "INTERVAL '0.5' SECOND",
    "INTERVAL '1' DAY",
    "INTERVAL '25:00' HOUR TO MINUTE",
    "INTERVAL '0.001' SECOND",
    "INTERVAL '-1 00:00:00.001' DAY TO SECOND",
]
EDGE = ["0", "1", "-1", "2", "5", "-3", "100", "CAST(NULL AS INT)", "id", "2147483647", "-2147483648"]
NEG_DIGITS = ["-1", "-2", "-5", "-10", "-40", "0", "3", "18", "37", "38", "40"]
UNI = [
    "''",
    "' '",
    "'é'",
    "'e\u0301'",
    "'😀'",
    "'ǅ'",
    "'ß'",
    "'İ'",
    "'日本'",
    "'a'",
    "'ab'",
    "'\u00a0'",
    "CAST(NULL AS STRING)",
    "'a😀'",
    "'Σ'",
    "'%'",
    "'_'",
    "'\\'",
]
LIKE4 = [
    "'a!%' ESCAPE '!'",
    "'%!_%' ESCAPE '!'",
    "'\\%%' ESCAPE '\\'",
    "'%$$%' ESCAPE '$'",
    "'_!__' ESCAPE '!'",
    "'%\\_%'",
    "'%😀%'",
    "'_'",
    "'__'",
    "''",
    "'%ß%'",
    "'a%b'",
    "'%é'",
]
SIMILAR4 = [
    "'a!%' ESCAPE '!'",
    "'(a|b)%'",
    "'[a-c]*'",
    "'%[[:digit:]]%'",
    "'_{2}'",
    "'.*'",
    "'%!_%' ESCAPE '!'",
    "'(日|本)%'",
    "'\\%' ESCAPE '\\'",
]
JSON_DOCS = [
    '\'{"a": 1, "b": [1, 2, {"c": "x"}]}\'',
    "'{\"a\": null}'",
    "'[]'",
    '\'{"a": [], "b": {}}\'',
    '\'{"a": "日本😀", "b": true}\'',
    '\'{"a": 1.5e2, "b": -0.0}\'',
    '\'{"a": ""}\'',
    "''",
    "'{\"a\": 12345678901234567890}'",
    "'[[1], [2, 3]]'",
]
JSON_PATHS = [
    "'$.a'",
    "'lax $.a'",
    "'strict $.a'",
    "'$.b[0]'",
    "'lax $.b[2].c'",
    "'strict $.b[5]'",
    "'$.b'",
    "'$[1]'",
    "'lax $.z'",
    "'$'",
    "'strict $.a.b'",
    "'lax $[*]'",
]
JSON_RETURNING = [
    "",
    " RETURNING INT",
    " RETURNING DOUBLE",
    " RETURNING BOOLEAN",
    " RETURNING STRING",
    " RETURNING VARCHAR(3)",
]
JSON_VALUE_CLAUSES = [
    "",
    " NULL ON EMPTY",
    " DEFAULT 'd' ON EMPTY",
    " NULL ON ERROR",
    " ERROR ON EMPTY",
    " DEFAULT 'd' ON ERROR",
    " DEFAULT 'e' ON EMPTY NULL ON ERROR",
    " ERROR ON ERROR",
]
JSON_WRAPPERS = [
    "",
    " WITHOUT ARRAY WRAPPER",
    " WITH ARRAY WRAPPER",
    " WITH CONDITIONAL ARRAY WRAPPER",
    " WITH UNCONDITIONAL ARRAY WRAPPER",
]
JSON_QUERY_CLAUSES = [
    "",
    " NULL ON EMPTY",
    " EMPTY ARRAY ON EMPTY",
    " EMPTY OBJECT ON ERROR",
    " ERROR ON ERROR",
    " EMPTY ARRAY ON EMPTY NULL ON ERROR",
]
ON_NULL = ["", " NULL ON NULL", " ABSENT ON NULL"]
LISTS4 = {
    **fz.LISTS2,
    "TIME_UNITS": TIME_UNITS,
    "TIME_EXTRACT": TIME_EXTRACT,
    "TIME_INTERVALS": TIME_INTERVALS,
    "EDGE": EDGE,
    "NEG_DIGITS": NEG_DIGITS,
    "UNI": UNI,
    "LIKE4": LIKE4,
    "SIMILAR4": SIMILAR4,
    "JSON_DOCS": JSON_DOCS,
    "JSON_PATHS": JSON_PATHS,
    "JSON_RETURNING": JSON_RETURNING,
    "JSON_VALUE_CLAUSES": JSON_VALUE_CLAUSES,
    "JSON_WRAPPERS": JSON_WRAPPERS,
    "JSON_QUERY_CLAUSES": JSON_QUERY_CLAUSES,
    "ON_NULL": ON_NULL,
    "ALL_TYPES": ALL_TYPES,
    "TIME_PREC": ["0", "3"],
    "MONTH_UNITS": ["MONTH", "YEAR", "QUARTER", "DAY", "WEEK"],
    "DEC38": [
        "DECIMAL(38, 0)",
        "DECIMAL(38, 10)",
        "DECIMAL(38, 18)",
        "DECIMAL(38, 37)",
        "DECIMAL(20, 19)",
        "DECIMAL(19, 0)",
        "DECIMAL(2, 1)",
    ],
}

_SCALAR = ("INT", "BIGINT", "DECIMAL", "DOUBLE", "STRING", "BOOLEAN", "DATE", "TIMESTAMP", "TIME", "LTZ")

NEW4 = [
    # TIME
    ("TIME", "{0} + {L:TIME_INTERVALS}", ["TIME"]),
    ("TIME", "{0} - {L:TIME_INTERVALS}", ["TIME"]),
    ("TIME", "{0} + {1} * INTERVAL '1' MINUTE", ["TIME", "INT"]),
    ("INT", "HOUR({0})", ["TIME"]),
    ("INT", "MINUTE({0})", ["TIME"]),
    ("INT", "SECOND({0})", ["TIME"]),
    ("BIGINT", "EXTRACT({L:TIME_EXTRACT} FROM {0})", ["TIME"]),
    ("TIME", "FLOOR({0} TO {L:TIME_UNITS})", ["TIME"]),
    ("TIME", "CEIL({0} TO {L:TIME_UNITS})", ["TIME"]),
    ("TIME", "TIMESTAMPADD({L:TIME_UNITS}, {L:EDGE}, {0})", ["TIME"]),
    ("INT", "TIMESTAMPDIFF({L:TIME_UNITS}, {0}, {1})", ["TIME", "TIME"]),
    ("TIME", "CAST({0} AS TIME({L:TIME_PREC}))", ["TIMESTAMP"]),
    ("TIME", "CAST({0} AS TIME)", ["STRING"]),
    ("TIME", "CAST({0} AS TIME(3))", ["LTZ"]),
    ("TIME", "TRY_CAST({0} AS TIME)", ["STRING"]),
    ("STRING", "CAST({0} AS STRING)", ["TIME"]),
    ("TIMESTAMP", "CAST({0} AS TIMESTAMP(3))", ["TIME"]),
    ("TIME", "COALESCE({0}, {1})", ["TIME", "TIME"]),
    ("TIME", "GREATEST({0}, {1})", ["TIME", "TIME"]),
    ("TIME", "LEAST({0}, {1}, {2})", ["TIME", "TIME", "TIME"]),
    ("TIME", "NULLIF({0}, {1})", ["TIME", "TIME"]),
    ("TIME", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "TIME", "TIME"]),
    ("TIME", "IF({0}, {1}, {2})", ["BOOLEAN", "TIME", "TIME"]),
    ("BOOLEAN", "{0} {L:CMP} {1}", ["TIME", "TIME"]),
    ("BOOLEAN", "{0} IS DISTINCT FROM {1}", ["TIME", "TIME"]),
    ("BOOLEAN", "{0} BETWEEN SYMMETRIC {1} AND {2}", ["TIME", "TIME", "TIME"]),
    ("BOOLEAN", "{0} IN ({1}, {2})", ["TIME", "TIME", "TIME"]),
    ("STRING", "DATE_FORMAT(CAST({0} AS TIMESTAMP(3)), 'HH:mm:ss.SSS')", ["TIME"]),
    ("TIMESTAMP", "TIMESTAMP '2024-02-29 00:00:00' + ({0} - TIME '00:00:00')", ["TIME"]),
    # TIMESTAMP_LTZ (the session zone: about ZONED of the expressions)
    ("STRING", "CAST({0} AS STRING)", ["LTZ"]),
    ("TIMESTAMP", "CAST({0} AS TIMESTAMP(3))", ["LTZ"]),
    ("LTZ", "CAST({0} AS TIMESTAMP_LTZ(3))", ["STRING"]),
    ("DATE", "CAST({0} AS DATE)", ["LTZ"]),
    ("LTZ", "CAST({0} AS TIMESTAMP_LTZ(3))", ["TIMESTAMP"]),
    ("LTZ", "{0} + {L:ONE_INTERVALS} * {1}", ["LTZ", "INT"]),
    ("INT", "HOUR({0})", ["LTZ"]),
    ("STRING", "DATE_FORMAT({0}, 'yyyy-MM-dd HH:mm:ss.SSS')", ["LTZ"]),
    ("LTZ", "FLOOR({0} TO {L:UNITS})", ["LTZ"]),
    ("INT", "TIMESTAMPDIFF(HOUR, {0}, {1})", ["TIMESTAMP", "LTZ"]),
    ("BOOLEAN", "{0} = {1}", ["TIMESTAMP", "LTZ"]),
    ("BOOLEAN", "{0} < {1}", ["LTZ", "TIMESTAMP"]),
    ("LTZ", "COALESCE({0}, {1})", ["LTZ", "TIMESTAMP"]),
    ("BIGINT", "UNIX_TIMESTAMP(DATE_FORMAT({0}, 'yyyy-MM-dd HH:mm:ss'))", ["LTZ"]),
    ("STRING", "FROM_UNIXTIME({0})", ["INT"]),
    ("LTZ", "TO_TIMESTAMP_LTZ({0}, 3)", ["BIGINT"]),
    # date arithmetic at month ends and years 1 / 9999
    ("DATE", "{0} + INTERVAL '1' MONTH", ["DATE"]),
    ("DATE", "{0} - INTERVAL '1' MONTH", ["DATE"]),
    ("DATE", "TIMESTAMPADD({L:MONTH_UNITS}, {L:EDGE}, {0})", ["DATE"]),
    ("TIMESTAMP", "TIMESTAMPADD({L:MONTH_UNITS}, {L:EDGE}, {0})", ["TIMESTAMP"]),
    ("INT", "TIMESTAMPDIFF({L:MONTH_UNITS}, {0}, {1})", ["DATE", "DATE"]),
    ("INT", "TIMESTAMPDIFF({L:MONTH_UNITS}, {0}, {1})", ["TIMESTAMP", "TIMESTAMP"]),
    ("DATE", "LAST_DAY({0} + INTERVAL '1' MONTH)", ["DATE"]),
    ("TIMESTAMP", "{0} + INTERVAL '1-1' YEAR TO MONTH", ["TIMESTAMP"]),
    ("DATE", "{0} - INTERVAL '1' YEAR", ["DATE"]),
    ("INT", "DATEDIFF({0}, {1})", ["DATE", "TIMESTAMP"]),
    # nested ROW / ARRAY / MAP access brought back to a scalar kind
    *[
        (k, "CAST(ROW({0}, {1}) AS ROW<a STRING, b " + t + ">).b", ["STRING", k])
        for k, t in (("INT", "INT"), ("STRING", "STRING"), ("DOUBLE", "DOUBLE"), ("DATE", "DATE"))
    ],
    *[
        (k, "ARRAY[ARRAY[{0}, {1}], ARRAY[{2}]][{L:GROUPS}][{L:GROUPS}]", [k, k, k])
        for k in ("INT", "STRING", "DECIMAL", "TIME")
    ],
    ("INT", "CARDINALITY(ARRAY[ARRAY[{0}], ARRAY[{1}, {2}]][{L:GROUPS}])", ["INT", "INT", "INT"]),
    *[
        (
            k,
            "MAP[COALESCE({0}, 'n'), {1}, 'k' || COALESCE({2}, ''), {3}][{4}]",
            ["STRING", k, "STRING", k, "STRING"],
        )
        for k in ("INT", "STRING", "DATE")
    ],
    ("INT", "CARDINALITY(MAP[COALESCE({0}, 'n'), 1, 'k' || COALESCE({1}, ''), 2])", ["STRING", "STRING"]),
    *[(k, "ELEMENT(ARRAY[{0}])", [k]) for k in ("INT", "STRING", "BOOLEAN", "TIME", "DECIMAL")],
    ("INT", "ELEMENT(ARRAY_SLICE(ARRAY[{0}, {1}, {2}], {L:EDGE}, {L:EDGE}))", ["INT", "INT", "INT"]),
    *[(k, "ARRAY_PREPEND(ARRAY[{0}], {1})[{L:GROUPS}]", [k, k]) for k in ("INT", "STRING", "DOUBLE")],
    ("INT", "CARDINALITY(ARRAY_REMOVE(ARRAY[{0}, {1}, {2}], {3}))", ["INT"] * 4),
    ("STRING", "ARRAY_JOIN(ARRAY_DISTINCT(ARRAY[{0}, {1}, {2}]), {L:SEPS}, {L:UNI})", ["STRING"] * 3),
    ("STRING", "ARRAY_JOIN(MAP_VALUES(MAP[COALESCE({0}, 'n'), {1}]), ',')", ["STRING", "STRING"]),
    ("INT", "CARDINALITY(MAP_ENTRIES(STR_TO_MAP({0})))", ["STRING"]),
    ("BOOLEAN", "ARRAY_CONTAINS(ARRAY[{0}, {1}], {2})", ["ANY", "=0", "=0"]),
    ("INT", "ARRAY_POSITION(ARRAY[{0}, {1}], {2})", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "ROW({0}, {1}) = ROW({2}, {3})", ["INT", "STRING", "INT", "STRING"]),
    ("BOOLEAN", "ARRAY[{0}, {1}] = ARRAY[{2}, {3}]", ["ANY", "=0", "=0", "=0"]),
    ("BOOLEAN", "ARRAY[{0}] IS DISTINCT FROM ARRAY[{1}]", ["ANY", "=0"]),
    ("STRING", "CAST(ARRAY[{0}, {1}] AS STRING)", ["ANY", "=0"]),
    ("STRING", "CAST(ROW({0}, {1}) AS STRING)", ["ANY", "ANY"]),
    ("STRING", "CAST(MAP[COALESCE({0}, 'n'), {1}] AS STRING)", ["STRING", "ANY"]),
    # JSON
    ("STRING", "JSON_VALUE({L:JSON_DOCS}, {L:JSON_PATHS}{L:JSON_VALUE_CLAUSES})", []),
    ("STRING", "JSON_VALUE({L:JSON_DOCS}, {L:JSON_PATHS}{L:JSON_RETURNING}{L:JSON_VALUE_CLAUSES})", []),
    ("STRING", "JSON_QUERY({L:JSON_DOCS}, {L:JSON_PATHS}{L:JSON_WRAPPERS}{L:JSON_QUERY_CLAUSES})", []),
    ("BOOLEAN", "JSON_EXISTS({L:JSON_DOCS}, {L:JSON_PATHS})", []),
    ("STRING", "JSON_OBJECT('a' VALUE {0}, 'b' VALUE {1}{L:ON_NULL})", ["ANY", "ANY"]),
    ("STRING", "JSON_ARRAY({0}, {1}{L:ON_NULL})", ["ANY", "ANY"]),
    ("STRING", "JSON_OBJECT(KEY {0} VALUE JSON_ARRAY({1}, {2}){L:ON_NULL})", ["STRING", "NUM", "STRING"]),
    ("STRING", "JSON_VALUE(JSON_OBJECT('a' VALUE {0}), {L:JSON_PATHS}{L:JSON_VALUE_CLAUSES})", ["ANY"]),
    ("INT", "JSON_VALUE(JSON_ARRAY({0}, {1}), '$[1]' RETURNING INT{L:JSON_VALUE_CLAUSES})", ["INT", "INT"]),
    ("DOUBLE", "JSON_VALUE(JSON_OBJECT('x' VALUE {0}), 'lax $.x' RETURNING DOUBLE NULL ON ERROR)", ["NUM"]),
    (
        "STRING",
        "JSON_QUERY(JSON_OBJECT('a' VALUE JSON_ARRAY({0}, {1})), {L:JSON_PATHS}{L:JSON_WRAPPERS}"
        "{L:JSON_QUERY_CLAUSES})",
        ["ANY", "ANY"],
    ),
    ("STRING", "JSON_VALUE({0}, {L:JSON_PATHS}{L:JSON_VALUE_CLAUSES})", ["STRING"]),
    ("STRING", "JSON_STRING({0})", ["ANY"]),
    ("BOOLEAN", "{0} IS JSON {L:JSON_KIND}", ["STRING"]),
    ("STRING", "JSON_UNQUOTE({0})", ["STRING"]),
    ("STRING", "JSON_QUOTE({0})", ["STRING"]),
    # strings with unicode and empty strings at edge positions
    ("STRING", "SUBSTRING({0} FROM {L:EDGE} FOR {L:EDGE})", ["STRING"]),
    ("STRING", "SUBSTRING({0}, {L:EDGE})", ["STRING"]),
    ("STRING", "OVERLAY({0} PLACING {L:UNI} FROM {L:EDGE} FOR {L:EDGE})", ["STRING"]),
    ("STRING", "OVERLAY({0} PLACING {1} FROM {L:EDGE})", ["STRING", "STRING"]),
    ("INT", "POSITION({L:UNI} IN {0})", ["STRING"]),
    ("INT", "POSITION({0} IN {L:UNI})", ["STRING"]),
    ("INT", "LOCATE({L:UNI}, {0}, {L:EDGE})", ["STRING"]),
    ("INT", "LOCATE({0}, {L:UNI})", ["STRING"]),
    ("STRING", "REGEXP_REPLACE({0}, {L:PATTERNS}, {L:UNI})", ["STRING"]),
    ("STRING", "REGEXP_EXTRACT({0}, {L:PATTERNS}, {L:EDGE})", ["STRING"]),
    ("STRING", "ARRAY_JOIN(REGEXP_EXTRACT_ALL({0}, {L:PATTERNS}), '|')", ["STRING"]),
    ("INT", "REGEXP_INSTR({0}, {L:PATTERNS})", ["STRING"]),
    ("INT", "REGEXP_COUNT({0}, {L:PATTERNS})", ["STRING"]),
    ("STRING", "SPLIT_INDEX({0}, {L:UNI}, {L:EDGE})", ["STRING"]),
    ("STRING", "LPAD({0}, {L:EDGE}, {L:UNI})", ["STRING"]),
    ("STRING", "RPAD({0}, {L:EDGE}, {L:UNI})", ["STRING"]),
    ("STRING", "TRANSLATE({0}, {L:UNI}, {L:UNI})", ["STRING"]),
    ("STRING", "REPLACE({0}, {L:UNI}, {L:UNI})", ["STRING"]),
    ("STRING", "INITCAP({0})", ["STRING"]),
    ("STRING", "UPPER({0}) || LOWER({1})", ["STRING", "STRING"]),
    ("INT", "CHAR_LENGTH({0})", ["STRING"]),
    ("STRING", "LEFT({0}, {L:EDGE})", ["STRING"]),
    ("STRING", "RIGHT({0}, {L:EDGE})", ["STRING"]),
    ("STRING", "TRIM(BOTH {L:UNI} FROM {0})", ["STRING"]),
    ("STRING", "REPEAT({0}, {L:EDGE})", ["STRING"]),
    ("STRING", "REVERSE({0})", ["STRING"]),
    ("STRING", "CONCAT_WS({L:UNI}, {0}, {1})", ["STRING", "STRING"]),
    ("INT", "INSTR({0}, {L:UNI}, {L:EDGE}, {L:EDGE})", ["STRING"]),
    ("STRING", "ELT({L:EDGE}, {0}, {1})", ["STRING", "STRING"]),
    # DECIMAL at the precision edges
    ("DECIMAL", "CAST({0} AS {L:DEC38}) + CAST({1} AS {L:DEC38})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DEC38}) * CAST({1} AS {L:DEC38})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DEC38}) / CAST({1} AS {L:DEC38})", ["NUM", "NUM"]),
    ("DECIMAL", "CAST({0} AS {L:DEC38}) % CAST({1} AS {L:DEC38})", ["NUM", "NUM"]),
    ("DECIMAL", "{0} / {1}", ["DECIMAL", "DECIMAL"]),
    ("DECIMAL", "{0} * {1}", ["DECIMAL", "DECIMAL"]),
    ("DECIMAL", "ROUND({0}, {L:NEG_DIGITS})", ["DECIMAL"]),
    ("DECIMAL", "TRUNCATE({0}, {L:NEG_DIGITS})", ["DECIMAL"]),
    ("INT", "ROUND({0}, {L:NEG_DIGITS})", ["INT"]),
    ("BIGINT", "TRUNCATE({0}, {L:NEG_DIGITS})", ["BIGINT"]),
    ("DOUBLE", "ROUND({0}, {L:NEG_DIGITS})", ["DOUBLE"]),
    ("DOUBLE", "TRUNCATE({0}, {L:NEG_DIGITS})", ["DOUBLE"]),
    ("DECIMAL", "CAST({0} AS {L:DEC38})", ["STRING"]),
    ("DECIMAL", "TRY_CAST({0} AS {L:DEC38})", ["NUM"]),
    ("DECIMAL", "-CAST({0} AS {L:DEC38})", ["NUM"]),
    ("DECIMAL", "ABS(CAST({0} AS {L:DEC38}))", ["NUM"]),
    ("DECIMAL", "FLOOR(CAST({0} AS {L:DEC38}))", ["NUM"]),
    ("DECIMAL", "CEIL(CAST({0} AS {L:DEC38}))", ["NUM"]),
    ("DECIMAL", "MOD(CAST({0} AS {L:DEC38}), {L:NONZERO})", ["NUM"]),
    # integer overflow
    ("INT", "CAST({0} AS TINYINT) + CAST({1} AS TINYINT)", ["INT", "INT"]),
    ("INT", "CAST({0} AS SMALLINT) * CAST({1} AS SMALLINT)", ["INT", "INT"]),
    ("INT", "-CAST({0} AS TINYINT)", ["INT"]),
    ("INT", "ABS({0})", ["INT"]),
    ("BIGINT", "ABS({0})", ["BIGINT"]),
    ("INT", "{0} * {1}", ["INT", "INT"]),
    ("BIGINT", "{0} * {1}", ["BIGINT", "BIGINT"]),
    ("INT", "{0} + 2147483647", ["INT"]),
    ("BIGINT", "{0} - 9223372036854775807", ["BIGINT"]),
    ("INT", "CAST({0} AS INT)", ["BIGINT"]),
    ("INT", "CAST({0} AS SMALLINT)", ["INT"]),
    ("INT", "{0} / CAST(-1 AS TINYINT)", ["INT"]),
    ("INT", "MOD({0}, -1)", ["INT"]),
    # CAST / TRY_CAST to and from STRING and BOOLEAN
    ("BOOLEAN", "CAST({0} AS BOOLEAN)", ["STRING"]),
    ("BOOLEAN", "TRY_CAST({0} AS BOOLEAN)", ["STRING"]),
    ("BOOLEAN", "CAST({0} AS BOOLEAN)", ["NUM"]),
    ("STRING", "CAST({0} AS STRING)", ["ANY"]),
    ("STRING", "CAST({0} AS CHAR(3))", ["ANY"]),
    ("STRING", "CAST({0} AS VARCHAR(2))", ["ANY"]),
    ("INT", "CAST({0} AS INT)", ["STRING"]),
    ("INT", "TRY_CAST({0} AS TINYINT)", ["STRING"]),
    ("BIGINT", "TRY_CAST({0} AS BIGINT)", ["STRING"]),
    ("DOUBLE", "CAST({0} AS DOUBLE)", ["STRING"]),
    ("DOUBLE", "TRY_CAST({0} AS FLOAT)", ["STRING"]),
    ("DATE", "TRY_CAST({0} AS DATE)", ["STRING"]),
    ("TIMESTAMP", "TRY_CAST({0} AS TIMESTAMP(3))", ["STRING"]),
    ("INT", "CAST({0} AS TINYINT)", ["BOOLEAN"]),
    ("DECIMAL", "CAST({0} AS DECIMAL(5, 2))", ["BOOLEAN"]),
    ("DOUBLE", "CAST({0} AS DOUBLE)", ["BOOLEAN"]),
    ("STRING", "CAST(CAST({0} AS BYTES) AS STRING)", ["STRING"]),
    # IS DISTINCT FROM, BETWEEN SYMMETRIC, result types, LIKE / SIMILAR TO with escapes
    ("BOOLEAN", "{0} IS DISTINCT FROM {1}", ["ANY", "ANY"]),
    ("BOOLEAN", "{0} IS NOT DISTINCT FROM {1}", ["NUM", "NUM"]),
    ("BOOLEAN", "{0} BETWEEN SYMMETRIC {1} AND {2}", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "{0} NOT BETWEEN SYMMETRIC {1} AND {2}", ["ANY", "=0", "=0"]),
    ("BOOLEAN", "{0} BETWEEN ASYMMETRIC {1} AND {2}", ["NUM", "NUM", "NUM"]),
    ("STRING", "TYPEOF(CASE WHEN {0} THEN {1} ELSE {2} END)", ["BOOLEAN", "ANY", "ANY"]),
    ("STRING", "TYPEOF(CASE WHEN {0} THEN {1} WHEN {2} THEN {3} END)", ["BOOLEAN", "NUM", "BOOLEAN", "NUM"]),
    ("STRING", "TYPEOF(COALESCE({0}, {1}))", ["ANY", "ANY"]),
    ("STRING", "TYPEOF(NULLIF({0}, {1}))", ["ANY", "=0"]),
    ("STRING", "TYPEOF(IF({0}, {1}, {2}))", ["BOOLEAN", "ANY", "=1"]),
    ("STRING", "TYPEOF(GREATEST({0}, {1}))", ["NUM", "NUM"]),
    ("STRING", "TYPEOF({0})", ["ANY"]),
    ("STRING", "TYPEOF({0} {L:ARITH} {1})", ["NUM", "NUM"]),
    ("STRING", "TYPEOF(IFNULL({0}, {1}))", ["ANY", "=0"]),
    ("STRING", "TYPEOF(CASE {0} WHEN {1} THEN {2} ELSE {3} END)", ["ANY", "=0", "ANY", "ANY"]),
    ("BOOLEAN", "{0} LIKE {L:LIKE4}", ["STRING"]),
    ("BOOLEAN", "{0} NOT LIKE {L:LIKE4}", ["STRING"]),
    ("BOOLEAN", "{0} SIMILAR TO {L:SIMILAR4}", ["STRING"]),
    ("BOOLEAN", "{0} NOT SIMILAR TO {L:SIMILAR4}", ["STRING"]),
    ("BOOLEAN", "{0} LIKE {1}", ["STRING", "STRING"]),
]
# Printed as they are (the top-level pseudo kind TOP; CAST to any type comes from its CAST targets).
TOP4 = [
    ("TOP", "ARRAY[{0}, {1}]", ["ANY", "=0"]),
    ("TOP", "ARRAY[{0}, {1}, {2}]", ["NUM", "NUM", "NUM"]),
    ("TOP", "ARRAY[ARRAY[{0}], ARRAY[{1}, {2}]]", ["ANY", "=0", "=0"]),
    ("TOP", "MAP[COALESCE({0}, 'n'), {1}]", ["STRING", "ANY"]),
    ("TOP", "MAP[COALESCE({0}, 0), ARRAY[{1}]]", ["INT", "ANY"]),
    ("TOP", "ROW({0}, {1})", ["ANY", "ANY"]),
    ("TOP", "ROW({0}, ARRAY[{1}], ROW({2}))", ["ANY", "ANY", "ANY"]),
    ("TOP", "ARRAY[ROW({0}, {1})]", ["ANY", "ANY"]),
    ("TOP", "ARRAY_SORT(ARRAY[{0}, {1}, {2}])", ["ANY", "=0", "=0"]),
    ("TOP", "ARRAY_CONCAT(ARRAY[{0}], ARRAY[{1}, {2}])", ["NUM", "NUM", "NUM"]),
    ("TOP", "ARRAY_UNION(ARRAY[{0}, {1}], ARRAY[{2}])", ["ANY", "=0", "=0"]),
    ("TOP", "ARRAY_EXCEPT(ARRAY[{0}, {1}], ARRAY[{2}])", ["ANY", "=0", "=0"]),
    ("TOP", "ARRAY_INTERSECT(ARRAY[{0}, {1}], ARRAY[{2}, {3}])", ["ANY", "=0", "=0", "=0"]),
    ("TOP", "ARRAY_SLICE(ARRAY[{0}, {1}, {2}], {L:EDGE}, {L:EDGE})", ["ANY", "=0", "=0"]),
    ("TOP", "ARRAY_APPEND(ARRAY[{0}], {1})", ["ANY", "=0"]),
    ("TOP", "ARRAY_REVERSE(ARRAY[{0}, {1}])", ["ANY", "=0"]),
    ("TOP", "ARRAY_DISTINCT(ARRAY[{0}, {1}, {2}])", ["ANY", "=0", "=0"]),
    ("TOP", "SPLIT({0}, {L:UNI})", ["STRING"]),
    ("TOP", "STR_TO_MAP({0}, {L:SEPS}, {L:SEPS})", ["STRING"]),
    ("TOP", "MAP_KEYS(MAP[COALESCE({0}, 'n'), 1, 'k' || COALESCE({1}, ''), 2])", ["STRING", "STRING"]),
    ("TOP", "MAP_ENTRIES(MAP[COALESCE({0}, 'n'), {1}])", ["STRING", "ANY"]),
    (
        "TOP",
        "MAP_FROM_ARRAYS(ARRAY[COALESCE({0}, 'n'), 'k' || COALESCE({1}, '')], ARRAY[{2}, {3}])",
        ["STRING", "STRING", "ANY", "=2"],
    ),
    ("TOP", "REGEXP_EXTRACT_ALL({0}, {L:PATTERNS})", ["STRING"]),
    (
        "TOP",
        "JSON_QUERY({L:JSON_DOCS}, {L:JSON_PATHS} RETURNING ARRAY<STRING>{L:JSON_WRAPPERS}"
        "{L:JSON_QUERY_CLAUSES})",
        [],
    ),
    ("TOP", "CAST(ROW({0}, {1}) AS ROW<a {L:ALL_TYPES}, b STRING>)", ["ANY", "STRING"]),
    ("TOP", "CAST(ARRAY[{0}, {1}] AS ARRAY<{L:ALL_TYPES}>)", ["ANY", "=0"]),
    ("TOP", "TRY_CAST({0} AS {L:ALL_TYPES})", ["ANY"]),
    ("TOP", "CASE WHEN {0} THEN {1} ELSE {2} END", ["BOOLEAN", "ANY", "ANY"]),
    ("TOP", "COALESCE({0}, {1}, {2})", ["ANY", "ANY", "ANY"]),
    ("TOP", "IF({0}, {1}, {2})", ["BOOLEAN", "ANY", "ANY"]),
]
LISTS4["ARITH"] = ["+", "-", "*", "/", "%"]
LISTS4["JSON_KIND"] = ["VALUE", "SCALAR", "ARRAY", "OBJECT"]

T4 = [*fz.T3, *NEW4]
BY_KIND4 = {k: [t for t in T4 if t[0] == k] for k in (*KINDS4, "TOP")}
for _t in fz.T3:  # a NUM template is one of each numeric kind (as version 3)
    if _t[0] == "NUM":
        for _k in fz.NUMERIC:
            BY_KIND4[_k].append((_k, *_t[1:]))
BY_KIND4["TOP"] = list(TOP4)
FRESH4 = {k: [t for t in [*NEW4, *TOP4] if t[0] == k] for k in (*KINDS4, "TOP")}
"""Version 4's own templates by kind: drawn :data:`FRESH` of the time."""

VERSION4 = (KINDS4, COLUMN_KINDS4, LITERALS4, CAST_TARGETS4, BY_KIND4, LISTS4)

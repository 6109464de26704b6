"""Generate docs/functions.md from the scalar function registry.

Usage: ``python scripts/functions_doc.py`` (rewrites docs/functions.md);
``tests/functions/test_docs.py`` fails when the committed file is not what this writes.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "functions.md"

HEADER = """# Built-in scalar functions

Generated from the registry (`streamsql/functions/scalars/`) by `scripts/functions_doc.py`; do
not edit by hand (`tests/functions/test_docs.py` checks it is current).

Every scalar call is resolved through the registry at planning time. A function that is not in
it, or a call whose arguments no signature accepts, is refused at the call's position in Flink's
words: `No match found for function signature F(<NUMERIC>, <CHARACTER>)` (better refused than
wrong), naming the function as written (`MAX_BY`, not another engine's `ARG_MAX`); `STRING_AGG`,
`GROUP_CONCAT` and `ARRAY_CONCAT_AGG`, keywords of Flink's grammar, get its parser's `Incorrect
syntax near the keyword 'STRING_AGG'`. Operators (`+ - * / %`, comparisons, `AND`/`OR`/`NOT`,
`CASE`, `CAST`, `IS [NOT] NULL`, `IS [NOT] DISTINCT FROM`, `LIKE`, `BETWEEN`, `IN (...)`, `||`)
are compiled directly; integer division truncates, DECIMAL division is exact with Flink's
precision and scale, DECIMAL results carry Flink's types, and `CAST` of a fraction to an integer
truncates.

## Conformance with Apache Flink

`tests/functions/cases.py` lists expression cases (ordinary values and edges: NULL, empty
strings, negative and zero lengths, leap days, month ends, DST changes, non-ASCII text,
out-of-range arguments). `scripts/flink_oracle.py` evaluates them in Apache Flink 2.3 (PyFlink's
local mini-cluster; one batch job for all cases, session time zone UTC, and again for the
cases of `ZONED` in sessions of other zones) and writes each value and result type to
`tests/functions/flink_expected.json`; `tests/functions/test_conformance.py` runs the same cases
through a real StreamSQL job and compares both (all cases planned together and run as the
columns of one job; a case Flink fails on runs in a job of its own). Aggregate cases
(`AGGREGATES`) run the same way over a table of values (`AGG_TABLE`). Non-deterministic
functions (`VOLATILE`: the current time, random values) compare their type, and their value for
plausibility. To regenerate the expectations:

    python3 -m venv /work/flinkvenv && /work/flinkvenv/bin/pip install apache-flink==2.3.0
    /work/flinkvenv/bin/python scripts/flink_oracle.py

Types are compared without NOT NULL (StreamSQL does not track nullability of expressions yet).
A CAST's CHAR(n)/VARCHAR(n) and TIMESTAMP(p) are carried exactly, and so are BINARY(n) and
VARBINARY(n) (a CAST cuts to n bytes and zero-pads BINARY(n), `X'0102'` is BINARY(2): see
docs/types.md); elsewhere a type may be
compared coarser: CHAR(n)/VARCHAR(n) as STRING (inside ARRAY, MAP and ROW types too),
TIMESTAMP(p) as TIMESTAMP(3) for p <= 3 (carried
in milliseconds) or TIMESTAMP(6), and TIMESTAMP_LTZ(p) as TIMESTAMP_LTZ(6): an expression's
instant is carried in microseconds (DuckDB has no millisecond TIMESTAMPTZ), its value in
Flink's precision.

Python user-defined functions: [udf.md](udf.md).

## General differences

- Regular expressions (REGEXP_REPLACE, REGEXP_EXTRACT) run on RE2, not Java's engine:
  look-around and back-references are not available.
- `SIMILAR TO`: a literal pattern without `ESCAPE` is translated to a regular expression at
  planning time as Flink reads it (`%` is any text, `_` and `.` any character, `$` a literal);
  another pattern, or one with `ESCAPE`, is translated row by row with Flink's (Calcite's) rules
  and matched with Java's meaning; a pattern Flink's translation or Java refuses fails the job
  (a leading `{1,2}` and a quantifier after a quantifier, `.**`, which Java reads, too).
- Date/time format patterns are Java's, translated to strftime at planning time; the pattern
  must be a literal, and a pattern letter without a translation is refused (the zone letters
  `z Z X x O V`, whose format fails Flink's job on a TIMESTAMP). DATE_FORMAT reads them as
  `java.time`'s DateTimeFormatter does (`S` x n the fraction cut to n digits, `u` the year, `k`
  1..24, `K` 0..11, `Y` the week-based year of the `en` locale, `Q`, `e`, `W`, `F`, `n`, `A`,
  `N`, `G`, optional sections `[...]` written), FROM_UNIXTIME as SimpleDateFormat (`S` the
  milliseconds, `u` the ISO day of the week; before 1582-10-15 the Julian calendar's date and the
  year of the era). TO_TIMESTAMP and TO_TIMESTAMP_LTZ read a pattern as java.time does (`u` the
  year, unsigned): each
  number field of n letters exactly n digits (`SSSSSS` six), the year 1970 when the pattern has
  none; TO_TIMESTAMP_LTZ's result has the precision of the format's last `S` letters (at most 6
  here: 7 to 9 are refused). A letter java.time does not know (`f`, ...) makes
  TO_TIMESTAMP NULL, as Flink's; `w` is refused in a parsing pattern of TO_DATE and
  UNIX_TIMESTAMP (each reads it its own way in Flink). TO_TIMESTAMP and TO_TIMESTAMP_LTZ read the
  week fields `Y` and `w` as java.time does where they make no difference (no day of the week to
  resolve them with, no date to check them against: `TO_TIMESTAMP('2024', 'YYYY')` is 1970-01-01
  00:00:00, as Flink's); other patterns with them are refused.
- The result type of CASE and IF is Calcite's least restrictive type, where the first FLOAT or
  DOUBLE met wins (`CASE WHEN f THEN CAST(d AS FLOAT) ELSE d END` is a FLOAT, the DOUBLE cut as
  Java's `(float)`); that of COALESCE, GREATEST and LEAST Flink's common type (FLOAT with
  integers, DOUBLE with a DOUBLE or a DECIMAL; a TIMESTAMP and a DATE are a DATE in COALESCE).
- A TIMESTAMP with a TIMESTAMP_LTZ, as Flink 2.3: CASE (and `ARRAY[...]`, a UNION's or VALUES'
  column) is Calcite's least restrictive type met in order, where a value of the same precision
  keeps the type so far and one of another precision makes it its own kind with the larger
  precision (`CASE WHEN f THEN ts ELSE ltz END` is a TIMESTAMP(3), `THEN ltz ELSE ts` a
  TIMESTAMP_LTZ(3), `THEN CAST(ts AS TIMESTAMP(6)) ELSE ltz` a TIMESTAMP_LTZ(6)); IF is its first
  branch's type (the other cut to it); COALESCE, IFNULL, GREATEST and LEAST are the TIMESTAMP_LTZ
  of the larger precision. The values move between the kinds in the session time zone, as CAST
  moves them, except in GREATEST and LEAST, which read the TIMESTAMP's wall clock as UTC (Flink's
  own answer, copied). `=`, `<>`, NULLIF and a simple CASE compare in the least restrictive kind
  of their two operands, `<`, `<=`, `>`, `>=`, BETWEEN and IS [NOT] DISTINCT FROM as instants,
  IN in the kind of the value looked for: this differs only for a wall clock in a DST gap or
  fall-back overlap (differential fuzzer cases with `TZ=America/New_York`).
- The time units beyond DuckDB's are Flink's, including where Flink's answer looks odd (copied,
  as Flink computes them everywhere): EXTRACT(MILLISECOND | MICROSECOND | NANOSECOND) is the
  epoch milliseconds modulo 1000 (negative before 1970; of a DATE, its epoch *days* modulo 1000),
  EPOCH whole seconds; FLOOR/CEIL to CENTURY and MILLENNIUM have boundaries in years ending in 1
  and CEIL to DECADE, CENTURY, MILLENNIUM moves past a boundary it is on; TIMESTAMPDIFF cuts its
  count to INT as Java's `(int)` (wrapping past it), drops the milliseconds in MILLISECOND and
  MICROSECOND, and counts DECADE in whole years (CENTURY, MILLENNIUM in years / 100, / 1000).
  The units that are no length of time and ISOYEAR: FLOOR/CEIL of a DATE to DOW, DOY, ISODOW,
  ISOYEAR, MICROSECOND, NANOSECOND or EPOCH is the date itself, of a TIMESTAMP to ISOYEAR its epoch
  milliseconds rounded to a multiple of 12 (Flink uses ISOYEAR's 12 months as milliseconds; the
  other units of a timestamp fail in Flink and are refused here); TIMESTAMPADD of DOW, DOY, ISODOW
  or EPOCH is NULL, of ISOYEAR n * 12 months (as YEAR; a unit of months adds n times its months,
  an INT product that wraps around, as in Flink); TIMESTAMPDIFF counts DOW,
  DOY and ISODOW as days, ISOYEAR as years, NANOSECOND as whole seconds * 10^9 (a BIGINT).
- Day-time intervals hold milliseconds, as Flink's: a literal's digits below the millisecond are
  cut toward zero (`INTERVAL '0.000123' SECOND` is 0 ms; `CAST(ts AS TIMESTAMP(6)) + INTERVAL
  '0.0015' SECOND` adds 1 ms), and `CAST` of an interval literal to STRING is Flink's text
  (`+0 00:00:01.001`, `-1 02:03:04.500`, `+1-02`).
- Months are added as Flink's `DateTimeUtils.addMonths` adds them (TIMESTAMPADD of MONTH, QUARTER,
  YEAR ..., a DATE or TIMESTAMP +/- a year-month interval): the proleptic Gregorian calendar, year
  0 and negative years included, and before 4800 BC Flink's Julian-day arithmetic in Java ints,
  which leaves the calendar there (`TIMESTAMPADD(YEAR, -7000, TIMESTAMP '2024-01-01 00:00:00')` is
  not -4976-01-01 in Flink; copied, `streamsql/functions/scalars/flink_months.py`; a TIMESTAMP_LTZ
  operand keeps DuckDB's calendar arithmetic). Flink fails the job where it writes a DATE before
  4800-03-01 BC (`Invalid value for MonthOfYear`: its conversion to a `LocalDate` uses the same
  Julian-day arithmetic); StreamSQL writes the date.
- Dates and timestamps past year 9999 are computed as in Flink (`TIMESTAMPADD(YEAR, 8000, ts)`),
  and the print sink writes such a year as `java.time` does (`+10024-01-01T12:00`). `CAST` of one
  to STRING keeps four year characters as Flink's (Calcite's) formatter: `0024-02-29
  13:45:30.123`, and before year 1 characters below '0' (`0')*-02-29` for the year -976), copied;
  DATE_FORMAT writes java.time's year of the era, with a `+` past the letters' width from four
  letters on (`yyyy`: `+10024`; `0977` for 977 BC). A SELECT collected into Python
  (`TableResult.collect`, the shell) fails with a clear error, as Python's `datetime` stops at
  year 9999: CAST the column to STRING there. A *constant* DATE outside the years 1 to 9999 is
  refused, as Flink's planner folds it into a DATE literal, which cannot hold it: `DATE
  '0001-01-01' - INTERVAL '1' DAY` (or `DATE '9999-12-31' + INTERVAL '1' DAY`) fails with `Year
  out of range: [0]` wherever it stands, even in a branch no row takes; a constant that only
  contains it (`YEAR(DATE '0001-01-01' - INTERVAL '1' DAY)`, 0) and a constant TIMESTAMP are
  answered (Flink writes a constant TIMESTAMP past 9999 in four digits too: `TIMESTAMP '9999-12-31
  23:59:59' + INTERVAL '1' SECOND` is `0000-01-01T00:00` there, the year 10000 here). Past
  the years a TIMESTAMP holds here (290309 BC to 294247 AD), or a DATE, `TIMESTAMPADD` fails the
  job naming the call, its operands and the record (`TIMESTAMPADD(DAY, 2147483647, 2024-01-01
  00:00:00) is out of the range of a TIMESTAMP here ...`), where Flink 2.3 gives a value whose
  year it prints garbled (`)+()-06-21 00:00:00.000`), or fails itself (WEEK of a DATE).
- An interval literal's qualifier has Calcite's precisions (`INTERVAL '8000' YEAR(4)`, `DAY(3) TO
  HOUR`, `SECOND(2, 3)`), and Flink's checks: the leading field must fit its precision (2 digits
  unless written: `INTERVAL '100' HOUR` is refused with `Interval field value 100 exceeds
  precision of HOUR(2) field`), the precisions must be in Calcite's ranges (1..10, fraction
  1..9), and a day-time one's leading precision at most 3 (`DAY_INTERVAL_TYPES precision is not
  supported: 5`).
- ROUND, TRUNCATE and CAST (and TRY_CAST) to DECIMAL read a DOUBLE or FLOAT as a `BigDecimal` in
  Flink: an infinite or NaN value fails the job there (`Character I is neither a decimal digit
  number ...`), and here.
- DECIMAL multiplication is exact, rounded half up to Flink's result type, and NULL past its
  precision, as Flink's `DecimalDataUtils.multiply` (`CAST(m AS DECIMAL(38, 18)) *
  CAST(m AS DECIMAL(38, 18))` is a DECIMAL(38, 6)).
- The session time zone is `'table.local-time-zone'` (StreamSQL's default: UTC; Flink's: the
  JVM's zone), read when a statement is planned: LOCALTIMESTAMP, LOCALTIME, CURRENT_TIME,
  CURRENT_DATE, UNIX_TIMESTAMP, FROM_UNIXTIME, and of a TIMESTAMP_LTZ: DATE_FORMAT, EXTRACT and its
  shorthands (HOUR, DAYOFMONTH, ...: fields of the local wall clock), FLOOR/CEIL (the local
  wall clock rounded, shifted back by the value's own UTC offset as Flink does, so an hour off
  across a DST change) and CAST between TIMESTAMP_LTZ and TIMESTAMP/DATE use it. A wall clock in
  a fall-back overlap becomes the earlier instant in a CAST to TIMESTAMP_LTZ (Java's
  `atZone`) and the later one in UNIX_TIMESTAMP (Java's `SimpleDateFormat`), as in Flink.
- The current time (CURRENT_TIMESTAMP, NOW, LOCALTIMESTAMP, LOCALTIME, CURRENT_TIME,
  CURRENT_DATE, PROCTIME, CURRENT_ROW_TIMESTAMP, UNIX_TIMESTAMP()) is taken once per batch:
  every row of a batch gets the same time (Flink: once per record in streaming mode).
- Where Flink fails the job (TO_TIMESTAMP_LTZ of a string that does not parse, RAND_INTEGER
  of a bound <= 0, a division by zero, a CAST of a string that is not a number), the job fails
  with the function, the value and the record it failed on: `(record orders[2]@1041)` (Kafka
  topic, partition and offset) or `(record /data/in.json:17)` (file and line). Each function
  declares how its failures read (`failures` of its registry entry, `declare_failure` for the
  operators); the record is the first row of the batch that fails alone.
- CAST (and TRY_CAST) of a string reads the texts Flink reads, as Flink reads them (one reader
  per type in `streamsql/functions/scalars/cast_text.py`): to TINYINT .. BIGINT trimmed, a sign,
  digits and an optional fraction that is dropped (`'1.5'` is 1; `'1e3'`, `'0x1F'` are not
  integers); to DATE `y[-m[-d]]` (`'12'` is 0012-01-01, `'2024-3'` 2024-03-01); to TIMESTAMP
  `yyyy-M-d[ H:m:s[.f]]` with nothing around it (`'2024-02-30'` is 2024-02-29, `'...T10:20'` and
  zones are not read); to DOUBLE/FLOAT Java's text (`'1d'` is 1.0, `'infinity'` and `'1_000'`
  are not numbers); to DECIMAL Flink's own parser (`'1@'` is 1, `'t'` is 0). A text Flink does
  not read fails the job for CAST and is NULL for TRY_CAST. Not yet as Flink: hexadecimal
  floating point (`'0x1p3'`, NULL here) and a DECIMAL text that rounds past its precision:
  Flink's parser for DECIMAL(p <= 18) and texts of up to 18 bytes checks the digits before it
  rounds, so `TRY_CAST('99999999.995' AS DECIMAL(10, 2))` is 100000000.00 there, a value its
  own type cannot hold (Flink cannot fold it as a constant: `Cannot convert 100000000.00 to
  DECIMAL(10, 2) due to overflow`), while `'099999999.995'` is NULL (CAST fails); StreamSQL
  gives NULL for TRY_CAST and fails the job for CAST. From a DOUBLE, a DECIMAL, DECIMAL
  arithmetic and into a DECIMAL(10, 2) sink such a value is NULL, there as here
  (`BigDecimal.setScale`, then the precision check; compat case `decimal_round_past_precision`).
- Integer arithmetic wraps around as Java's, as in Flink: `+`, `-`, `*`, `/`, unary minus and
  ABS of integers keep the low bits of the exact result (`2147483647 + 1` is -2147483648,
  `ABS(CAST(-128 AS TINYINT))` -128), and CAST and TRY_CAST to a narrower integer keep the low
  bits of the integer, the DECIMAL cut toward zero, or the DOUBLE's Java `(int)`
  (`CAST(3000000000 AS INT)` is -1294967296, `TRY_CAST(123456.789E0 AS TINYINT)` 64), and so does
  ROUND of an integer to negative digits (rounded half up as a `BigDecimal`, then the low bits:
  `ROUND(9223372036854775807, -1)` is -9223372036854775806; from -20 digits on it is 0). So do
  aggregates: `SUM` of an INT is an INT, as in Flink, and a total beyond the INT range wraps
  ([aggregate result types](queries.md#aggregate-result-types)).
- Integer and DECIMAL division (and `%`, MOD) by zero fail the job, as in Flink, where a row
  reaches the division; a NULL divided by zero is NULL, as Flink tests the operands for NULL
  first (`NULLIF(i, i) / i`; it failed the job here until session 18). StreamSQL evaluates only
  the operands a row needs, and so does Flink for `CASE`, `IF`, `AND` and `OR` (`IF(b <> 0, a /
  b, -1)`, `b <> 0 AND a / b > 1` never divide by a zero
  `b`), but not for `COALESCE`, whose generated code evaluates every argument: Flink 2.3 fails
  `COALESCE(a, 100 / b)` with `/ by zero` on a row where `a` is not NULL and `b` is 0; StreamSQL
  answers `a` (deliberately: the answer is the one SQL defines, and Flink fails rather than
  answering differently). Flink also folds constant expressions while planning: a constant
  integer division by zero (`CASE WHEN id > 100 THEN 1 / 0 ELSE id END`)
  refuses the whole statement there (`ArithmeticException: Division by zero`) even when no row
  takes that branch; StreamSQL plans it and fails the job only if a row reaches it (such a
  script does not run on Flink, so there is no Flink answer to give; a branch no row takes is not
  evaluated, as the rest of the language does). The other way round, Flink drops what its
  simplification proves unused before it generates code: a `CASE WHEN FALSE THEN x` branch, and
  the operand of a TIMESTAMPADD of DOW, DOY, ISODOW or EPOCH (NULL whatever the operand). What
  Flink refuses only when it generates code is accepted there, as in Flink (`CEIL(ltz TO DOY)` of
  a TIMESTAMP_LTZ, `TRY_CAST(3 AS TIMESTAMP(0))`); refused still, where Flink answers: such a part
  under another condition Calcite proves false (`WHEN 1 = 0`), which StreamSQL does not simplify.
- Where Flink's answer is a fault rather than a rule, StreamSQL does not copy it (found by the
  differential fuzzer, [fuzzing](fuzzing.md#differential-fuzzing-of-expressions-against-flink);
  each is kept in `tests/functions/difffuzz_known.json` with this reason): TO_DATE of a text its
  pattern does not read is NULL, where Flink turns its parser's failure value (Long.MIN_VALUE
  milliseconds) into a date far in the future (`+1705471-09-27` at run time, `5471-09-27` when
  the call is constant); `CEIL(d TO DAY)` of a DATE is the date itself,
  where Flink gives the next day; `LOWER`/`UPPER` of a `CHAR(n)` literal keeps every character of
  the result, where Flink cuts it to n (`LOWER('İ')`, two characters, see *Cases answered
  differently*). Copied on the other hand, as they are rules Flink
  applies everywhere: `CAST(ts AS DATE)` of a TIMESTAMP before 1970 is the next day when the time
  is not midnight (Flink divides the epoch milliseconds by a day, truncating, as in EXTRACT), and
  `x + 0` keeps a `-0.0` (Calcite simplifies it to `x`).
- `RAND(seed)` and `RAND_INTEGER(seed, bound)` give java.util.Random's values, as Flink 2.3's
  code generator: with a literal seed, one Random per call site and operator instance (per task),
  seeded when the job starts or restarts (not checkpointed) and advanced by each row the call is
  evaluated on (the rows a WHERE keeps, for a call in the SELECT list; the rows reaching a CASE
  branch); with any other seed, a new Random per row, of which the call gives the first value.
  A NULL argument gives NULL and draws nothing; a bound <= 0 fails the job ("bound must be
  positive"); a BIGINT argument is refused, in Flink's words (`Unsupported call: RAND(BIGINT)`).
  Row by row as Flink: `tests/functions/test_java_random.py` (recorded by `scripts/flink_rand.py`).
- Cases where StreamSQL's answer differs from Flink's on purpose, or where StreamSQL refuses
  what Flink answers, are listed below (from `DIFFERENCES` and `REFUSED` of
  `tests/functions/cases.py`), with the reason; the function tables say the same per function.

"""


TYPEOF = """
## TYPEOF

`TYPEOF(x [, force_serializable])` is Flink's type of `x` as a string, nullability included
(`TYPEOF(1)` is `'INT NOT NULL'`), computed at planning time (see
`streamsql/functions/scalars/typeof.py`). StreamSQL's plan does not carry nullability through
every expression, so `x` is one of the forms whose Flink type is certain, else the call is refused
at the argument that is not (never a guess):

- a column read straight from a table: its DDL type (`NOT NULL`, a PRIMARY KEY column NOT NULL;
  a rowtime column without a `*ROWTIME*` marker, as Flink 2.3 answers); a column of a subquery, a
  view or an aggregation: the type of its expression by these rules (a COUNT is `BIGINT NOT NULL`;
  `tests/sql/flink_query_gaps` "typeof_derived"), not one of a join (Flink may make it nullable) or
  of another aggregate; not of a type whose
  Flink spelling StreamSQL does not keep (`VARCHAR` without a length, `BINARY`, `VARBINARY`) or
  of a ROW, ARRAY or MAP type; a `filesystem` table's metadata column too (`file.path`, ...),
  whose bare TYPEOF is the source's NOT NULL type when the declared one differs only in
  nullability, as Flink drops that cast (`fs BIGINT METADATA FROM 'file.size'`: `BIGINT NOT
  NULL`; in `fs + 1` it is the declared `BIGINT`: `BIGINT`); other connectors' metadata columns
  are refused (their produced types not checked against Flink yet);
- a literal (a negative number too: `TYPEOF(-1.5)` is `DECIMAL(2, 1) NOT NULL`): NOT NULL; a string
  literal is `CHAR(n)`; an untyped `NULL` is `'NULL'`;
- `CAST(x AS T)`: `T`, nullable as `x`; `TRY_CAST(x AS T)` of a nullable `x` (not to the types
  above whose spelling is not kept, nor ROW, ARRAY, MAP); an integer literal up to BIGINT's range;
- `x + y`, `x - y`, `x * y`, `x / y`, `x % y` (`MOD`) over numbers (Flink's result type:
  `TYPEOF(1 / 2)` is `INT NOT NULL`, `TYPEOF(m / 2)` of a `DECIMAL(10, 2)` `DECIMAL(21, 13)`) and
  the comparisons `= <> < <= > >=` (BOOLEAN), nullable iff an operand is;
- `IS [NOT] NULL`, `IS [NOT] TRUE` ..., `IS [NOT] DISTINCT FROM`: `BOOLEAN NOT NULL`; `NOT`, `AND`,
  `OR`, `LIKE`, `SIMILAR TO` (with `ESCAPE` too): nullable iff an operand is;
- `ARRAY_MIN`, `ARRAY_MAX`, `ELEMENT` of an `ARRAY[..]` constructor: the elements' type, nullable
  for `ARRAY_MIN` / `ARRAY_MAX`, as the elements for `ELEMENT` (`TYPEOF(ELEMENT(ARRAY[1]))` is
  `INT NOT NULL`); `TO_TIMESTAMP_LTZ` and `TO_TIMESTAMP`: `TIMESTAMP_LTZ(3)` / `TIMESTAMP(3)`,
  nullable whatever the arguments (`TO_TIMESTAMP_LTZ(n, 0)` too; `TO_TIMESTAMP_LTZ(n, 6)` is
  refused); `E()`, `LOCALTIME`, `CURRENT_TIME`: NOT NULL;
- `NULLIF(x, y)`: `x`'s type, nullable (Calcite's ARG0_FORCE_NULLABLE);
- `arr[i]`, `map[k]`: the element's (value's) type, nullable, but a string, binary or composite one
  (`TYPEOF(ARRAY_AGG(n)[1])` is `INT` of an `INT NOT NULL` n, as Flink 2.3);
- `CASE`, `IF`, `COALESCE` over values of one type, integers of several widths, or `STRING` with
  `CHAR(n)`/`VARCHAR(n)`: that type (the widest integer, `STRING`); over other mixes but strings,
  bytes and composites (DECIMALs, DOUBLE with integers, DATE with TIMESTAMP): the type the query
  computes them in, Flink's (difffuzz campaign 32); `CASE` nullable iff a value is
  (without `ELSE`: NULL), `IF` iff any argument is (its condition too), `COALESCE` iff every
  argument is (`COALESCE(ms, 0)` is `BIGINT NOT NULL`);
- a call, over such arguments, of a function whose result type and NULL behaviour ("NULL if any
  argument is NULL") were checked against Flink 2.3's types in the conformance cases: its result
  type, NOT NULL iff every argument is (not when a string result is computed from a
  `CHAR(n)`/`VARCHAR(n)` argument: Flink keeps the length, `UPPER('abc')` is `CHAR(3) NOT NULL`).
  These functions: VERIFIED.

Refused: other operators (`||`, arithmetic on times), `CASE` / `IF` / `COALESCE` of
other mixes of types (`CHAR(n)` of different lengths, DECIMALs ...), the other functions (e.g.
`MD5`: Flink's type is `CHAR(32)`; `CHR`, `REGEXP_COUNT`: nullable over NOT NULL values),
`TYPEOF('')`. Flink's answers are the
compat cases `tests/compat/cases/typeof_*`.
"""


def render() -> str:
    """The Markdown text of docs/functions.md."""
    sys.path.insert(0, str(ROOT))
    from streamsql.functions.scalars import REGISTRY
    from streamsql.functions.scalars.calls import FLINK_NOT_YET

    cases = runpy.run_path(str(ROOT / "tests" / "functions" / "cases.py"))

    from streamsql.functions.aggregates import AGGREGATE_DOCS
    from streamsql.functions.scalars.calls import (
        BUILT_IN_PTFS,
        FLINK_AGGREGATES_NOT_YET,
        FLINK_LISTED_NOT_HERE,
    )

    entries = list({id(f): f for f in REGISTRY.values()}.values())
    operators = _operators(cases)
    out = [HEADER, "### Cases answered differently\n", "| case | StreamSQL | why |", "| --- | --- | --- |"]
    out += [f"| `{_cell(case)}` | `{_cell(repr(value))}` | {why} |"
            for case, (value, why) in cases["DIFFERENCES"].items()]
    out += ["\n### Cases refused (Flink answers)\n", "| case | why |", "| --- | --- |"]
    out += [f"| `{_cell(case)}` | {why} |" for case, why in cases["REFUSED"].items()]
    total = len(entries) + len(AGGREGATE_DOCS) + len(operators)
    out.append(f"\n## Supported ({total} of Flink's built-ins: {len(entries)} scalar functions with "
               f"{len(REGISTRY)} names, {len(AGGREGATE_DOCS)} aggregates, {len(operators)} operators)\n")
    for group in ("string", "conditional", "arithmetic", "temporal", "json", "hash", "collection", "bitmap",
                  "misc"):
        out.append(f"\n### {group.capitalize()}\n")
        out.append("| function | signatures | NULL behaviour | deterministic | differences from Flink |")
        out.append("| --- | --- | --- | --- | --- |")
        for f in sorted((e for e in entries if e.group == group), key=lambda e: e.names[0]):
            names = ", ".join(f"`{n}`" for n in f.names)
            sigs = ", ".join(f"`{s}`" for s in f.signature_list())
            out.append(f"| {names} | {sigs} | {f.nulls} | {'yes' if f.deterministic else 'no'} | "
                       f"{f.differences or '—'} |")
    out.append("\n### Aggregates\n")
    out.append("In GROUP BY, window and OVER aggregations, over insert-only input and changelogs (a "
               "retraction is subtracted); conformance cases over a table of values (`AGGREGATES` of "
               "cases.py). A call's result is typed as any value inside an expression around it "
               "(`ARRAY_AGG(x)[1]`, `UPPER(LISTAGG(s))`, `JSON_QUERY(JSON_ARRAYAGG(s), '$[0]')`, as Flink "
               "2.3: `tests/sql/test_flink_query_gaps.py`).\n")
    out.append("| function | arguments | NULL behaviour | differences from Flink |")
    out.append("| --- | --- | --- | --- |")
    for a in AGGREGATE_DOCS:
        names = ", ".join(f"`{n}`" for n in a.names)
        out.append(f"| {names} | {a.arguments} | {a.nulls} | {a.differences or '—'} |")
    out.append("\n### Operators\n")
    out.append("Flink's operator rows (comparison, logical, arithmetic, string, conditional, conversion, "
               "JSON, temporal literals), compiled directly (see above), with their number of conformance "
               "cases.\n")
    out.append("| operator | cases |")
    out.append("| --- | --- |")
    out += [f"| `{_cell(form)}` | {n} |" for form, n in operators.items()]
    out.append("\n## Not supported yet\n")
    out.append("Flink built-ins refused with `Function F is not supported yet (...)`:\n")
    out.append((", ".join(f"`{n}`" for n in sorted(FLINK_NOT_YET)) or "none") + "\n")
    out.append("Aggregates refused with `Aggregate function F is not supported yet`:\n")
    out.append((", ".join(f"`{n}`" for n in sorted(FLINK_AGGREGATES_NOT_YET)) or "none") + "\n")
    out.append("Listed by Flink 2.3's `SHOW FUNCTIONS` and not StreamSQL's (refused with `No match found "
               "for function signature ...`), by why:\n")
    out += [f"- {why}: " + ", ".join(f"`{n}`" for n in names) for why, names in FLINK_LISTED_NOT_HERE.items()]
    out.append("")
    ptfs = ", ".join(f"`{n}`" for n in BUILT_IN_PTFS)
    out.append(f"Flink's built-in process table functions {ptfs} are called in FROM: "
               "[queries.md](queries.md#changelog-functions-to_changelog-and-from_changelog).\n")
    out.append("Value construction and access (`ROW(...)`, `ARRAY[...]`, `MAP[...]`, `row.field`, "
               "`arr[i]`, `map[key]`) are in [types.md](types.md), Flink 2.3's collection functions "
               "(`ARRAY_*`, `MAP_*`, `SPLIT`, `STR_TO_MAP`) in the Collection table above.\n")
    from streamsql.functions.scalars.typeof import VERIFIED

    out.append(TYPEOF.replace("VERIFIED", ", ".join(f"`{n}`" for n in sorted(VERIFIED))))
    return "\n".join(out)


def _operators(cases: dict) -> dict[str, int]:
    """Each operator of ``cases["OPERATORS"]`` → its number of cases Flink evaluated.

    Raises:
        SystemExit: an operator without a case.
    """
    import json
    import re

    expected = json.loads((ROOT / "tests" / "functions" / "flink_expected.json").read_text())["cases"]
    exprs = list(dict.fromkeys(r["expr"] for r in expected if not r.get("aggregate")))
    counts = {form: sum(1 for e in exprs if re.search(p, e)) for form, p in cases["OPERATORS"].items()}
    missing = [form for form, n in counts.items() if n == 0]
    if missing:
        sys.exit(f"operators without a conformance case: {missing}")
    return counts


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}")

"""Shared machinery of the formats: Decoder/Encoder contracts, options, bad records, renderers.

The per-value converters of the slow path that locates bad records are in :mod:`.convert`.

Decoding is two-tier. Every decoder first tries a vectorized *fast path* over the whole list of
payloads (Arrow's JSON or CSV reader). When it fails, or its result does not line up one row per
payload, the decoder falls back to a per-record *slow path* that applies Flink's conversion rules
value by value; that path either converts the record or names it as a bad record (skipped and
counted, or raised as :class:`BadRecordError`).
"""

from __future__ import annotations

import base64
import decimal
from abc import ABC, abstractmethod
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.convert import RECORD_FAULTS, MissingField, excerpt, from_rows, record_fault
from streamsql.connectors.formats.java_text import parse_base64
from streamsql.connectors.formats.java_timestamp import timestamp_column
from streamsql.connectors.formats.timestamp_text import trim_fraction

from streamsql.core.config import did_you_mean
from streamsql.core.connector import OptionSpec
from streamsql.core.elements import Batch
from streamsql.core.errors import BadRecordError, ConfigError, ExecutionError
from streamsql.core.types import Schema, SqlType
from streamsql.core.values import parse_bool

Where = Callable[[int], str]


# --------------------------------------------------------------------------------------------
# contracts


class Decoder(ABC):
    """Turns message payloads into a :class:`Batch` with the schema's columns.

    Attributes:
        schema: the columns produced, in order.
        skipped: bad records skipped so far (``'<format>.ignore-parse-errors' = 'true'``).
        tombstones: None payloads (and empty ones, see :attr:`empty_is_no_row`) skipped so far.
        changelog: True when batches may carry -U/+U/-D rows (debezium-json).
        source_index: after each :meth:`decode`, the int64 index into ``values`` of every
            output row (lets a connector line up per-record metadata such as Kafka offsets).
        option_prefix: what the table's DDL writes before the format's options (``'key.'``
            for a Kafka key format), for the option named in a bad record's error.
    """

    changelog: bool = False
    option_prefix: str = ""
    #: Flink's deserializer of the format returns no row for an empty (zero-byte) message (json,
    #: debezium-json), which :meth:`decode` skips and counts in ``tombstones``.
    empty_is_no_row: bool = False

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        self.schema = schema
        self.options = options
        self.table = table
        self.arrow_schema = schema.to_arrow()
        self.skipped = 0
        self.tombstones = 0
        self.source_index: np.ndarray = np.zeros(0, dtype=np.int64)

    @abstractmethod
    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` (one payload each; None = tombstone) into one batch.

        Args:
            values: the payloads.
            where: ``where(i)`` names the i-th record's location for error messages.

        Raises:
            BadRecordError: naming location, reason and an excerpt of the first bad record,
                unless the format ignores parse errors.
        """

    def empty(self) -> Batch:
        """A batch with no rows."""
        self.source_index = np.zeros(0, dtype=np.int64)
        return Batch(self.arrow_schema.empty_table())

    def narrow(self, read: frozenset[tuple[str, ...]]) -> None:
        """Decode from now on only what is needed when the job reads just the paths in ``read``.

        ``read``: ``(column,)`` for all of a column, ``(column, field, ...)`` for a field of a ROW
        column (``ConnectorContext.read_columns``). Afterwards :attr:`schema` holds the columns
        still decoded, in order, a ROW column with the fields still decoded; the connector leaves
        the other columns and fields NULL (:mod:`streamsql.plan.scan_reads`,
        ``connectors/kafka/decode.py``'s ``widen``). The narrowed decoder must take and
        reject (or skip and count) exactly the records it did before, with the same error for the
        same first bad record, and give the same values in the columns it keeps. Default: every
        column stays (a format that does not say what skipping a column changes decodes all).
        """

    def project(self, read: frozenset[tuple[str, ...]]) -> None:
        """The job reads only the columns in ``read``: the type Flink's projection pushdown gives the format.

        Unlike :meth:`narrow`, this may change a record's fate, where Flink's converter of the
        projected type does: the ``json`` format walks a record nested past Jackson's limit with
        the projected columns only (:mod:`.json_depth`). Called by a source whose Flink
        counterpart pushes its projection into the format (``FileSystemTableSource``).
        Default: nothing changes.
        """


class Encoder(ABC):
    """Turns rows into message payloads, one per row.

    Attributes:
        accepts_updates: True when the format can carry -U/+U/-D rows (debezium-json).
    """

    accepts_updates: bool = False

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        self.schema = schema
        self.options = options
        self.table = table

    @abstractmethod
    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row of ``table`` (``kinds``: row kinds, for changelog formats)."""

    def encode_array(self, table: pa.Table, kinds: np.ndarray | None = None) -> pa.Array | None:
        """:meth:`encode`'s payloads as one Arrow string or binary array without NULLs, or None.

        For a writer that hands whole arrays to its client (an exactly-once Kafka sink:
        ``connectors/kafka/native.py``); None (the default) when this encoder builds no such
        array for ``table``: the caller uses :meth:`encode`.
        """
        return None


Piece = tuple[Batch, np.ndarray]
"""A decoded part of a batch and the input index of each of its rows."""

_LEAF = 64  # below this many records a failed fast path goes per record


def decode_bisect(
    n: int, fast: Callable[[int, int], Piece | None], slow: Callable[[int, int], Piece], leaf: int = _LEAF
) -> tuple[Batch, np.ndarray, int]:
    """Decode records ``[0, n)``: fast path first, bisecting failed ranges down to per record.

    The fast path runs on the whole range, and where it fails, on halves recursively, down to
    ``leaf`` records that go per record. A few bad records in a large batch thus cost a few extra
    fast passes, not a per-record pass over the batch.

    Args:
        n: number of records.
        leaf: ranges this small go per record after a failure.
        fast: ``fast(lo, hi)`` → piece, or None when the range needs the slow path.
        slow: ``slow(lo, hi)`` → piece (raises for a bad record unless errors are ignored).

    Returns:
        The batch, the input index of every row, and how many records went per record.
    """
    pieces: list[Piece] = []
    slow_records = 0
    stack = [(0, n)]
    while stack:
        lo, hi = stack.pop()
        if hi <= lo:
            continue
        piece = fast(lo, hi) if hi - lo > leaf or (lo, hi) == (0, n) else None
        if piece is None and hi - lo > leaf:
            mid = (lo + hi) // 2
            stack.append((mid, hi))
            stack.append((lo, mid))  # left first: the earliest bad record is reported first
            continue
        if piece is None:
            piece = slow(lo, hi)
            slow_records += hi - lo
        pieces.append(piece)
    if len(pieces) == 1:
        return pieces[0][0], pieces[0][1], slow_records
    table = pa.concat_tables([p[0].table for p in pieces])
    kinds = None
    if any(p[0].kinds is not None for p in pieces):
        kinds = np.concatenate([p[0].kind_array() for p in pieces]).astype(np.int8)
    src = np.concatenate([p[1] for p in pieces]).astype(np.int64)
    return Batch(table, kinds), src, slow_records


# --------------------------------------------------------------------------------------------
# options


def bool_option(options: dict[str, str], key: str, default: bool, table: str | None = None) -> bool:
    """Parse a 'true'/'false' option, in any case as Flink ('TRUE'; not ' true' or 'yes').

    Raises:
        ConfigError: for another value, naming the option (and table when known).
    """
    v = options.get(key)
    if v is None:
        return default
    return parse_bool(v, f"{_table_prefix(table)}option '{key}'")


def check_options(
    specs: list[OptionSpec], options: dict[str, str], prefix: str, what: str, table: str | None = None
) -> None:
    """Check every option starting with ``prefix`` against ``specs`` (unknown key, bad choice).

    Raises:
        ConfigError: naming the table, the option and the supported keys (with ``table`` and
            ``option`` set, as :func:`~streamsql.connectors.registry.validate_options`).
    """
    known = {o.key: o for o in specs}
    for key, value in options.items():
        if not key.startswith(prefix):
            continue
        o = known.get(key)
        if o is None:
            msg = (
                f"{_table_prefix(table)}unknown option '{key}' for {what}{did_you_mean(key, known)} "
                f"(supported: {', '.join(sorted(known))})"
            )
            raise ConfigError(msg, table=table, option=key)
        try:
            options[key] = o.canonical(value, f"{_table_prefix(table)}option '{key}'")  # 'TRUE' -> 'true'
        except ConfigError as e:  # named, so that the error points at the key in the DDL
            raise ConfigError(str(e), table=table, option=key) from None


def _table_prefix(table: str | None) -> str:
    return f"Table '{table}': " if table else ""


# --------------------------------------------------------------------------------------------
# errors and excerpts


def bad_record(fmt: str, where: str, reason: str, value: bytes | str | None,
               skip_option: str | None = None) -> BadRecordError:
    """The error for one undecodable record.

    ``skip_option``, when given, is the table option that would read past the record instead
    (``'json.ignore-parse-errors'``): the message names it and what it does, as Flink's (a value that
    does not convert is NULL and the row kept; a record that does not parse is skipped and counted),
    before the record's excerpt.
    """
    hint = (f"; with '{skip_option}' = 'true' a value that does not convert is NULL (the row kept) and a "
            "record that does not parse is skipped" if skip_option else "")
    return BadRecordError(f"Cannot decode {fmt} record at {where}: {reason}{hint}; record: {excerpt(value)}")


def skip_option(decoder: Decoder) -> str:
    """The option that makes ``decoder`` read past bad records (Flink's ``<format>.ignore-parse-errors``).

    With it a value that does not convert is NULL (the row is kept) and a record that does not
    parse at all is skipped and counted (``Decoder.skipped``).
    """
    return f"{decoder.option_prefix}{decoder.fmt}.ignore-parse-errors"


def base64_column(arr: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Base64-decode a string column into a binary column (Flink's JSON/CSV encoding of BYTES).

    Raises:
        pyarrow.ArrowInvalid: for text that is not base64 (so the fast path falls back).
    """
    vals = arr.to_pylist()
    try:
        return pa.array([None if v is None else parse_base64(v) for v in vals], pa.binary())
    except ValueError as e:  # Base64Error (Jackson rejects the text)
        msg = f"invalid base64: {e}"
        raise pa.ArrowInvalid(msg) from None


def fix_types(table: pa.Table, schema: Schema, iso: bool = False) -> pa.Table:
    """Cast fast-path read types to the schema's Arrow types, inside ROW and ARRAY values too.

    Timestamps are read as text and parsed only when every value is text Flink's formatter reads
    as Arrow does (:func:`.java_timestamp.timestamp_column`; ``iso``: the ISO-8601 standard, else
    SQL), then cut down to the unit (:func:`floor_timestamps`); decimals with extra scale are
    rounded HALF_UP, as Flink's ``DecimalData.fromBigDecimal``; BYTES are base64 text (Flink's
    JSON and CSV), at any depth: Flink's converters are the same for a nested field.

    Raises:
        pyarrow.ArrowInvalid: for a value the fast path must not convert (the caller goes per
            record), such as timestamp text in another form.
    """
    target = schema.to_arrow()
    if table.schema.equals(target):
        return table
    cols = [_fix_column(table.column(i), f.type, target.field(i).type, iso) for i, f in enumerate(schema)]
    return pa.Table.from_arrays(cols, schema=target)


def _fix_column(c: pa.Array | pa.ChunkedArray, t: SqlType, target: pa.DataType, iso: bool):
    """One column (or a ROW's field, an ARRAY's elements) of :func:`fix_types`."""
    if c.type == target:
        return c
    if pa.types.is_struct(target) or pa.types.is_list(target):
        c = combine(c)
        mask = c.is_null() if c.null_count else None
        if pa.types.is_struct(target):
            kids = [_fix_column(c.field(i), ct, target.field(i).type, iso)
                    for i, (_, ct) in enumerate(t.fields)]
            return pa.StructArray.from_arrays(kids, fields=list(target), mask=mask)
        items = _fix_column(c.values, t.children[0], target.value_type, iso)  # c.offsets index c.values
        return pa.ListArray.from_arrays(c.offsets, items, type=target, mask=mask)
    if pa.types.is_decimal(target) and pa.types.is_string(c.type):
        # Java's BigDecimal(text) takes no space around the number; Arrow's cast would trim it
        if pc.any(pc.match_substring_regex(c, r"^\s|\s$")).as_py():
            msg = "a DECIMAL's text with spaces around it"
            raise pa.ArrowInvalid(msg)
        c = c.cast(_wide_decimal(target.precision, target.scale))
    if pa.types.is_decimal(target) and pa.types.is_decimal(c.type):
        return pc.round(c, target.scale, round_mode="half_towards_infinity").cast(target)
    if pa.types.is_timestamp(target):
        if pa.types.is_string(c.type):
            c = timestamp_column(c, target.tz is not None, iso)
        return floor_timestamps(c, target)
    if pa.types.is_binary(target) and pa.types.is_string(c.type):
        return base64_column(c)
    if pa.types.is_time(target) and pa.types.is_string(c.type):
        return time_column(c)
    return c.cast(target)


#: Flink's JSON and CSV TIME text (``SQL_TIME_FORMAT``: ``HH:mm:ss`` and 0 to 9 fraction digits).
SQL_TIME = r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,9}))?"


def time_column(c: pa.Array | pa.ChunkedArray) -> pa.Array:
    """TIME text in Flink's JSON/CSV form read as ``time64[us]``: whole milliseconds, the rest cut.

    Flink reads ``HH:mm:ss[.fraction]`` (``12:34`` and ``1:2:3`` fail) into its milliseconds of the
    day (``12:34:56.123456789`` is 12:34:56.123: PyFlink 2.3, ``scripts/flink_time.py``).

    Raises:
        pyarrow.ArrowInvalid: for other text (the caller goes record by record).
    """
    c = combine(c)
    ok = pc.match_substring_regex(c, "^" + SQL_TIME + "$")
    if not pc.all(pc.fill_null(ok, True)).as_py():
        msg = "TIME text not in HH:mm:ss[.fraction]"
        raise pa.ArrowInvalid(msg)
    pattern = "^(?P<h>..):(?P<m>..):(?P<s>..)(?:\\.(?P<f>[0-9]*))?$"
    parts = pc.extract_regex(pc.fill_null(c, "00:00:00"), pattern)
    field = [parts.field(i) for i in range(4)]
    h, m, sec = (f.cast(pa.int64()) for f in field[:3])
    fraction = pc.if_else(pc.equal(field[3], ""), "0", field[3])
    ms = pc.utf8_rpad(pc.utf8_slice_codeunits(fraction, 0, 3), 3, "0")
    total = pc.add(pc.multiply(pc.add(pc.add(pc.multiply(h, 3600), pc.multiply(m, 60)), sec), 1000),
                   ms.cast(pa.int64()))
    us = pc.multiply(total, 1000)
    return pc.if_else(c.is_null(), pa.scalar(None, pa.int64()), us).cast(pa.time64("us"))


def cut_times(table: pa.Table, schema: Schema) -> pa.Table:
    """``table`` with each top-level TIME(p < 3) column cut to p fraction digits (down).

    Flink's CSV format reads a TIME into its type's precision (``23:59:59.999`` in a TIME(0) column
    is 23:59:59: compat case ``time_csv_read``), where its JSON format keeps the milliseconds.
    """
    for i, f in enumerate(schema):
        if f.type.name == "TIME" and (f.type.precision or 0) < 3:
            unit = 10 ** (6 - (f.type.precision or 0))
            col = combine(table.column(i))
            us = pc.multiply(pc.divide(col.cast(pa.int64()), unit), unit).cast(col.type)
            table = table.set_column(i, table.field(i), us)
    return table


def floor_timestamps(c: pa.ChunkedArray | pa.Array, target: pa.DataType) -> pa.ChunkedArray | pa.Array:
    """Timestamps read in ns brought down to ``target``'s unit: the extra digits cut *down*.

    Flink keeps every digit a JSON/CSV value has (a TIMESTAMP(3) column holds
    ``10:00:00.123456``), and reads its epoch milliseconds floored: ``CAST(t AS STRING)`` prints
    ``1969-12-31 23:59:59.999`` for ``1969-12-31 23:59:59.999999``, and it is before 1970.
    Arrow's unsafe cast divides toward zero, which moved that value up to
    ``1970-01-01 00:00:00.000`` (compat case ``json_timestamp_fraction_floor``).
    """
    unit = {"s": "second", "ms": "millisecond", "us": "microsecond", "ns": "nanosecond"}[target.unit]
    return pc.floor_temporal(c, unit=unit).cast(target, safe=False)


# --------------------------------------------------------------------------------------------
# rendering (encoders)


#: Days from 1970-01-01 to 10000-01-01: a date or timestamp below it has a year of at most 4 digits.
DAYS_TO_YEAR_10000 = 2_932_897


def signed_years(text: pa.Array, latest_day: int | None = None) -> pa.Array:
    """Dates in Arrow's text with a year past 9999 as ``java.time`` writes them: ``+10024-01-01``.

    ``latest_day``: the largest value's day since 1970-01-01 (floored), when known; below
    10000-01-01 the text is returned as it is, without the per-row regex (~0.05 µs a row).
    """
    if latest_day is not None and latest_day < DAYS_TO_YEAR_10000:
        return text
    return pc.replace_substring_regex(text, r"^(\d{5,})-", r"+\1-")


def _civil_date(days: int) -> str:
    """``yyyy-MM-dd`` of a day number (days since 1970-01-01, proleptic Gregorian), any year.

    Arrow writes ``<value out of range: ...>`` past the years -32767..32767 (a DuckDB TIMESTAMP
    reaches 294247, TIMESTAMPADD gets there); a positive year of five digits or more stays
    unsigned for :func:`signed_years`. The arithmetic is Hinnant's ``civil_from_days``.
    """
    z = days + 719468
    era, doe = divmod(z, 146097)
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day, month = doy - (153 * mp + 2) // 5 + 1, mp + 3 if mp < 10 else mp - 9
    year = yoe + era * 400 + (month <= 2)
    sign = "-" if year < 0 else ""
    return f"{sign}{abs(year):04d}-{month:02d}-{day:02d}"


def arrow_date_text(text: pa.Array, numbers: np.ndarray, per_second: int = 0, digits: int = 0) -> pa.Array:
    """Arrow's date/time ``text``, with its ``<value out of range: ...>`` rows written from ``numbers``.

    ``numbers``: the values as integers, days since 1970-01-01 (``per_second`` 0: a DATE, such a
    row gets ``yyyy-MM-dd``) or ``per_second`` units since the epoch (``yyyy-MM-dd HH:mm:ss``
    and ``digits`` fraction digits, as Arrow writes a timestamp).
    """
    bad = pc.fill_null(pc.starts_with(text, "<value out of range"), False)
    if not pc.any(bad).as_py():
        return text
    fixed = []
    for v in numbers[np.flatnonzero(bad.to_numpy(zero_copy_only=False))].tolist():
        if not per_second:
            fixed.append(_civil_date(v))
            continue
        secs, part = divmod(v, per_second)
        day, rest = divmod(secs, 86400)
        fraction = f".{part:0{digits}d}" if digits else ""
        fixed.append(f"{_civil_date(day)} {rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}{fraction}")
    return pc.replace_with_mask(text, bad, pa.array(fixed, pa.string()))


def _latest(values: np.ndarray, per_day: int) -> int | None:
    """The day of the largest of ``values`` (``per_day`` units a day), None for no values."""
    return int(values.max()) // per_day if len(values) else None


def render_date(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A DATE column's text as ``java.time``'s ``LocalDate`` writes it (``+10024-01-01`` past 9999)."""
    arr = combine(arr)
    days = pc.fill_null(arr.cast(pa.int32()), 0).to_numpy(zero_copy_only=False)
    return signed_years(arrow_date_text(arr.cast(pa.string()), days), _latest(days, 1))


def render_timestamp(
    arr: pa.Array | pa.ChunkedArray, precision: int, sep: str = " ", zulu: bool = False, trim: bool = False
) -> pa.Array:
    """Format a timestamp column as ``yyyy-MM-dd HH:mm:ss[.fff]`` with ``precision`` digits.

    ``sep`` goes between date and time; ``zulu`` appends ``Z``; tz-aware columns print in UTC;
    ``trim`` drops the fraction's trailing zeros (Flink's JSON format: :func:`.trim_fraction`).
    A year past 9999 is written ``+10024`` (Flink 2.3's JSON and CSV formats, java.time's).
    """
    unit = arr.type.unit
    naive = combine(arr.cast(pa.timestamp(unit)) if arr.type.tz else arr)
    text = naive.cast(pa.string())  # "yyyy-MM-dd HH:mm:ss" + the unit's fraction digits
    unit_digits = {"s": 0, "ms": 3, "us": 6, "ns": 9}[unit]
    v = pc.fill_null(naive.cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    text = arrow_date_text(text, v, 10 ** unit_digits, unit_digits)
    # cut from the end and at the first space: a year's width varies (-0221, 10024, 294247)
    if precision < unit_digits:  # the digits past the precision, and the '.' at precision 0
        text = pc.utf8_slice_codeunits(text, 0, -(unit_digits - precision + (precision == 0)))
    if trim:
        text = trim_fraction(combine(text), min(precision, unit_digits))
    if sep != " ":
        text = pc.replace_substring(text, " ", sep, max_replacements=1)
    text = signed_years(text, _latest(v, 86400 * 10 ** unit_digits))
    if zulu:
        text = pc.binary_join_element_wise(text, pa.scalar("Z"), "")
    return text


_DAY_US = 86_400_000_000


def render_time(arr: pa.Array | pa.ChunkedArray, digits: int | None, trim: bool = False) -> pa.Array:
    """A TIME column's text: ``HH:mm:ss`` and ``digits`` fraction digits, or ``LocalTime.toString()``.

    ``digits`` 0: whole seconds (``12:34:56``); n > 0: exactly n digits (``12:34:56.100`` at 3);
    None: as ``java.time.LocalTime.toString()`` (Flink's print sink and ``Row.toString``):
    ``HH:mm`` when the seconds and fraction are zero, else ``HH:mm:ss`` and the fraction in groups
    of 3 digits as needed (``12:00``, ``12:00:01``, ``12:00:00.500``, ``12:00:00.000001``).
    ``trim``: the fraction's trailing zeros dropped, and the ``.`` with them (Flink's JSON and CSV
    formats, ``SQL_TIME_FORMAT``: ``23:59:59.5``, ``12:34:56``). NULL stays NULL.

    Raises:
        ExecutionError: a TIME of 24:00:00 (Flink's CEIL of 23:59:59.999 TO SECOND), which Flink's
            conversion to ``LocalTime`` fails the job on.
    """
    arr = combine(arr)
    us = pc.fill_null(arr.cast(pa.time64("us")).cast(pa.int64()), 0).to_numpy(zero_copy_only=False)
    if len(us) and us.max() >= _DAY_US:  # a CEIL(23:59:59.999 TO SECOND): Flink holds 86400000 ms
        msg = ("TIME 24:00:00 is past the day: it has no LocalTime, which the sink writes (Flink's job "
               "fails too: Invalid value for NanoOfDay (valid values 0 - 86399999999999): 86400000000000)")
        raise ExecutionError(msg)
    secs, frac = us // 1_000_000, us % 1_000_000
    hms = pc.binary_join_element_wise(
        _lpad_digits(secs // 3600, 2), _lpad_digits(secs // 60 % 60, 2), _lpad_digits(secs % 60, 2), ":")
    if digits is None:
        ms = pa.array(frac % 1000 == 0)
        fraction = pc.if_else(
            pa.array(frac == 0), "",
            pc.if_else(ms, pc.binary_join_element_wise(".", _lpad_digits(frac // 1000, 3), ""),
                       pc.binary_join_element_wise(".", _lpad_digits(frac, 6), "")))
        hm = pc.utf8_slice_codeunits(hms, 0, 5)
        text = pc.if_else(pa.array(us % 60_000_000 == 0), hm, pc.binary_join_element_wise(hms, fraction, ""))
    elif digits > 0:
        shown = min(digits, 6)
        fraction = _lpad_digits(frac // 10 ** (6 - shown), shown)
        if digits > 6:
            fraction = pc.utf8_rpad(fraction, digits, "0")
        text = pc.binary_join_element_wise(hms, fraction, ".")
    else:
        text = hms
    if trim and digits:
        text = pc.replace_substring_regex(text, r"\.?0+$", "")
    return pc.if_else(arr.is_null(), pa.scalar(None, pa.string()), text)


def _lpad_digits(values: np.ndarray, width: int) -> pa.Array:
    return pc.utf8_lpad(pa.array(values, pa.int64()).cast(pa.string()), width, "0")


def render_decimal(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Plain-notation text of a decimal column with its scale (``10.000000``, ``0.00000001``)."""
    text = combine(pc.cast(arr, pa.string()))
    sci = pc.match_substring(text, "E")  # Arrow writes e.g. 1E-8 for small values
    if not pc.any(sci).as_py():
        return text
    return pa.array(
        [
            None if t is None else (format(decimal.Decimal(t), "f") if "E" in t else t)
            for t in text.to_pylist()
        ],
        pa.string(),
    )


def combine(arr: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A single Array from a possibly chunked column."""
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return arr


def read_type(t: SqlType, text_types: tuple[str, ...] = ("BYTES",)) -> pa.DataType:
    """The Arrow type a fast path reads a column as (before :func:`fix_types`), at any depth.

    Decimals get the column's integer digits and as many fraction digits as fit in 38; the types
    in ``text_types`` are read as strings and converted later (timestamps always are: Arrow's
    reader takes forms Flink rejects, such as zone offsets). A MAP is read as a map, which
    Arrow's JSON reader has no conversion for: such a batch goes to the slow path.
    """
    n = t.name
    if n == "ROW":
        return pa.struct([pa.field(name, read_type(c, text_types)) for name, c in t.fields])
    if n == "ARRAY":
        return pa.list_(read_type(t.children[0], text_types))
    if n == "MAP":
        return pa.map_(read_type(t.children[0], text_types), read_type(t.children[1], text_types))
    if n in text_types or t.is_time or n == "TIME":
        return pa.string()
    if n == "DECIMAL":
        return _wide_decimal(t.precision or 10, t.scale or 0)
    return t.to_arrow()


def _wide_decimal(precision: int, scale: int) -> pa.DataType:
    """A DECIMAL(p, s) column's read type: its integer digits and as many fraction digits as fit in 38."""
    return pa.decimal128(38, max(scale, 38 - (precision - scale)))


def base64_text(col: pa.Array | pa.ChunkedArray) -> list:
    """Base64-encode a binary column into Python strings (Flink's encoding of BYTES)."""
    return [None if b is None else base64.b64encode(b).decode() for b in col.to_pylist()]


class Rows(list):
    """Several rows from one record (``parse`` of :func:`decode_records`): a JSON array's objects."""

    __slots__ = ()


def decode_records(
    decoder: Decoder,
    payloads,
    pos,
    lo: int,
    hi: int,
    where: Where,
    parse: Callable[[bytes], tuple],
    ignore_errors: bool,
) -> tuple[Batch, np.ndarray]:
    """Slow path: ``parse`` each payload in ``[lo, hi)`` into a row, one at a time.

    A bad payload (one that raises any of :data:`~.convert.RECORD_FAULTS` — a RecordError, or
    nesting too deep, a value too large ...) is skipped and counted in ``decoder.skipped`` when
    ``ignore_errors``, else raised as :class:`BadRecordError`. A ``parse`` that returns
    :class:`Rows` gives that many rows (none for an empty one), each positioned at the record.
    """
    rows, used = [], []
    for j in range(lo, hi):
        v = payloads[j]
        try:
            row = parse(v)
            if isinstance(row, Rows):
                rows.extend(row)
                used.extend([pos[j]] * len(row))
            else:
                rows.append(row)
                used.append(pos[j])
        except RECORD_FAULTS as e:  # the record's fault (RecordError and kin): skipped or named
            if not ignore_errors:
                fault = record_fault(e)
                skip = None if isinstance(e, MissingField) else skip_option(decoder)
                raise bad_record(decoder.fmt, where(int(pos[j])), fault, v, skip) from None
            decoder.skipped += 1
    return Batch(from_rows(rows, decoder.schema)), np.asarray(used, dtype=np.int64)


def valid_utf8(data: bytes) -> bool:
    """True when ``data`` is valid UTF-8 (Arrow's JSON reader copies invalid strings through)."""
    if data.isascii():
        return True
    offsets = pa.py_buffer(np.array([0, len(data)], np.int64))
    arr = pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, pa.py_buffer(data)])
    try:
        arr.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def select_payloads(values: list[bytes | None], idx: list[int] | None) -> tuple[list, np.ndarray]:
    """The payloads at ``idx`` (all when None) and their positions in ``values``."""
    payloads = values if idx is None else [values[i] for i in idx]
    pos = np.arange(len(values), dtype=np.int64) if idx is None else np.asarray(idx, np.int64)
    return payloads, pos


def try_fast(read: Callable[[list], pa.Table | None], payloads: list) -> pa.Table | None:
    """``read(payloads)``, or None when Arrow cannot read or convert them."""
    try:
        return read(payloads)
    except ARROW_ERRORS:
        return None

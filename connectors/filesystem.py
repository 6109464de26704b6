"""The ``filesystem`` connector: newline-delimited files in json, csv, raw or debezium-json.

Source (bounded): reads ``'path'`` — one file, or every file under a directory (recursively, in
sorted order, skipping names starting with ``.`` or ``_`` as Flink does) — one record per line
(blank lines are skipped), decoded in batches of at most ``max_rows`` lines. Delivery guarantee:
exactly-once — :meth:`FileSystemSource.position` is ``{"file", "offset", "line"}`` just after the
last line returned (``offset`` in bytes), and a restore seeks there. Bad records are located as
``path:line``. One split (``split_names`` empty, batches without split ids): files are read one
after another, so a table's watermark follows the largest rowtime read so far across files.

Sink: :mod:`.filesystem_sink` — exactly-once part files in a directory, as Flink's (or appended
to one file, truncated to the checkpoint's length on restore); only inserts, except with
``'format' = 'debezium-json'``.

Partitioned tables (``PARTITIONED BY``, :mod:`.partitions`): the files under ``'path'`` are read
from the ``k1=v1/k2=v2/`` folders of the partition columns (files at another depth are not read,
as Flink's partition listing), each row getting its folder's values; the records hold the other
columns. ``'partition.default-name'`` is read back as NULL.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
from streamsql.connectors.filesystem_sink import OPTIONS as SINK_OPTIONS
from streamsql.connectors.filesystem_sink import (
    SINK_REASON,
    FileSystemSink,
    check_sink_options,
    table_path,
    writes_directory,
)
from streamsql.connectors.formats import encodes_updates, is_changelog_format, make_decoder, make_encoder
from streamsql.connectors.partitions import (
    DEFAULT_NAME,
    canonical_text,
    check_partition_columns,
    check_planner_texts,
    folder_values,
    value_array,
)
from streamsql.connectors.registry import register, validate_options

from streamsql.core.catalog import TableDef
from streamsql.core.connector import (
    OPT_SINK_PARALLELISM,
    ConnectorContext,
    ConnectorSpec,
    OptionSpec,
    SinkGuarantee,
    Source,
)
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.types import Field, Schema, SqlType

_CHUNK = 1 << 20
#: Readable metadata keys, Flink's names and types, in Flink's order (``FileSystemTableSource``).
READABLE_METADATA = {
    "file.path": SqlType("STRING"), "file.name": SqlType("STRING"), "file.size": SqlType("BIGINT"),
    "file.modification-time": SqlType("TIMESTAMP_LTZ", 3),
}
_SOURCE_CLASS = "org.apache.flink.connector.file.table.FileSystemTableSource"
_EXT = {"json": "json", "csv": "csv", "raw": "txt", "debezium-json": "json", "canal-json": "json",
        "maxwell-json": "json", "ogg-json": "json"}


def _format_of(table: TableDef) -> tuple[str, dict[str, str]]:
    """The table's format name and options, checked (connector options, format name, columns).

    Raises:
        ConfigError: for an unknown option, an unknown format.
    """
    fmt = (table.options.get("format") or "").strip().lower()
    validate_options(SPEC, table.options, table.name, allowed_extra=(fmt + ".",) if fmt else ())
    if fmt not in _EXT:
        msg = (
            f"Table '{table.name}': option 'format' = '{fmt}' is not one of "
            f"{', '.join(repr(f) for f in _EXT)}"
        )
        raise ConfigError(msg)
    return fmt, table.options


def data_schema(table: TableDef) -> Schema:
    """The columns a file's records hold: the physical ones but the partition columns."""
    keys = {k.lower() for k in table.partition_keys}
    return Schema([f for f in table.physical_schema.fields if f.name.lower() not in keys])


def _check_source_metadata(table: TableDef) -> None:
    """Raise Flink's ConfigError for a metadata key the source cannot read (carrying the column)."""
    for c in table.metadata_columns:
        if c.metadata_key not in READABLE_METADATA:
            name = table.name if "." in table.name else f"default_catalog.default_database.{table.name}"
            msg = (f"Invalid metadata key '{c.metadata_key}' in column '{c.name}' of table '{name}'. The "
                   f"DynamicTableSource class '{_SOURCE_CLASS}' supports the following metadata keys for "
                   "reading:\n" + "\n".join(READABLE_METADATA))
            raise ConfigError(msg, table=table.name, column=c.name)


def _check_sink_metadata(table: TableDef) -> None:
    """Raise Flink's ConfigError for a persisted metadata column: the sink writes none."""
    if any(not c.virtual for c in table.metadata_columns):
        name = table.name if "." in table.name else f"default_catalog.default_database.{table.name}"
        msg = (f"Table '{name}' declares persistable metadata columns, but the underlying DynamicTableSink "
               "doesn't implement the SupportsWritingMetadata interface. If the column should not be "
               "persisted, it can be declared with the VIRTUAL keyword.")
        raise ConfigError(msg, table=table.name)


def _metadata_arrays(table: TableDef, path: str, rows: int) -> list[pa.Array]:
    """The metadata columns (declaration order) of ``rows`` rows read from the file ``path``."""
    st = os.stat(path)
    values = {"file.path": os.path.abspath(path), "file.name": os.path.basename(path),
              "file.size": st.st_size, "file.modification-time": st.st_mtime_ns // 1_000_000}  # Flink's ms
    out = []
    for c in table.metadata_columns:
        kind = READABLE_METADATA[c.metadata_key]
        arr = pa.array([values[c.metadata_key]] * rows, kind.to_arrow())
        out.append(arr.cast(c.type.to_arrow()) if c.type is not None else arr)
    return out


def _decoder(table: TableDef):
    """The table's format decoder (checks the connector and format options).

    Raises:
        ConfigError: as :func:`_format_of`, or for ``'source.monitor-interval'``: in Flink it makes
            the source unbounded (new files are read as they appear, and the watermark never
            reaches the end, so the last windows never fire), where this source reads once.
    """
    fmt, opts = _format_of(table)
    _check_source_metadata(table)
    if "source.monitor-interval" in opts:
        msg = (f"Table '{table.name}': option 'source.monitor-interval' is not supported: StreamSQL reads a "
               f"filesystem table's files once, as a bounded source (with it, Flink watches for new files "
               f"and never ends the input); remove the option, or replay the files into a Kafka topic")
        raise ConfigError(msg, table=table.name, option="source.monitor-interval")
    check_partition_columns(table)
    return make_decoder(fmt, data_schema(table), opts, table.name)


def _encoder(table: TableDef):
    """The table's format encoder of :func:`data_schema` (checks the connector, format and sink options)."""
    fmt, opts = _format_of(table)
    _check_sink_metadata(table)
    check_sink_options(table)
    return make_encoder(fmt, data_schema(table), opts, table.name)


def _maybe_blank_line(data: bytes) -> bool:
    """True when a line of ``data`` may be blank: empty, or starting with whitespace/a control byte.

    ``data`` starts at a line start; vectorized (the byte after every newline is checked).
    """
    if not data:
        return False
    if data[0] <= 0x20:
        return True
    a = np.frombuffer(data, np.uint8)
    nl = np.flatnonzero(a[:-1] == 10)  # a newline ending the data starts no line (yet)
    return bool(nl.size) and bool((a[nl + 1] <= 0x20).any())


def list_files(path: str, depth: int | None = None) -> list[str]:
    """The files a source reads at ``path``: itself, or the visible files under it, sorted.

    ``depth``: only the files that many folders down (a partitioned table's: one per key).
    """
    if os.path.isfile(path):
        return [path]
    out = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        rel = os.path.relpath(root, path)
        if depth is None or (0 if rel == "." else rel.count(os.sep) + 1) == depth:
            out.extend(os.path.join(root, f) for f in files if not f.startswith((".", "_")))
    return sorted(out, key=lambda p: os.path.relpath(p, path))


class FileSystemSource(Source):
    """See module docstring."""

    bounded = True

    def __init__(self, ctx: ConnectorContext):
        self.decoder = _decoder(ctx.table)
        if ctx.read_columns is not None:  # Flink's FileSystemTableSource pushes its projection down
            self.decoder.project(ctx.read_columns)
        self.ctx = ctx
        self.path = table_path(ctx.table)
        self.schema = Schema([*ctx.table.physical_schema.fields,
                              *(Field(c.name, c.type) for c in ctx.table.metadata_columns)])
        self.changelog = self.decoder.changelog
        self._files: list[str] = []
        self._i = 0
        self._f = None
        self._buf = b""
        self._offset = 0
        self._line = 0
        self._eof = False
        self._done = False

    # ------------------------------------------------------------------------------ lifecycle

    def open(self, position: dict | None) -> None:
        """See :meth:`Source.open` / :meth:`Sink.open`."""
        if not os.path.exists(self.path):
            msg = f"Table '{self.ctx.table.name}': path '{self.path}' does not exist"
            raise ExecutionError(msg)
        keys = self.ctx.table.partition_keys
        self._files = list_files(self.path, len(keys) if keys else None)
        if keys:  # a partitioned table's files are those in its partitions' folders (the WHERE's)
            if self.ctx.partitions:  # Flink's planner reads every folder's values to prune them
                for f in self._files:
                    values = self._partition_of(f)
                    if values is not None:
                        check_planner_texts(values, self.ctx.table)
            self._files = [f for f in self._files if self._wanted(self._partition_of(f))]
            for f in self._files:  # a folder Flink cannot restore fails the job at its start, as Flink's
                for key, value in self._partition_of(f).items():
                    value_array(value, self.ctx.table.column(key).type, 0, pruned=bool(self.ctx.partitions))
        self._i, self._done = 0, False
        if position:
            if position.get("done"):
                self._i = len(self._files)
            elif position.get("file") is not None:
                rel = [self._rel(f) for f in self._files]
                name = position["file"]
                while self._i < len(rel) and rel[self._i] < name:
                    self._i += 1
                if self._i < len(rel) and rel[self._i] == name:
                    self._open_file(int(position.get("offset", 0)), int(position.get("line", 0)))
        if self._i >= len(self._files):
            self._done = True

    def close(self) -> None:
        """Release the open file or stream."""
        if self._f is not None:
            self._f.close()
            self._f = None

    def _partition_of(self, f: str) -> dict[str, str | None] | None:
        """The partition values of file ``f`` (its folder's), or None outside a partition folder."""
        default = self.ctx.table.options.get("partition.default-name", DEFAULT_NAME)
        return folder_values(os.path.dirname(os.path.relpath(f, self.path)), self.ctx.table.partition_keys,
                             default)

    def _wanted(self, values: dict[str, str | None] | None) -> bool:
        """True for a partition folder the job reads (:attr:`ConnectorContext.partitions`)."""
        if values is None:
            return False
        allowed = self.ctx.partitions or {}
        table = self.ctx.table
        return all(canonical_text(values.get(k), table.column(k).type.name.upper()) in v
                   for k, v in allowed.items())

    def _with_partition(self, batch: Batch, name: str) -> None:
        """Put the partition columns of file ``name`` into ``batch`` at their places (the physical order)."""
        values = self._partition_of(name)
        t = batch.table
        for i, f in enumerate(self.ctx.table.physical_schema.fields):
            key = next((k for k in self.ctx.table.partition_keys if k.lower() == f.name.lower()), None)
            if key is not None:
                column = value_array(values[key], f.type, t.num_rows, pruned=bool(self.ctx.partitions))
                t = t.add_column(i, f.name, column)
        batch.table = t

    def _rel(self, f: str) -> str:
        return os.path.basename(f) if os.path.isfile(self.path) else os.path.relpath(f, self.path)

    def _open_file(self, offset: int = 0, line: int = 0) -> None:
        self._f = open(self._files[self._i], "rb")  # noqa: SIM115 (closed in _next_file/close)
        self._f.seek(offset)
        self._offset, self._line, self._buf, self._eof = offset, line, b"", False
        self._lines: list[bytes] = []
        self._last_unterminated = False
        self._has_cr = False
        self._blank = False  # a line of this file may be blank or whitespace-only

    def _next_file(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
            self._i += 1
        if self._i >= len(self._files):
            self._done = True
        else:
            self._open_file()

    # ------------------------------------------------------------------------------ reading

    def _read_lines(self, max_rows: int) -> list[bytes]:
        """Up to ``max_rows`` next lines of the current file (without their newline)."""
        while len(self._lines) < max_rows and not self._eof:
            chunk = self._f.read(_CHUNK)
            if not chunk:
                self._eof = True
                if self._buf:  # a last line without a newline
                    self._lines.append(self._buf)
                    self._buf = b""
                    self._last_unterminated = True
                break
            if b"\r" in chunk:
                self._has_cr = True
            data = self._buf + chunk
            if not self._blank:
                self._blank = _maybe_blank_line(data)
            parts = data.split(b"\n")
            self._buf = parts.pop()
            self._lines.extend(parts)
        lines = self._lines[:max_rows]
        del self._lines[:max_rows]
        self._offset += sum(map(len, lines)) + len(lines)
        if self._last_unterminated and not self._lines:
            self._offset -= 1
            self._last_unterminated = False
        return lines

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Return the next rows, at most ``max_rows`` (see :meth:`Source.poll`)."""
        while not self._done:
            if self._f is None:
                self._next_file()
                continue
            if self._eof and not self._lines:
                self._next_file()
                continue
            first_line = self._line + 1
            lines = self._read_lines(max(1, max_rows))
            if not lines:
                continue
            self._line += len(lines)
            numbers = None
            if self._has_cr or self._blank:  # CRLF line ends, blank or whitespace-only lines
                keep = [(n, ln[:-1] if ln[-1:] == b"\r" else ln) for n, ln in enumerate(lines, first_line)]
                keep = [(n, ln) for n, ln in keep if ln.strip()]
                numbers = [n for n, _ in keep]
                lines = [ln for _, ln in keep]
                if not lines:
                    continue
            name = self._files[self._i]
            where = (
                (lambda i: f"{name}:{first_line + i}")
                if numbers is None
                else (lambda i: f"{name}:{numbers[i]}")
            )
            before = self.decoder.skipped
            batch = self.decoder.decode(lines, where)
            if self.decoder.skipped != before:
                m = self.ctx.metrics
                m["bad_records"] = m.get("bad_records", 0) + self.decoder.skipped - before
            if batch.num_rows:
                if self.ctx.table.partition_keys:
                    self._with_partition(batch, name)
                for c, arr in zip(self.ctx.table.metadata_columns,
                                  _metadata_arrays(self.ctx.table, name, batch.num_rows), strict=True):
                    batch.table = batch.table.append_column(c.name, arr)
                rows = self.decoder.source_index  # the line (into ``lines``) of each row
                batch.origin = lambda r, rows=rows, where=where: where(int(rows[r]))
                if self._eof and not self._lines and self._i == len(self._files) - 1:
                    # the last rows: finished now, so that the end of input follows this batch at
                    # once (a processing-time timer due in between would fire; Flink's bounded
                    # source ends right after its last record)
                    self._next_file()
                return batch
        return None

    def position(self) -> dict:
        """The position just after the last row returned (see :meth:`Source.position`)."""
        if self._done or self._i >= len(self._files):
            return {"done": True}
        return {"file": self._rel(self._files[self._i]), "offset": self._offset, "line": self._line}

    def finished(self) -> bool:
        """True once the last row has been returned."""
        return self._done


def _create_sink(ctx: ConnectorContext) -> FileSystemSink:
    return FileSystemSink(ctx, _encoder(ctx.table))


def _guarantee(table: TableDef, config: dict[str, str]) -> SinkGuarantee:
    """Exactly-once (:mod:`.filesystem_sink`); the file mode's rows are visible before their commit."""
    if writes_directory(table):
        return SinkGuarantee(transactional=True, reason=SINK_REASON)
    return SinkGuarantee(transactional=True, reason=(
        "filesystem appends to the file at each checkpoint and truncates it to the restored checkpoint's "
        "length (exactly-once after a restore; rows are visible before their checkpoint completes)"))


SPEC = register(
    ConnectorSpec(
        name="filesystem",
        options=[
            OptionSpec("connector", required=True, description="'filesystem'"),
            OptionSpec("path", required=True, description="a file, or a directory of files"),
            OptionSpec(
                "format", required=True, choices=tuple(_EXT), description="record format of each line"
            ),
            OptionSpec(
                "source.monitor-interval",
                description="refused when read: Flink's continuous reading (the source here is bounded)"
            ),
            *(OptionSpec(k, description=d) for k, d in SINK_OPTIONS.items()),
            OPT_SINK_PARALLELISM,  # Flink 2.3's filesystem connector has no 'scan.parallelism'
        ],
        create_source=FileSystemSource,
        create_sink=_create_sink,
        source_reads_columns=True,  # only for Flink's projection into the format (Decoder.project)
        sink_partitioning=True,
        # FileSystemTableSource's are all NOT NULL (TYPEOF in compat case typeof_metadata_column)
        metadata_types={k: t.with_nullable(False) for k, t in READABLE_METADATA.items()},
        description="newline-delimited files (bounded source, exactly-once append sink)",
        uses_format=True,
        check_source=lambda table, config: _decoder(table),
        check_sink=lambda table, config: _encoder(table),
        source_changelog=lambda table: is_changelog_format(table.options.get("format", "")),
        sink_accepts_updates=lambda table: encodes_updates(table.options.get("format", "")),
        sink_retracts=lambda table: encodes_updates(table.options.get("format", "")),  # debezium-json
        sink_guarantee=_guarantee,
    )
)

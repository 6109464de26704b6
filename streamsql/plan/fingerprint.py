"""A job's fingerprint: a stable hash of what an INSERT (or statement set) computes.

Checkpoints are bound to it (:mod:`streamsql.checkpoint.identity`), so a job restores only
state that it wrote itself, and default job names carry its first 8 hex digits, so two
different INSERTs into one sink are two jobs.

What goes in, as canonical JSON hashed with SHA-256:

- ``STATE_LAYOUT``: the version of the state layout (key and value encodings of
  :mod:`streamsql.state.layout`);
- each INSERT as sqlglot generates it (without comments), so whitespace, comments and the case
  of keywords do not change the fingerprint, nor backquotes around a reserved word (``INSERT INTO
  `out``` is spelt ``out``, as StreamSQL took it unquoted before it refused that as Flink does:
  an old script, quoted now, resumes its checkpoints); then the options of its tables' OPTIONS hints that
  would identify the table in its WITH clause (below);
- every table and view the INSERTs read or write, found through views: a table's columns and
  types (computed columns by expression), watermark, primary key and connector options; a
  view's query as generated SQL.

Left out of the options: credentials (:func:`~streamsql.core.secrets.is_sensitive`, Flink's
rule: rotating a password does not change what a job computes), options
that only tune speed or the clients (:data:`TUNING_OPTIONS`: batching, buffering, parallelism,
retries, how often partitions are discovered, how transactions are named, datagen's rate never
change results or state; and every Kafka client property ``'properties.*'`` but those that decide
what is read or where: :data:`IDENTITY_PROPERTIES`) and where a source stops (``scan.bounded.*``:
a running job restarted with ``'scan.bounded.mode' = 'latest-offset'`` resumes its checkpoint and
drains to the end — the same computation over the same positions, ending). What stays in decides
the rows: a changed format, startup mode, topic, watermark idle timeout, delivery guarantee or
transactional id prefix (the commit point) makes another job.

The canonical description is kept with the checkpoints (``_job``), so a job that does not resume
another can say what changed (:func:`changes`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from sqlglot import exp

from streamsql.core.catalog import DEFAULT_CATALOG, DEFAULT_DATABASE, Catalog, TableDef, ViewDef, table_parts
from streamsql.core.secrets import is_sensitive
from streamsql.plan import options_hint
from streamsql.sql.dialect import Flink
from streamsql.sql.reserved import RESERVED

#: Version of the state layout (bump when :mod:`streamsql.state.layout` changes how keys or
#: values are stored: old checkpoints can then not be restored, and the fingerprint says so).
STATE_LAYOUT = 1

#: Option names whose values never change results or state: left out of the fingerprint.
TUNING_OPTIONS = frozenset({
    "sink.parallelism", "scan.parallelism", "sink.buffer-flush.max-rows",
    "sink.buffer-flush.interval", "scan.topic-partition-discovery.interval",
    "sink.transaction-naming-strategy", "sink.max-retries", "lookup.max-retries",
    "connection.max-retry-timeout", "rows-per-second",
})
#: The Kafka client properties that decide what a job reads or where it commits (the rest —
#: timeouts, batching, fetch sizes, client ids — only tune the clients).
IDENTITY_PROPERTIES = frozenset({
    "properties.bootstrap.servers", "properties.group.id", "properties.isolation.level",
    "properties.auto.offset.reset", "properties.transactional.id",
})
_STOP_PREFIX = "scan.bounded."


@dataclass(frozen=True)
class JobFingerprint:
    """What a job computes, hashed.

    Attributes:
        digest: 64 hex digits (SHA-256 of the canonical description).
        sql: the INSERTs as generated SQL, one per line (recorded next to the checkpoints), quoted
            as written (the hashed text spells reserved words unquoted).
        tables: names of the tables and views read or written, sorted.
        described: what was hashed (recorded next to the checkpoints for :func:`changes`).
        as_written: the fingerprint with the backquotes of reserved words kept, as StreamSQL
            hashed before it refused them unquoted; only when the INSERTs backquote one (a job
            that wrote them so resumes its checkpoints under it), else None.
    """

    digest: str
    sql: str
    tables: tuple[str, ...]
    described: dict = field(default_factory=dict, compare=False)
    as_written: JobFingerprint | None = field(default=None, compare=False)

    @property
    def short(self) -> str:
        """The first 8 hex digits (in default job names)."""
        return self.digest[:8]


def job_fingerprint(inserts: list[exp.Insert], catalog: Catalog) -> JobFingerprint:
    """The fingerprint of the job running ``inserts`` against the tables in ``catalog``.

    Call before planning (the planner may annotate the trees).

    Raises:
        SqlError: from the catalog, for a table or view that does not exist.
    """
    sqls = [_sql(i) for i in inserts]  # hashed
    shown = [_sql(i, canonical=False) for i in inserts]  # as written: what a message may quote
    objects: dict[str, TableDef | ViewDef] = {}
    for insert in inserts:
        _collect(insert, catalog, objects)
    described = {name: _describe(obj) for name, obj in sorted(objects.items())}
    tables = tuple(o.name for _, o in sorted(objects.items()))
    sql = "\n".join(shown)
    doc = {"state_layout": STATE_LAYOUT, "inserts": sqls, "objects": described}
    as_written = None
    if shown != sqls:
        old = {**doc, "inserts": shown}
        as_written = JobFingerprint(_hash(old), sql, tables, old)
    return JobFingerprint(_hash(doc), sql, tables, doc, as_written)


def _hash(doc: dict) -> str:
    """SHA-256 (hex) of ``doc`` as canonical JSON."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _sql(tree: exp.Expression, canonical: bool = True) -> str:
    """``tree`` as generated SQL without comments, then its tables' OPTIONS hints that identify.

    ``canonical``: reserved words unquoted (:func:`_unquote_reserved`), the spelling hashed.
    """
    text = (_unquote_reserved(tree) if canonical else tree).sql(dialect=Flink, comments=False)
    hints = []
    for table in tree.find_all(exp.Table):
        body = options_hint.hint_text(table)
        try:
            options = (options_hint.parse(body) if body is not None else None) or {}
        except ValueError:
            continue  # the planner refuses it
        kept = {k: v for k, v in options.items() if _identifies(k)}
        if kept:
            name = table.sql(dialect=Flink, comments=False)
            hints.append(f"{name} OPTIONS {json.dumps(kept, sort_keys=True)}")
    return text if not hints else f"{text} /*+ {'; '.join(hints)} */"


def _unquote_reserved(tree: exp.Expression) -> exp.Expression:
    """``tree``, or a copy with every backquoted reserved word (```out```) unquoted: one spelling."""
    quoted = [i for i in tree.find_all(exp.Identifier) if i.quoted and i.name.upper() in RESERVED]
    if not quoted:
        return tree
    tree = tree.copy()
    for ident in tree.find_all(exp.Identifier):
        if ident.quoted and ident.name.upper() in RESERVED:
            ident.set("quoted", False)
    return tree


def _collect(tree: exp.Expression, catalog: Catalog, out: dict[str, TableDef | ViewDef]) -> None:
    """Add every catalog object referenced by ``tree`` (through views) to ``out``."""
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        parts = table_parts(table)
        if len(parts) == 1 and parts[0].lower() in ctes or parts not in catalog:
            continue  # a CTE, or unknown: the planner reports unknown names
        obj = catalog.get(parts)
        # keyed by the bare name in the session's first database, as before catalogs existed (the
        # fingerprints of existing checkpoints stay), else by the qualified name
        path = catalog.qualify(parts)
        key = obj.name.lower() if path[:2] == (DEFAULT_CATALOG, DEFAULT_DATABASE) else ".".join(path).lower()
        if key in out:
            continue
        out[key] = obj
        if isinstance(obj, ViewDef):
            with catalog.within(obj.namespace):
                _collect(obj.query, catalog, out)


def _describe(obj: TableDef | ViewDef) -> dict:
    if isinstance(obj, ViewDef):
        # "columns" only when listed: the fingerprints of existing views' checkpoints stay as they were
        return {"view": _sql(obj.query)} | ({"columns": list(obj.columns)} if obj.columns else {})
    columns = [[c.name, _sql(c.computed) if c.computed is not None else str(c.type),
                c.metadata_key, c.virtual] for c in obj.columns]
    watermark = [obj.watermark.column, _sql(obj.watermark.expr)] if obj.watermark else None
    options = {k: v for k, v in obj.options.items() if _identifies(k)}
    return {"columns": columns, "watermark": watermark, "primary_key": list(obj.primary_key),
            "options": options}


def _identifies(key: str) -> bool:
    """Whether table option ``key`` is part of the job's identity (module docstring)."""
    if key in TUNING_OPTIONS or key.startswith(_STOP_PREFIX) or is_sensitive(key):
        return False
    return not key.startswith("properties.") or key in IDENTITY_PROPERTIES


def changes(before: dict, after: dict, limit: int = 3) -> list[str]:
    """What differs between two jobs' described fingerprints (:attr:`JobFingerprint.described`).

    Args:
        before: the description recorded with the older job's checkpoints.
        after: this job's.
        limit: at most this many differences (the first ones, tables in name order).

    Returns:
        Phrases such as ``"table 'src': option 'format' changed from 'json' to 'csv'"``, or
        ``"the INSERT statement changed"``; empty when they are the same.
    """
    out: list[str] = []
    if before.get("state_layout") != after.get("state_layout"):
        out.append(f"the state layout changed (version {before.get('state_layout')} to "
                   f"{after.get('state_layout')}, another StreamSQL)")
    if before.get("inserts") != after.get("inserts"):
        out.append("the INSERT statement changed")
    old, new = before.get("objects") or {}, after.get("objects") or {}
    for name in sorted(set(old) | set(new)):
        if name not in old:
            out.append(f"it now uses '{name}'")
        elif name not in new:
            out.append(f"it no longer uses '{name}'")
        else:
            out += _object_changes(name, old[name], new[name])
    return out[:limit]


def _object_changes(name: str, before: dict, after: dict) -> list[str]:
    if "view" in before or "view" in after:
        return [f"view '{name}' changed"] if before != after else []
    out = []
    o, n = before.get("options") or {}, after.get("options") or {}
    for key in sorted(set(o) | set(n)):
        if o.get(key) == n.get(key):
            continue
        if key not in o:
            out.append(f"table '{name}': option '{key}' = '{n[key]}' was added")
        elif key not in n:
            out.append(f"table '{name}': option '{key}' = '{o[key]}' was removed")
        else:
            out.append(f"table '{name}': option '{key}' changed from '{o[key]}' to '{n[key]}'")
    for part, what in (("columns", "its columns"), ("watermark", "its watermark"),
                       ("primary_key", "its primary key")):
        if before.get(part) != after.get(part):
            out.append(f"table '{name}': {what} changed")
    return out

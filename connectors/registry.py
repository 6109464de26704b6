"""The connector registry: ``'connector' = 'name'`` → :class:`ConnectorSpec`."""

from __future__ import annotations

import importlib

from streamsql.core import secrets
from streamsql.core.config import KNOWN_KEYS, did_you_mean
from streamsql.core.connector import ConnectorSpec
from streamsql.core.errors import ConfigError

_REGISTRY: dict[str, ConnectorSpec] = {}
# Built-in connector modules, imported on first lookup so `import streamsql` stays light.
_BUILTINS = ("kafka", "datagen", "print_sink", "blackhole", "filesystem", "cdc", "jdbc", "nexmark")


def register(spec: ConnectorSpec) -> ConnectorSpec:
    """Make ``spec`` findable by its name; returns it (usable at module level)."""
    _REGISTRY[spec.name] = spec
    return spec


def _load_builtins() -> None:
    for mod in _BUILTINS:
        try:
            importlib.import_module(f"streamsql.connectors.{mod}")
        except ModuleNotFoundError as e:  # a connector not written yet must not break the rest
            if e.name != f"streamsql.connectors.{mod}":
                raise


def known_connectors() -> dict[str, ConnectorSpec]:
    """All registered connectors by name."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def unknown_option_keys(pairs: list[tuple[str, str]]) -> frozenset[str]:
    """The keys of ``pairs`` (one text's ``'key' = 'value'`` pairs) that no connector of theirs knows.

    Their values are shown masked, as secrets' (:func:`streamsql.core.secrets.hidden`: a misspelt
    key may hold a secret). The connectors are those the pairs name (``'connector'``); a name
    no connector has makes every other key unknown; none named (a SET, a hint), a key is known
    when some connector or an engine setting (``KNOWN_KEYS``) knows it. A connector knows its
    options, the keys under its prefixes it accepts (``ConnectorSpec.knows_prefixed``) and, if it
    uses a format, every format's options (``'key.'``/``'value.'`` prefixed for Kafka's key and
    value formats).
    """
    specs = known_connectors()
    named = {value.strip() for key, value in pairs if key == "connector"}
    judges = [specs[name] for name in named if name in specs]
    if not named:
        judges = list(specs.values())

    def known(key: str) -> bool:
        if key == "connector" or (not named and key in KNOWN_KEYS):
            return True
        return any(_knows(spec, key) for spec in judges)

    return frozenset(key for key, _ in pairs if not known(key))


def _knows(spec: ConnectorSpec, key: str) -> bool:
    """Whether connector ``spec`` knows option ``key`` (see :func:`unknown_option_keys`)."""
    from streamsql.connectors.formats import format_option_keys

    if any(o.key == key for o in spec.options):
        return True
    if spec.option_prefixes and key.startswith(tuple(spec.option_prefixes)):
        return spec.knows_prefixed(key)
    bare = key.split(".", 1)[1] if key.startswith(("key.", "value.")) else key
    return spec.uses_format and bare in format_option_keys()


secrets.set_unknown_judge(unknown_option_keys)


def missing_connector(table: str, reading: bool) -> str:
    """Flink's message for reading (or writing) a table created without a ``'connector'`` option.

    Flink creates such a table (a schema, e.g. for ``LIKE``) and fails where it is used.
    """
    qualified = table if "." in table else f"default_catalog.default_database.{table}"
    what = "source for reading" if reading else "sink for writing"
    return (f"Unable to create a {what} table '{qualified}': Table options do not contain an option key "
            "'connector' for discovering a connector.")


def get_connector(name: str) -> ConnectorSpec:
    """The connector called ``name``.

    Raises:
        ConfigError: for an unknown name, listing the known ones.
    """
    specs = known_connectors()
    if name not in specs:
        msg = f"Unknown connector '{name}'{did_you_mean(name, specs)} (available: {', '.join(specs)})"
        raise ConfigError(msg)
    return specs[name]


def validate_options(spec: ConnectorSpec, options: dict[str, str], table: str, allowed_extra=()) -> None:
    """Check a table's WITH options against the connector's declared options.

    Raises:
        ConfigError: for a missing required option, an unknown key (with the known keys
            listed), or a value outside an option's choices; each carries ``table`` and
            ``option`` (the key, or ``connector`` for a missing one), which place the error at
            the key in the CREATE TABLE.

    A boolean or enum option's value is rewritten in ``options`` to its canonical spelling
    (``'TRUE'`` → ``'true'``), which is what the connector compares with.
    """
    known = {o.key: o for o in spec.options}
    for o in spec.options:
        if o.required and o.key not in options:
            msg = f"Table '{table}': connector '{spec.name}' requires option '{o.key}' ({o.description})"
            raise ConfigError(msg, table=table, option="connector")  # at the 'connector' key in the DDL
    for key, value in options.items():
        if key in known:
            # Booleans and enums in any case, as Flink; the connector then reads the canonical text.
            try:
                options[key] = known[key].canonical(value, f"Table '{table}': option '{key}'")
            except ConfigError as e:  # named, so that the error points at the key in the DDL
                raise ConfigError(str(e), table=table, option=key) from None
        elif not key.startswith(tuple(spec.option_prefixes) + tuple(allowed_extra)):
            msg = (f"Table '{table}': unknown option '{key}' for connector '{spec.name}'"
                   f"{did_you_mean(key, known)} (supported: {', '.join(sorted(known))})")
            raise ConfigError(msg, table=table, option=key)

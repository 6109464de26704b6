"""StreamSQL: a streaming SQL engine in Python.

Data flow, one package per stage::

    SQL text --streamsql.sql--> statements --streamsql.plan--> operator graph
        --streamsql.runtime--> tasks exchanging batches, watermarks, barriers
        --streamsql.connectors--> Kafka, files, datagen, print

The embedding API is :class:`streamsql.environment.StreamEnvironment`.
"""

import os as _os

# Running from a source checkout without installing: `connectors/` and `shell/` sit beside
# `streamsql/` (the layout shows the data flow) but are the subpackages streamsql.connectors and
# streamsql.shell. An installed distribution maps them with package-dir instead.
_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isdir(_os.path.join(_root, "connectors")) and not _os.path.isdir(
    _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "connectors")
):
    __path__.append(_root)  # type: ignore[name-defined]  # noqa: F821

__version__ = "0.1.0"


def __getattr__(name):  # lazy: `import streamsql` stays cheap for the CLI
    if name == "StreamEnvironment":
        from streamsql.environment import StreamEnvironment

        return StreamEnvironment
    raise AttributeError(name)

"""``python -m streamsql`` is the ``streamsql`` command."""

from streamsql.cli import console

console()

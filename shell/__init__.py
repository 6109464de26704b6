"""The interactive shell (``streamsql shell``), split by concern as litecli is.

- :mod:`.app` — the read-eval-print loop: :func:`~.app.run_shell`, statement dispatch, init files;
- :mod:`.buffer` — the "is the input a complete statement?" predicate (Enter runs or continues);
- :mod:`.commands` — the decorator-based registry of client commands (HELP, QUIT, ...);
- :mod:`.completer` — keywords, tables, columns, connectors and their options;
- :mod:`.keys`, :mod:`.style`, :mod:`.toolbar` — key bindings, colours and lexer, bottom toolbar;
- :mod:`.results` — showing query results live (tableau, changelog, table modes);
- :mod:`.stdout` — what other threads print while the prompt is shown goes above it;
- :mod:`.print_topic` — ``PRINT TOPIC``: raw Kafka records.
"""

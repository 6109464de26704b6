"""Planning: bound SQL → a graph of physical plan nodes, each knowing its changelog mode.

Modules: :mod:`.scope` (column resolution), :mod:`.expressions` (compile sqlglot expressions
to batch-evaluated DuckDB SQL), :mod:`.query` (batch query specs, checked at planning),
:mod:`.nodes` (physical plan nodes), :mod:`.planner` (SELECT/INSERT → nodes, EXPLAIN text),
:mod:`.joins` and :mod:`.windows` (its join and window TVF hooks), :mod:`.specs` (parameters
operators read too, e.g. window specs), :mod:`.unsupported` (constructs rejected at their
position).

The plan imports no runtime code: the runtime's builder turns plan nodes into operators, and
connectors are known through their specs (:class:`~streamsql.core.connector.ConnectorSpec`).
"""

"""Planning: bound SQL → a graph of physical plan nodes, each knowing its changelog mode.

Modules: :mod:`.scope` (column resolution), :mod:`.expressions` (compile sqlglot expressions
to batch-evaluated DuckDB SQL), :mod:`.nodes` (physical plan nodes), :mod:`.planner`
(SELECT/INSERT → nodes), :mod:`.explain` (EXPLAIN text).
"""

"""SQL functions, as objects the planner types calls with and the operators compute with.

Modules: :mod:`.aggregates` (one class per SQL aggregate: result type, DuckDB partial/combine
form, fixed-width numpy form, Python object form), :mod:`.aggregate_function` (their interface),
:mod:`.accumulators` (the aggregate calls of one operator composed over whole batches) and the
subpackage :mod:`.scalars` (the scalar function registry: one entry per built-in with its names,
argument type rules, Flink's result type, NULL behaviour, determinism and the DuckDB expression
that computes it over whole batches, and the binder that resolves every call of an expression
through it). This package imports only :mod:`streamsql.core` and third-party libraries, so the
planner uses it without importing the runtime.
"""

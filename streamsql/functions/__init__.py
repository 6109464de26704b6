"""SQL functions, as objects the planner types calls with and the operators compute with.

Modules: :mod:`.aggregates` (one class per SQL aggregate: result type, DuckDB partial/combine
form, fixed-width numpy form, Python object form) and :mod:`.accumulators` (the aggregate calls
of one operator composed over whole batches). This package imports only :mod:`streamsql.core`
and third-party libraries, so the planner uses it without importing the runtime.
"""

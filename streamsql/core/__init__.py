"""The core every layer may import; it imports nothing else of StreamSQL.

SQL types and schemas, stream elements (batches with row kinds, watermarks, barriers), the error
hierarchy, engine configuration, catalog entries, fault-injection points and the connector
contract (sources, sinks, their specs, task resources, the committer).
"""

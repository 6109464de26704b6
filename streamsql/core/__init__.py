"""The core every layer may import: SQL types and schemas, stream elements (batches with row
kinds, watermarks, barriers), the error hierarchy, engine configuration, catalog entries and the
connector contract (sources, sinks, their specs). The core imports nothing else of StreamSQL.
"""

"""Checkpoints: what is saved, where, and how a job resumes (a user's manual).

Every ``'execution.checkpointing.interval'`` the coordinator starts checkpoint n: each source
records its position (Kafka: the next offset per partition) and injects barrier n; each
operator snapshots its keyed state when barrier n has reached it on all inputs; each sink
flushes. When every task has acknowledged n, the checkpoint's metadata is written and the
checkpoint is *committed*:

- with a transactional Kafka sink, by committing the Kafka transaction that holds the epoch's
  output together with an offset commit naming checkpoint n (see
  :mod:`streamsql.connectors.kafka.transactions`);
- otherwise by atomically writing ``_committed`` in the job's checkpoint folder.

A job restarted with the same ``'pipeline.name'`` restores the last committed checkpoint if
it is the same job (the fingerprint in the folder's ``_job``; see
:mod:`streamsql.checkpoint.identity`):
operator state from its snapshot, sources seeked to its positions. Output after that
checkpoint is replayed; exactly-once sinks never showed it (their transaction was aborted),
at-least-once sinks show it twice.

Files: ``<execution.checkpointing.dir>/<pipeline.name>/chk-<n>/`` holds one folder per
stateful operator and ``_metadata`` (JSON). Snapshots are kept until a newer checkpoint is
committed, then pruned to ``'execution.checkpointing.num-retained'``.
"""

"""Issue 10's finding: checkpoint ids jumped to big numbers (the time in microseconds) after a
restore; as in Flink they continue from the restored checkpoint's id + 1."""

from tests.e2e.test_embedding_api import until
from tests.e2e.test_job_identity import COUNTS, OUT, TICKS, script, stopped_after_checkpoint  # noqa: F401


def test_ids_continue_from_the_restored_checkpoint(script):  # noqa: F811
    _, first = script(TICKS.format(rate=500), OUT, COUNTS)
    n = stopped_after_checkpoint(first)
    _, second = script(TICKS.format(rate=500), OUT, COUNTS)
    until(lambda: second.runner.coordinator is not None and len(second.runner.coordinator.history) >= 2)
    assert second.runner.restored_from == n
    assert [c.checkpoint_id for c in second.runner.coordinator.history[:2]] == [n + 1, n + 2]
    assert second.last_checkpoint["checkpoint_id"] < n + 100
    second.cancel()

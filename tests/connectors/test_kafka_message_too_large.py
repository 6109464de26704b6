"""A sink message larger than the producer's ``message.max.bytes`` fails naming its topic and size.

break35: librdkafka refuses such a message in produce() itself (``MSG_SIZE_TOO_LARGE``), worded
"Unable to produce message: Broker: Message size too large" though no broker saw it, naming
neither the topic nor the size, and the job failed (or restarted for ever) saying only that. As
the Java client's RecordTooLargeException in Flink, the error now says the size, the topic and the
setting to raise — for a row produced alone and for one inside a batch produced in one call.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from streamsql.connectors.kafka.producer import ProducerHandle

from streamsql.core.errors import ExecutionError


@pytest.mark.parametrize("batch", [False, True], ids=["per-row", "batch"])
def test_a_message_too_large_names_its_topic_size_and_setting(kafka_bootstrap, kafka_topic_factory, batch):
    topic = kafka_topic_factory("break35_too_large")
    props = {"bootstrap.servers": kafka_bootstrap, "message.max.bytes": 100_000}
    h = ProducerHandle(props, "Table 'o' (kafka sink)")
    try:
        if batch:
            h.attach_batch()
            assert h.batch is not None
        values = [b"small", b"x" * 150_000, b"after"]
        with pytest.raises(ExecutionError) as err:
            h.produce_many(topic, None, pa.array(values, pa.binary()) if batch else values, partition=0)
        assert str(err.value) == (
            f"Table 'o' (kafka sink): a message of 150000 bytes to topic '{topic}' is larger than the "
            "producer's 'message.max.bytes' = 100000: raise 'properties.max.request.size' (and the topic's "
            "'max.message.bytes', the broker's limit) above the largest message")
    finally:
        h.close()

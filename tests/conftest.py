"""Shared pytest configuration for StreamSQL's tests.

Fixture modules live beside this file and are re-exported here so every test
directory sees them. Append further imports/fixtures below.
"""

from tests.kafka_fixtures import *  # noqa: F403  (kafka_bootstrap, kafka_admin, kafka_topic_factory)

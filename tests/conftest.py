"""Shared pytest configuration for StreamSQL's tests.

Fixture modules live beside this file and are re-exported here so every test
directory sees them. Append further imports/fixtures below.
"""

import pytest

from tests.db_fixtures import mariadb, mariadb_db, postgres, postgres_db  # noqa: F401
from tests.kafka_fixtures import *  # noqa: F403  (kafka_bootstrap, kafka_admin, kafka_topic_factory)
from tests.s3_fixtures import s3_endpoint, s3_settings  # noqa: F401


@pytest.fixture
def bad_json(tmp_path):
    """A JSON-lines file whose second record cannot be read as INT (``<path>:2``)."""
    path = tmp_path / "bad.json"
    path.write_text('{"id": 1}\n{"id": "x"}\n{"id": 3}\n')
    return path

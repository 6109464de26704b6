"""Fixtures for tests of ``s3://`` checkpoint storage against a real S3-compatible server.

``s3_endpoint`` uses ``STREAMSQL_S3_ENDPOINT`` (``host:port``) when set; otherwise it runs
``scripts/s3-local.sh start`` (idempotent; fetches S3Proxy through Maven on first use) and
returns the local server's address. The server is left running after the session, like the
Kafka broker; ``scripts/s3-local.sh stop`` stops it.
"""

from __future__ import annotations

import os
import uuid

import pytest

from tests.local_services import local_service

__all__ = ["S3_ACCESS_KEY", "S3_BUCKET", "S3_SECRET_KEY", "s3_endpoint", "s3_settings"]

#: The fixed test credentials and bucket of scripts/s3-local.sh.
S3_ACCESS_KEY = "streamsql"
S3_SECRET_KEY = "streamsql-test-secret"
S3_BUCKET = os.environ.get("S3_BUCKET", "streamsql")


@pytest.fixture(scope="session")
def s3_endpoint() -> str:
    """``host:port`` of a running S3-compatible server (starting the local one if needed)."""
    return local_service("s3-local.sh", "STREAMSQL_S3_ENDPOINT")

@pytest.fixture
def s3_settings(s3_endpoint: str) -> dict[str, str]:
    """Settings for checkpoints under a fresh ``s3://<bucket>/<unique prefix>`` of the server."""
    return {"execution.checkpointing.dir": f"s3://{S3_BUCKET}/t-{uuid.uuid4().hex[:10]}",
            "s3.endpoint": f"http://{s3_endpoint}", "s3.access-key": S3_ACCESS_KEY,
            "s3.secret-key": S3_SECRET_KEY, "s3.path.style.access": "true"}

"""Fixtures for connector tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def loc():
    """A record locator as a Kafka source would pass: ``topic[2]@<offset>``."""
    return lambda i: f"topic[2]@{1234 + i}"

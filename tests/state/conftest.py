"""Fixtures for the state tests (defined in fixtures.py).

Tests marked ``slow`` (a million keys per backend) are skipped here unless selected with
``-m slow`` (or any ``-m`` expression), per the marker's meaning in pyproject.toml.
"""

from __future__ import annotations

import pytest

from tests.state.fixtures import backend, backend_factory, backend_name  # noqa: F401


def pytest_collection_modifyitems(config, items):
    """Skip this folder's slow tests when no ``-m`` expression was given."""
    if config.getoption("markexpr"):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords and "tests/state/" in item.nodeid.replace("\\", "/"):
            item.add_marker(skip)

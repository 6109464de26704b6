"""Fixtures for the shell's tests: a shell driven through a pipe, with its own history file
and working directory (jobs write checkpoints and state under the cwd)."""

from __future__ import annotations

import pytest

from tests.shell.terminal import PipeShell


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A fresh cwd and history file for the shell under test."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_HISTORY", str(tmp_path / "history"))
    return tmp_path


@pytest.fixture
def shell(workdir):
    """``make(**run_shell_kwargs) -> PipeShell``; every shell is closed after the test."""
    made: list[PipeShell] = []

    def make(**kwargs) -> PipeShell:
        sh = PipeShell(**kwargs)
        made.append(sh)
        sh.expect(r"streamsql> ", 10)
        return sh

    yield make
    for sh in made:
        sh.close()

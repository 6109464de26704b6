"""A Flink fuzz driver (``scripts/flink_*fuzz.py``) loaded with a fake worker in place of its JVMs.

Shared by the driver tests of the expression fuzzer (tests/functions/test_difffuzz_driver.py) and
of the query fuzzer (tests/runtime/test_queryfuzz_driver.py): their loop is one
(``flink_session.drive_workers``), their workers are not.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def driver_with_fake_worker(script: Path, fake_worker: str, tmp_path: Path, monkeypatch) -> ModuleType:
    """The driver module of ``script``, its ``WORKER`` running the code ``fake_worker``, quick to poll.

    Its ``GRACE`` is 2 s (no worker starts in the budget's last 2 s; a running one is killed 2 s
    after it) and ``POLL`` 0.1 s.
    """
    spec = importlib.util.spec_from_file_location(f"{script.stem}_under_test", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fake = tmp_path / "fake_worker.py"
    fake.write_text(fake_worker)
    monkeypatch.setattr(module, "WORKER", [sys.executable, str(fake)])
    monkeypatch.setattr(module, "GRACE", 2.0)
    monkeypatch.setattr(module, "POLL", 0.1)
    return module

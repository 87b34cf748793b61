"""Helpers of the interrupt tests: a command in a subprocess, its stderr read as it comes, and a real
SIGINT sent once its progress shows that enough work is done.

The command always starts with Python's own SIGINT handling: a pytest launched in the background by a
shell, or a pytest-xdist worker, may ignore SIGINT, and a child inherits that (the commands then, by
design, leave an ignored SIGINT ignored, as ``nohup`` asks)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _default_sigint() -> None:
    """In the child before ``exec``: SIGINT back to its default, so Python installs KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Command:
    """``python -m app ARGS`` in a subprocess (this interpreter, this environment); its stderr is read
    on a thread into :attr:`err` as it comes (progress lines end in ``\\r``, not ``\\n``)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "app", *args], cwd=REPO,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=_default_sigint,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.err = self.out = ""
        self._lock = threading.Lock()
        self._readers = [threading.Thread(target=self._read, args=(name,), daemon=True) for name in ("out", "err")]
        for reader in self._readers:
            reader.start()

    def _read(self, name: str) -> None:
        pipe = getattr(self.proc, "stdout" if name == "out" else "stderr")
        while chunk := os.read(pipe.fileno(), 4096):
            with self._lock:
                setattr(self, name, getattr(self, name) + chunk.decode("utf-8", "replace"))

    def wait_for(self, done: Callable[[str], bool], timeout: float = 120.0) -> str:
        """Poll stderr until ``done(stderr)``; the stderr read so far. Fails if the command ends first."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._lock:
                text = self.err
            if done(text):
                return text
            if self.proc.poll() is not None:
                raise AssertionError(f"the command ended (exit {self.proc.returncode}) before: {text[-2000:]}")
            time.sleep(0.02)
        self.proc.kill()
        raise AssertionError(f"no progress within {timeout} s: {self.err[-2000:]}")

    def interrupt(self, timeout: float = 120.0) -> tuple[int, str, str]:
        """Send SIGINT (Ctrl+C) and wait: exit code, stdout, stderr."""
        self.proc.send_signal(signal.SIGINT)
        return self.finish(timeout)

    def finish(self, timeout: float = 300.0) -> tuple[int, str, str]:
        """Wait for the command to end: exit code, stdout, stderr."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        for reader in self._readers:
            reader.join(timeout=10)
        return self.proc.returncode, self.out, self.err


def last_number(pattern: str, text: str) -> float | None:
    """The number of the last match of ``pattern`` (one group) in ``text``."""
    found = re.findall(pattern, text)
    return float(found[-1]) if found else None


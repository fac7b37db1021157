"""Fixtures: the real handyd (HANDYD_BIN, default .build/debug) replaying the demo recording."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from typing import Iterator, List

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))  # the package from the tree, installed or not

DEMO = os.path.join(ROOT, "examples", "recordings", "demo.evemu")
CASES = os.path.join(ROOT, "clients", "placement-cases.json")


class Daemon:
    """handyd --replay, its socket in a temporary directory; stopped (SIGTERM) at the end."""

    def __init__(self, socket_path: str, *arguments: str) -> None:
        binary = os.path.join(os.environ.get("HANDYD_BIN", os.path.join(ROOT, ".build", "debug")), "handyd")
        assert os.access(binary, os.X_OK), f"no handyd at {binary}: build it (swift build) or set HANDYD_BIN"
        self.socket_path = socket_path
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([binary, "--socket", socket_path, *arguments], stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while not os.path.exists(socket_path):
            assert self.process.poll() is None, f"handyd exited ({self.process.returncode}): {self.output()}"
            assert time.monotonic() < deadline, "handyd made no socket within 20 s"
            time.sleep(0.02)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def daemons() -> Iterator[List[Daemon]]:
    started: List[Daemon] = []
    yield started
    for d in started:
        d.stop()


@pytest.fixture
def socket_path() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="handyd-py-") as work:
        yield os.path.join(work, "handyd.sock")


def replay(daemons: List[Daemon], socket_path: str, *extra: str, wait_clients: int = 1) -> Daemon:
    d = Daemon(socket_path, "--replay", DEMO, "--speed", "4", "--wait-clients", str(wait_clients), *extra)
    daemons.append(d)
    return d

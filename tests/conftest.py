"""Shared set-up of the test suite.

- A fourth game, Tiny Trick (``tests/tinytrick``: twelve cards, a bid, tricks; a reference
  engine and no batch engine), is registered through the public API before the tests are
  collected, so every test that runs over ``redbeard_env.registered_games()`` runs over it
  too: the proof that the plug-in contract is what docs/architecture.md says.
- One small local Ray for the whole session (tests that need it ask for ``ray_session``).
- Skips: with ``REDBEARD_NO_SKIPS=1`` (CI sets it: ``.ci/run``, every optional extra
  installed) a skipped test fails the run; a bare local run may skip (a missing optional
  extra) and says so at the end, with what to install.
"""

from __future__ import annotations

import os

import pytest

import redbeard_env
import tinytrick

redbeard_env.register(tinytrick.GAME)

NO_SKIPS = os.environ.get("REDBEARD_NO_SKIPS") == "1"


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under ``REDBEARD_NO_SKIPS=1`` a skip is a failure, with the skip's reason."""
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, and REDBEARD_NO_SKIPS=1 forbids skips: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """... and so is a test module skipped whole (a module-level ``importorskip``)."""
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped, and REDBEARD_NO_SKIPS=1 forbids skips: {reason}"


def pytest_terminal_summary(terminalreporter):
    skipped = terminalreporter.stats.get("skipped", [])
    if skipped and not NO_SKIPS:
        terminalreporter.write_line(
            f"{len(skipped)} test(s) skipped, most for an optional extra that is not installed: this run is not "
            "the whole suite (pip install -e '.[test]' installs every extra; CI runs with REDBEARD_NO_SKIPS=1, "
            "where a skip fails)", yellow=True, bold=True)

"""Shared fixtures: one small local Ray for the whole session (tests that need it ask for
``ray_session``; they are skipped when Ray is not installed)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_session():
    ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install -e '.[ray]'")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()

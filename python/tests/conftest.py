"""The package's tests: every test marked `gpu` is skipped, with the reason, without a usable GPU
(ctest reads "needs a CUDA GPU" in the skip lines)."""
import numpy as np
import pytest

import hashlab


def pytest_report_header(config):
    available, why = hashlab.gpu_status()
    where = hashlab._core.__file__
    return [f"hashlab extension: {where}", f"GPU: {hashlab.device_info()['name'] if available else 'none (' + why + ')'}"]


def pytest_collection_modifyitems(config, items):
    available, why = hashlab.gpu_status()
    if available:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA GPU ({why})")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng():
    """A seeded NumPy generator (the seed is in the test's name of the failure: 20261122)."""
    return np.random.default_rng(20261122)

"""The "Scaling out" page's Ray example, run on a local Ray instance.

Ray binds to loopback only and is shut down at the end of the module.
"""

import os
import re
from pathlib import Path

import numpy as np
import pytest

# On Linux, Ray resolves even 127.0.0.1 to the machine's network address unless
# it runs as a single-machine instance (its macOS/Windows mode), which binds to
# loopback. Read at import, and inherited by Ray's own processes.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray")

from ray._private import ray_constants  # noqa: E402
from sklearn.base import clone  # noqa: E402

PAGE = Path(__file__).resolve().parent.parent / "docs" / "scaling_out.md"


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def local_ray(monkeypatch_module):
    # in case Ray was imported before this module set the variable
    monkeypatch_module.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def ray_example():
    text = PAGE.read_text()
    section = text[text.index("## Ray") :]
    return re.search(r"```python\n(.*?)\n```", section, re.S).group(1)


def test_ray_binds_to_loopback_only(local_ray):
    addresses = {node["NodeManagerAddress"] for node in ray.nodes()}
    assert addresses == {"127.0.0.1"}


def test_the_pages_ray_example_gives_the_labels_of_a_serial_fit(
    local_ray, without_halves_check
):
    namespace = {}
    exec(compile(ray_example(), "scaling_out.md (Ray)", "exec"), namespace)
    on_ray = namespace["plc"]
    serial = clone(on_ray).fit(namespace["X"], namespace["y_noisy"])
    assert on_ray.n_iter_ == serial.n_iter_ > 1
    assert on_ray.corrections_["sample"].size > 0
    np.testing.assert_array_equal(on_ray.labels_, serial.labels_)

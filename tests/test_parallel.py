"""PLC's parallel calls through joblib: one pool of workers per fit, any backend."""

import numpy as np
import pytest
from joblib import parallel_config, register_parallel_backend
from joblib._parallel_backends import ThreadingBackend
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB

from sklearn_plc import PLCClassifier


class CountingBackend(ThreadingBackend):
    """joblib's threading backend, counting the pools it starts and the tasks."""

    pools_started = 0
    tasks = 0

    def configure(self, n_jobs=1, parallel=None, **backend_kwargs):
        n_jobs = super().configure(n_jobs, parallel, **backend_kwargs)
        type(self).pools_started += 1
        return n_jobs

    def submit(self, func, callback=None):
        type(self).tasks += 1
        return super().submit(func, callback)


@pytest.fixture
def counting_backend():
    register_parallel_backend("plc-counting", CountingBackend)
    CountingBackend.pools_started = CountingBackend.tasks = 0
    return CountingBackend


@pytest.fixture(scope="module")
def noisy_data():
    X, y = make_classification(
        300, 6, n_informative=4, n_classes=3, class_sep=1.5, random_state=0
    )
    y_noisy = y.copy()
    y_noisy[::5] = (y_noisy[::5] + 1) % 3
    return X, y_noisy


def test_a_fit_starts_its_workers_once(counting_backend, noisy_data):
    # a backend such as Ray's starts a new pool for every Parallel call that
    # does not share one: every round, candidate and half of the check
    X, y = noisy_data
    plc = PLCClassifier(GaussianNB(), confidence="cv", min_memorisation=0)
    with parallel_config(backend="plc-counting", n_jobs=2):
        plc.fit(X, y)
    assert counting_backend.tasks > 2 * plc.cv  # several calls of cv folds each
    assert counting_backend.pools_started == 1


def test_the_shared_pool_gives_the_labels_of_a_serial_fit(counting_backend, noisy_data):
    X, y = noisy_data
    serial = PLCClassifier(GaussianNB(), min_memorisation=0, random_state=0)
    with parallel_config(backend="plc-counting", n_jobs=2):
        shared = PLCClassifier(GaussianNB(), min_memorisation=0, random_state=0)
        shared.fit(X, y)
    np.testing.assert_array_equal(shared.labels_, serial.fit(X, y).labels_)


def test_a_fit_inside_a_task_of_the_shared_pool_gets_its_own(noisy_data):
    # the default backend runs each fold in this thread: the inner PLC's fit
    # runs while the outer one's pool is busy, and a joblib Parallel cannot
    # run two calls at once
    X, y = noisy_data
    inner = PLCClassifier(GaussianNB(), min_memorisation=0, validation_fraction=None)
    outer = PLCClassifier(inner, confidence="cv", validation_fraction=None)
    outer.fit(X, y)
    assert outer.estimator_.labels_.shape == y.shape


def test_the_estimators_own_joblib_calls_leave_the_shared_pool_running(noisy_data):
    # a forest whose n_jobs is None runs its trees through the same
    # parallel_config; each of its Parallel calls ends by stopping the
    # backend's workers, which must not be the pool the fit shares
    X, y = noisy_data
    serial = PLCClassifier(
        RandomForestClassifier(10, random_state=0), confidence="cv", random_state=0
    ).fit(X, y)
    with parallel_config(backend="loky", n_jobs=2):
        shared = PLCClassifier(
            RandomForestClassifier(10, random_state=0), confidence="cv", random_state=0
        ).fit(X, y)
    np.testing.assert_array_equal(shared.labels_, serial.labels_)

"""PLC's fits on a Dask cluster through joblib: same labels as a serial fit.

The cluster binds to loopback only and is shut down by its context managers.
"""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from joblib import parallel_config  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import RandomForestClassifier  # noqa: E402

from sklearn_plc import PLCClassifier  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def noisy_data():
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=0)
    y_noisy = y.copy()
    y_noisy[::4] = (y_noisy[::4] + 1) % 3
    return X, y_noisy


@pytest.fixture
def scattered(monkeypatch):
    """What the Dask client scatters during the test, one entry per call."""
    calls = []
    scatter = distributed.Client.scatter

    def recording_scatter(self, data, *args, **kwargs):
        calls.append(data)
        return scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "scatter", recording_scatter)
    return calls


def forest_plc():
    # the folds of confidence="cv" are what runs on the cluster
    return PLCClassifier(
        RandomForestClassifier(20, random_state=0), confidence="cv", random_state=0
    )


def test_a_dask_cluster_gives_the_labels_of_a_serial_fit(client, noisy_data):
    X, y = noisy_data
    serial = forest_plc().fit(X, y)
    with parallel_config(backend="dask"):
        on_cluster = forest_plc().fit(X, y)
    assert on_cluster.n_iter_ == serial.n_iter_ > 1
    assert np.array_equal(on_cluster.labels_, serial.labels_)


def test_the_training_data_is_scattered_once_per_fit(client, noisy_data, scattered):
    X, y = noisy_data
    with parallel_config(backend="dask"):
        plc = forest_plc().fit(X, y)
    sent_X = [
        item
        for data in scattered
        for item in (data if isinstance(data, list) else [data])
        if item is X
    ]
    assert plc.n_iter_ > 1
    assert len(sent_X) == 1


def test_each_halfs_rows_are_scattered_once(client, noisy_data, scattered):
    # the check on halves runs in the fit's pool; under Dask each half's run
    # still sends its own rows once, not once per parallel call
    X, y = noisy_data
    with parallel_config(backend="dask"):
        plc = forest_plc().fit(X, y)
    sent_with_their_folds = [  # a block's data goes in one list, its folds after X
        data[0] for data in scattered if isinstance(data, list) and data[0] is not X
    ]
    assert plc.halves_check_ is not None
    assert len(sent_with_their_folds) == 2
    assert sum(rows.shape[0] for rows in sent_with_their_folds) == X.shape[0]

"""Every net a skorch user brings, and errors that name the fix.

One regression test per case: binary nets, disabled callbacks, EarlyStopping,
partial_fit, progress bars, outputs that are not probabilities, callback names,
dtypes, and the bare callback's parameter and label checks.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
skorch = pytest.importorskip("skorch")

from skorch import (  # noqa: E402
    NeuralNetBinaryClassifier,
    NeuralNetClassifier,
    NeuralNetRegressor,
)
from skorch.callbacks import EarlyStopping, EpochScoring  # noqa: E402
from torch import nn  # noqa: E402

from sklearn_plc import PLCClassifier  # noqa: E402
from sklearn_plc.skorch import PLCCallback  # noqa: E402

N_FEATURES = 5


class Linear(nn.Module):
    """Logits for `n_outputs` classes (squeezed to (n,) for one output)."""

    def __init__(self, n_outputs=3):
        super().__init__()
        self.layer = nn.Linear(N_FEATURES, n_outputs)

    def forward(self, X):
        out = self.layer(X)
        return out.squeeze(-1) if out.shape[-1] == 1 else out


@pytest.fixture(scope="module")
def data():
    """300 samples, 3 classes separated along the first two features."""
    rng = np.random.RandomState(0)
    y = np.arange(300) % 3
    X = rng.normal(size=(300, N_FEATURES)).astype(np.float32)
    X[:, 0] += 2 * (y == 1)
    X[:, 1] += 2 * (y == 2)
    return X, y


def make_net(max_epochs=6, **params):
    defaults = dict(
        criterion=nn.CrossEntropyLoss,
        lr=0.1,
        max_epochs=max_epochs,
        train_split=None,
        iterator_train__shuffle=True,
        verbose=0,
    )
    defaults.update(params)
    return NeuralNetClassifier(Linear, **defaults)


def plc(net, **params):
    return PLCClassifier(net, **{"warm_up": 1, "random_state": 0, **params})


# --- nets PLCClassifier accepts --------------------------------------------------


def test_a_binary_net_is_corrected_with_float_targets(data):
    X, y = data
    binary = (y > 0).astype(int)
    net = NeuralNetBinaryClassifier(
        Linear,
        module__n_outputs=1,
        max_epochs=4,
        lr=0.1,
        train_split=None,
        iterator_train__shuffle=True,
        verbose=0,
    )
    model = plc(net).fit(X, binary)
    assert model.predict_proba(X).shape == (300, 2)
    assert set(np.unique(model.predict(X))) <= {0, 1}


def test_a_binary_net_with_more_than_two_classes_is_rejected(data):
    X, y = data
    net = NeuralNetBinaryClassifier(Linear, module__n_outputs=1, train_split=None)
    with pytest.raises(ValueError, match="two classes, but y has 3"):
        plc(net).fit(X, y)


def test_a_net_that_is_not_a_classifier_is_rejected_naming_the_supported_ones(data):
    X, y = data
    with pytest.raises(TypeError, match="NeuralNetClassifier and NeuralNetBinary"):
        plc(NeuralNetRegressor(Linear, train_split=None)).fit(X, y)


def test_a_net_with_callbacks_disabled_runs_plc_alone(data):
    X, y = data
    model = plc(make_net(callbacks="disable")).fit(X, y)
    assert [name for name, _ in model.estimator_.callbacks_] == ["plc"]
    assert model.n_iter_ == 6


def test_a_user_callback_named_plc_is_kept_beside_plcs_own(data):
    X, y = data
    scoring = EpochScoring("accuracy", on_train=True, name="train_acc")
    model = plc(make_net(callbacks=[("plc", scoring)])).fit(X, y)
    names = [name for name, _ in model.estimator_.callbacks_]
    assert "plc" in names and "plc_1" in names
    assert model.n_iter_ == 6


# --- how training ends -----------------------------------------------------------


def early_stopping_net():
    stop = EarlyStopping(monitor="train_loss", patience=1, threshold=1e6)
    return make_net(max_epochs=20, callbacks=[stop])


def test_early_stopping_ends_on_a_corrected_last_epoch(data):
    X, y = data
    model = plc(early_stopping_net()).fit(X, y)
    history = model.estimator_.history
    assert len(history) < 20
    assert model.n_iter_ == len(history)
    assert "plc_corrected" in history[-1]


def test_early_stopping_is_reported_as_interrupted(data):
    X, y = data
    model = plc(early_stopping_net(), theta_end=0.95).fit(X, y)
    assert model.termination_condition_ == "interrupted"


class LabelRecorder(skorch.callbacks.Callback):
    """Records the labels the net trains on at the start of every epoch."""

    def initialize(self):
        self.seen = []
        return self

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        self.seen.append(np.array(dataset_train.y, copy=True))


def test_partial_fit_continues_from_the_corrected_labels(data):
    X, y = data
    y_noisy = y.copy()
    y_noisy[::7] = (y_noisy[::7] + 1) % 3
    callback = PLCCallback(warm_up=1, window=1, min_correction_rate=0)
    recorder = LabelRecorder()
    net = make_net(max_epochs=3, callbacks=[("correct", callback), ("seen", recorder)])
    net.fit(X, y_noisy)
    corrected = callback.corrector_.labels.copy()
    assert not np.array_equal(corrected, y_noisy)
    net.partial_fit(X, y_noisy)
    assert callback.corrector_.n_rounds == 6
    assert np.array_equal(recorder.seen[3], corrected)


def test_partial_fit_on_other_data_is_rejected(data):
    X, y = data
    callback = PLCCallback(warm_up=1)
    net = make_net(max_epochs=2, callbacks=[("correct", callback)]).fit(X, y)
    with pytest.raises(ValueError, match="same 300 training samples"):
        net.partial_fit(X[:100], y[:100])


# --- progress ---------------------------------------------------------------------


def test_verbose_shows_a_progress_bar_over_epochs(data, capsys):
    X, y = data
    plc(make_net(max_epochs=3), verbose=1).fit(X, y)
    assert "3/3" in capsys.readouterr().err


def test_warm_up_epochs_are_marked_in_the_nets_table(data):
    X, y = data
    model = plc(make_net(max_epochs=4), warm_up=2).fit(X, y)
    marks = model.estimator_.history[:, "event_plc_warm_up"]
    assert marks == [True, True, False, False]
    assert [r["warm_up"] for r in model.history_] == marks


def test_verbose_2_prints_one_line_per_epoch(data, capsys):
    X, y = data
    plc(make_net(max_epochs=3), verbose=2).fit(X, y)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "round 0: warm-up, no correction pass"
    assert out[1].startswith("round 1, threshold")
    assert out[-1].startswith("PLC ran all its epochs (3 epochs")


def test_the_progress_bar_closes_at_the_epochs_run(data, capsys):
    X, y = data
    model = plc(early_stopping_net(), verbose=1).fit(X, y)
    n_epochs = len(model.estimator_.history)
    last = capsys.readouterr().err.strip().split("\r")[-1]
    assert f"{n_epochs}/{n_epochs}" in last


# --- errors that name the fix -------------------------------------------------------


def test_logits_with_the_default_nll_loss_are_rejected_with_the_fix(data):
    X, y = data
    net = make_net(criterion=nn.NLLLoss)
    with pytest.raises(ValueError, match=r"criterion=torch\.nn\.CrossEntropyLoss"):
        plc(net).fit(X, y)


def test_float64_inputs_get_the_float32_hint(data):
    X, y = data
    with pytest.raises(RuntimeError, match=r"X.astype\('float32'\)"):
        plc(make_net()).fit(X.astype(np.float64), y)


def _cast_to_float32():
    from sklearn.preprocessing import FunctionTransformer

    return FunctionTransformer(np.float32)


def test_a_net_last_in_a_pipeline_trains_once_on_what_the_steps_make(data):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = data
    pipe = make_pipeline(StandardScaler(), _cast_to_float32(), make_net(max_epochs=5))
    model = plc(pipe).fit(X.astype(np.float64), y)
    assert model.confidence_ == "training_pass"
    assert len(model.estimator_[-1].history) == 5  # one run, no refits
    assert model.n_iter_ == 5
    np.testing.assert_allclose(model.estimator_[0].mean_, X.mean(axis=0), rtol=1e-5)
    assert model.predict_proba(X[:4]).shape == (4, 3)


def test_float64_from_a_pipelines_steps_gets_the_cast_step_hint(data):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = data
    with pytest.raises(RuntimeError, match=r"FunctionTransformer\(np.float32\)"):
        plc(make_pipeline(StandardScaler(), make_net())).fit(X.astype(np.float64), y)


def test_a_net_that_already_has_a_plc_callback_is_rejected(data):
    X, y = data
    net = make_net(callbacks=[("mine", PLCCallback())])
    with pytest.raises(ValueError, match="already has a PLCCallback"):
        plc(net).fit(X, y)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(theta=1.5), "'theta' parameter"),
        (dict(window=0), "'window' parameter"),
        (dict(proba_source="logits"), "'proba_source' parameter"),
        (dict(theta=0.5, theta_end=0.4), "set theta_end >= theta"),
    ],
)
def test_the_callbacks_parameters_are_checked_before_training(params, message):
    net = make_net(callbacks=[("correct", PLCCallback(**params))])
    with pytest.raises(ValueError, match=message):
        net.initialize()


def test_string_labels_with_the_bare_callback_name_the_fix(data):
    X, y = data
    names = np.array(["ant", "bee", "cat"])[y]
    net = make_net(callbacks=[("correct", PLCCallback())])
    with pytest.raises(TypeError, match="LabelEncoder"):
        net.fit(X, names)


# --- data that stays on disk ----------------------------------------------------------


class DiskSamples(torch.utils.data.Dataset):
    """Samples read one at a time from an .npy file on disk, with their index."""

    def __init__(self, path):
        self.path = path
        self.n_samples = np.load(path, mmap_mode="r").shape[0]

    def __len__(self):
        return self.n_samples

    def __getitem__(self, index):
        rows = np.load(self.path, mmap_mode="r")  # nothing is held in memory
        return torch.as_tensor(np.array(rows[index])), index


def test_samples_read_lazily_from_disk_are_corrected(data, tmp_path):
    from skorch.helper import SliceDataset

    X, y = data
    y_noisy = y.copy()
    y_noisy[::5] = (y_noisy[::5] + 1) % 3
    path = tmp_path / "samples.npy"
    np.save(path, X)
    on_disk = SliceDataset(DiskSamples(path), idx=0)
    model = plc(make_net(max_epochs=6), min_correction_rate=0).fit(on_disk, y_noisy)
    assert model.labels_.shape == y.shape
    assert np.mean(model.labels_ == y) > np.mean(y_noisy == y)
    assert model.predict(on_disk).shape == y.shape


def test_the_callbacks_trusted_labels_are_never_corrected(data):
    X, y = data
    flipped = np.where(np.arange(300) < 90, (y + 1) % 3, y)  # 90 wrong labels
    trusted = np.arange(300) < 45  # half of them verified as given
    callback = PLCCallback(warm_up=1, min_correction_rate=0, trusted=trusted)
    net = make_net(max_epochs=8, callbacks=[("plc", callback)])
    net.fit(X, flipped)
    corrector = dict(net.callbacks_)["plc"].corrector_
    assert (corrector.labels[45:] != flipped[45:]).any()
    np.testing.assert_array_equal(corrector.labels[trusted], flipped[trusted])


def test_a_torch_dataset_without_y_is_told_to_pass_a_slice_dataset(data):
    X, y = data
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    with pytest.raises(TypeError, match="SliceDataset"):
        plc(make_net()).fit(dataset)


def test_the_fitted_callback_names_its_results_as_plcclassifier_does(data):
    X, y = data
    callback = PLCCallback(warm_up=1, min_correction_rate=0)
    net = make_net(callbacks=[("plc", callback)]).fit(X, y)
    fitted = dict(net.callbacks_)["plc"]
    np.testing.assert_array_equal(fitted.labels_, fitted.corrector_.labels)
    assert fitted.history_ == fitted.corrector_.history
    assert fitted.n_iter_ == 6 and len(fitted.corrected_iter_) == 300
    assert set(fitted.corrections_) == {"round", "sample", "from", "to"}


def test_the_instance_of_a_cloned_net_says_where_the_fitted_copy_is(data):
    from sklearn.base import clone

    X, y = data
    callback = PLCCallback(warm_up=1)
    fitted = clone(make_net(callbacks=[("plc", callback)])).fit(X, y)
    assert dict(fitted.callbacks_)["plc"].labels_.shape == (300,)
    with pytest.raises(AttributeError, match=r"dict\(net.callbacks_\)"):
        _ = callback.labels_


def test_a_nets_review_list_covers_its_training_samples(data):
    X, y = data
    flipped = np.where(np.arange(300) < 60, (y + 1) % 3, y)
    model = plc(make_net(max_epochs=8), min_correction_rate=0).fit(X, flipped)
    rows = model.review_list()
    assert not rows["held_out"].any()  # the training passes' outputs
    assert rows["top_proba"].is_monotonic_increasing
    changed = np.flatnonzero(model.labels_ != flipped)
    assert set(changed) <= set(rows["sample"])

import pickle
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
skorch = pytest.importorskip("skorch")

from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402
from skorch import NeuralNetClassifier  # noqa: E402
from skorch.dataset import ValidSplit  # noqa: E402
from skorch.helper import SliceDataset  # noqa: E402

from benchmarks.nets import Conv1DNet, Conv2DNet, make_mnist1d  # noqa: E402
from sklearn_plc import PLCClassifier  # noqa: E402
from sklearn_plc.noise import PMDNoise  # noqa: E402
from sklearn_plc.skorch import (  # noqa: E402
    EpochOrderSampler,
    PLCCallback,
    plateau_epoch,
)

UNSET = object()  # a net parameter left out, as a user who never set it


def make_net(module, max_epochs=12, **params):
    defaults = dict(
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam,
        lr=3e-3,
        batch_size=64,
        max_epochs=max_epochs,
        train_split=None,
        iterator_train__shuffle=True,
        verbose=0,
    )
    defaults.update(params)
    if defaults["iterator_train__shuffle"] is UNSET:  # as skorch's default
        del defaults["iterator_train__shuffle"]
    return NeuralNetClassifier(module, **defaults)


@pytest.fixture(scope="module")
def noisy_digits():
    X, y = load_digits(return_X_y=True)
    noise = PMDNoise("I", 0.3, random_state=0)
    _, y_noisy = noise.fit_resample(X, y)
    images = (X / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    return images, y, y_noisy


@pytest.fixture(scope="module")
def noisy_mnist1d():
    X, _, y, _ = make_mnist1d(4000, seed=0)
    _, y_noisy = PMDNoise("I", 0.3, random_state=0).fit_resample(X, y)
    return X, y, y_noisy


def plc(net, **params):
    defaults = dict(warm_up=4, random_state=0)
    defaults.update(params)
    return PLCClassifier(net, **defaults)


def purity(labels, clean):
    return float(np.mean(labels == clean))


def test_cnn_on_digits_raises_label_purity(noisy_digits):
    X, y, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet)).fit(X, y_noisy)
    assert purity(model.labels_, y) > purity(y_noisy, y)


def test_1d_cnn_on_mnist1d_raises_label_purity(noisy_mnist1d):
    X, y, y_noisy = noisy_mnist1d
    # mnist1d needs about a dozen epochs before the net's confidences beat the
    # labels; corrections that start earlier lower purity (see issue notes).
    model = plc(make_net(Conv1DNet, max_epochs=20), warm_up=12)
    model.fit(X, y_noisy)
    assert purity(model.labels_, y) > purity(y_noisy, y)


def test_one_training_run_of_max_epochs(noisy_digits):
    X, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, max_epochs=7)).fit(X, y_noisy)
    assert len(model.estimator_.history) == 7
    assert model.n_iter_ == 7  # one correction round per epoch
    assert [r["n_corrected"] for r in model.history_[:4]] == [0, 0, 0, 0]


def test_the_threshold_waits_while_the_nets_loss_on_its_labels_improves(
    noisy_digits,
):
    # every pass is quiet at min_correction_rate=0.5, but 12 epochs leave no
    # room for 10 without improvement after the warm-up: the threshold stays
    images, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet), theta=0.2, min_correction_rate=0.5)
    model.fit(images, y_noisy)
    assert {record["threshold"] for record in model.history_} == {0.2}


def test_plateau_is_found_when_agreement_stops_rising():
    curve = [0.2, 0.4, 0.5, 0.6, 0.603, 0.606]
    found = [plateau_epoch(curve[: i + 1]) for i in range(len(curve))]
    assert found == [False, False, False, False, False, True]


def test_a_curve_that_rises_only_to_chance_is_no_plateau():
    # a net that moves from a few classes to predicting the common class alone
    curve = [0.45, 0.49, 0.5, 0.5, 0.5, 0.53, 0.56, 0.58, 0.582, 0.583]
    found = [plateau_epoch(curve[: i + 1], chance=0.5) for i in range(len(curve))]
    assert found.index(True) == len(curve) - 1


def test_a_curve_that_has_not_started_rising_is_no_plateau():
    curve = [0.36, 0.359, 0.363, 0.353, 0.358, 0.374, 0.41, 0.45, 0.47, 0.472, 0.473]
    found = [plateau_epoch(curve[: i + 1]) for i in range(len(curve))]
    assert found.index(True) == len(curve) - 1


def test_auto_warm_up_starts_correcting_once_agreement_levels_off(noisy_digits):
    X, y, y_noisy = noisy_digits
    model = PLCClassifier(make_net(Conv2DNet, max_epochs=12), random_state=0)
    model.fit(X, y_noisy)
    callback = dict(model.estimator_.callbacks_)["plc"]
    assert 3 <= model.warm_up_ <= 6  # at the latest at half of max_epochs
    agreement = callback.agreement_[: model.warm_up_ + 1]
    assert plateau_epoch(agreement, chance=0.1) or (model.warm_up_ == 5)
    assert all(r["n_corrected"] == 0 for r in model.history_[: model.warm_up_])
    assert purity(model.labels_, y) > purity(y_noisy, y)


class SoftmaxNet(torch.nn.Module):
    """skorch's default convention: the module returns probabilities."""

    def __init__(self):
        super().__init__()
        self.net = Conv2DNet()

    def forward(self, X):
        return torch.softmax(self.net(X), dim=-1)


def test_a_probability_module_with_the_default_nll_loss_works(noisy_digits):
    X, y, y_noisy = noisy_digits
    net = make_net(SoftmaxNet, criterion=torch.nn.NLLLoss)
    model = plc(net).fit(X, y_noisy)
    assert purity(model.labels_, y) > purity(y_noisy, y)


def test_eval_pass_probabilities_also_correct_labels(noisy_digits):
    X, y, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet), confidence="eval_pass").fit(X, y_noisy)
    assert purity(model.labels_, y) > purity(y_noisy, y)


def test_same_random_state_gives_the_same_labels_on_cpu(noisy_digits):
    X, _, y_noisy = noisy_digits
    first = plc(make_net(Conv2DNet, max_epochs=6)).fit(X, y_noisy)
    second = plc(make_net(Conv2DNet, max_epochs=6)).fit(X, y_noisy)
    np.testing.assert_array_equal(first.labels_, second.labels_)


def test_callback_and_meta_estimator_agree(noisy_digits):
    X, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, max_epochs=6)).fit(X, y_noisy)
    callback = PLCCallback(warm_up=4)  # window 5, as PLCClassifier
    net = make_net(Conv2DNet, max_epochs=6, callbacks=[("plc", callback)])
    torch.manual_seed(np.random.RandomState(0).randint(2**31 - 1))  # as random_state=0
    net.fit(X, y_noisy)
    corrector = dict(net.callbacks_)["plc"].corrector_
    np.testing.assert_array_equal(corrector.labels, model.labels_)
    assert corrector.history == model.history_


def test_callers_labels_are_not_modified(noisy_digits):
    X, _, y_noisy = noisy_digits
    y_given = y_noisy.copy()
    callback = PLCCallback(warm_up=2, window=1)
    net = make_net(Conv2DNet, max_epochs=5, callbacks=[callback])
    net.fit(X, y_given)
    assert dict(net.callbacks_)["PLCCallback"].corrector_.history[-1]["n_changed"] > 0
    np.testing.assert_array_equal(y_given, y_noisy)


def test_corrections_are_logged_in_the_net_history(noisy_digits):
    X, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, max_epochs=6)).fit(X, y_noisy)
    history = model.estimator_.history
    assert history[:, "plc_corrected"] == [r["n_corrected"] for r in model.history_]
    assert history[-1, "plc_threshold"] == model.history_[-1]["threshold"]


def test_corrections_log_uses_positions_in_the_full_data(noisy_digits):
    X, _, y_noisy = noisy_digits
    net = make_net(Conv2DNet, max_epochs=6, train_split=ValidSplit(5))
    model = plc(net).fit(X, y_noisy)
    log = model.corrections_
    labels = y_noisy.copy()
    labels[log["sample"]] = log["to"]  # replaying in order: last change wins
    np.testing.assert_array_equal(labels, model.labels_)


def test_only_the_training_split_is_corrected(noisy_digits):
    X, _, y_noisy = noisy_digits
    net = make_net(Conv2DNet, max_epochs=6, train_split=ValidSplit(5))
    model = plc(net).fit(X, y_noisy)
    positions = dict(model.estimator_.callbacks_)["plc"].training_positions_
    validation = np.setdiff1d(np.arange(len(y_noisy)), positions)
    assert abs(validation.size - len(y_noisy) / 5) <= 1  # a stratified fifth
    np.testing.assert_array_equal(model.labels_[validation], y_noisy[validation])
    assert (model.corrected_iter_[validation] == -1).all()
    assert (model.corrected_iter_[positions] >= 0).any()


def test_trusted_labels_are_never_corrected_by_a_net(noisy_digits):
    X, _, y_noisy = noisy_digits
    trusted = np.random.RandomState(0).uniform(size=len(y_noisy)) < 0.3
    net = make_net(Conv2DNet, max_epochs=6, train_split=ValidSplit(5))
    model = plc(net).fit(X, y_noisy, trusted=trusted)
    assert (model.corrected_iter_ >= 0).any()
    np.testing.assert_array_equal(model.labels_[trusted], y_noisy[trusted])
    assert (model.corrected_iter_[trusted] == -1).all()


def test_user_sampler_settings_are_restored_after_training(noisy_digits):
    X, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, max_epochs=5)).fit(X, y_noisy)
    params = model.estimator_.get_params()
    assert "iterator_train__sampler" not in params
    assert params.get("iterator_train__shuffle", True) is True


def test_eval_pass_leaves_the_nets_iterator_settings_alone(noisy_digits):
    # Regression: the tear-down removed iterator_train__shuffle it had not set.
    X, _, y_noisy = noisy_digits
    callback = PLCCallback(warm_up=10, proba_source="eval_pass")
    net = make_net(Conv2DNet, max_epochs=1, callbacks=[("plc", callback)])
    net.fit(X, y_noisy.copy())
    assert net.get_params()["iterator_train__shuffle"] is True


class _FailOnce(skorch.callbacks.Callback):
    def __init__(self):
        self.failed = False

    def on_epoch_end(self, net, **kwargs):
        if not self.failed:
            self.failed = True
            raise RuntimeError("simulated failure")


def test_a_run_that_raised_does_not_leave_its_sampler_in_the_net(noisy_digits):
    X, _, y_noisy = noisy_digits
    net = make_net(
        Conv2DNet,
        max_epochs=2,
        callbacks=[("plc", PLCCallback(warm_up=10)), ("fail", _FailOnce())],
    )
    with pytest.raises(RuntimeError, match="simulated failure"):
        net.fit(X, y_noisy.copy())
    net.fit(X, y_noisy.copy())  # the next fit starts from the user's settings
    params = net.get_params()
    assert "iterator_train__sampler" not in params
    assert params["iterator_train__shuffle"] is True


def _fitted_proba(net, X, y, seed=0):
    torch.manual_seed(seed)
    return net.fit(X, y.copy()).predict_proba(X[:100])


def test_a_callback_that_corrects_nothing_leaves_training_unchanged(noisy_digits):
    # Regression: the recording sampler used to shuffle nets that do not
    # (skorch's DataLoader keeps the data's order by default).
    X, _, y_noisy = noisy_digits
    in_order = dict(max_epochs=3, iterator_train__shuffle=False)
    plain = _fitted_proba(make_net(Conv2DNet, **in_order), X, y_noisy)
    never = PLCCallback(warm_up=10)  # more than max_epochs: records, never corrects
    net = make_net(Conv2DNet, callbacks=[("plc", never)], **in_order)
    with pytest.warns(UserWarning, match="iterator_train__shuffle=True"):
        proba = _fitted_proba(net, X, y_noisy)
    np.testing.assert_allclose(proba, plain, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("shuffle", "proba_source", "warns"),
    [
        (False, "training_pass", True),
        (True, "training_pass", False),
        (False, "eval_pass", False),
    ],
)
def test_a_warning_says_when_training_pass_outputs_come_in_a_fixed_order(
    noisy_digits, shuffle, proba_source, warns
):
    X, _, y_noisy = noisy_digits
    callback = PLCCallback(warm_up=10, proba_source=proba_source)
    net = make_net(
        Conv2DNet,
        max_epochs=1,
        iterator_train__shuffle=shuffle,
        callbacks=[("plc", callback)],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net.fit(X, y_noisy.copy())
    fixed_order = [w for w in caught if "same order every epoch" in str(w.message)]
    assert bool(fixed_order) is warns


@pytest.mark.parametrize("shuffle", [False, True])
def test_the_recording_sampler_follows_the_nets_shuffle_setting(shuffle):
    callback = PLCCallback(warm_up=10)
    net = make_net(
        Conv2DNet,
        max_epochs=1,
        iterator_train__shuffle=shuffle,
        callbacks=[("plc", callback)],
    )
    net.initialize()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixed-order warning, tested above
        callback.on_train_begin(net)
    assert callback._sampler.shuffle is shuffle
    callback.on_train_end(net)
    assert net.get_params()["iterator_train__shuffle"] is shuffle


def test_a_net_that_leaves_shuffling_unset_is_shuffled():
    callback = PLCCallback(warm_up=10)
    net = make_net(
        Conv2DNet,
        max_epochs=1,
        iterator_train__shuffle=UNSET,
        callbacks=[("plc", callback)],
    )
    net.initialize()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fixed-order warning either
        callback.on_train_begin(net)
    assert callback._sampler.shuffle is True
    callback.on_train_end(net)
    assert "iterator_train__shuffle" not in net.get_params()


def test_a_net_that_leaves_shuffling_unset_trains_as_a_shuffled_one(noisy_digits):
    X, _, y_noisy = noisy_digits
    unset = make_net(Conv2DNet, max_epochs=6, iterator_train__shuffle=UNSET)
    torch.manual_seed(0)
    left_unset = plc(unset).fit(X, y_noisy)
    torch.manual_seed(0)
    shuffled = plc(make_net(Conv2DNet, max_epochs=6)).fit(X, y_noisy)
    assert (left_unset.labels_ != y_noisy).any()
    np.testing.assert_array_equal(left_unset.labels_, shuffled.labels_)


def test_verbose_says_that_plc_shuffles_a_net_left_unset(noisy_digits, capsys):
    X, _, y_noisy = noisy_digits
    callback = PLCCallback(warm_up=10, verbose=1)
    net = make_net(
        Conv2DNet,
        max_epochs=1,
        iterator_train__shuffle=UNSET,
        callbacks=[("plc", callback)],
    )
    net.fit(X, y_noisy.copy())
    assert "PLC shuffles the training data" in capsys.readouterr().out


def test_a_shuffling_sampler_draws_a_new_permutation_every_epoch():
    sampler = EpochOrderSampler(n_samples=50, shuffle=True)
    first, second = list(sampler), list(sampler)
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second
    assert sampler.order.tolist() == second


def test_a_sampler_that_does_not_shuffle_keeps_the_data_order():
    sampler = EpochOrderSampler(n_samples=50, shuffle=False)
    assert list(sampler) == list(sampler) == list(range(50))


def test_a_fitted_net_pickles_without_its_training_data(noisy_digits):
    # Regression: the corrector's lambda made fitted nets unpicklable.
    X, _, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, max_epochs=5)).fit(X, y_noisy)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X[:50]), model.predict(X[:50]))
    callback = dict(restored.estimator_.callbacks_)["plc"]
    assert callback.corrector_.recorded == ()
    assert callback.recorded_device_ == "cpu"


def test_string_labels_round_trip_through_a_net(noisy_digits):
    X, _, y_noisy = noisy_digits
    names = np.array([f"digit {d}" for d in range(10)])
    model = plc(make_net(Conv2DNet, max_epochs=5)).fit(X, names[y_noisy])
    assert set(model.labels_) <= set(names)
    assert set(model.predict(X[:20])) <= set(names)
    assert model.predict_proba(X[:20]).shape == (20, 10)


def test_slice_dataset_inputs_with_separate_labels(noisy_digits):
    X, y, y_noisy = noisy_digits
    dataset = torch.utils.data.TensorDataset(torch.as_tensor(X), torch.as_tensor(y))
    model = plc(make_net(Conv2DNet, max_epochs=6))
    model.fit(SliceDataset(dataset, idx=0), y_noisy)
    assert model.labels_.shape == y_noisy.shape


class DictInputNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Conv2DNet()

    def forward(self, image):
        return self.net(image)


def test_dict_inputs_are_accepted(noisy_digits):
    X, _, y_noisy = noisy_digits
    model = plc(make_net(DictInputNet, max_epochs=5)).fit({"image": X}, y_noisy)
    assert model.predict({"image": X[:10]}).shape == (10,)


def test_inputs_and_labels_of_different_lengths_are_rejected(noisy_digits):
    X, _, y_noisy = noisy_digits
    with pytest.raises(ValueError, match="one label per sample"):
        plc(make_net(Conv2DNet)).fit(X[:-1], y_noisy)


def test_grid_search_over_theta_beta_and_the_nets_parameters(noisy_digits):
    X, _, y_noisy = noisy_digits
    grid = GridSearchCV(
        plc(make_net(Conv2DNet, max_epochs=5)),
        {"theta": [0.2, 0.4], "beta": [0.1], "estimator__lr": [1e-3, 3e-3]},
        cv=2,
    )
    grid.fit(X, y_noisy)
    assert len(grid.cv_results_["params"]) == 4


def test_a_torch_dataset_holding_its_targets_is_rejected_with_the_fix(noisy_digits):
    X, y, _ = noisy_digits
    dataset = torch.utils.data.TensorDataset(torch.as_tensor(X), torch.as_tensor(y))
    with pytest.raises(TypeError, match="SliceDataset"):
        plc(make_net(Conv2DNet)).fit(dataset, y)


def test_sample_weight_with_a_net_is_rejected(noisy_digits):
    X, _, y_noisy = noisy_digits
    with pytest.raises(ValueError, match="sample_weight is not supported"):
        plc(make_net(Conv2DNet)).fit(X, y_noisy, sample_weight=np.ones(len(X)))


def test_net_confidence_with_a_sklearn_estimator_is_rejected(noisy_digits):
    X, _, y_noisy = noisy_digits
    with pytest.raises(ValueError, match="needs a skorch NeuralNet"):
        PLCClassifier(confidence="training_pass").fit(X.reshape(len(X), -1), y_noisy)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_run_keeps_recorded_outputs_on_the_device(noisy_digits):
    X, y, y_noisy = noisy_digits
    model = plc(make_net(Conv2DNet, device="cuda")).fit(X, y_noisy)
    callback = dict(model.estimator_.callbacks_)["plc"]
    assert callback.recorded_device_.startswith("cuda")
    assert purity(model.labels_, y) > purity(y_noisy, y)

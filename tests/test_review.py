"""The review list (PLCClassifier.review_list): every sample, the most useful first."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_plc import PLCClassifier
from sklearn_plc._review import change_proba, given_labels, review_order, review_rows
from sklearn_plc.noise import PMDNoise

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def digits_pmd():
    X, y = load_digits(return_X_y=True)
    _, y_noisy = PMDNoise("I", 0.35, random_state=0).fit_resample(X, y)
    return X, y, y_noisy


@pytest.fixture(scope="module")
def forest_run(digits_pmd):
    X, _, y_noisy = digits_pmd
    return PLCClassifier(random_state=0).fit(X, y_noisy)


def test_the_list_ranks_the_least_sure_samples_first(forest_run):
    rows = forest_run.review_list()
    assert isinstance(rows, pd.DataFrame)
    assert rows["top_proba"].is_monotonic_increasing
    assert rows["held_out"].all()  # the forest judged out of bag


def test_the_list_holds_every_sample_once(forest_run, digits_pmd):
    X, _, _ = digits_pmd
    rows = forest_run.review_list()
    assert sorted(rows["position"]) == list(range(X.shape[0]))


def test_the_default_ranking_reaches_samples_nobody_disputes(forest_run):
    top = forest_run.review_list().head(200)
    assert 0 < (~top["disputed"]).sum() < 200
    agreed = top.loc[~top["disputed"], "reason"]
    assert (agreed == "kept: the models agree with it").all()


def test_the_likelihood_ranking_ranks_the_given_labels_least_likely_first(
    forest_run,
):
    rows = forest_run.review_list(rank="likelihood")
    disputed = rows[rows["disputed"]]
    assert disputed["given_ratio"].is_monotonic_increasing
    assert rows["disputed"].is_monotonic_decreasing  # the disputed rows first


def test_the_top_of_the_likelihood_ranking_is_mostly_wrong_labels(
    forest_run, digits_pmd
):
    _, y, y_noisy = digits_pmd
    rows = forest_run.review_list(rank="likelihood")
    wrong = y_noisy != y
    assert wrong[rows["sample"][:100]].mean() > 2 * wrong.mean()


def test_the_default_ranking_asks_less_for_labels_plc_already_set_right(
    forest_run, digits_pmd
):
    _, y, _ = digits_pmd

    def already_right(rows):
        top = rows["position"][:100]
        return np.mean(forest_run.labels_[top] == y[top])

    uncertainty = forest_run.review_list()
    likelihood = forest_run.review_list(rank="likelihood")
    assert already_right(uncertainty) < already_right(likelihood) - 0.1


def test_an_unknown_rank_is_refused(forest_run):
    with pytest.raises(ValueError, match="rank must be one of 'uncertainty'"):
        forest_run.review_list(rank="quality")


def test_every_changed_label_is_listed_with_its_given_and_final_label(
    forest_run, digits_pmd
):
    _, _, y_noisy = digits_pmd
    rows = forest_run.review_list().set_index("sample")
    changed = np.flatnonzero(forest_run.labels_ != y_noisy)
    assert set(changed) <= set(rows.index)
    np.testing.assert_array_equal(rows.loc[changed, "given"], y_noisy[changed])
    assert (rows.loc[changed, "action"] == "relabelled").all()


def test_the_given_labels_are_replayed_from_the_corrections(forest_run, digits_pmd):
    _, _, y_noisy = digits_pmd
    given = given_labels(forest_run.labels_, forest_run.corrections_)
    np.testing.assert_array_equal(given, y_noisy)


def plain_evidence(ratio, suggested, top=0.8, label_proba=None):
    """Evidence where every label is its given one, unless `label_proba` says."""
    n = len(ratio)
    ratio = np.asarray(ratio, dtype=np.float32)
    top = np.broadcast_to(np.float32(top), (n,)).copy()
    return {
        "suggested": np.asarray(suggested),
        "given_ratio": ratio,
        "top_proba": top,
        "label_proba": ratio * top if label_proba is None else np.asarray(label_proba),
        "first_disputed": np.zeros(n, dtype=np.intp),
    }


def test_a_label_relabelled_on_strong_evidence_ranks_after_one_kept_against_it():
    given = np.array([0, 0])
    rows = review_rows(
        labels=np.array([1, 0]),  # sample 0 relabelled to the top class
        given=given,
        set_aside=np.zeros(2, dtype=bool),
        relabel_weight=np.ones(2),
        evidence=plain_evidence(
            [0.05, 0.5], [1, 1], top=[0.95, 0.6], label_proba=[0.95, 0.3]
        ),
        termination="converged",
        held_out=True,
    )
    assert rows["sample"].tolist() == [1, 0]
    np.testing.assert_allclose(rows["change_proba"], [0.7, 0.05], rtol=1e-6)


def test_the_uncertainty_order_puts_the_least_sure_first_disputed_or_not():
    order = review_order(
        rank="uncertainty",
        top_proba=np.array([0.9, 0.4, np.nan, 0.6]),
        given_ratio=np.array([0.2, 1.0, np.nan, 1.0]),
        disputed=np.array([True, False, False, False]),
        reviewed=np.zeros(4, dtype=bool),
    )
    assert order.tolist() == [1, 3, 0, 2]


def test_the_likelihood_order_puts_the_disputed_labels_first():
    order = review_order(
        rank="likelihood",
        top_proba=np.array([0.9, 0.4, 0.5, 0.6]),
        given_ratio=np.array([1.0, 1.0, 0.5, 0.2]),
        disputed=np.array([True, False, True, True]),  # 0: changed, agreed now
        reviewed=np.zeros(4, dtype=bool),
    )
    assert order.tolist() == [3, 2, 0, 1]


def test_a_weighed_relabel_may_change_with_either_of_its_labels():
    evidence = plain_evidence([0.5], [1], top=[0.6], label_proba=[0.6])
    change = change_proba(
        labels=np.array([1]),
        given=np.array([0]),
        set_aside=np.zeros(1, dtype=bool),
        relabel_weight=np.array([0.75]),
        evidence=evidence,
    )
    # 0.75 on the new label (p 0.6) and 0.25 on the given one (p 0.3)
    np.testing.assert_allclose(change, [0.75 * 0.4 + 0.25 * 0.7], rtol=1e-6)


def test_a_sample_left_out_changes_where_the_models_best_guess_is_unsure():
    change = change_proba(
        labels=np.array([0, 0]),
        given=np.array([0, 0]),
        set_aside=np.array([True, True]),
        relabel_weight=np.ones(2),
        evidence=plain_evidence([0.1, 0.1], [1, 1], top=[0.9, 0.5]),
    )
    np.testing.assert_allclose(change, [0.1, 0.5], rtol=1e-6)


def test_a_kept_run_says_why_each_disputed_label_was_kept():
    given = np.array([0, 1, 1, 0])
    rows = review_rows(
        labels=given,
        given=given,
        set_aside=np.zeros(4, dtype=bool),
        relabel_weight=np.ones(4),
        evidence=plain_evidence(
            [1.0, 0.2, 0.6, np.nan], [0, 0, 0, 0], top=[0.8, 0.8, 0.8, np.nan]
        ),
        termination="undone",
        held_out=True,
    )
    assert rows["sample"].tolist() == [1, 2, 0, 3]  # a sample not covered last
    assert rows["disputed"].tolist() == [True, True, False, False]
    assert set(rows["action"]) == {"kept"}
    assert all("undone" in reason for reason in rows["reason"][:2])
    assert set(rows["reason"][2:]) == {"kept: the models agree with it"}


def test_a_sample_left_out_is_listed_as_left_out_with_its_reason():
    given = np.array([0, 1, 1, 0])
    rows = review_rows(
        labels=given,
        given=given,
        set_aside=np.array([False, False, False, True]),
        relabel_weight=np.ones(4),
        evidence=plain_evidence([1.0, 1.0, 1.0, 1.0], [0, 1, 1, 0]),
        termination="corrections_contested",
        held_out=True,
    )
    left_out = rows["disputed"]
    assert rows["sample"][left_out].tolist() == [3]
    assert rows["action"][left_out].tolist() == ["left out"]
    assert "confident learning" in rows["reason"][left_out][0]


def test_a_removal_the_judge_chose_lists_its_samples_as_left_out_and_why():
    given = np.array([0, 1, 1, 0])
    rows = review_rows(
        labels=given,
        given=given,
        set_aside=np.array([False, True, False, False]),
        relabel_weight=np.ones(4),
        evidence=plain_evidence([1.0, 0.3, 0.8, 1.0], [0, 0, 0, 0]),
        termination="disputes_removed",
        held_out=True,
        rank="likelihood",
    )
    assert rows["sample"][:2].tolist() == [1, 2]
    assert rows["action"][:2].tolist() == ["left out", "kept"]
    assert (
        "models trained without such samples did clearly better" in (rows["reason"][0])
    )
    assert rows["reason"][1] == "kept: not disputed with confidence"


def test_a_weighed_relabel_says_the_final_fit_weighed_it():
    given = np.array([0, 1])
    rows = review_rows(
        labels=np.array([1, 1]),
        given=given,
        set_aside=np.zeros(2, dtype=bool),
        relabel_weight=np.array([0.7, 1.0]),
        evidence=plain_evidence([0.2, 1.0], [1, 1]),
        termination="converged",
        held_out=True,
    )
    assert rows["sample"].tolist() == [0, 1]
    assert "weighing" in rows["reason"][0] and rows["weight"][0] == 0.7


def test_the_list_works_for_an_estimator_last_in_a_pipeline(digits_pmd):
    X, _, y_noisy = digits_pmd
    model = make_pipeline(StandardScaler(), PLCClassifier(LogisticRegression()))
    model.fit(X[:600], y_noisy[:600])
    rows = model[-1].review_list()
    assert len(rows) > 0 and rows["sample"].max() < 600


def test_the_list_works_for_a_partial_fit_run(digits_pmd):
    X, _, y_noisy = digits_pmd
    mlp = MLPClassifier((32,), max_iter=40, random_state=0)
    plc = PLCClassifier(make_pipeline(StandardScaler(), mlp), random_state=0)
    plc.fit(X, y_noisy)
    rows = plc.review_list()
    assert plc.confidence_ == "eval_pass" and not rows["held_out"].any()
    assert (rows["action"] == "relabelled").sum() == (plc.labels_ != y_noisy).sum()


def test_reviewed_rows_are_marked_and_listed_after_the_rest():
    given = np.array([0, 0, 0, 0])
    rows = review_rows(
        labels=given,
        given=given,
        set_aside=np.zeros(4, dtype=bool),
        relabel_weight=np.ones(4),
        evidence=plain_evidence([0.1, 0.2, 0.6, 1.0], [0, 0, 0, 0]),
        termination="converged",
        held_out=True,
        trusted=np.array([True, False, False, False]),
    )
    assert rows["sample"].tolist() == [1, 2, 3, 0]
    assert rows["reviewed"].tolist() == [False, False, False, True]
    assert rows["reason"][-1] == "kept: reviewed (trusted)"


def test_rows_are_named_by_the_index_of_x_where_it_has_one():
    given = np.array([0, 0, 0])
    rows = review_rows(
        labels=given,
        given=given,
        set_aside=np.zeros(3, dtype=bool),
        relabel_weight=np.ones(3),
        evidence=plain_evidence([0.1, 1.0, 0.2], [0, 0, 0]),
        termination="converged",
        held_out=True,
        row_index=np.array([5000, 5001, 5002]),
    )
    assert rows["sample"].tolist() == [5000, 5002, 5001]
    assert rows["position"].tolist() == [0, 2, 1]


def test_a_fit_on_a_dataframe_names_its_samples_by_the_index(digits_pmd):
    X, _, y_noisy = digits_pmd
    index = pd.Index(np.arange(X.shape[0]) + 5000, name="id")
    frame = pd.DataFrame(X, index=index)
    labels = pd.Series(y_noisy, index=index)
    plc = PLCClassifier(random_state=0).fit(frame, labels)
    rows = plc.review_list()
    assert (rows["sample"] >= 5000).all()
    np.testing.assert_array_equal(
        frame.loc[rows["sample"]].to_numpy(), X[rows["position"]]
    )
    changes = plc.corrections_
    assert (changes["sample"] == changes["position"] + 5000).all()
    np.testing.assert_array_equal(plc.row_index_, index.to_numpy())


def test_the_fit_remembers_which_labels_were_reviewed(digits_pmd):
    X, _, y_noisy = digits_pmd
    trusted = np.zeros(X.shape[0], dtype=bool)
    trusted[:300] = True
    plc = PLCClassifier(random_state=0).fit(X, y_noisy, trusted=trusted)
    np.testing.assert_array_equal(plc.trusted_, trusted)
    rows = plc.review_list()
    reviewed = rows["reviewed"].to_numpy()
    assert (reviewed == (rows["position"].to_numpy() < 300)).all()
    assert reviewed.any()  # noisy labels marked trusted stay disputed
    assert (np.diff(reviewed.astype(int)) >= 0).all()  # every reviewed row last


@pytest.mark.xfail(
    strict=True,
    reason="issue 68/69: the refit's validation fifth measures the corrections at "
    "-0.006 +- 0.011 and contests them (labels as given, 575 disputes left out); "
    "the judge acts on a loss within a standard error",
)
def test_fifty_labels_reviewed_from_the_top_of_the_list_raise_purity(
    forest_run, digits_pmd
):
    X, y, y_noisy = digits_pmd
    checked = forest_run.review_list()["position"].to_numpy()[:50]
    y_reviewed = y_noisy.copy()
    y_reviewed[checked] = y[checked]
    trusted = np.isin(np.arange(len(y)), checked)
    refit = PLCClassifier(random_state=0).fit(X, y_reviewed, trusted=trusted)
    assert np.mean(refit.labels_ == y) > np.mean(forest_run.labels_ == y)

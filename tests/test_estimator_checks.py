from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_plc import PLCClassifier


def expected_failed_checks(estimator):
    """Checks that held-out confidence cannot pass, with the reason."""
    if estimator.confidence == "in_sample":
        return {}
    reason = (
        "sample_weight is not equivalent to repeating samples: out of fold, the "
        "copies of a sample land in other folds, so the models that judge it "
        "have seen it (as in scikit-learn's own CV estimators)."
    )
    return {
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
    }


@parametrize_with_checks(
    [
        PLCClassifier(LogisticRegression()),
        PLCClassifier(LogisticRegression(), confidence="in_sample"),
    ],
    expected_failed_checks=expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

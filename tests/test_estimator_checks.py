from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_plc import PLCClassifier


@parametrize_with_checks(
    [
        PLCClassifier(LogisticRegression()),
        PLCClassifier(LogisticRegression(), confidence="in_sample"),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)

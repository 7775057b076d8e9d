"""The correction parameters shared by `PLCClassifier` and `PLCCallback`.

Both entry points validate the same parameters with the same constraints and
messages, so a bad value is reported the same way whichever one a user builds,
and before any training is spent.
"""

from numbers import Integral, Real

from sklearn.utils._param_validation import (
    Interval,
    StrOptions,
    validate_parameter_constraints,
)

from .correction import SCHEDULES

# The parameters of the correction rule that PLCClassifier and PLCCallback share
CORRECTION_CONSTRAINTS = {
    "theta": [Interval(Real, 0, 1, closed="neither")],
    "beta": [Interval(Real, 0, None, closed="neither")],
    "theta_end": [Interval(Real, 0, 1, closed="right")],
    "min_correction_rate": [
        Interval(Real, 0, 1, closed="left"),
        StrOptions({"auto"}),
    ],
    "warm_up": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
    "runner_up_ratio": [Interval(Real, 0, 1, closed="right")],
    "distribution_alignment": ["boolean"],
}
# ... and those only PLCCallback exposes (PLCClassifier uses FIXED_PASS_SETTINGS)
CALLBACK_PASS_CONSTRAINTS = {
    "schedule": [StrOptions(set(SCHEDULES))],
    "window": [Interval(Integral, 1, None, closed="left")],
    "min_confidence": [Interval(Real, 0, 1, closed="both")],
}

# The pass settings PLCClassifier does not expose, which PLCCallback and
# LabelCorrector take by the same names: the authors' additive schedule (their
# scripts, whose results the paper reports), their average over the last five
# models (epochs, or refits), and the ratio rule without a floor on the new
# class's probability.
FIXED_PASS_SETTINGS = {"schedule": "additive", "window": 5, "min_confidence": 0.0}
# The pass parameters PLCClassifier exposes, named alike in PLCCallback
CLASSIFIER_PASS_PARAMS = (
    "theta",
    "beta",
    "theta_end",
    "runner_up_ratio",
    "distribution_alignment",
)


def pass_settings(owner):
    """The settings of one pass and of the schedule, for a ``LabelCorrector``.

    `owner`'s values of :data:`CLASSIFIER_PASS_PARAMS` with
    :data:`FIXED_PASS_SETTINGS`.
    """
    return {
        **FIXED_PASS_SETTINGS,
        **{name: getattr(owner, name) for name in CLASSIFIER_PASS_PARAMS},
    }


def check_threshold_range(theta, theta_end):
    """Raise when the schedule could not go from `theta` up to `theta_end`."""
    if theta_end < theta:
        raise ValueError(
            f"theta_end={theta_end} is smaller than theta={theta}; the threshold "
            "only grows from theta to theta_end, so set theta_end >= theta."
        )


def validate_correction_params(owner, constraints):
    """Validate `owner`'s parameters named in `constraints`, then their range.

    Parameters
    ----------
    owner : object
        Holds the parameters as attributes (an estimator or a callback).
    constraints : dict
        Parameter name → scikit-learn constraints, e.g.
        :data:`CORRECTION_CONSTRAINTS` plus the owner's own.

    Raises
    ------
    sklearn.utils._param_validation.InvalidParameterError
        A parameter out of its range (a ``ValueError``).
    ValueError
        ``theta_end < theta``.
    """
    validate_parameter_constraints(
        constraints,
        {name: getattr(owner, name) for name in constraints},
        caller_name=type(owner).__name__,
    )
    check_threshold_range(owner.theta, owner.theta_end)

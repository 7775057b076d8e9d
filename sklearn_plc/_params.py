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

CORRECTION_CONSTRAINTS = {
    "theta": [Interval(Real, 0, 1, closed="neither")],
    "beta": [Interval(Real, 0, None, closed="neither")],
    "theta_end": [Interval(Real, 0, 1, closed="right")],
    "schedule": [StrOptions(set(SCHEDULES))],
    "min_correction_rate": [
        Interval(Real, 0, 1, closed="left"),
        StrOptions({"auto"}),
    ],
    "warm_up": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
    "window": [Interval(Integral, 1, None, closed="left")],
    "min_confidence": [Interval(Real, 0, 1, closed="both")],
    "runner_up_ratio": [Interval(Real, 0, 1, closed="right")],
    "distribution_alignment": ["boolean"],
}


# The parameters of one correction pass and of the schedule, named alike in
# PLCClassifier, PLCCallback and LabelCorrector.
PASS_PARAMS = (
    "theta",
    "beta",
    "theta_end",
    "schedule",
    "window",
    "min_confidence",
    "runner_up_ratio",
    "distribution_alignment",
)


def pass_params(owner):
    """`owner`'s values of :data:`PASS_PARAMS`, by name."""
    return {name: getattr(owner, name) for name in PASS_PARAMS}


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

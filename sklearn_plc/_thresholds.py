"""Every fixed threshold of PLC's guards, named once, one line each.

The user-facing knobs are ``PLCClassifier``'s parameters; these are the bars
behind its guards, each chosen on the development protocol (the design page,
"Why the defaults are what they are", gives each one's evidence and commit).
"""

# -- evidence bars, in standard errors of a paired agreement gain ------------------
# A measured effect must clear one standard error before PLC acts on it (the
# memorisation test, the refusal of a model too weak to judge).
EVIDENCE_STANDARD_ERRORS = 1.0
# Corrections whose held-out agreement falls this far below the labels as given are
# undone (``validation_fraction``); verified (``trusted``) judges undo on any loss (0).
UNDO_STANDARD_ERRORS = EVIDENCE_STANDARD_ERRORS
# A refit that already agrees this much worse stops the loop at once (then undone).
EARLY_UNDO_STANDARD_ERRORS = 2.0
# A non-memorising model's sure disputes are left out only on a gain this clear, unless
# they look drawn at random (then EVIDENCE_STANDARD_ERRORS; see
# _left_out.leave_out_standard_errors).
LEAVE_OUT_STANDARD_ERRORS = 3.0
# Removing the first round's confident disputes displaces a memorising model's labels
# (corrected, or as given) only where it agrees better, balanced over the classes.
REMOVAL_STANDARD_ERRORS = EVIDENCE_STANDARD_ERRORS

# A class is drained by the noise where confident learning counts fewer of its given
# labels wrong than of its true members labelled otherwise, by this many (Poisson)
# standard errors of each count; a pass moves no more of its labels away than it
# counts wrong.
DRAINED_STANDARD_ERRORS = 2.0

# -- when a held-out dispute is sure -----------------------------------------------
# A dispute is sure where the label's probability is at most half the top class's.
SURE_RATIO = 1 / 2
# In two classes the label is always the runner-up: sure at a margin of 1/2.
BINARY_SURE_RATIO = 1 / 3

# -- labels drawn at random ------------------------------------------------------
# Leave random-looking labels out only for a model that memorises this share of them.
RANDOM_LABELS_MIN_MEMORISATION = 0.8
# The random-label detector never reads a probability below this (a continuous model's).
PROBABILITY_FLOOR = 1e-3

# -- quiet passes ----------------------------------------------------------------
# "auto" ``min_correction_rate`` where each round is a refit (cv fold fits).
REFIT_MIN_CORRECTION_RATE = 0.1
# "auto" ``min_correction_rate`` for a pass per epoch (the authors' value).
EPOCH_MIN_CORRECTION_RATE = 0.001

# -- the one-run paths' warm-up and settling ------------------------------------------
# The automatic warm-up never ends before this many epochs.
WARM_UP_MIN_EPOCHS = 3
# Agreement gained per epoch (over the last two) below which it has levelled off.
WARM_UP_PLATEAU = 0.005
# A first epoch this many standard errors above chance agreement learned in that epoch.
LEARNED_STANDARD_ERRORS = 2.0
# The automatic warm-up ends at the latest after this share of the epochs.
WARM_UP_MAX_FRACTION = 0.5
# Stopping rule for a learner without one of its own (and for nets): loss tolerance...
DEFAULT_TOL = 1e-4
# ... and epochs without improvement after which the loss has settled.
DEFAULT_N_ITER_NO_CHANGE = 10

# -- others ---------------------------------------------------------------------
# The share of the samples that judge the run's own verdicts (validation_fraction's
# default, and the share where the trusted samples judge the check on halves).
VALIDATION_FRACTION = 0.2
# Fewer trusted samples than this judge poorly: a warning says so.
FEW_TRUSTED = 100
# A bagging ensemble judges out of bag by default from this many members.
OUT_OF_BAG_MIN_MEMBERS = 100
# Recorded net outputs off [0, 1] or rows summing off 1 by more than this: not softmax.
DISTRIBUTION_TOLERANCE = 1e-3


def sure_ratio_for(n_classes):
    """The ratio at or below which a held-out dispute of a label is sure."""
    return BINARY_SURE_RATIO if n_classes == 2 else SURE_RATIO


def sure_theta_end(theta, theta_end, sure_ratio):
    """``theta_end`` capped at `sure_ratio`, never below ``theta``."""
    return max(theta, min(theta_end, sure_ratio))

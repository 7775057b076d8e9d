"""Label-noise injectors: PMD (feature-dependent) and i.i.d. noise.

Plain functions do the maths on arrays; thin estimator classes wrap them with
imbalanced-learn's ``fit_resample(X, y) -> (X, y_noisy)`` convention, so that a
noise step in an :class:`imblearn.pipeline.Pipeline` corrupts the training folds
only, while ``cross_validate`` and ``GridSearchCV`` score on clean held-out
labels::

    from imblearn.pipeline import make_pipeline
    model = make_pipeline(UniformNoise(0.3, random_state=0), PLCClassifier())
    cross_val_score(model, X, y_clean)   # trains on noisy, scores on clean

PMD noise (Zhang et al., 2021, "Noise generation") needs the clean posterior
``η(x)``. With ``u`` and ``s`` the classes of largest and second-largest ``η``
and the margin ``g = η_u − η_s``, the three noise functions are

- Type-I:   ``τ = −½ g² + ½``
- Type-II:  ``τ = 1 − g³``
- Type-III: ``τ = 1 − (g³ + g² + g) / 3``

A sample labelled ``u`` is flipped to ``s``, never to a third class; a sample
whose given label is not ``u`` is never flipped. By default
(``scaling="keep"``, as the authors' scripts made the paper's noisy labels) the
probability of keeping ``u``, ``1 − τ``, is divided by a factor ``F`` solved
for the noise level; ``scaling="flip"`` instead flips with ``min(1, c τ)`` (the
paper's sentence, kept for stress tests). See :class:`PMDNoise`.

The package is laid out by idea: ``_pmd`` (the PMD maths), ``_iid`` (transition
matrices), ``_posterior`` (estimating ``η``), ``_samplers`` (the estimators).
"""

from ._iid import (
    asymmetric_transition_matrix,
    flip_labels_with_matrix,
    uniform_transition_matrix,
)
from ._pmd import (
    pmd_flip_labels,
    pmd_flip_probability,
    pmd_keep_probability,
    pmd_tau,
)
from ._posterior import estimate_posterior
from ._samplers import (
    AsymmetricNoise,
    HybridNoise,
    PMDNoise,
    TransitionMatrixNoise,
    UniformNoise,
)

__all__ = [
    "AsymmetricNoise",
    "HybridNoise",
    "PMDNoise",
    "TransitionMatrixNoise",
    "UniformNoise",
    "asymmetric_transition_matrix",
    "estimate_posterior",
    "flip_labels_with_matrix",
    "pmd_flip_labels",
    "pmd_flip_probability",
    "pmd_keep_probability",
    "pmd_tau",
    "uniform_transition_matrix",
]

"""Running PLC's parallel pieces on a cluster through joblib, with no cluster code.

Every parallel piece of a fit (the folds of out-of-fold confidence) is a joblib
``Parallel`` call, so ``with joblib.parallel_config(backend="dask"):`` (Dask
distributed) or Ray's joblib backend spreads it over a cluster. PLC adds two
things, both once per fit rather than once per call (:func:`one_pool_per_fit`):
the workers are started once (a backend such as Ray's starts a new pool of
workers for every ``Parallel`` call that does not share one, which for PLC is
every round, every candidate the judge weighs and every half of the check on
halves), and joblib's Dask backend, which scatters a large argument once per
``Parallel`` call, scatters the training data once for the whole fit.
"""

import copy
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar

from joblib import parallel_config
from joblib.parallel import get_active_backend
from sklearn.utils.parallel import Parallel

# joblib's Dask backend only scatters objects larger than this (bytes).
_SCATTER_MIN_BYTES = 1e3

# The pool the fit in progress shares between its parallel calls (None: no fit).
_FIT_POOL = ContextVar("sklearn_plc_fit_pool", default=None)


def _is_dask_backend(backend):
    return type(backend).__name__ == "DaskDistributedBackend"


@contextmanager
def one_pool_per_fit(*arrays):
    """Within the block, PLC's parallel calls share one pool and one copy of `arrays`.

    The pool is a joblib ``Parallel`` entered once (its workers start once,
    whatever the backend); :func:`run_in_parallel` runs in it every parallel
    call made in the block, in this fit or in the fits it makes of its own
    (the check on halves). Under a Dask ``parallel_config`` the large
    `arrays` are also scattered once to every worker. A block inside
    another's (a half's run) shares the outer block's pool, except under Dask:
    there it scatters its own data (a half's rows, which the outer block did
    not send) in a pool of its own, which costs a Dask client nothing to start.

    Parameters
    ----------
    *arrays : array-like
        The read-only inputs of every parallel call in the block: X, and the
        folds' index arrays, which are the same in every round. They are
        identified by ``id``, so they must be the very objects passed to the
        parallel calls.
    """
    backend, _ = get_active_backend()
    large = [a for a in arrays if getattr(a, "nbytes", 0) > _SCATTER_MIN_BYTES]
    scatters = _is_dask_backend(backend) and bool(large)
    if _FIT_POOL.get() is not None and not scatters:
        yield
        return
    with (
        parallel_config(backend="dask", scatter=large) if scatters else nullcontext(),
        _pool_of_its_own() as pool,
    ):
        token = _FIT_POOL.set(pool)
        try:
            yield
        finally:
            _FIT_POOL.reset(token)


def _pool_of_its_own():
    """A ``Parallel`` on a copy of the active backend, as ``parallel_config`` set it.

    Every ``Parallel`` made under one ``parallel_config`` shares its backend
    object, and one that ends stops that backend's workers: the estimator's
    own joblib calls in this process (a forest's trees, where its ``n_jobs``
    is None) would stop the pool a fit shares between its calls. A copy keeps
    the configuration and starts workers of its own. Dask's backend is the
    exception: it has no workers to stop, and its copy would lose the client
    and the scattered data (it pickles to a new, unconfigured backend).
    """
    backend, n_jobs = get_active_backend()
    if not _is_dask_backend(backend):
        backend = copy.copy(backend)
    return Parallel(n_jobs=n_jobs, backend=backend)


def run_in_parallel(tasks):
    """Run joblib `tasks` in the pool of the fit in progress, else in a new one.

    The shared pool is the one :func:`one_pool_per_fit` entered. While it runs
    `tasks`, a fit made inside one of them (where the backend runs tasks in
    this thread) gets a pool of its own: a joblib ``Parallel`` cannot run two
    calls at once.
    """
    pool = _FIT_POOL.get()
    if pool is None:
        return Parallel()(tasks)
    token = _FIT_POOL.set(None)
    try:
        return pool(tasks)
    finally:
        _FIT_POOL.reset(token)

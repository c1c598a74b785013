"""ArviZ export of run traces and ESS (new; usable for every sampler of the workbench).

:func:`to_inference_data` turns a trace of shape (T, M, d) -- ``RunResult.trace`` from ``run(..., trace_stride=s)``
-- into ArviZ's container whose posterior group has dims (chain, draw, <name>_dim): chain m is column m of the
trace. The container is ``arviz.InferenceData`` under arviz 0.x and ``xarray.DataTree`` under arviz 1.x (which
dropped InferenceData); both give ``idata.posterior[name]`` and are accepted by ``arviz.ess``. :func:`ess` returns
ArviZ's effective sample size (rank-normalised bulk ESS by default, Vehtari et al. 2021) per coordinate, summed over
chains as ArviZ does for multi-chain input.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..runtime.blocks import RunResult
from ..validation import ParameterError, check_int


def _trace_of(source) -> tuple[np.ndarray, np.ndarray | None]:
    if isinstance(source, RunResult):
        if source.trace is None:
            raise ParameterError("the RunResult holds no trace: run it with trace_stride=s")
        return source.trace, source.trace_steps
    arr = np.asarray(source, dtype=np.float64)
    if arr.ndim != 3:
        raise ParameterError(f"trace must have shape (T, M, d), got {arr.shape}")
    return arr, None


def _arviz_major(az) -> int:
    return int(az.__version__.split(".")[0])


def _container_type(az) -> type:
    """ArviZ's posterior container: InferenceData (0.x) or xarray's DataTree (1.x, where InferenceData is gone)."""
    if _arviz_major(az) >= 1:
        from xarray import DataTree

        return DataTree
    return az.InferenceData


def to_inference_data(source, *, var_name: str = "theta", burn_in: int = 0, coords: list[str] | None = None,
                      sample_stats: dict[str, np.ndarray] | None = None):
    """An ArviZ container of a run's trace: chain m is column m of the trace (module docstring).

    Parameters
    ----------
    source : RunResult or array_like
        A :class:`simulate.RunResult` with a trace (``run(..., trace_stride=s)``), or a (T, M, d) array.
    var_name : str, default "theta"
        The variable's name in the posterior group.
    burn_in : int, default 0
        Drop the trace entries recorded before step ``burn_in`` (a RunResult: by step number; an array: by index).
    coords : list of str, optional
        Names of the d coordinates (default 0..d-1).
    sample_stats : dict of str to numpy.ndarray, optional
        Extra (T, M) arrays, e.g. the log posterior, in the sample_stats group.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
        InferenceData under arviz 0.x, DataTree under arviz 1.x; the posterior group has dims
        (chain, draw, <var_name>_dim), the draws labelled by their steps.

    Raises
    ------
    ParameterError
        When the source holds no trace or is not (T, M, d), burn_in leaves no entry, or coords or sample_stats have
        the wrong size.
    """
    import arviz as az

    trace, steps = _trace_of(source)
    burn_in = check_int("burn_in", burn_in, 0)
    keep = (steps >= burn_in) if steps is not None else (np.arange(trace.shape[0]) >= burn_in)
    if not keep.any():
        raise ParameterError(f"burn_in = {burn_in} leaves no trace entries")
    tr = trace[keep]
    post = np.ascontiguousarray(np.transpose(tr, (1, 0, 2)))  # (chain, draw, d)
    dim = f"{var_name}_dim"
    c = {dim: list(coords) if coords is not None else list(range(tr.shape[2]))}
    if len(c[dim]) != tr.shape[2]:
        raise ParameterError(f"coords must name the {tr.shape[2]} coordinates, got {len(c[dim])}")
    draws = steps[keep] if steps is not None else np.flatnonzero(keep)
    c["draw"] = [int(s) for s in draws]
    stats = None
    if sample_stats:
        stats = {}
        for k, v in sample_stats.items():
            v = np.asarray(v, dtype=np.float64)
            if v.shape[:2] != trace.shape[:2]:
                raise ParameterError(f"sample_stats[{k!r}] must have shape (T, M) = {trace.shape[:2]}, got {v.shape}")
            stats[k] = np.ascontiguousarray(np.swapaxes(v[keep], 0, 1))
    dims = {var_name: [dim]}
    with warnings.catch_warnings():  # ArviZ guesses a (draw, chain) mix-up when M > T; the layout here is explicit
        warnings.filterwarnings("ignore", message="More chains")  # arviz 0.x
        warnings.filterwarnings("ignore", message="Found chain dimension to be longer")  # arviz 1.x
        if _arviz_major(az) >= 1:  # 1.x: one mapping of groups, no None groups
            groups = {"posterior": {var_name: post}} | ({"sample_stats": stats} if stats else {})
            return az.from_dict(groups, coords=c, dims=dims)
        return az.from_dict(posterior={var_name: post}, sample_stats=stats, coords=c, dims=dims)


def ess(source, *, var_name: str = "theta", burn_in: int = 0, method: str = "bulk") -> np.ndarray:
    """ArviZ's effective sample size per coordinate, summed over chains as ArviZ does for multi-chain input.

    Parameters
    ----------
    source : RunResult, array_like or ArviZ container
        A RunResult with a trace, a (T, M, d) array, or a container from :func:`simulate.to_inference_data`.
    var_name : str, default "theta"
        The variable.
    burn_in : int, default 0
        As for :func:`simulate.to_inference_data` (ignored for a container).
    method : str, default "bulk"
        ArviZ's ESS method: "bulk" (rank-normalised bulk ESS), "tail" (the smaller quantile ESS at 5% and 95%, under
        both ArviZ majors; arviz 1.x's own default takes its quantiles from ``stats.ci_prob``, 0.89), or another
        method ArviZ knows.

    Returns
    -------
    numpy.ndarray, shape (d,)

    Raises
    ------
    ParameterError
        As :func:`simulate.to_inference_data`.

    References
    ----------
    Vehtari, Gelman, Simpson, Carpenter & Buerkner (2021), rank-normalised bulk and tail ESS.
    """
    import arviz as az

    idata = source if isinstance(source, _container_type(az)) else to_inference_data(source, var_name=var_name,
                                                                                   burn_in=burn_in)
    prob = (0.05, 0.95) if method == "tail" else None
    return np.asarray(az.ess(idata, var_names=[var_name], method=method, prob=prob)[var_name].values,
                      dtype=np.float64)


__all__ = ["ess", "to_inference_data"]

"""``analyse``: the whole analysis of ``(X, y)``, as numbers, in one call."""

from __future__ import annotations

from widefs.analysis._result import Analysis, ProgressEvent

__all__ = ["analyse"]

# The description of each part while it runs (a progress display shows it).
STAGES = {
    "chance": "chance analysis and discriminative selection",
    "scm": "Set Covering Machines",
    "rules": "CN2-POE rules",
    "cefs": "class-specific ensemble feature selection",
    "compare": "method comparison",
}


def analyse(
    X,
    y=None,
    *,
    target=None,
    layer=None,
    methods=None,
    quick=False,
    covariates=None,
    groups=None,
    random_state=None,
    n_jobs=None,
    progress=None,
    feature_names=None,
    p_error="auto",
    null="auto",
    counts="auto",
    n_permutations=None,
    n_null_permutations=None,
) -> Analysis:
    """Analyse a wide dataset: chance levels, fitted methods, certificates, a comparison.

    Parameters
    ----------
    X : ndarray, DataFrame, sparse matrix or AnnData of shape (n_samples, n_features)
        Numeric features (names: a DataFrame's columns, an AnnData's ``var_names``); float32 kept.
        Sparse: SCMs read column blocks, the other parts dense (up to 2 GiB); zarr: SCMs only.
    y : ndarray or Series of shape (n_samples,), optional
        Class labels: at least two classes of at least two samples each (or ``target``).
    target, layer : str, optional
        An AnnData's ``obs`` column of labels, and the layer to use instead of its ``X``.
    methods : sequence of str, optional
        Parts among ``chance``, ``scm``, ``rules`` (CN2-POE), ``cefs`` and ``compare``
        (nested cross-validation of the chosen parts' methods and two baselines); None: all.
    quick : bool, default=False
        Fewer folds, repeats and permutations (as ``widefs run --quick``).
    covariates, groups : optional
        The study design (see :func:`check_design`); the result's ``design`` says its use.
    random_state, n_jobs : int, optional
        Seed of every split and permutation (None: 0); worker processes (same numbers for any).
    progress : callable, optional
        Receives a :class:`ProgressEvent` as each stage starts, moves on and ends.
    feature_names : sequence of str, optional
        Names by feature index (default: a DataFrame's columns, else ``x0, x1, ...``).
    p_error, null, counts : optional
        The chance analysis's error rate and null (as ``DiscriminativeSelector`` takes them);
        raw counts (voom in the screen)? ``"auto"``: :func:`widefs.stats.looks_like_counts`.
    n_permutations, n_null_permutations : int, optional
        Permutations of each search certificate (default 29, 9 when quick) and of the chance
        screen's null (default 1000, fewer on very wide data, at most 100 when quick).

    Returns
    -------
    Analysis
        The parts' results (``comparison``: a DataFrame, one row per method): what
        ``widefs run`` reports, as numbers (the same for ``random_state`` = ``--seed``).

    See Also
    --------
    widefs.model_selection.nested_evaluate : The comparison's evaluation.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(40, 60)), np.repeat(["a", "b"], 20); X[y == "b", :3] += 2
    >>> result = analyse(X, y, methods=["chance", "compare"], quick=True, random_state=0,
    ...                  n_permutations=2, n_null_permutations=20)
    >>> list(result.comparison.columns[1:3]), "balanced_accuracy" in result.comparison
    (['accuracy', 'accuracy_sd'], True)
    """
    from widefs.analysis._inputs import check_inputs

    perms = dict(n_permutations=n_permutations, n_null_permutations=n_null_permutations)
    kw = dict(layer=layer, target=target, **perms)  # an AnnData's layer and labels
    X, y, names, methods = check_inputs(X, y, methods, feature_names, **kw)
    seed = 0 if random_state is None else int(random_state)
    opts = dict(seed=seed, quick=quick, n_jobs=n_jobs, p_error=p_error, null=null, counts=counts)
    opts.update(perms, groups=methods, design=(covariates, groups))
    return _run(X, y, names, methods, opts, progress)


def _counts(X, counts) -> bool:
    """The counts decision, made once for every part (the one rule of the library)."""
    import numpy as np

    from widefs.stats import looks_like_counts

    if isinstance(counts, str) and counts == "auto":
        return isinstance(X, np.ndarray) and looks_like_counts(X)
    if not isinstance(counts, bool | np.bool_):
        raise ValueError(f"counts must be 'auto', True or False; got {counts!r}.")
    return bool(counts)


def _run(X, y, names, methods, opts, progress) -> Analysis:
    import numpy as np

    from widefs._utils import release_free_memory
    from widefs.analysis._certify import CertificateRun
    from widefs.analysis._design import check_design
    from widefs.analysis._spec import certificate_permutations
    from widefs.analysis._verdict import verdicts
    from widefs.model_selection import majority_baseline

    seed, quick = opts["seed"], opts["quick"]
    n_perm = opts["n_permutations"]
    n_perm = certificate_permutations(quick) if n_perm is None else n_perm
    classes, counts = np.unique(y, return_counts=True)
    design = opts["design"] = check_design(y, *opts["design"], X)  # before any work
    if design is not None and design.groups is not None and opts["null"] == "analytic":
        raise ValueError('null="analytic" assumes independent samples; with groups use "auto"')
    opts["counts"] = _counts(X, opts["counts"])  # decided once, for every part
    majority = majority_baseline(y)
    release_free_memory()  # what reading the data left freed: not resident during the parts
    certificates = CertificateRun(
        X, y, seed=seed, n_permutations=n_perm, n_jobs=opts["n_jobs"], progress=progress,
        design=design,
    )  # fmt: skip
    parts = {}
    for i, part in enumerate(methods):
        if progress:
            progress(ProgressEvent("analysis", STAGES[part], i, len(methods)))
        parts.update(_part(part, X, y, names, opts, certificates, progress))
        if isinstance(X, np.ndarray):
            certificates.group(part)
        release_free_memory()  # the part's temporaries: not resident during the next one
    if progress:
        progress(ProgressEvent("analysis", "done", len(methods), len(methods), finished=True))
    return Analysis(
        methods=methods,
        seed=seed,
        quick=quick,
        n_samples=X.shape[0],
        n_features=X.shape[1],
        classes=classes,
        class_counts=counts,
        majority=majority,
        certificates=dict(certificates.results),
        certificate_permutations=n_perm,
        design=None if design is None else design.summary(methods),
        verdicts=verdicts(parts.get("comparison"), certificates.results, majority),
        counts=opts["counts"],
        **parts,
    )


def _part(part, X, y, names, opts, certificates, progress) -> dict:
    """The fields of :class:`Analysis` one part fills."""
    from widefs.analysis import _chance, _models

    seed = opts["seed"]
    if part == "chance":
        from widefs.analysis._spec import null_permutations

        n_null = opts["n_null_permutations"]
        n_null = null_permutations(X.shape[1], opts["quick"]) if n_null is None else n_null
        chance = _chance.chance_analysis(
            X, y, seed=seed, p_error=opts["p_error"], null=opts["null"],
            n_permutations=n_null, quick=opts["quick"], n_jobs=opts["n_jobs"],
            counts=opts["counts"], design=opts["design"],
        )  # fmt: skip
        return {"chance": chance, "features": _chance.feature_table(chance)}
    if part == "scm":
        return {"scm": _models.scm_analysis(X, y, names)}
    if part == "rules":
        design = opts["design"]
        groups = None if design is None else design.groups
        return {"rules": _models.rules_analysis(X, y, names, seed=seed, groups=groups)}
    if part == "cefs":
        return {"cefs": _models.cefs_analysis(X, y, names, seed=seed)}
    return _comparison(X, y, opts, certificates, progress)


def _comparison(X, y, opts, certificates, progress) -> dict:
    from widefs.analysis._certify import comparison_pvalues
    from widefs.analysis._compare import compare
    from widefs.analysis._spec import CERTIFIED, candidates

    groups = opts["groups"]
    outcomes = [
        certificates.certify(item)
        for item in CERTIFIED
        if item.group in groups and certificates.applies(item)
    ]
    folds, repeats = (3, 1) if opts["quick"] else (5, 2)
    frame, results, info = compare(
        X, y, candidates(groups, n_features=X.shape[1], counts=opts["counts"]), seed=opts["seed"], folds=folds,
        repeats=repeats, certificates=comparison_pvalues(outcomes), progress=progress,
        n_jobs=opts["n_jobs"], design=opts["design"],
    )  # fmt: skip
    return {"comparison": frame, "evaluations": results, "comparison_info": info}

"""Resumable task store: one JSON file per finished task under ``<out>/<paper>/``.

A long reproduction is a list of tasks ``(path, key, fn, args)``. A task whose file holds a
result under the same key (a hash of everything the result depends on: settings, seeds,
the engine's behaviour on a probe) is loaded instead of computed; a finished task is
written whole or not at all, so a run stopped at any moment resumes where it stopped, and
``--render-only`` can write the page from whatever has finished. A task file that is not
valid JSON, not a stored task, or whose result no longer matches the SHA-256 stored beside it
(an edit) is named in one line on stderr and treated as not stored: computed again on resume.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

__all__ = ["complete_prefix", "key", "results", "run_task", "run_tasks", "stored", "task"]


def key(**parts) -> str:
    """A short hash of ``parts`` (JSON-serializable), the identity of a stored result.

    Examples
    --------
    >>> key(task="protocol", rep=0) == key(rep=0, task="protocol")
    True
    >>> key(task="protocol", rep=0) == key(task="protocol", rep=1)
    False
    """
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def _result_digest(result) -> str:
    return hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()


def _damaged(path: Path, why: str) -> None:
    print(
        f"widefs reproduce: the stored task {path} is damaged ({why}) and is not used; a run "
        "without --render-only computes it again",
        file=sys.stderr,
    )


def stored(path: Path, task_key: str):
    """The result stored in ``path`` under ``task_key``, or None (also for a damaged file,
    named in one line on stderr)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):  # JSONDecodeError is a ValueError
        return _damaged(path, "not valid JSON")
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("key"), str)
        or not isinstance(data.get("result"), dict | list)
        or not isinstance(data.get("sha256", ""), str)
    ):
        return _damaged(path, "not a stored task")
    if data["key"] != task_key:
        return None
    if "sha256" in data and data["sha256"] != _result_digest(data["result"]):
        return _damaged(path, "its result was changed after it was stored")
    return data["result"]


def run_task(path: Path, task_key: str, fn, *args):
    """Run ``fn(*args)`` unless ``path`` holds a result with the same key; store it."""
    result = stored(path, task_key)
    if result is not None:
        return result
    result = fn(*args)
    tmp = path.with_suffix(".tmp")
    # The digest of the result as it will read back (JSON turns tuples and number keys into
    # lists and strings).
    digest = _result_digest(json.loads(json.dumps(result)))
    stored_result = {"key": task_key, "result": result, "sha256": digest}
    tmp.write_text(json.dumps(stored_result))
    os.replace(tmp, path)  # a task is stored whole or not at all
    return result


def complete_prefix(tasks, results, reps: int) -> int:
    """Number of leading repetitions whose every task has a stored result.

    ``tasks`` are ``(path, key, fn, args)`` with the repetition at ``args[1]``; ``results``
    holds the stored result of each task or None.
    """
    missing = {args[1] for (_, _, _, args), r in zip(tasks, results, strict=True) if r is None}
    n = 0
    while n < reps and n not in missing:
        n += 1
    return n


def run_tasks(tasks, n_jobs: int):
    """Run ``[(path, key, fn, args)]`` on ``n_jobs`` processes, stored ones loaded."""
    if n_jobs > 1 and len(tasks) > 1:
        from joblib import Parallel, delayed

        return Parallel(n_jobs=n_jobs, verbose=0)(
            delayed(run_task)(path, k, fn, *args) for path, k, fn, args in tasks
        )
    return [run_task(path, k, fn, *args) for path, k, fn, args in tasks]


def task(task_dir: Path, name: str, fn, args: tuple, **key_parts):
    """The task ``fn(*args)`` stored as ``task_dir/name.json`` under the key of
    ``fn.__name__``, ``args`` and ``key_parts`` (e.g. the engine's fingerprint)."""
    return (task_dir / f"{name}.json", key(task=fn.__name__, args=args, **key_parts), fn, args)


def results(tasks, *, render_only: bool, n_jobs: int, where, partial: bool = False) -> list:
    """Every task's result: computed (stored ones loaded) or, with ``render_only``, only
    loaded; a missing one is an error naming ``where``, or None with ``partial``."""
    if not render_only:
        return run_tasks(tasks, n_jobs)
    done = [stored(path, k) for path, k, _, _ in tasks]
    missing = sum(r is None for r in done)
    if missing and not partial:
        raise ValueError(f"--render-only: {missing} task(s) not stored under {where}")
    return done

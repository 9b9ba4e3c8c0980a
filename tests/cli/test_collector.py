"""``widefs run`` keeps what it builds out of the cyclic collector's full walks, for the run only."""

import gc

import pytest

from widefs.analysis import ProgressEvent
from widefs.cli._main import _collector_skips_kept, _keeping


@pytest.fixture
def nothing_frozen():
    assert gc.get_freeze_count() == 0, "the test process froze objects before the test"
    yield
    gc.unfreeze()  # a failing test leaves nothing frozen behind


def test_keep_freezes_what_is_alive_and_the_block_end_unfreezes_it(nothing_frozen):
    with _collector_skips_kept() as keep:
        assert gc.get_freeze_count() == 0  # nothing before the first keep()
        alive = [object() for _ in range(1000)]
        keep()
        first = gc.get_freeze_count()
        assert first >= len(alive)
        more = [[] for _ in range(1000)]
        keep()
        assert gc.get_freeze_count() >= first + len(more)
    assert gc.get_freeze_count() == 0


def test_keep_collects_garbage_cycles_before_freezing(nothing_frozen):
    import weakref

    class Node:
        pass

    with _collector_skips_kept() as keep:
        gc.disable()  # (no collection of its own in between)
        try:
            node = Node()
            node.self = node  # a cycle: only the cyclic collector frees it
            dead = weakref.ref(node)
            del node
            keep()
            assert dead() is None  # collected, not frozen
            assert gc.get_freeze_count() > 0
        finally:
            gc.enable()


def test_the_block_unfreezes_when_the_run_fails(nothing_frozen):
    with pytest.raises(RuntimeError, match="boom"), _collector_skips_kept() as keep:
        keep()
        assert gc.get_freeze_count() > 0
        raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


def test_a_caller_that_froze_objects_keeps_its_choice(nothing_frozen):
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with _collector_skips_kept() as keep:
        extra = [[] for _ in range(1000)]
        keep()
        assert gc.get_freeze_count() == frozen  # nothing more frozen
    assert gc.get_freeze_count() == frozen  # and the caller's objects are still frozen
    assert extra


def test_keeping_keeps_before_each_part_starts_and_ends_and_forwards_every_event():
    calls = []

    def show(event):
        calls.append(("show", event.task, event.description))

    note = _keeping(show, lambda: calls.append("keep"))
    note(ProgressEvent("analysis", "chance", 0, 2))
    note(ProgressEvent("search certificate: x", "search certificate: x"))
    note(ProgressEvent("search certificate: x", "search certificate: x", finished=True))
    note(ProgressEvent("nested cross-validation", "nested CV: a"))
    note(ProgressEvent("analysis", "done", 2, 2, finished=True))
    assert calls == [
        "keep",
        ("show", "analysis", "chance"),
        ("show", "search certificate: x", "search certificate: x"),
        ("show", "search certificate: x", "search certificate: x"),
        ("show", "nested cross-validation", "nested CV: a"),
        "keep",
        ("show", "analysis", "done"),
    ]


def _recorded_run(tmp_path, monkeypatch) -> list:
    """The collector calls of a quick ``widefs run`` of one part on a 24 x 30 CSV."""
    import numpy as np
    import pandas as pd

    from widefs.cli import _main, main

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(24, 30)), columns=[f"g{j}" for j in range(30)])
    frame["class"] = np.repeat(["a", "b"], 12)
    frame.to_csv(tmp_path / "d.csv", index=False)
    seen = []

    class _Recorder:
        def get_freeze_count(self):
            return gc.get_freeze_count()

        def collect(self):
            seen.append("collect")

        def freeze(self):
            seen.append("freeze")

        def unfreeze(self):
            seen.append("unfreeze")

        def isenabled(self):
            return True

        def disable(self):
            seen.append("disable")

        def enable(self):
            seen.append("enable")

    monkeypatch.setattr(_main, "gc", _Recorder())
    args = ["run", str(tmp_path / "d.csv"), "--out", str(tmp_path / "out"), "--quick"]
    args += ["--methods", "chance", "--null-permutations", "20"]
    assert main(args) == 0
    assert (tmp_path / "out" / "report.md").is_file()
    return seen


@pytest.mark.parametrize("large", [False, True])
def test_a_run_freezes_after_reading_and_at_each_part_and_unfreezes_at_its_end(
    tmp_path, monkeypatch, nothing_frozen, large
):
    from widefs.cli import _main

    if large:  # data at the size where collecting before each freeze pays
        monkeypatch.setattr(_main, "_COLLECT_ABOVE_BYTES", 24 * 30 * 8)
    seen = _recorded_run(tmp_path, monkeypatch)
    # The command's modules loaded without automatic collection, then frozen as they are;
    # after reading, at the start of the one part, at the analysis's end (each time after a
    # collection when the data is large); the report drawn and written without automatic
    # collection; undone once, last.
    loading = ["disable", "freeze", "enable"]
    kept = ["collect", "freeze"] * 3 if large else ["freeze"] * 3
    assert seen == loading + kept + ["disable", "enable"] * 2 + ["unfreeze"]


def test_collecting_if_large_collects_from_the_threshold_and_for_unknown_sizes():
    import numpy as np

    from widefs.cli._main import _COLLECT_ABOVE_BYTES, _collecting_if_large

    calls = []

    def keep(collect=True):
        calls.append(collect)

    class Store:  # no nbytes: its size is unknown
        pass

    at = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), (_COLLECT_ABOVE_BYTES,), (0,))
    below = at[:-1]
    for X in (at, below, Store()):
        _collecting_if_large(keep, X)()
    assert calls == [True, False, True]


def test_loading_pauses_automatic_collection_then_freezes_without_collecting(nothing_frozen):
    import weakref

    from widefs.cli._main import _loading

    class Node:
        pass

    assert gc.isenabled()
    with _collector_skips_kept() as keep:
        with _loading(keep):
            assert not gc.isenabled()  # no automatic collection while modules load
            loaded = [[] for _ in range(1000)]
            node = Node()
            node.self = node  # garbage left by an import: frozen as it is, not walked
            dead = weakref.ref(node)
            del node
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(loaded)
        gc.collect()
        assert dead() is not None  # frozen: out of the collector's reach for the run
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert dead() is None  # the run's end gives it back to the collector


def test_loading_restores_the_collector_state_even_on_failure(nothing_frozen):
    from widefs.cli._main import _loading

    with _collector_skips_kept() as keep:
        with pytest.raises(ImportError), _loading(keep):
            raise ImportError("no module")
        assert gc.isenabled()
        gc.disable()
        try:
            with _loading(keep):
                pass
            assert not gc.isenabled()  # a caller's disabled collector stays disabled
        finally:
            gc.enable()


def test_loading_freezes_nothing_when_the_caller_froze_objects(nothing_frozen):
    from widefs.cli._main import _loading

    gc.freeze()
    frozen = gc.get_freeze_count()
    with _collector_skips_kept() as keep, _loading(keep):
        extra = [[] for _ in range(1000)]
    assert gc.get_freeze_count() == frozen
    assert gc.isenabled() and extra


def test_uncollected_pauses_automatic_collection_and_restores_it():
    from widefs.cli._main import _uncollected

    assert gc.isenabled()
    with pytest.raises(RuntimeError), _uncollected():
        assert not gc.isenabled()
        raise RuntimeError("a failing report")
    assert gc.isenabled()
    gc.disable()
    try:
        with _uncollected():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()

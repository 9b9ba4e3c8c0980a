"""The label-free cache: what it stores, when, and that it never changes a result."""

import contextlib
import contextvars
import threading

import numpy as np
import pytest

from widefs._utils import (
    LabelFreeCache,
    array_key,
    data_digest,
    label_free,
    label_free_cache,
    sharing_label_free_work,
)


def test_stored_on_second_request_then_found():
    cache = LabelFreeCache()
    calls = []

    def compute():
        calls.append(1)
        return np.full(4, len(calls))

    key = (b"a", array_key(np.arange(3)))
    first = cache.get_or_compute(key, compute)
    second = cache.get_or_compute(key, compute)
    third = cache.get_or_compute(key, compute)
    assert len(calls) == 2  # computed on the first two requests, found on the third
    assert first.tolist() == [1] * 4 and second.tolist() == [2] * 4 and third is second
    assert (cache.hits, cache.misses) == (1, 2)
    # A different key part (same bytes, other shape) is another key.
    other = (b"a", array_key(np.arange(3).reshape(1, 3)))
    assert cache.lookup(other) is None


def test_wanted_counts_the_earlier_requests_of_a_key():
    cache = LabelFreeCache()
    assert [cache.wanted((b"a",), after=2) for _ in range(4)] == [False, False, True, True]
    assert [cache.wanted((b"b",)) for _ in range(2)] == [False, True]  # default: second
    assert cache.wanted((b"c",), after=0)
    full = LabelFreeCache(budget_bytes=0)
    assert not any(full.wanted((b"a",), after=0) for _ in range(3))


def test_budget_stops_storing():
    cache = LabelFreeCache(budget_bytes=100)
    big = np.zeros(20)  # 160 bytes: the first stored value exhausts the budget
    for name in (b"x", b"y"):
        for _ in range(2):
            cache.get_or_compute((name,), lambda: big.copy())
    assert cache.lookup((b"x",)) is not None
    assert cache.lookup((b"y",)) is None


def test_digest_depends_on_bytes_dtype_and_shape():
    a = np.arange(6, dtype=np.float64)
    assert data_digest(a) == data_digest(a.copy())
    assert data_digest(a) != data_digest(a.astype(np.float32))
    assert data_digest(a) != data_digest(a.reshape(2, 3))
    b = a.copy()
    b[5] = np.nextafter(b[5], 10)
    assert data_digest(a) != data_digest(b)


def test_sharing_block_nests_and_reaches_threads_given_its_context():
    """Nested blocks use the outer cache; a thread running in a copy of the block's
    context sees it (how widefs hands a block's work to threads), a plain thread does not."""
    assert label_free_cache() is None
    seen = {}
    with sharing_label_free_work() as outer:
        ctx = contextvars.copy_context()
        given = threading.Thread(
            target=ctx.run, args=(lambda: seen.update(given=label_free_cache()),)
        )
        plain = threading.Thread(target=lambda: seen.update(plain=label_free_cache()))
        for thread in (given, plain):
            thread.start()
            thread.join()
        with sharing_label_free_work() as inner:
            assert inner is outer
        assert label_free_cache() is outer
    assert seen == {"given": outer, "plain": None}
    assert label_free_cache() is None


def _in_threads(*steps):
    """Run ``steps[t]`` in thread t, each step in lockstep: every thread finishes step s
    before any starts step s + 1 (a barrier between steps). Returns what each step saw."""
    n_steps = len(steps[0])
    barrier = threading.Barrier(len(steps))
    seen = [[None] * n_steps for _ in steps]
    errors = []

    def run(t):
        try:
            with contextlib.ExitStack() as stack:
                for s, step in enumerate(steps[t]):
                    seen[t][s] = step(stack)
                    barrier.wait(timeout=10)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(t,)) for t in range(len(steps))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return seen


def _enter(stack):
    return stack.enter_context(sharing_label_free_work())


def _look(stack):
    return label_free_cache()


def _leave(stack):
    stack.close()
    return label_free_cache()


def test_threads_do_not_see_each_others_cache():
    """Two threads in blocks at the same time each see their own cache; a thread outside
    any block sees none, even while others are inside theirs."""
    seen = _in_threads([_enter, _look], [_enter, _look], [_look, _look])
    first, second, outside = seen
    assert first[0] is first[1] and second[0] is second[1]
    assert first[0] is not second[0]
    assert outside == [None, None]


def test_one_thread_leaving_does_not_end_sharing_for_another():
    """Thread 0 enters first and leaves first: thread 1, still inside, keeps its cache."""
    seen = _in_threads([_enter, _look, _leave, _look], [_look, _enter, _look, _look])
    assert seen[0][2] is None and seen[0][3] is None  # thread 0 left
    assert seen[1][0] is None  # not inside yet: thread 0's block is not its
    assert seen[1][1] is not None and seen[1][2] is seen[1][1] and seen[1][3] is seen[1][1]
    assert seen[1][1] is not seen[0][0]


def test_stored_arrays_are_read_only():
    """What the cache keeps is shared between fits: its arrays (also inside a tuple) are
    read-only; the first computation's caller and copies requested by label_free stay
    writable."""
    cache = LabelFreeCache()
    first = cache.get_or_compute((b"k",), lambda: np.arange(3.0))
    assert first.flags.writeable  # computed once, not stored
    second = cache.get_or_compute((b"k",), lambda: np.arange(3.0))
    third = cache.get_or_compute((b"k",), lambda: np.arange(3.0))
    assert third is second and not second.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        second[0] = 7.0
    cache.store((b"t",), (np.zeros(2), np.ones(2, dtype=np.int64)))
    assert not any(a.flags.writeable for a in cache.lookup((b"t",)))
    with sharing_label_free_work():
        values = [label_free((b"c",), lambda: (np.zeros(2),), copy=True) for _ in range(3)]
        shared = [label_free((b"s",), lambda: np.zeros(2)) for _ in range(3)]
    assert all(v[0].flags.writeable for v in values)
    assert shared[1] is shared[2] and not shared[2].flags.writeable


def test_remembered_digests_are_the_digests_of_the_bytes(monkeypatch):
    from widefs._utils import _label_free

    rng = np.random.default_rng(0)
    data = [rng.normal(size=(5, 7)) for _ in range(6)]
    expected = [data_digest(a, a > 0) for a in data]  # outside a block: hashed each time
    hashed = []
    real = _label_free._arrays_digest
    monkeypatch.setattr(
        _label_free, "_arrays_digest", lambda arrays: hashed.append(1) or real(arrays)
    )
    with sharing_label_free_work() as cache:
        # Known data (equal bytes, any object) is not hashed again, ...
        for _ in range(3):
            assert [data_digest(a.copy(), a > 0) for a in data[:4]] == expected[:4]
        assert len(hashed) == 4
        assert cache._bytes == sum(a.nbytes + (a > 0).nbytes for a in data[:4])  # kept copies
        # ... data changed in place is (same object, other bytes), and so is a fifth datum,
        # which pushes the oldest out of the remembered ones (and out of the byte count).
        a = data[0].copy()
        assert data_digest(a, a > 0) == expected[0]
        a[2, 3] = np.nextafter(a[2, 3], np.inf)
        assert data_digest(a, a > 0) != expected[0]
        assert [data_digest(b, b > 0) for b in data] == expected
        assert len(cache._known_arrays) == 4
        # Every part counts: the same first array with another second one is other data.
        b = data[5]
        assert data_digest(b, b > 1) == _label_free._digest([array_key(b), array_key(b > 1)])
        assert cache._bytes == sum(b.nbytes + (b > 0).nbytes for b in data[2:])


def test_remembered_digests_compare_bytes_dtypes_and_shapes():
    # Recognized by an in-place byte comparison: equal values of other bytes, dtypes or
    # shapes are other data (-0.0 == 0.0 as numbers, not as bytes); object arrays by keys.
    with sharing_label_free_work():
        for a, b in [
            (np.zeros(4), np.array([0.0, -0.0, 0.0, 0.0])),
            (np.arange(6.0), np.arange(6.0).reshape(2, 3)),
            (np.arange(6.0), np.arange(6, dtype=np.int64)),
            (np.arange(6.0)[::2], np.arange(3.0)),
            (np.array(["a", None], dtype=object), np.array(["a", "b"], dtype=object)),
        ]:
            for first, second in [(a, b), (b, a)]:
                same = array_key(first) == array_key(second)
                assert (data_digest(first) == data_digest(second)) == same
                assert data_digest(first) == _digest_outside(first)
                assert data_digest(second.copy()) == _digest_outside(second)


def test_same_bytes_finds_one_differing_byte_anywhere():
    # The comparison runs eight bytes at a time where the size allows, and checks the first
    # words before the rest: a single byte changed at the start, inside a word, past the
    # first words or in a tail that is not a whole word is found; equal bytes are equal.
    from widefs._utils._label_free import _same_bytes

    rng = np.random.default_rng(0)
    for a in (rng.normal(size=(7, 13)), rng.integers(0, 255, size=203).astype(np.uint8)):
        raw = a.reshape(-1).view(np.uint8)
        assert _same_bytes([a], [a.copy()])
        for at in (0, 3, 64, 65, raw.size - 1):
            b = a.copy()
            b.reshape(-1).view(np.uint8)[at] ^= 1
            assert not _same_bytes([a], [b]) and not _same_bytes([b], [a])
            assert _same_bytes([b], [b.copy()])
    assert _same_bytes([np.zeros((0, 3))], [np.zeros((0, 3))])
    assert not _same_bytes([np.zeros(2)], [np.zeros(2), np.zeros(2)])


def _digest_outside(a):
    from widefs._utils import _label_free

    return _label_free._digest([array_key(a)])


def test_digest_hashes_buffers_in_place_as_the_key_bytes():
    # The digest of arrays is the hash of their array_key bytes (dtype, shape, bytes), made
    # from each array's buffer without a byte string of it: equal for every kind of array
    # (views, Fortran order, 0-d, empty, bool, strings, objects), and no copy of large data.
    import tracemalloc

    from widefs._utils import _label_free

    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 5))
    cases = [
        M, M.T, M[:, 1:3], M[::2], np.float32(1.5), np.array(3), np.zeros((0, 4)), M > 0,
        np.array(["ab", "c"]), np.array(["a", None], dtype=object), np.arange(5, dtype=">i4"),
    ]  # fmt: skip
    for a in cases:
        assert _label_free._arrays_digest([a]) == _label_free._digest([array_key(a)])
        assert data_digest(a, M) == _label_free._digest([array_key(a), array_key(M)])
    big = rng.normal(size=(4, 250_000))  # 8 MB
    data_digest(big[:, :10])
    tracemalloc.start()
    try:
        data_digest(big)
        with sharing_label_free_work(budget_bytes=2**20):  # too big to keep: not copied
            data_digest(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < big.nbytes / 8


def test_remembered_digests_respect_the_budget():
    a = np.zeros(50)
    with sharing_label_free_work(budget_bytes=100) as cache:
        assert data_digest(a) == data_digest(a.copy())
        assert cache._known_arrays == [] and cache._bytes == 0


def test_values_of_forgotten_data_are_dropped():
    # Values keyed by the digest of data the cache no longer remembers (more than four
    # distinct data since it was last asked for) are dropped with it, and counted out of
    # the budget; data asked for again stays remembered, and so do its values.
    from widefs._utils._label_free import _nbytes

    rng = np.random.default_rng(1)
    data = [rng.normal(size=(4, 5)) for _ in range(6)]
    calls = []

    def value(a, prefix=b"v"):
        def compute():
            calls.append(1)
            return a.sum(axis=0)

        return label_free(lambda: (prefix + data_digest(a), b"state"), compute)

    with sharing_label_free_work() as cache:
        for a in data[:4]:
            value(a), value(a), value(a, b"joined part ")
        assert len(cache._values) == 4 and len(calls) == 12
        assert value(data[0]) is value(data[0])  # found: data[0] is the most recent again
        value(data[4]), value(data[4])  # a fifth datum: data[1], the oldest, is forgotten
        digests = [data_digest(a) for a in (data[0], data[4], data[3], data[2])]
        kept = {full[1:21] for full in cache._values}
        assert kept == set(digests) and len(cache._values) == 4
        assert len(cache._known_arrays) == 4
        expected = sum(c.nbytes for copies, _ in cache._known_arrays for c in copies)
        expected += sum(_nbytes(v) + len(full) for full, v in cache._values.items())
        assert cache._bytes == expected
        # A forgotten datum asked for again is computed again: the same value.
        before = len(calls)
        again = value(data[1])
        assert len(calls) == before + 1
        np.testing.assert_array_equal(again, data[1].sum(axis=0))


def test_wanted_with_labels_waits_for_a_second_labelling():
    # One labelling asking any number of times never stores; a second labelling's request
    # stores once the earlier requests reach ``after``; a labelling equal in bytes is the
    # same labelling.
    cache = LabelFreeCache()
    a, b = array_key(np.array([0, 1, 1])), array_key(np.array([1, 0, 1]))
    assert not any(cache.wanted((b"x",), 2, a) for _ in range(10))
    assert cache.wanted((b"x",), 2, b) and cache.wanted((b"x",), 2, a)
    asks = [cache.wanted((b"y",), 2, labels) for labels in (a, b, a, b)]
    assert asks == [False, False, True, True]  # two labellings, third request
    same = array_key(np.array([0, 1, 1]))
    assert not any(cache.wanted((b"z",), 0, labels) for labels in (a, same, a))
    assert not LabelFreeCache(budget_bytes=0).wanted((b"x",), 0, b)

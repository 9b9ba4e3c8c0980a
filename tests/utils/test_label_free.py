"""The label-free cache: what it stores, when, and that it never changes a result."""

import threading

import numpy as np

from widefs.utils import (
    LabelFreeCache,
    array_key,
    data_digest,
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


def test_sharing_block_is_seen_by_threads_and_nests():
    assert label_free_cache() is None
    seen = []
    with sharing_label_free_work() as outer:
        thread = threading.Thread(target=lambda: seen.append(label_free_cache()))
        thread.start()
        thread.join()
        with sharing_label_free_work() as inner:
            assert inner is outer
        assert label_free_cache() is outer
    assert seen == [outer]
    assert label_free_cache() is None

"""The greedy engines' worker threads see the caller's scoped state."""

import threading

from widefs.scm._parallel import block_pool
from widefs.utils import sharing_label_free_work


def _cache_in_a_worker(_):
    from widefs._utils import label_free_cache

    return label_free_cache(), threading.get_ident()


def test_workers_share_the_callers_label_free_cache():
    with sharing_label_free_work() as cache, block_pool(2) as pool:
        seen = list(pool.map(_cache_in_a_worker, range(8)))
    assert all(got is cache for got, _ in seen)
    assert threading.get_ident() not in {ident for _, ident in seen}  # really other threads


def test_outside_a_block_workers_share_nothing():
    with block_pool(2) as pool:
        assert all(got is None for got, _ in pool.map(_cache_in_a_worker, range(4)))

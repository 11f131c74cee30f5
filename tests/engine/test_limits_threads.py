"""A limit's solve holds every BLAS pool (numpy's and scipy's own OpenBLAS) to torch's threads."""

import torch
from threadpoolctl import threadpool_info

from engine.limits import blas_held


def _blas_pools():
    return [p for p in threadpool_info() if p["user_api"] == "blas"]


def test_blas_held_limits_scipys_own_openblas_to_torchs_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with blas_held():
            pools = _blas_pools()
            # scipy's bundled OpenBLAS is among them: loaded by blas_held before it limits
            assert len({p["filepath"] for p in pools}) >= 2, pools  # numpy's and scipy's own
            assert all(p["num_threads"] == 1 for p in pools), pools
    finally:
        torch.set_num_threads(before)

"""What users would call instead of `solver::getrf_strided_batched`:
`torch.linalg.lu_factor` on a (1000, 32, 32) f64 batch of diagonally
dominant matrices, as `solver_batched.rs` builds them, timed as it times
ours (each call queued and synchronized; PyTorch's call is out of place,
so its copy of the input stands for our restore), on the same GPU. It
shares `vendor_torch.py`'s timing.

    python3 amdgpu/benches/solver_batched_torch.py

PyTorch is not a dependency of the project; this script only needs it
where it runs.
"""

import torch

from vendor_torch import mean_us

N = 32
COUNT = 1000


def main():
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.rand(COUNT, N, N, dtype=torch.float64, device="cuda", generator=g) * 2 - 1
    a = a + N * torch.eye(N, dtype=torch.float64, device="cuda")
    us = mean_us(lambda: torch.linalg.lu_factor(a))
    print(f"  {'torch.linalg.lu_factor':<24} {us:9.1f} us ({COUNT} of {N} x {N} f64)")


if __name__ == "__main__":
    main()

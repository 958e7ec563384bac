"""What users would call instead of `solver::getrf`, `solver::potrf`,
`solver::syevd` and `solver::gesvd`: `torch.linalg.lu_factor` and
`torch.linalg.cholesky` on an 8192 x 8192 f64 matrix,
`torch.linalg.eigh` on a 4096 x 4096 one and `torch.linalg.svd` (thin,
with cuSOLVER's gesvd driver as ours, and PyTorch's default driver) on a
2048 x 2048 one and its first 512 rows,
of the kind `solver.rs` uses (symmetric, strictly diagonally dominant),
timed as it times ours (each call queued and synchronized; PyTorch's
calls are out of place, so their copy of the input stands for our
restore), on the same GPU. It shares `vendor_torch.py`'s timing.

    python3 amdgpu/benches/solver_torch.py

PyTorch is not a dependency of the project; this script only needs it
where it runs.
"""

import torch

from vendor_torch import mean_us

N = 8192
EIGEN_N = 4096
SVD_N = 2048


def matrix(n):
    g = torch.Generator(device="cuda").manual_seed(7)
    m = torch.rand(n, n, dtype=torch.float64, device="cuda", generator=g) * 2 - 1
    return torch.tril(m) + torch.tril(m, -1).T + n * torch.eye(n, dtype=torch.float64, device="cuda")


def main():
    a, e = matrix(N), matrix(EIGEN_N)
    for name, flops, f in [
        ("torch.linalg.lu_factor", 2 * N**3 / 3, lambda: torch.linalg.lu_factor(a)),
        ("torch.linalg.cholesky", N**3 / 3, lambda: torch.linalg.cholesky(a)),
    ]:
        us = mean_us(f)
        print(f"  {name:<24} {us / 1e3:8.2f} ms {flops / us / 1e3:7.0f} GFLOP/s")
    us = mean_us(lambda: torch.linalg.eigh(e))
    print(f"  {'torch.linalg.eigh':<24} {us / 1e3:8.2f} ms ({EIGEN_N} x {EIGEN_N}, vectors)")
    square = matrix(SVD_N)
    wide = square[: SVD_N // 4].contiguous()
    for shape, m in [(f"{SVD_N} x {SVD_N}", square), (f"{SVD_N // 4} x {SVD_N}", wide)]:
        for driver in ["gesvd", None]:
            us = mean_us(lambda: torch.linalg.svd(m, full_matrices=False, driver=driver), iterations=5, warm_up=1)
            name = f"torch.linalg.svd ({driver or 'default'})"
            print(f"  {name:<32} {us / 1e3:8.2f} ms ({shape}, thin)")


if __name__ == "__main__":
    main()

"""What users would call instead of `rand::uniform` and `rand::normal`:
`torch.rand` and `torch.randn` into a preallocated 2^28 f32 tensor, timed
as `rand.rs` times ours (each fill queued and synchronized), on the same
GPU, reported in GB/s written.

    python3 amdgpu/benches/rand_torch.py

PyTorch is not a dependency of the project; this script only needs it
where it runs.
"""

import time

import torch

N = 1 << 28
ITERATIONS = 50
WARM_UP = 5


def mean_s(f):
    for _ in range(WARM_UP):
        f()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(ITERATIONS):
        f()
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / ITERATIONS


def main():
    out = torch.empty(N, dtype=torch.float32, device="cuda")
    for name, f in [("torch.rand", lambda: torch.rand(N, out=out)), ("torch.randn", lambda: torch.randn(N, out=out))]:
        s = mean_s(f)
        print(f"  {name:<12} {N * 4 / s / 1e9:7.1f} GB/s ({s * 1e6:.0f} us)")


if __name__ == "__main__":
    main()

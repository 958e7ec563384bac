"""What users would call instead of `rand::uniform` and `rand::normal`:
`torch.rand` and `torch.randn` into a preallocated 2^28 f32 tensor, timed
as `rand.rs` times ours (each fill queued and synchronized), on the same
GPU, reported in GB/s written. It shares `vendor_torch.py`'s timing.

    python3 amdgpu/benches/rand_torch.py

PyTorch is not a dependency of the project; this script only needs it
where it runs.
"""

import torch

# The timing of the other PyTorch figures: queued, synchronized, averaged.
from vendor_torch import mean_us

N = 1 << 28


def main():
    out = torch.empty(N, dtype=torch.float32, device="cuda")
    for name, f in [("torch.rand", lambda: torch.rand(N, out=out)), ("torch.randn", lambda: torch.randn(N, out=out))]:
        us = mean_us(f)
        print(f"  {name:<12} {N * 4 / us / 1e3:7.1f} GB/s ({us:.0f} us)")


if __name__ == "__main__":
    main()

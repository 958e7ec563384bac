"""PyTorch's side of `dlpack.rs`: a 1 MiB f32 tensor made, handed over
through DLPack and taken back (`torch.from_dlpack(t)`, which calls
`t.__dlpack__()` and imports the capsule), then dropped, per iteration,
against the allocation and drop alone; on the same GPU as `dlpack.rs`'s
figures. Host time only: no kernel runs, no copy is made (asserted by
pointer).

    python3 amdgpu/benches/dlpack_torch.py
"""

import time

import torch

N = 1 << 18  # 1 MiB of f32
ITERATIONS = 20000


def mean_ns(f):
    for _ in range(1000):
        f()
    start = time.perf_counter_ns()
    for _ in range(ITERATIONS):
        f()
    return (time.perf_counter_ns() - start) / ITERATIONS


def main():
    t = torch.empty(N, dtype=torch.float32, device="cuda")
    back = torch.from_dlpack(t)
    assert back.data_ptr() == t.data_ptr(), "a copy was made"
    del back
    alone = mean_ns(lambda: torch.empty(N, dtype=torch.float32, device="cuda"))
    trip = mean_ns(lambda: torch.from_dlpack(torch.empty(N, dtype=torch.float32, device="cuda")))
    print(f"PyTorch {torch.__version__}: 1 MiB f32, ns per iteration")
    print(f"  empty + drop          {alone:8.1f}")
    print(f"  round trip + drop     {trip:8.1f}  ({trip - alone:.1f} ns over the pair alone)")


if __name__ == "__main__":
    main()

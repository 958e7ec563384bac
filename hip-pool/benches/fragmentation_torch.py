"""The fragmentation workload of `hip-pool/benches/fragmentation.rs`, on
PyTorch's caching allocator: peak reserved over peak allocated, with its
default settings and with `expandable_segments:True`.

Each setting runs in a child process of its own, because PyTorch reads
`PYTORCH_CUDA_ALLOC_CONF` once, when CUDA starts.

Run: `python3 hip-pool/benches/fragmentation_torch.py` (with
`AMDGPU_BENCH_FRAG_SCALE=n`, every large request `n` times as large, as
in the Rust workload).
"""

import os
import subprocess
import sys

STEPS = 48
WINDOW = 3
MIB = 1 << 20
SCALE = max(1, int(os.environ.get("AMDGPU_BENCH_FRAG_SCALE", "1")))


def workload(torch):
    """The same requests as the Rust workload, in bytes (uint8 tensors)."""
    live = []
    for step in range(STEPS):
        large = SCALE * ((8 << 20) + step * (1536 << 10)) + 4096 * (step % 3)
        a = torch.empty(large, dtype=torch.uint8, device="cuda")
        b = torch.empty(large // 3, dtype=torch.uint8, device="cuda")
        small = torch.empty(64 << 10, dtype=torch.uint8, device="cuda")
        del b
        live.append((a, small))
        if len(live) > WINDOW:
            live.pop(0)
    torch.cuda.synchronize()


def child():
    import torch

    torch.cuda.init()
    torch.cuda.reset_peak_memory_stats()
    workload(torch)
    stats = torch.cuda.memory_stats()
    reserved = stats["reserved_bytes.all.peak"]
    allocated = stats["allocated_bytes.all.peak"]
    retries = stats.get("num_alloc_retries", 0)
    print(f"{reserved} {allocated} {retries}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child()
        return
    print(f"peak reserved / peak allocated, {STEPS} growing steps, {WINDOW} alive, large requests x{SCALE} (PyTorch):")
    for name, conf in [("default", ""), ("expandable", "expandable_segments:True")]:
        env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
        out = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True)
        if out.returncode != 0:
            print(f"  {name:<10} failed: {out.stderr.strip()[-300:]}")
            continue
        reserved, allocated, retries = (int(x) for x in out.stdout.split())
        print(
            f"  {name:<10} {reserved / MIB:8.1f} MiB / {allocated / MIB:8.1f} MiB = "
            f"{reserved / max(allocated, 1):.3f} ({retries} out-of-memory retries)"
        )


if __name__ == "__main__":
    main()

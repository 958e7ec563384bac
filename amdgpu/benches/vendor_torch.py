"""What users would call instead of the wrappers in vendor.rs: the same
operations on the same shapes through PyTorch, timed the same way (each
iteration queued and synchronized), for a side-by-side run on one GPU.

    python3 amdgpu/benches/vendor_torch.py

PyTorch is not a dependency of the project; this script only needs it
where it runs.
"""

import time

import torch
import torch.nn.functional as F

ITERATIONS = 200
WARM_UP = 20


def mean_us(f, iterations=ITERATIONS, warm_up=WARM_UP):
    for _ in range(warm_up):
        f()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iterations):
        f()
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / iterations * 1e6


def tridiagonal(n):
    rows = torch.arange(n, device="cuda")
    r = torch.cat([rows[1:], rows, rows[:-1]])
    c = torch.cat([rows[:-1], rows, rows[1:]])
    v = torch.cat([-torch.ones(n - 1), 2 * torch.ones(n), -torch.ones(n - 1)]).cuda()
    return torch.sparse_coo_tensor(torch.stack([r, c]), v, (n, n)).coalesce().to_sparse_csr()


def random(n, nnz):
    g = torch.Generator(device="cuda").manual_seed(7)
    per_row = nnz // n
    r = torch.arange(n, device="cuda").repeat_interleave(per_row)
    c = torch.randint(0, n, (n * per_row,), device="cuda", generator=g)
    v = 1 + (c % 7).float() / 8
    return torch.sparse_coo_tensor(torch.stack([r, c]), v, (n, n)).coalesce().to_sparse_csr()


def main():
    torch.backends.cudnn.benchmark = True
    results = []

    x = torch.zeros(1 << 24, dtype=torch.complex64, device="cuda")
    out = torch.empty_like(x)
    results.append(("torch.fft.fft, 2^24 complex f32", mean_us(lambda: torch.fft.fft(x, out=out))))

    real = torch.zeros(1024, 1024, device="cuda")
    half = torch.empty(1024, 513, dtype=torch.complex64, device="cuda")
    results.append(("torch.fft.rfft2, 1024 x 1024 f32", mean_us(lambda: torch.fft.rfft2(real, out=half))))

    for name, m in [("2^22-row tridiagonal", tridiagonal(1 << 22)), ("2^20 rows, 10^7 random nnz", random(1 << 20, 10_000_000))]:
        v = torch.ones(m.shape[1], 1, device="cuda")
        results.append((f"CSR @ vector, {name} f32", mean_us(lambda m=m, v=v: m @ v)))

    s = torch.full((256, 1000), 0.5, device="cuda")
    results.append(("F.softmax(dim=1), 256 x 1000", mean_us(lambda: F.softmax(s, dim=1))))

    cx = torch.full((32, 64, 56, 56), 0.25, device="cuda")
    cw = torch.full((64, 64, 3, 3), 0.125, device="cuda")
    # FP32 arithmetic, as ours computes (PyTorch's default for convolutions
    # rounds the operands to TF32 on GPUs since the A100), then the default.
    for tf32 in (False, True):
        torch.backends.cudnn.allow_tf32 = tf32
        arithmetic = "TF32 (PyTorch's default)" if tf32 else "FP32"
        results.append((f"F.conv2d, ResNet 3x3 (32, 64, 56, 56), {arithmetic}", mean_us(lambda: F.conv2d(cx, cw, padding=1))))

    n = 8192
    flops = 2 * n**3
    for name, dtype, tf32 in [("fp32", torch.float32, False), ("tf32", torch.float32, True), ("bf16", torch.bfloat16, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.full((n, n), 0.5, dtype=dtype, device="cuda")
        b = torch.full((n, n), 0.25, dtype=dtype, device="cuda")
        c = torch.empty((n, n), dtype=dtype, device="cuda")
        us = mean_us(lambda a=a, b=b, c=c: torch.matmul(a, b, out=c))
        results.append((f"torch.matmul {n}^3 {name} ({flops / us / 1e6:.1f} TFLOP/s)", us))
        del a, b, c
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.full((64, 64), 0.5, device="cuda")
    c = torch.empty((64, 64), device="cuda")
    per_call = mean_us(lambda: [torch.matmul(a, a, out=c) for _ in range(64)]) / 64
    results.append(("torch.matmul 64^3 fp32, per call of 64", per_call))

    size = 256 << 20
    host = torch.empty(size, dtype=torch.uint8).pin_memory()
    dev = torch.empty(size, dtype=torch.uint8, device="cuda")
    h2d = mean_us(lambda: dev.copy_(host, non_blocking=True))
    d2h = mean_us(lambda: host.copy_(dev, non_blocking=True))
    results.append((f"pinned H2D copy_ 256 MiB ({size / h2d / 1e3:.1f} GB/s)", h2d))
    results.append((f"pinned D2H copy_ 256 MiB ({size / d2h / 1e3:.1f} GB/s)", d2h))

    print(f"PyTorch {torch.__version__}, {torch.cuda.get_device_name()}")
    for name, us in results:
        print(f"  {name:<44} {us:>9.1f} us")


if __name__ == "__main__":
    main()

// GPU semantics (barriers, shared memory, warp intrinsics with and
// without masks, atomics), which every backend runs from this text
// (tests/tests/kernel_semantics.rs: hipRTC, NVRTC, the simulator's C++
// compiler), and the faults the simulator reports (hip-sys's
// sim_cpu_kernels.rs).
#include <hip/hip_runtime.h>

// out[i] = 1 for i <= n: one element past the end of an n-element buffer.
extern "C" __global__ void write_one_past(float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        out[i] = 1.0f;
    }
}

// Thread 0 returns before the barrier the others wait at.
extern "C" __global__ void divergent_barrier(int* out) {
    if (threadIdx.x == 0) {
        return;
    }
    __syncthreads();
    out[threadIdx.x] = 1;
}

// Thread 5 of block 1 fails its assertion.
extern "C" __global__ void failing_assert(int* out) {
    assert(!(blockIdx.x == 1 && threadIdx.x == 5));
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// out[i] = in[i] * 2.
extern "C" __global__ void twice(const float* in, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * 2.0f;
    }
}

// Per warp: the sum of its lanes' values by shuffles; the ballot of even
// lanes; __any, __all; warpSize; and each lane's neighbour by __shfl_xor.
extern "C" __global__ void warp_ops(const int* in, int* sums, unsigned long long* ballots, int* votes,
                                    int* neighbours) {
    unsigned t = threadIdx.x;
    int v = in[t];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        v += __shfl_down(v, offset);
    }
    unsigned warp = t / warpSize;
    unsigned long long ballot = __ballot(t % 2 == 0);
    int any = __any(t == 3);
    int all = __all(in[t] > 0);
    neighbours[t] = __shfl_xor(static_cast<int>(t), 1);
    if (__lane_id() == 0) {
        sums[warp] = v;
        ballots[warp] = ballot;
        votes[2 * warp] = any;
        votes[2 * warp + 1] = all;
    }
    if (t == 0) {
        votes[64] = warpSize;
    }
}

// C = A × B for n × n row-major matrices, n a multiple of 16, through
// 16 × 16 tiles in shared memory.
extern "C" __global__ void tiled_matmul(const float* a, const float* b, float* c, unsigned n) {
    __shared__ float ta[16][16];
    __shared__ float tb[16][16];
    unsigned row = blockIdx.y * 16 + threadIdx.y;
    unsigned col = blockIdx.x * 16 + threadIdx.x;
    float sum = 0.0f;
    for (unsigned tile = 0; tile < n / 16; ++tile) {
        ta[threadIdx.y][threadIdx.x] = a[row * n + tile * 16 + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(tile * 16 + threadIdx.y) * n + col];
        __syncthreads();
        for (unsigned k = 0; k < 16; ++k) {
            sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        }
        __syncthreads();
    }
    c[row * n + col] = sum;
}

// partial[block] = the block's sum, through dynamic shared memory.
extern "C" __global__ void dynamic_sum(const float* in, float* partial) {
    extern __shared__ float cache[];
    unsigned t = threadIdx.x;
    cache[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

// count[0] = the number of threads, by atomics from divergent lanes;
// count[1] = how many of them saw __syncthreads_count of the odd ones.
extern "C" __global__ void atomics(unsigned* count) {
    if (threadIdx.x % 3 == 0) {
        atomicAdd(&count[0], 2u);
    } else {
        atomicAdd(&count[0], 1u);
    }
    int odd = __syncthreads_count(threadIdx.x % 2);
    if (odd == static_cast<int>(blockDim.x / 2)) {
        atomicAdd(&count[1], 1u);
    }
}

// Writes through a pointer to const, cast away.
extern "C" __global__ void write_through_const(const float* p) {
    const_cast<float*>(p)[threadIdx.x] = 1.0f;
}

// Thread 7 of every block fails its assertion.
extern "C" __global__ void every_block_asserts(int* out) {
    assert(threadIdx.x != 7);
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// Block 0 waits for the grid's last block to raise a flag: it ends only
// if the blocks run at once, as on a GPU with room for the grid.
extern "C" __global__ void wait_for_the_last_block(unsigned* flag) {
    if (threadIdx.x != 0) {
        return;
    }
    if (blockIdx.x == 0) {
        while (atomicAdd(flag, 0u) == 0u) {
        }
        flag[1] = 1;
    } else if (blockIdx.x == gridDim.x - 1) {
        atomicExch(flag, 1u);
    }
}

#if AMDGPU_RS_WARP_SYNC
// The `_sync` intrinsics, each half of a warp apart under its own mask:
// sums[2w + h] = the sum of half h's lanes of warp w; ballots[2w + h] =
// the ballot of its even lanes; groups[t] = __match_any_sync of lane / 4.
extern "C" __global__ void masked_warp_ops(int* sums, unsigned long long* ballots, unsigned long long* groups) {
    unsigned t = threadIdx.x, lane = __lane_id(), half = warpSize / 2;
    unsigned long long lower = half == 32 ? 0xffffffffull : 0xffffull;
    unsigned long long mask = lane < half ? lower : lower << half;
    int v = static_cast<int>(lane);
    for (unsigned offset = half / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(mask, v, offset, half);
    }
    unsigned long long even = __ballot_sync(mask, lane % 2 == 0);
    groups[t] = __match_any_sync(mask, static_cast<int>(lane / 4));
    unsigned w = t / warpSize, h = lane < half ? 0 : 1;
    if (lane % half == 0) {
        sums[2 * w + h] = v;
        ballots[2 * w + h] = even;
    }
}

// Lane 1 returns; the others shuffle under a mask that names it.
extern "C" __global__ void mask_names_a_returned_lane(int* out) {
    if (__lane_id() == 1) {
        return;
    }
    out[threadIdx.x] = __shfl_sync(~0ull, static_cast<int>(threadIdx.x), 0);
}

// The lower half shuffles under its mask from a lane of the upper half.
extern "C" __global__ void shuffle_outside_the_mask(int* out) {
    unsigned lane = __lane_id(), half = warpSize / 2;
    if (lane < half) {
        unsigned long long lower = half == 32 ? 0xffffffffull : 0xffffull;
        out[threadIdx.x] = __shfl_sync(lower, static_cast<int>(lane), static_cast<int>(half + 1));
    }
}
#endif

// Each thread prints its place and a value, as a GPU's printf does (the
// indices cast: hipRTC passes none of its index objects through `...`).
extern "C" __global__ void say(int value) {
    unsigned block = blockIdx.x, thread = threadIdx.x;
    printf("block %u thread %u says %d\n", block, thread, value + static_cast<int>(thread));
}

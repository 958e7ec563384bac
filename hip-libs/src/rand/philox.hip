// The project's own counter-based Philox4x32-10 (Salmon et al., SC'11):
// the same numbers on every backend, from integer arithmetic only. Thread
// i computes element i of a fill that starts at word `position` of the
// stream of `seed`: word w is lane w % 4 of the block at counter w / 4
// (a 128-bit counter, its upper half 0), under the key (seed low, seed
// high). The simulator runs the same kernels as built-ins.
#include <hip/hip_runtime.h>

__device__ static uint32_t amdgpu_philox_word(uint64_t w, uint32_t k0, uint32_t k1) {
    uint64_t block = w >> 2;
    uint32_t c0 = (uint32_t)block, c1 = (uint32_t)(block >> 32), c2 = 0, c3 = 0;
    for (int r = 0; r < 10; ++r) {
        if (r > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint64_t p0 = (uint64_t)0xD2511F53u * c0;
        uint64_t p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
    }
    switch ((uint32_t)w & 3u) {
        case 0: return c0;
        case 1: return c1;
        case 2: return c2;
        default: return c3;
    }
}

// out[i] = word position + i.
extern "C" __global__ void amdgpu_philox_bits(uint32_t* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                              uint32_t position_lo, uint32_t position_hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint64_t position = ((uint64_t)position_hi << 32) | position_lo;
        out[i] = amdgpu_philox_word(position + i, seed_lo, seed_hi);
    }
}

// out[i] = (word >> 8) * 2^-24, in [0, 1): exact, no rounding anywhere.
extern "C" __global__ void amdgpu_philox_uniform_f32(float* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                                     uint32_t position_lo, uint32_t position_hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint64_t position = ((uint64_t)position_hi << 32) | position_lo;
        uint32_t x = amdgpu_philox_word(position + i, seed_lo, seed_hi);
        out[i] = (float)(x >> 8) * 5.9604644775390625e-8f;
    }
}

// out[i] from words position + 2i (a) and + 2i + 1 (b): the 53-bit integer
// (a >> 11) * 2^32 + b, times 2^-53, in [0, 1): exact.
extern "C" __global__ void amdgpu_philox_uniform_f64(double* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                                     uint32_t position_lo, uint32_t position_hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint64_t position = ((uint64_t)position_hi << 32) | position_lo;
        uint64_t a = amdgpu_philox_word(position + 2 * (uint64_t)i, seed_lo, seed_hi);
        uint64_t b = amdgpu_philox_word(position + 2 * (uint64_t)i + 1, seed_lo, seed_hi);
        out[i] = (double)(((a >> 11) << 32) | b) * 1.1102230246251565e-16;
    }
}

// The project's own counter-based Philox4x32-10 (Salmon et al., SC'11):
// the same numbers on every backend, from integer arithmetic only. Word w
// of the stream of `seed` is lane w % 4 of the block at counter w / 4 (a
// 128-bit counter, its upper half 0), under the key (seed low, seed
// high); a fill's element i is word position + i (two words, position +
// 2i and + 2i + 1, for a double; the position of a double fill is even).
// Thread t computes one block, the t-th from the one holding word
// `position`, and writes the elements whose words it holds. The same text
// compiles with hipRTC, NVRTC and the simulator's C++ compiler.
#include <hip/hip_runtime.h>

// The block at `counter` under the key (k0, k1): ten rounds.
__device__ static void amdgpu_philox_block(uint64_t counter, uint32_t k0, uint32_t k1, uint32_t out[4]) {
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
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
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

// This thread's block of a fill from `position`: its words, and the
// index its first word has in the fill (negative before the fill starts).
__device__ static int64_t amdgpu_philox_thread_block(uint32_t seed_lo, uint32_t seed_hi, uint32_t position_lo,
                                                     uint32_t position_hi, uint32_t words[4]) {
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t position = ((uint64_t)position_hi << 32) | position_lo;
    uint64_t block = (position >> 2) + t;
    amdgpu_philox_block(block, seed_lo, seed_hi, words);
    return (int64_t)(block << 2) - (int64_t)position;
}

// out[i] = word position + i.
extern "C" __global__ void amdgpu_philox_bits(uint32_t* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                              uint32_t position_lo, uint32_t position_hi) {
    uint32_t words[4];
    int64_t first = amdgpu_philox_thread_block(seed_lo, seed_hi, position_lo, position_hi, words);
    for (int j = 0; j < 4; ++j) {
        int64_t i = first + j;
        if (i >= 0 && i < (int64_t)n) {
            out[i] = words[j];
        }
    }
}

// out[i] = (word >> 8) * 2^-24, in [0, 1): exact, no rounding anywhere.
extern "C" __global__ void amdgpu_philox_uniform_f32(float* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                                     uint32_t position_lo, uint32_t position_hi) {
    uint32_t words[4];
    int64_t first = amdgpu_philox_thread_block(seed_lo, seed_hi, position_lo, position_hi, words);
    for (int j = 0; j < 4; ++j) {
        int64_t i = first + j;
        if (i >= 0 && i < (int64_t)n) {
            out[i] = (float)(words[j] >> 8) * 5.9604644775390625e-8f;
        }
    }
}

// out[i] from words position + 2i (a) and + 2i + 1 (b), position even:
// the 53-bit integer (a >> 11) * 2^32 + b, times 2^-53, in [0, 1): exact.
extern "C" __global__ void amdgpu_philox_uniform_f64(double* out, uint32_t n, uint32_t seed_lo, uint32_t seed_hi,
                                                     uint32_t position_lo, uint32_t position_hi) {
    uint32_t words[4];
    int64_t first = amdgpu_philox_thread_block(seed_lo, seed_hi, position_lo, position_hi, words);
    for (int j = 0; j < 4; j += 2) {
        int64_t w = first + j;
        int64_t i = w / 2;
        if (w >= 0 && i < (int64_t)n) {
            uint64_t a = words[j], b = words[j + 1];
            out[i] = (double)(((a >> 11) << 32) | b) * 1.1102230246251565e-16;
        }
    }
}

// Kernels compiled at run time by the tests and benchmarks, from this one
// HIP source on every backend that compiles: hipRTC on AMD, NVRTC on
// NVIDIA. The include resolves to the portable prelude (hip_sys::prelude),
// which every compilation gets by name.
#include <hip/hip_runtime.h>

// c[i] = a[i] + b[i] for i < n.
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

// partial[block] = the sum of the block's elements of in[0..n), through
// dynamic shared memory of blockDim.x floats (a power of two).
extern "C" __global__ void block_sum(const float* in, float* partial, uint32_t n) {
    HIP_DYNAMIC_SHARED(float, cache)
    uint32_t t = hipThreadIdx_x;
    uint32_t i = hipBlockIdx_x * hipBlockDim_x + t;
    cache[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (uint32_t s = hipBlockDim_x / 2; s > 0; s >>= 1) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[hipBlockIdx_x] = cache[0];
    }
}

// count[0] += the number of i < n with x[i] > threshold.
extern "C" __global__ void count_above(const float* x, float threshold, unsigned int* count, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > threshold) {
        atomicAdd(count, 1u);
    }
}

// y[i] = a * x[i] + y[i] for i < n, for any arithmetic T; instantiated
// through name expressions (axpy<float>, axpy<double>).
template <typename T>
__global__ void axpy(T a, const T* x, T* y, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// Half precision (hip/hip_fp16.h): conversions and arithmetic, checked
// bit for bit against the CPU by tests/tests/kernel_semantics.rs, on AMD
// and the simulator (NVIDIA's cuda_fp16.h is not reachable through the
// prelude yet).
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

// widened[i] = the float of the half whose bits are i.
extern "C" __global__ void half_to_float(float* widened, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        widened[i] = __half2float(__ushort_as_half(static_cast<unsigned short>(i)));
    }
}

// bits[i] = the bits of values[i] rounded to a half.
extern "C" __global__ void float_to_half(const float* values, unsigned short* bits, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        bits[i] = __half_as_ushort(__float2half(values[i]));
    }
}

// out[4i..4i+4] = a[i] + b[i], a[i] - b[i], a[i] * b[i], a[i] / b[i], as
// halves' bits; pairs[i] = the same sum through __half2.
extern "C" __global__ void half_arithmetic(const unsigned short* a, const unsigned short* b, unsigned short* out,
                                           unsigned short* pairs, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half x = __ushort_as_half(a[i]), y = __ushort_as_half(b[i]);
        out[4 * i] = __half_as_ushort(__hadd(x, y));
        out[4 * i + 1] = __half_as_ushort(__hsub(x, y));
        out[4 * i + 2] = __half_as_ushort(__hmul(x, y));
        out[4 * i + 3] = __half_as_ushort(__hdiv(x, y));
        __half2 p = __halves2half2(x, y), q = __halves2half2(y, x);
        pairs[i] = __half_as_ushort(__low2half(__hadd2(p, q)));
    }
}

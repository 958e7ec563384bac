// bfloat16 (hip/hip_bf16.h, ROCm 6.0 and later): conversions and
// arithmetic, checked bit for bit against the CPU by
// tests/tests/kernel_semantics.rs on the simulator. Before HIP 6 there is
// no such header, and this file has no kernels.
#include <hip/hip_runtime.h>
#if HIP_VERSION_MAJOR >= 6
#include <hip/hip_bf16.h>

// widened[i] = the float of the bfloat16 whose bits are i.
extern "C" __global__ void bfloat16_to_float(float* widened, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        widened[i] = __bfloat162float(__ushort_as_bfloat16(static_cast<unsigned short>(i)));
    }
}

// bits[i] = the bits of values[i] rounded to a bfloat16.
extern "C" __global__ void float_to_bfloat16(const float* values, unsigned short* bits, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        bits[i] = __bfloat16_as_ushort(__float2bfloat16(values[i]));
    }
}

// out[2i], out[2i + 1] = a[i] + b[i], a[i] * b[i], as bfloat16 bits.
extern "C" __global__ void bfloat16_arithmetic(const unsigned short* a, const unsigned short* b, unsigned short* out,
                                               unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __hip_bfloat16 x = __ushort_as_bfloat16(a[i]), y = __ushort_as_bfloat16(b[i]);
        out[2 * i] = __bfloat16_as_ushort(__hadd(x, y));
        out[2 * i + 1] = __bfloat16_as_ushort(__hmul(x, y));
    }
}
#endif

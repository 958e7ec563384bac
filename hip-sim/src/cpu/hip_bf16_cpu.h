// The simulator's hip/hip_bf16.h: HIP's bfloat16 (ROCm 6.0 and later)
// for a kernel compiled for the CPU. A __hip_bfloat16 holds the upper 16
// bits of a float; conversions from float round to nearest, ties to even,
// and arithmetic is done in float and rounded once.
#ifndef AMDGPU_SIM_HIP_BF16_H
#define AMDGPU_SIM_HIP_BF16_H

#if AMDGPU_SIM_HIP_MAJOR < 6
#error "hip/hip_bf16.h came with ROCm 6.0: the simulator as HIP 5 has no __hip_bfloat16"
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace amdgpu_sim {

// float to bfloat16, rounded to nearest, ties to even; NaN stays NaN.
inline uint16_t float_to_bfloat16_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
    // Adding 0x7fff plus the kept part's lowest bit rounds ties to even; a
    // carry moves the exponent up, to infinity at most.
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) {
    uint32_t x = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace amdgpu_sim

struct __hip_bfloat16 {
    uint16_t bits_ = 0;
    __hip_bfloat16() = default;
    template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
    __hip_bfloat16(T v) : bits_(amdgpu_sim::float_to_bfloat16_bits(static_cast<float>(v))) {}
    operator float() const { return amdgpu_sim::bfloat16_bits_to_float(bits_); }
};

struct __hip_bfloat162 {
    __hip_bfloat16 x, y;
    __hip_bfloat162() = default;
    __hip_bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) : x(a), y(b) {}
};

inline __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(float(a) + float(b)); }
inline __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(float(a) - float(b)); }
inline __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(float(a) * float(b)); }
inline __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hip_bfloat16(float(a) / float(b)); }
inline bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return float(a) == float(b); }
inline bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return float(a) < float(b); }

inline __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
inline float __bfloat162float(__hip_bfloat16 b) { return float(b); }
inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return b.bits_; }
inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) {
    __hip_bfloat16 b;
    b.bits_ = u;
    return b;
}
inline __hip_bfloat16 __hadd(__hip_bfloat16 a, __hip_bfloat16 b) { return a + b; }
inline __hip_bfloat16 __hsub(__hip_bfloat16 a, __hip_bfloat16 b) { return a - b; }
inline __hip_bfloat16 __hmul(__hip_bfloat16 a, __hip_bfloat16 b) { return a * b; }
inline __hip_bfloat16 __hdiv(__hip_bfloat16 a, __hip_bfloat16 b) { return a / b; }
inline __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
    return __hip_bfloat16(static_cast<double>(float(a)) * static_cast<double>(float(b)) + static_cast<double>(float(c)));
}
inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) { return __hip_bfloat162(a, b); }
inline float __low2float(__hip_bfloat162 p) { return float(p.x); }
inline float __high2float(__hip_bfloat162 p) { return float(p.y); }

#endif

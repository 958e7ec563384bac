// The simulator's hip/hip_fp16.h: HIP's half precision for a kernel
// compiled for the CPU. A __half holds the 16 bits of an IEEE binary16;
// arithmetic is done in float (or double for fma) and rounded to the
// nearest half, ties to even, which for +, -, *, / and sqrt is the
// correctly rounded result a GPU's half instructions give (float's 24
// bits are at least twice half's 11, plus 2).
#ifndef AMDGPU_SIM_HIP_FP16_H
#define AMDGPU_SIM_HIP_FP16_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace amdgpu_sim {

// float to binary16, rounded to nearest, ties to even; NaN stays NaN.
inline uint16_t float_to_half_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t exponent = (x >> 23) & 0xffu;
    uint32_t mantissa = x & 0x7fffffu;
    if (exponent == 0xffu) {
        return static_cast<uint16_t>(sign | 0x7c00u | (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0u));
    }
    const int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    if (e <= 0) {
        // A subnormal half (or zero): the 24-bit significand shifted down.
        if (e < -10) return static_cast<uint16_t>(sign);
        mantissa |= 0x800000u;
        const int shift = 14 - e;
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;
        return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    // A carry out of the mantissa moves the exponent up, to infinity at most.
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) ++half;
    return static_cast<uint16_t>(half);
}

// binary16 to float, exactly.
inline float half_bits_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t x;
    if (exponent == 0x1fu) {
        x = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        x = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        x = sign;
    } else {
        // A subnormal: normalized, its leading one made implicit.
        uint32_t shifts = 0;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            ++shifts;
        }
        x = sign | ((113u - shifts) << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace amdgpu_sim

struct __half {
    uint16_t bits_ = 0;
    __half() = default;
    // From any arithmetic value, through float (a double rounds twice, as
    // HIP's conversion from double also goes through float).
    template <class T, class = std::enable_if_t<std::is_arithmetic<T>::value>>
    __half(T v) : bits_(amdgpu_sim::float_to_half_bits(static_cast<float>(v))) {}
    operator float() const { return amdgpu_sim::half_bits_to_float(bits_); }
    __half& operator+=(__half o) { return *this = __half(float(*this) + float(o)); }
    __half& operator-=(__half o) { return *this = __half(float(*this) - float(o)); }
    __half& operator*=(__half o) { return *this = __half(float(*this) * float(o)); }
    __half& operator/=(__half o) { return *this = __half(float(*this) / float(o)); }
};
using half = __half;

struct __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
using half2 = __half2;

inline __half operator+(__half a, __half b) { return __half(float(a) + float(b)); }
inline __half operator-(__half a, __half b) { return __half(float(a) - float(b)); }
inline __half operator*(__half a, __half b) { return __half(float(a) * float(b)); }
inline __half operator/(__half a, __half b) { return __half(float(a) / float(b)); }
inline __half operator-(__half a) {
    __half r = a;
    r.bits_ ^= 0x8000u;
    return r;
}
inline bool operator==(__half a, __half b) { return float(a) == float(b); }
inline bool operator!=(__half a, __half b) { return float(a) != float(b); }
inline bool operator<(__half a, __half b) { return float(a) < float(b); }
inline bool operator<=(__half a, __half b) { return float(a) <= float(b); }
inline bool operator>(__half a, __half b) { return float(a) > float(b); }
inline bool operator>=(__half a, __half b) { return float(a) >= float(b); }
inline __half2 operator+(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
inline __half2 operator-(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
inline __half2 operator*(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }

// Conversions and bits.
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline unsigned short __half_as_ushort(__half h) { return h.bits_; }
inline short __half_as_short(__half h) { return static_cast<short>(h.bits_); }
inline __half __ushort_as_half(unsigned short u) {
    __half h;
    h.bits_ = u;
    return h;
}
inline __half __short_as_half(short s) { return __ushort_as_half(static_cast<unsigned short>(s)); }

// Arithmetic and comparisons.
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hfma(__half a, __half b, __half c) {
    return __half(static_cast<double>(float(a)) * static_cast<double>(float(b)) + static_cast<double>(float(c)));
}
inline __half __hneg(__half a) { return -a; }
inline __half __habs(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.bits_ & 0x7fffu)); }
inline bool __hisnan(__half a) { return (a.bits_ & 0x7fffu) > 0x7c00u; }
inline bool __hisinf(__half a) { return (a.bits_ & 0x7fffu) == 0x7c00u; }
inline __half __hmax(__half a, __half b) { return __hisnan(a) ? b : (__hisnan(b) ? a : (a < b ? b : a)); }
inline __half __hmin(__half a, __half b) { return __hisnan(a) ? b : (__hisnan(b) ? a : (b < a ? b : a)); }
inline bool __heq(__half a, __half b) { return a == b; }
inline bool __hne(__half a, __half b) { return a != b; }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hle(__half a, __half b) { return a <= b; }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __hge(__half a, __half b) { return a >= b; }
inline __half hsqrt(__half a) { return __half(std::sqrt(float(a))); }

// Pairs.
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
inline __half __low2half(__half2 p) { return p.x; }
inline __half __high2half(__half2 p) { return p.y; }
inline float __low2float(__half2 p) { return float(p.x); }
inline float __high2float(__half2 p) { return float(p.y); }
inline __half2 __lowhigh2highlow(__half2 p) { return __half2(p.y, p.x); }
inline __half2 __hadd2(__half2 a, __half2 b) { return a + b; }
inline __half2 __hsub2(__half2 a, __half2 b) { return a - b; }
inline __half2 __hmul2(__half2 a, __half2 b) { return a * b; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }

#endif

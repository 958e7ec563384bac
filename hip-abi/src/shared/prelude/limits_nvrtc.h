// <limits> for NVRTC, from amdgpu-rs's portable kernel prelude.
//
// NVRTC has no C++ standard library. std::numeric_limits for the
// arithmetic types, with the members kernels use: min, max, lowest,
// epsilon, infinity, quiet_NaN, digits, is_signed, is_integer (infinity
// and quiet_NaN are device functions, not constexpr: NVRTC has no
// constant-expression builtin for them).
#pragma once

namespace std {

template <class T> struct numeric_limits {
    static constexpr bool is_specialized = false;
};

#define AMDGPU_RS_INTEGER_LIMITS(T, MIN, MAX, SIGNED, DIGITS)                     \
    template <> struct numeric_limits<T> {                                         \
        static constexpr bool is_specialized = true;                               \
        static constexpr bool is_signed = SIGNED;                                  \
        static constexpr bool is_integer = true;                                   \
        static constexpr bool has_infinity = false;                                \
        static constexpr int digits = DIGITS;                                      \
        __host__ __device__ static constexpr T min() noexcept { return MIN; }      \
        __host__ __device__ static constexpr T max() noexcept { return MAX; }      \
        __host__ __device__ static constexpr T lowest() noexcept { return MIN; }   \
        __host__ __device__ static constexpr T epsilon() noexcept { return 0; }    \
    };
AMDGPU_RS_INTEGER_LIMITS(bool, false, true, false, 1)
AMDGPU_RS_INTEGER_LIMITS(char, (char)(-128), (char)127, true, 7)
AMDGPU_RS_INTEGER_LIMITS(signed char, -128, 127, true, 7)
AMDGPU_RS_INTEGER_LIMITS(unsigned char, 0, 255, false, 8)
AMDGPU_RS_INTEGER_LIMITS(short, -32768, 32767, true, 15)
AMDGPU_RS_INTEGER_LIMITS(unsigned short, 0, 65535, false, 16)
AMDGPU_RS_INTEGER_LIMITS(int, -2147483647 - 1, 2147483647, true, 31)
AMDGPU_RS_INTEGER_LIMITS(unsigned int, 0u, 4294967295u, false, 32)
AMDGPU_RS_INTEGER_LIMITS(long, -9223372036854775807L - 1, 9223372036854775807L, true, 63)
AMDGPU_RS_INTEGER_LIMITS(unsigned long, 0ul, 18446744073709551615ul, false, 64)
AMDGPU_RS_INTEGER_LIMITS(long long, -9223372036854775807LL - 1, 9223372036854775807LL, true, 63)
AMDGPU_RS_INTEGER_LIMITS(unsigned long long, 0ull, 18446744073709551615ull, false, 64)
#undef AMDGPU_RS_INTEGER_LIMITS

template <> struct numeric_limits<float> {
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool has_infinity = true;
    static constexpr int digits = 24;
    __host__ __device__ static constexpr float min() noexcept { return 1.17549435e-38f; }
    __host__ __device__ static constexpr float max() noexcept { return 3.40282347e+38f; }
    __host__ __device__ static constexpr float lowest() noexcept { return -3.40282347e+38f; }
    __host__ __device__ static constexpr float epsilon() noexcept { return 1.19209290e-7f; }
    __device__ static float infinity() noexcept { return __int_as_float(0x7f800000); }
    __device__ static float quiet_NaN() noexcept { return __int_as_float(0x7fc00000); }
};

template <> struct numeric_limits<double> {
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool has_infinity = true;
    static constexpr int digits = 53;
    __host__ __device__ static constexpr double min() noexcept { return 2.2250738585072014e-308; }
    __host__ __device__ static constexpr double max() noexcept { return 1.7976931348623157e+308; }
    __host__ __device__ static constexpr double lowest() noexcept { return -1.7976931348623157e+308; }
    __host__ __device__ static constexpr double epsilon() noexcept { return 2.2204460492503131e-16; }
    __device__ static double infinity() noexcept { return __longlong_as_double(0x7ff0000000000000LL); }
    __device__ static double quiet_NaN() noexcept { return __longlong_as_double(0x7ff8000000000000LL); }
};

template <class T> struct numeric_limits<const T> : numeric_limits<T> {};
template <class T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};

}  // namespace std

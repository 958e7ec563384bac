// <type_traits> for NVRTC, from amdgpu-rs's portable kernel prelude.
//
// NVRTC has no C++ standard library. This is the part of <type_traits>
// that kernels use for dispatch on their element type: the constants,
// the type relations and categories, the cv and reference edits,
// enable_if and conditional, each with its _t and _v forms. First what
// hipRTC before ROCm 7 defines itself (so its prelude has only the rest,
// type_traits_rest.h, which follows this text).
#pragma once

namespace amdgpu_rs_detail {
template <class T> struct unqualified { typedef T type; };
template <class T> struct unqualified<const T> { typedef T type; };
template <class T> struct unqualified<volatile T> { typedef T type; };
template <class T> struct unqualified<const volatile T> { typedef T type; };
}  // namespace amdgpu_rs_detail

namespace std {

template <class T, T v> struct integral_constant {
    static constexpr T value = v;
    typedef T value_type;
    typedef integral_constant type;
    __host__ __device__ constexpr operator value_type() const noexcept { return value; }
    __host__ __device__ constexpr value_type operator()() const noexcept { return value; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B> using bool_constant = integral_constant<bool, B>;

template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };

template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};

template <class T> struct is_integral_plain : false_type {};
template <> struct is_integral_plain<bool> : true_type {};
template <> struct is_integral_plain<char> : true_type {};
template <> struct is_integral_plain<signed char> : true_type {};
template <> struct is_integral_plain<unsigned char> : true_type {};
template <> struct is_integral_plain<short> : true_type {};
template <> struct is_integral_plain<unsigned short> : true_type {};
template <> struct is_integral_plain<int> : true_type {};
template <> struct is_integral_plain<unsigned int> : true_type {};
template <> struct is_integral_plain<long> : true_type {};
template <> struct is_integral_plain<unsigned long> : true_type {};
template <> struct is_integral_plain<long long> : true_type {};
template <> struct is_integral_plain<unsigned long long> : true_type {};
template <class T> struct is_integral : is_integral_plain<typename amdgpu_rs_detail::unqualified<T>::type> {};

template <class T> struct is_floating_point_plain : false_type {};
template <> struct is_floating_point_plain<float> : true_type {};
template <> struct is_floating_point_plain<double> : true_type {};
template <> struct is_floating_point_plain<long double> : true_type {};
template <class T> struct is_floating_point : is_floating_point_plain<typename amdgpu_rs_detail::unqualified<T>::type> {};

template <class T> struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};
template <class T, bool = is_arithmetic<T>::value> struct is_signed_arith : bool_constant<T(-1) < T(0)> {};
template <class T> struct is_signed_arith<T, false> : false_type {};
template <class T> struct is_signed : is_signed_arith<typename amdgpu_rs_detail::unqualified<T>::type> {};

}  // namespace std

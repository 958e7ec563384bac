// <type_traits> for NVRTC, from amdgpu-rs's portable kernel prelude.
//
// NVRTC has no C++ standard library. This is the part of <type_traits>
// that kernels use for dispatch on their element type: the constants,
// the type relations and categories, the cv and reference edits,
// enable_if and conditional, each with its _t and _v forms.
#pragma once

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
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;

template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;

template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};

template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <class T> struct remove_pointer<T* const> { typedef T type; };
template <class T> struct add_const { typedef const T type; };
template <class T> struct add_pointer { typedef typename remove_reference<T>::type* type; };
template <class T> using remove_const_t = typename remove_const<T>::type;
template <class T> using remove_volatile_t = typename remove_volatile<T>::type;
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class T> using add_const_t = typename add_const<T>::type;
template <class T> using add_pointer_t = typename add_pointer<T>::type;

template <class T> struct is_const : false_type {};
template <class T> struct is_const<const T> : true_type {};
template <class T> struct is_pointer_plain : false_type {};
template <class T> struct is_pointer_plain<T*> : true_type {};
template <class T> struct is_pointer : is_pointer_plain<typename remove_cv<T>::type> {};
template <class T> struct is_reference : false_type {};
template <class T> struct is_reference<T&> : true_type {};
template <class T> struct is_reference<T&&> : true_type {};
template <class T> struct is_void : is_same<void, typename remove_cv<T>::type> {};

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
template <class T> struct is_integral : is_integral_plain<typename remove_cv<T>::type> {};

template <class T> struct is_floating_point_plain : false_type {};
template <> struct is_floating_point_plain<float> : true_type {};
template <> struct is_floating_point_plain<double> : true_type {};
template <> struct is_floating_point_plain<long double> : true_type {};
template <class T> struct is_floating_point : is_floating_point_plain<typename remove_cv<T>::type> {};

template <class T> struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};
template <class T, bool = is_arithmetic<T>::value> struct is_signed_arith : bool_constant<T(-1) < T(0)> {};
template <class T> struct is_signed_arith<T, false> : false_type {};
template <class T> struct is_signed : is_signed_arith<typename remove_cv<T>::type> {};
template <class T> struct is_unsigned
    : bool_constant<is_arithmetic<T>::value && !is_signed<T>::value> {};

template <class T> struct decay { typedef typename remove_cv<typename remove_reference<T>::type>::type type; };
template <class T> using decay_t = typename decay<T>::type;

template <class T, class U> constexpr bool is_same_v = is_same<T, U>::value;
template <class T> constexpr bool is_const_v = is_const<T>::value;
template <class T> constexpr bool is_pointer_v = is_pointer<T>::value;
template <class T> constexpr bool is_reference_v = is_reference<T>::value;
template <class T> constexpr bool is_void_v = is_void<T>::value;
template <class T> constexpr bool is_integral_v = is_integral<T>::value;
template <class T> constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> constexpr bool is_signed_v = is_signed<T>::value;
template <class T> constexpr bool is_unsigned_v = is_unsigned<T>::value;

}  // namespace std

// The rest of <type_traits> (after what type_traits_nvrtc.h defines and
// hipRTC before ROCm 7 has): the cv and reference edits, conditional, the
// categories hipRTC lacks, and the _t and _v forms.
namespace std {

template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;

template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;

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
template <class T> struct is_unsigned : bool_constant<is_arithmetic<T>::value && !is_signed<T>::value> {};

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

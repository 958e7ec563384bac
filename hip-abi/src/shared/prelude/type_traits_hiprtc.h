// <type_traits> for AMD's hipRTC, from amdgpu-rs's portable kernel
// prelude.
//
// hipRTC before ROCm 7 defines part of <type_traits> in std itself
// (integral_constant, bool_constant, true_type, false_type, enable_if,
// is_same, is_integral, is_floating_point, is_arithmetic, is_signed,
// is_scalar), and the host's <type_traits>, which it finds on disk,
// defines them again ("redefinition of 'integral_constant'"). There the
// rest follows this text (type_traits_rest.h); from ROCm 7, whose hipRTC
// keeps its own in __hip_internal, the host's header is the one.
#pragma once

#if defined(HIP_VERSION_MAJOR) && HIP_VERSION_MAJOR < 7

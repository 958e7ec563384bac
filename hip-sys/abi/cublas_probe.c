/*
 * The cuBLAS ABI facts the rocBLAS mapping (backend/nvidia/cublas) relies
 * on, printed from cuBLAS's and CUDA's own headers: the numbers of every
 * enum value it passes, and the sizes of the complex types it passes by
 * pointer. Its output for each cuBLAS version is committed beside it
 * (cublas-<version>.txt) and checked by the unit tests of
 * `backend::nvidia::abi`.
 *
 *     cc -I<cuda>/include -I<cublas>/include hip-sys/abi/cublas_probe.c -o /tmp/cublas_probe
 *     /tmp/cublas_probe > hip-sys/abi/cublas-<major>.<minor>.txt
 *
 * <cuda>/include must hold CUDA's runtime, crt and cccl headers.
 */
#include <stdio.h>

#include <cublas_v2.h>

#define SIZE(T) printf("sizeof(%s) %zu\n", #T, sizeof(T))
#define VALUE(V) printf("%s %lld\n", #V, (long long)(V))

int main(void) {
    VALUE(CUBLAS_VER_MAJOR);

    SIZE(cuComplex);
    SIZE(cuDoubleComplex);
    SIZE(cublasStatus_t);

    VALUE(CUBLAS_STATUS_SUCCESS);
    VALUE(CUBLAS_STATUS_NOT_INITIALIZED);
    VALUE(CUBLAS_STATUS_ALLOC_FAILED);
    VALUE(CUBLAS_STATUS_INVALID_VALUE);
    VALUE(CUBLAS_STATUS_ARCH_MISMATCH);
    VALUE(CUBLAS_STATUS_MAPPING_ERROR);
    VALUE(CUBLAS_STATUS_EXECUTION_FAILED);
    VALUE(CUBLAS_STATUS_INTERNAL_ERROR);
    VALUE(CUBLAS_STATUS_NOT_SUPPORTED);
    VALUE(CUBLAS_STATUS_LICENSE_ERROR);

    VALUE(CUBLAS_OP_N);
    VALUE(CUBLAS_OP_T);
    VALUE(CUBLAS_OP_C);
    VALUE(CUBLAS_POINTER_MODE_HOST);
    VALUE(CUBLAS_POINTER_MODE_DEVICE);
    VALUE(CUBLAS_DEFAULT_MATH);
    VALUE(CUBLAS_TF32_TENSOR_OP_MATH);
    VALUE(CUBLAS_COMPUTE_32F);
    VALUE(CUBLAS_COMPUTE_32F_FAST_TF32);
    VALUE(CUBLAS_COMPUTE_64F);
    VALUE(CUBLAS_GEMM_DEFAULT);

    VALUE(CUDA_R_16F);
    VALUE(CUDA_R_32F);
    VALUE(CUDA_R_64F);
    VALUE(CUDA_C_32F);
    VALUE(CUDA_C_64F);
    VALUE(CUDA_R_16BF);

    VALUE(MAJOR_VERSION);
    VALUE(MINOR_VERSION);
    VALUE(PATCH_LEVEL);
    return 0;
}

// Test kernels for the nvidia backend, named and typed like the
// simulator's built-in kernels (hip_sys::sim::KERNELS). One thread per
// element: i = blockIdx.x * blockDim.x + threadIdx.x, guarded by i < n.
// See README.md for how test_kernels.ptx is generated from this file.

extern "C" __global__ void fill_f32(float* out, float value, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

extern "C" __global__ void fill_u32(unsigned* out, unsigned value, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value;
}

extern "C" __global__ void vector_add_f32(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void vector_add_f64(const double* a, const double* b, double* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void axpy_f32(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void axpy_f64(double a, const double* x, double* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

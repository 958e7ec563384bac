// A C face for PyTorch's CUDA caching allocator, for the allocator
// shoot-out (hip-pool/benches/shootout.rs). PyTorch is never a dependency
// of amdgpu-rs: this file is built only on a machine where the `torch`
// Python package is installed, and loaded at run time if it is given.
//
// Build (see build.sh beside this file):
//   g++ -O2 -std=c++17 -shared -fPIC torch_shim.cpp \
//       -I$TORCH/include -I$CUDA/include -L$TORCH/lib -lc10 -lc10_cuda \
//       -Wl,-rpath,$TORCH/lib -o libtorch_shim.so

#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime_api.h>

extern "C" {

// Initialise the allocator for every device; 0 on success.
int torch_shim_init() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        return 1;
    }
    c10::cuda::CUDACachingAllocator::init(count);
    return 0;
}

// Allocate `bytes` for use on `stream` (a cudaStream_t) of the current device.
void* torch_shim_alloc(size_t bytes, void* stream) {
    return c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, static_cast<cudaStream_t>(stream));
}

// Give a block back to PyTorch's cache.
void torch_shim_free(void* ptr) {
    c10::cuda::CUDACachingAllocator::raw_delete(ptr);
}

}

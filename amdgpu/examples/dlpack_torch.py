"""PyTorch and Rust sharing GPU memory through DLPack, with no copy.

Loads the `dlpack_bridge` example (a shared library) with ctypes:

    cargo build --release --example dlpack_bridge
    AMDGPU_BACKEND=nvidia python3 amdgpu/examples/dlpack_torch.py \
        target/release/examples/libdlpack_bridge.so

1. Rust makes an array 0..n and hands it to torch (`torch.from_dlpack`):
   torch's tensor has the array's device pointer, and Rust's pool keeps
   the memory until torch frees the tensor (DLPack's deleter).
2. torch hands a tensor to Rust (`__dlpack__`), which scales it in place
   with rocBLAS `scal` (cuBLAS on NVIDIA): torch sees the result in the
   same memory.
3. Where installed, CuPy both ways, and JAX from Rust (JAX asks for no
   DLPack version: it gets the unversioned struct of DLPack before 1.0).

Each step asserts the device pointer is the same on both sides. Prints
one line a step and exits non-zero on any failure.
"""

import ctypes
import sys

import torch

lib = ctypes.CDLL(sys.argv[1])
lib.amdgpu_bridge_arange_f32.restype = ctypes.c_void_p
lib.amdgpu_bridge_arange_f32.argtypes = [ctypes.c_size_t]
lib.amdgpu_bridge_scale_f32.restype = ctypes.c_int
lib.amdgpu_bridge_scale_f32.argtypes = [ctypes.c_void_p, ctypes.c_float]
lib.amdgpu_bridge_unversioned.restype = ctypes.c_void_p
lib.amdgpu_bridge_unversioned.argtypes = [ctypes.c_void_p]

capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.restype = ctypes.c_int
capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DLManagedTensorVersioned(ctypes.Structure):
    """The head of the struct, enough to read the data pointer."""

    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("data", ctypes.c_void_p),
    ]


KDL_DEVICE = 2 if torch.version.cuda else 10  # kDLCUDA, kDLROCM


class FromRust:
    """A producer object for torch.from_dlpack over a Rust tensor."""

    def __init__(self, pointer):
        self.pointer = pointer

    def __dlpack_device__(self):
        return (KDL_DEVICE, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # The upload was waited for in Rust, so any stream sees the data.
        if max_version is None or max_version[0] < 1:
            # A consumer that asks for no version (JAX) takes the
            # unversioned struct of DLPack before 1.0.
            unversioned = lib.amdgpu_bridge_unversioned(self.pointer)
            if not unversioned:
                raise BufferError("the bridge made no unversioned tensor (its stderr says why)")
            return capsule_new(unversioned, b"dltensor", None)
        return capsule_new(self.pointer, b"dltensor_versioned", None)


n = 1 << 20
raw = lib.amdgpu_bridge_arange_f32(n)
assert raw, "the bridge made no tensor"
rust_pointer = DLManagedTensorVersioned.from_address(raw).data
from_rust = torch.from_dlpack(FromRust(raw))
assert from_rust.data_ptr() == rust_pointer, (hex(from_rust.data_ptr()), hex(rust_pointer))
assert torch.equal(from_rust, torch.arange(n, dtype=torch.float32, device=from_rust.device))
print(f"rust -> torch: {n} floats at {rust_pointer:#x}, no copy, values 0..n")
del from_rust  # torch calls the deleter: the memory goes back to Rust's pool

t = torch.arange(n, dtype=torch.float32, device="cuda")
torch_pointer = t.data_ptr()
capsule = t.__dlpack__(stream=None, max_version=(1, 0))
name = b"dltensor_versioned"
managed = capsule_pointer(capsule, name)
assert DLManagedTensorVersioned.from_address(managed).data == torch_pointer
capsule_rename(capsule, b"used_" + name)  # the bridge owns it now
assert lib.amdgpu_bridge_scale_f32(managed, 2.0) == 0, "the bridge failed (its stderr says why)"
torch.cuda.synchronize()
assert t.data_ptr() == torch_pointer
assert torch.equal(t, 2 * torch.arange(n, dtype=torch.float32, device="cuda"))
print(f"torch -> rust: scaled in place by rocBLAS scal at {torch_pointer:#x}, no copy")

# CuPy and JAX take the same tensors, where they are installed.
try:
    import cupy
except ImportError:
    cupy = None
if cupy is not None:
    raw = lib.amdgpu_bridge_arange_f32(n)
    rust_pointer = DLManagedTensorVersioned.from_address(raw).data
    from_rust = cupy.from_dlpack(FromRust(raw))
    assert from_rust.data.ptr == rust_pointer, (hex(from_rust.data.ptr), hex(rust_pointer))
    assert bool((from_rust == cupy.arange(n, dtype=cupy.float32)).all())
    del from_rust
    c = cupy.arange(n, dtype=cupy.float32)
    capsule = c.__dlpack__(stream=None, max_version=(1, 0))
    managed = capsule_pointer(capsule, name)
    assert DLManagedTensorVersioned.from_address(managed).data == c.data.ptr
    capsule_rename(capsule, b"used_" + name)
    assert lib.amdgpu_bridge_scale_f32(managed, 3.0) == 0
    cupy.cuda.Device().synchronize()
    assert bool((c == 3 * cupy.arange(n, dtype=cupy.float32)).all())
    print(f"cupy <-> rust: both ways at {c.data.ptr:#x}, no copy")
try:
    import jax
    import jax.numpy as jnp
    gpu = [d for d in jax.devices() if d.platform == "gpu"]
except ImportError:
    gpu = []
if gpu:
    raw = lib.amdgpu_bridge_arange_f32(n)
    rust_pointer = DLManagedTensorVersioned.from_address(raw).data
    from_rust = jax.dlpack.from_dlpack(FromRust(raw))
    pointer = from_rust.unsafe_buffer_pointer()
    assert pointer == rust_pointer, (hex(pointer), hex(rust_pointer))
    assert bool(jnp.all(from_rust == jnp.arange(n, dtype=jnp.float32)))
    print(f"rust -> jax: {n} floats at {pointer:#x}, no copy")
print("dlpack bridge: ok")

//! Modules (loaded code objects) and their kernels.

use crate::{audit, raw, Device, DeviceMismatch, Result, Stream};
use hip_sys::{hipFunction_t, hipModule_t};
use std::ffi::c_void;
use std::sync::Arc;

struct Inner {
    handle: hipModule_t,
    device: Device,
}

// SAFETY: a HIP module handle may be used from any thread.
unsafe impl Send for Inner {}
// SAFETY: as above.
unsafe impl Sync for Inner {}

impl Drop for Inner {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        // SAFETY: the module is live and unloaded once, here (no Function
        // of it is left: each keeps this Inner alive).
        if let Err(error) = unsafe { raw::module::unload(self.device, self.handle) } {
            log::error!("unloading a module of {}: {error}", self.device);
        }
    }
}

/// What a graph keeps of a module its captured launches run.
struct Loaded(#[allow(dead_code, reason = "held, never read")] Arc<Inner>);

impl crate::capture::GraphResource for Loaded {
    fn observes_replays(&self) -> bool {
        false
    }
}

/// A code object loaded on one device. Unloaded when it and every
/// [`Function`] taken from it are dropped, under its device, from any thread.
#[derive(Clone)]
pub struct Module(Arc<Inner>);

impl Module {
    /// Load a code object on `device`: an AMD code object on the amd
    /// backend, PTX or a cubin on nvidia, a sim code object
    /// (`hip_sys::sim::code_object`) on the simulator. Loaded with
    /// `hipModuleLoadData`.
    ///
    /// # Errors
    /// HIP's status of `hipModuleLoadData`, or of binding `device`, as
    /// [`HipError::Call`](crate::HipError::Call), e.g. for code of another
    /// architecture; [`HipError::Backend`](crate::HipError::Backend) when no
    /// backend loads.
    ///
    /// # Examples
    /// ```
    /// use hip_core::{Device, Module};
    ///
    /// if hip_sys::backend() != hip_sys::Backend::Sim {
    ///     return Ok(()); // elsewhere the image is a code object compiled for the device
    /// }
    /// let image = hip_sys::sim::code_object(&["fill_f32"]);
    /// let module = Module::load(Device::new(0)?, &image)?;
    /// assert_eq!(module.function("fill_f32")?.name(), "fill_f32");
    /// # Ok::<(), hip_core::HipError>(())
    /// ```
    #[doc(alias = "hipModuleLoadData")]
    pub fn load(device: Device, image: &[u8]) -> Result<Module> {
        let handle = raw::module::load(device, image)?;
        Ok(Module(Arc::new(Inner { handle, device })))
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> Device {
        self.0.device
    }

    /// The kernel called `name` (`hipModuleGetFunction`).
    ///
    /// # Errors
    /// HIP's status of `hipModuleGetFunction`, or of binding the module's
    /// device, as [`HipError::Call`](crate::HipError::Call): e.g.
    /// `hipErrorNotFound` for a name the module lacks, `hipErrorInvalidValue`
    /// for a name holding a NUL byte.
    #[doc(alias = "hipModuleGetFunction")]
    pub fn function(&self, name: &str) -> Result<Function> {
        // SAFETY: a live module (borrowed) of its device.
        let handle = unsafe { raw::module::function(self.0.device, self.0.handle, name) }?;
        Ok(Function { handle, module: self.0.clone(), name: name.to_string() })
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({:p} on device {})", self.0.handle, self.0.device.ordinal())
    }
}

/// Grid and block sizes and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_memory: u32,
}

impl LaunchConfig {
    /// A 1-D launch of at least `n` threads in blocks of `block` threads.
    pub fn for_elements(n: usize, block: u32) -> LaunchConfig {
        let block = block.max(1);
        let blocks = n.div_ceil(block as usize).clamp(1, u32::MAX as usize) as u32;
        LaunchConfig { grid: [blocks, 1, 1], block: [block, 1, 1], shared_memory: 0 }
    }
}

/// A value that can be passed to a kernel: plain data whose bytes are the
/// kernel parameter.
///
/// # Safety
/// The value's memory must be exactly the C representation of the kernel
/// parameter it is passed for.
pub unsafe trait KernelArg {
    /// A pointer to the value, as `kernelParams` wants it.
    fn as_kernel_param(&self) -> *mut c_void {
        self as *const Self as *mut c_void
    }
}

macro_rules! kernel_args {
    ($($t:ty),*) => { $(
        // SAFETY: a plain scalar is its own C representation.
        unsafe impl KernelArg for $t {}
    )* };
}
kernel_args!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);
// SAFETY: a raw pointer is a C pointer.
unsafe impl<T> KernelArg for *mut T {}
// SAFETY: a raw pointer is a C pointer.
unsafe impl<T> KernelArg for *const T {}

/// A kernel of a loaded [`Module`]; keeps the module loaded.
pub struct Function {
    handle: hipFunction_t,
    module: Arc<Inner>,
    name: String,
}

// SAFETY: a HIP function handle may be used from any thread.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

impl Function {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device of the kernel's module.
    pub fn device(&self) -> Device {
        self.module.device
    }

    /// Launch the kernel on `stream` (`hipModuleLaunchKernel`), which must be
    /// on the kernel's device (else a typed error naming both).
    ///
    /// # Errors
    /// As [`Function::launch_params`].
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number, order and type,
    /// and every pointer argument must be valid for what the kernel does
    /// with it until the launch has completed on `stream`.
    #[doc(alias = "hipModuleLaunchKernel")]
    pub unsafe fn launch(&self, config: LaunchConfig, stream: &Stream, args: &[&dyn KernelArg]) -> Result<()> {
        // Up to `STACK_ARGS` parameters live on the stack: no allocation.
        const STACK_ARGS: usize = 16;
        let mut on_stack = [std::ptr::null_mut::<c_void>(); STACK_ARGS];
        let mut on_heap = Vec::new();
        let params: &mut [*mut c_void] = if args.len() <= STACK_ARGS {
            &mut on_stack[..args.len()]
        } else {
            on_heap.extend(std::iter::repeat_n(std::ptr::null_mut(), args.len()));
            &mut on_heap
        };
        for (param, arg) in params.iter_mut().zip(args) {
            *param = arg.as_kernel_param();
        }
        // SAFETY: the caller's guarantee, passed on; `params` points at the
        // arguments, which outlive the call.
        unsafe { self.launch_params(config, stream, params) }
    }

    /// Launch the kernel on `stream` (of the kernel's device) with
    /// `params` as `hipModuleLaunchKernel`'s `kernelParams`: one pointer
    /// to each argument's value. Allocates nothing.
    ///
    /// # Errors
    /// [`HipError::DeviceMismatch`](crate::HipError::DeviceMismatch) when
    /// `stream` is on another device (nothing is launched); else HIP's
    /// status of `hipModuleLaunchKernel`, or of binding the device, e.g.
    /// `hipErrorInvalidValue` for a configuration the device refuses.
    ///
    /// # Safety
    /// `params` must hold one pointer per kernel parameter, in order, each
    /// to a value of exactly the parameter's C type, readable for the
    /// call; every device pointer among the values must be valid for what
    /// the kernel does with it until the launch has completed on `stream`.
    #[doc(alias = "hipModuleLaunchKernel")]
    pub unsafe fn launch_params(
        &self,
        config: LaunchConfig,
        stream: &Stream,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        DeviceMismatch::check("Function::launch", "the stream", self.device(), stream.device())?;
        #[cfg(feature = "tracing")]
        let _span = tracing::trace_span!(
            "launch",
            kernel = %self.name,
            device = ?self.device(),
            stream = ?stream.id(),
            grid = ?config.grid,
            block = ?config.block
        )
        .entered();
        if crate::underway::underway() {
            self.keep_for_capture(stream)?;
        }
        let (grid, block, shared_memory) = (config.grid, config.block, config.shared_memory);
        // SAFETY: a live function (its module is kept loaded by `self`) and
        // stream, both of the kernel's device (checked above); the caller
        // vouches for the arguments.
        unsafe { raw::module::launch(self.device(), self.handle, grid, block, shared_memory, stream.as_raw(), params) }
    }

    /// A launch on a capturing stream: the graph keeps the module loaded
    /// while it, or an executable graph made of it, lives.
    #[cold]
    fn keep_for_capture(&self, stream: &Stream) -> Result<()> {
        if let Some(scope) = crate::capture::of(stream)? {
            scope.keep(Arc::as_ptr(&self.module) as usize, || Loaded(self.module.clone()));
        }
        Ok(())
    }
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({} on device {})", self.name, self.module.device.ordinal())
    }
}

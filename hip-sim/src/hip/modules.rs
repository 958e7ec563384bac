//! Modules and kernel launches: `hipModuleLoadData`, `hipModuleUnload`,
//! `hipModuleGetFunction`, `hipModuleLaunchKernel`.

use crate::bindings::hip::{hipError_t, hipFunction_t, hipModule_t, hipStream_t};
use crate::cpu;
use crate::entry::{call, write_out};
use crate::kernels::{self, Arg, KernelInfo, Param};
use crate::machine::calls::idx;
use crate::machine::handles::new_handle;
use crate::machine::limits::{max_grid_yz, MAX_GRID_X, MAX_SHARED_MEMORY, MAX_THREADS_PER_BLOCK};
use crate::machine::lock::lock;
use crate::machine::node_kind::NodeKind;
use crate::machine::sim;
use crate::machine::thread::current_device;
use crate::machine::violations;
use crate::submit::{self, Op};
use crate::targets;
use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};

struct ModuleObj {
    device: usize,
    /// A code object's built-in kernels, by name.
    kernels: Vec<&'static KernelInfo>,
    /// A program compiled for the CPU.
    compiled: Option<Arc<cpu::module::Module>>,
}

/// What a function runs.
#[derive(Clone)]
enum Code {
    /// A kernel of the registry.
    Builtin(&'static KernelInfo),
    /// A kernel compiled for the CPU.
    Compiled(Arc<cpu::module::Kernel>),
}

#[derive(Clone)]
struct FunctionObj {
    module: usize,
    device: usize,
    kernel: Code,
}

#[derive(Default)]
struct Registry {
    modules: HashMap<usize, ModuleObj>,
    functions: HashMap<usize, FunctionObj>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    f(lock(&REGISTRY).get_or_insert_with(Registry::default))
}

pub(crate) unsafe extern "C" fn hipModuleLoadData(module: *mut hipModule_t, image: *const c_void) -> hipError_t {
    call(idx!("hipModuleLoadData"), || {
        if module.is_null() || image.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: the caller passes a code object: NUL-terminated text, or
        // a compiled one whole (the documented formats); non-null.
        let (kernels, compiled) = if unsafe { cpu::object::is_object(image.cast()) } {
            // SAFETY: as above, a compiled code object.
            let so = unsafe { cpu::object::shared_object(image.cast()) }.ok_or(hipError_t::hipErrorInvalidImage)?;
            (Vec::new(), Some(cpu::module::load(so)?))
        } else {
            // SAFETY: as above, NUL-terminated text.
            let text = unsafe { CStr::from_ptr(image as *const c_char) };
            (kernels::parse_code_object(text.to_str().map_err(|_| hipError_t::hipErrorInvalidImage)?)?, None)
        };
        let handle = new_handle();
        with_registry(|r| r.modules.insert(handle, ModuleObj { device: current_device(), kernels, compiled }));
        // SAFETY: checked non-null.
        unsafe { write_out(module, handle as hipModule_t) }
    })
}

pub(crate) unsafe extern "C" fn hipModuleUnload(module: hipModule_t) -> hipError_t {
    call(idx!("hipModuleUnload"), || {
        if module.is_null() {
            return Err(hipError_t::hipErrorInvalidResourceHandle);
        }
        let id = module as usize;
        let device = with_registry(|r| {
            let removed = r.modules.remove(&id)?;
            r.functions.retain(|_, f| f.module != id);
            Some(removed.device)
        })
        .ok_or(hipError_t::hipErrorNotFound)?;
        violations::check("hipModuleUnload", device);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn hipModuleGetFunction(
    function: *mut hipFunction_t,
    module: hipModule_t,
    name: *const c_char,
) -> hipError_t {
    call(idx!("hipModuleGetFunction"), || {
        if function.is_null() || name.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: non-null, and the caller passes a NUL-terminated name.
        let name = unsafe { CStr::from_ptr(name) };
        if name.is_empty() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if module.is_null() {
            return Err(hipError_t::hipErrorInvalidResourceHandle);
        }
        let name = name.to_str().map_err(|_| hipError_t::hipErrorNotFound)?;
        let id = module as usize;
        let (device, kernel) = with_registry(|r| {
            let m = r.modules.get(&id)?;
            let builtin = m.kernels.iter().copied().find(|k| k.name == name).map(Code::Builtin);
            let compiled = || m.compiled.as_ref()?.kernels.iter().find(|k| k.name == name).cloned().map(Code::Compiled);
            Some((m.device, builtin.or_else(compiled)))
        })
        .ok_or(hipError_t::hipErrorInvalidResourceHandle)?;
        if current_device() != device {
            // Real HIP aborts the process here ("Device mismatch").
            violations::check("hipModuleGetFunction", device);
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        let kernel = kernel.ok_or(hipError_t::hipErrorNotFound)?;
        let handle = new_handle();
        with_registry(|r| r.functions.insert(handle, FunctionObj { module: id, device, kernel }));
        // SAFETY: checked non-null.
        unsafe { write_out(function, handle as hipFunction_t) }
    })
}

/// Read the launch arguments: `params[i]` points at argument `i`.
///
/// # Safety
/// `params` holds one valid pointer per kernel parameter, each to a value
/// of that parameter's size.
unsafe fn read_args(kernel: &KernelInfo, params: *mut *mut c_void) -> Result<Vec<Arg>, hipError_t> {
    if kernel.params.is_empty() {
        return Ok(Vec::new());
    }
    if params.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let mut args = Vec::with_capacity(kernel.params.len());
    for (i, param) in kernel.params.iter().enumerate() {
        // SAFETY: the caller guarantees one entry per parameter.
        let value = unsafe { *params.add(i) };
        if value.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: the entry points at a value of the parameter's size;
        // read_unaligned because C gives no alignment promise here.
        let arg = unsafe {
            match param {
                Param::Ptr => Arg::Ptr(std::ptr::read_unaligned(value as *const usize)),
                Param::F32 => Arg::F32(std::ptr::read_unaligned(value as *const f32)),
                Param::F64 => Arg::F64(std::ptr::read_unaligned(value as *const f64)),
                Param::U32 => Arg::U32(std::ptr::read_unaligned(value as *const u32)),
            }
        };
        args.push(arg);
    }
    Ok(args)
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn hipModuleLaunchKernel(
    function: hipFunction_t,
    grid_x: u32,
    grid_y: u32,
    grid_z: u32,
    block_x: u32,
    block_y: u32,
    block_z: u32,
    shared_mem_bytes: u32,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    call(idx!("hipModuleLaunchKernel"), || {
        let major = sim().config.hip_major;
        let unknown_stream =
            if major >= 7 { hipError_t::hipErrorContextIsDestroyed } else { hipError_t::hipErrorInvalidValue };
        let queue = targets::target_or(stream, unknown_stream)?;
        let grid = [grid_x, grid_y, grid_z];
        let block_dims = [block_x, block_y, block_z];
        if grid_x > MAX_GRID_X || grid_y > max_grid_yz(major) || grid_z > max_grid_yz(major) {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if u64::from(grid_x) * u64::from(block_x) > u64::from(u32::MAX) {
            // HIP 5.7's check; 7.x wraps the global size silently instead.
            return Err(hipError_t::hipErrorInvalidConfiguration);
        }
        let zero = grid.contains(&0) || block_dims.contains(&0);
        // Saturating: three u32s overflow a u64, and a saturated block is refused.
        let block = block_dims.iter().fold(1u64, |n, d| n.saturating_mul(u64::from(*d)));
        if major >= 7 && (zero || block > MAX_THREADS_PER_BLOCK || shared_mem_bytes > MAX_SHARED_MEMORY) {
            // 7.x checks the configuration before the function.
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if function.is_null() {
            return Err(hipError_t::hipErrorInvalidImage);
        }
        let f = with_registry(|r| r.functions.get(&(function as usize)).cloned())
            .ok_or(hipError_t::hipErrorInvalidResourceHandle)?;
        if zero {
            // ihipLaunchKernel_validate: 5.7 InvalidValue, 6.x InvalidConfiguration.
            return Err(if major == 6 {
                hipError_t::hipErrorInvalidConfiguration
            } else {
                hipError_t::hipErrorInvalidValue
            });
        }
        if shared_mem_bytes > MAX_SHARED_MEMORY || block > MAX_THREADS_PER_BLOCK {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        if !extra.is_null() {
            return Err(hipError_t::hipErrorNotSupported);
        }
        violations::check("hipModuleLaunchKernel", queue.device);
        if major >= 7 && queue.device != current_device() {
            // 7.x ihipModuleLaunchKernel: the stream must be on the current device.
            return Err(hipError_t::hipErrorInvalidResourceHandle);
        }
        if queue.device != f.device {
            return Err(hipError_t::hipErrorInvalidDevice);
        }
        let threads =
            [grid_x, grid_y, grid_z].iter().fold(block, |n, g| n.saturating_mul(u64::from(*g))).min(usize::MAX as u64)
                as usize;
        let launch = kernels::Launch {
            device: queue.device,
            function: "hipModuleLaunchKernel",
            thread: violations::thread_name().into(),
        };
        let kernel = match f.kernel {
            Code::Builtin(kernel) => kernel,
            Code::Compiled(kernel) => {
                // SAFETY: the caller passes one argument pointer per parameter.
                let args = unsafe { compiled_args(&kernel, kernel_params)? };
                let dims = cpu::run::Dims {
                    grid,
                    block: block_dims,
                    dynamic_shared: shared_mem_bytes,
                    warp_size: sim().config.targets[queue.device].warp_size(),
                    watchdog: sim().config.watchdog,
                };
                let (plan, accesses) = cpu::run::plan(&kernel, &args, queue.device);
                let name = crate::library::function_name(format_args!("{}", kernel.name));
                let op = Op { node: Some(NodeKind::Kernel(name)), ..Op::with("hipModuleLaunchKernel", accesses) };
                return submit::submit(&queue, false, op, move || {
                    cpu::run::run(&kernel, &args, dims, sim().config.cores, &launch, &plan)
                });
            }
        };
        // SAFETY: the caller passes one argument pointer per parameter.
        let args = unsafe { read_args(kernel, kernel_params)? };
        let op = Op {
            node: Some(NodeKind::Kernel(kernel.name)),
            ..Op::with("hipModuleLaunchKernel", kernels::launch_accesses(kernel, &args, threads))
        };
        submit::submit(&queue, false, op, move || kernel.run(&args, threads, launch.clone()))
    })
}

/// A compiled kernel's arguments: `params[i]` points at parameter `i`'s
/// bytes, as many as its size.
///
/// # Safety
/// `params` holds one valid pointer per parameter, each to as many bytes
/// as the parameter's size.
unsafe fn compiled_args(kernel: &cpu::module::Kernel, params: *mut *mut c_void) -> Result<Vec<Vec<u8>>, hipError_t> {
    if kernel.sizes.is_empty() {
        return Ok(Vec::new());
    }
    if params.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    let mut args = Vec::with_capacity(kernel.sizes.len());
    for (i, &size) in kernel.sizes.iter().enumerate() {
        // SAFETY: the caller guarantees one entry per parameter.
        let value = unsafe { *params.add(i) };
        if value.is_null() {
            return Err(hipError_t::hipErrorInvalidValue);
        }
        // SAFETY: the entry points at `size` bytes (the caller's guarantee).
        args.push(unsafe { std::slice::from_raw_parts(value.cast::<u8>(), size) }.to_vec());
    }
    Ok(args)
}

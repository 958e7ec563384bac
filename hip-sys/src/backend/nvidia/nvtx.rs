//! ROCTx over NVTX: the nvidia backend's [`RoctxApi`], so that profiler
//! ranges and marks reach Nsight Systems and Nsight Compute.
//!
//! NVTX v3 has no library to load: its C API is a header that each
//! program instantiates, and a *tool* attaches to the program through
//! NVTX's injection protocol. This file is that protocol done in Rust,
//! from the facts of NVIDIA's NVTX v3 headers (`nvtxDetail/nvtxInit.h`,
//! `nvtxImpl.h`, `nvtxTypes.h`):
//!
//! 1. A tool that wants the program's annotations names its library in
//!    `NVTX_INJECTION64_PATH` (Nsight Systems, and Nsight Compute with
//!    `--nvtx`, set it for the programs they launch). Unset: no tool, and
//!    every NVTX call is a no-op.
//! 2. The program loads that library and calls its
//!    `int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t)`; 0 is a
//!    failure, after which the library is unloaded and nothing is attached.
//! 3. In that call the tool asks the program's `GetExportTable` for
//!    `NVTX_ETID_CALLBACKS` (1), a `{size_t struct_size;
//!    GetModuleFunctionTable}`, and `NVTX_ETID_VERSIONINFO` (3), a
//!    `{size_t struct_size; uint32_t version; uint32_t reserved;
//!    SetInjectionNvtxVersion}` with version 3; any other id is null.
//! 4. `int GetModuleFunctionTable(module, &table, &size)` answers, for
//!    each of the six modules (core 1, CUDA 2, OpenCL 3, CUDA runtime 4,
//!    core2 5, sync 6; 0 for any other), an array of pointers to the
//!    program's function-pointer *slots*, one a callback id, whose first
//!    and last entries are null, and `size` = its length − 1. The tool
//!    writes its functions into the slots it implements; the others stay
//!    null, and those calls are no-ops (a push or pop then returns
//!    `NVTX_NO_PUSH_POP_TRACKING`, −2).
//!
//! ROCTx's three functions are NVTX's core `nvtxMarkA` (id 2),
//! `nvtxRangePushA` (9) and `nvtxRangePop` (11), of the same C signatures
//! and return values (the level a range starts at, or a negative value).
//! Once the tool has attached, the table holds the tool's own functions,
//! so a range costs what NVTX's inline wrapper costs: one indirect call.

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use crate::backend::loader::open_first;
use crate::roctx::RoctxApi;
use crate::BackendError;

/// The variable a tool names its injection library in (64-bit programs).
pub(crate) const INJECTION_VARIABLE: &str = "NVTX_INJECTION64_PATH";
/// The entry point an injection library exports.
const INITIALIZE: &str = "InitializeInjectionNvtx2";

/// `NvtxGetExportTableFunc_t`.
type GetExportTable = unsafe extern "C" fn(export_table_id: u32) -> *const c_void;
/// `NvtxInitializeInjectionNvtxFunc_t`: the tool's entry point.
pub(crate) type InitializeInjection = unsafe extern "C" fn(get_export_table: GetExportTable) -> c_int;
/// `NvtxFunctionTable`, as `GetModuleFunctionTable` hands it out: an
/// array of pointers to function-pointer slots.
type FunctionTable = *mut *mut *mut c_void;

/// `nvtxMarkA`, `nvtxRangePushA`, `nvtxRangePop`: ROCTx's signatures.
type Mark = unsafe extern "C" fn(*const c_char);
type Push = unsafe extern "C" fn(*const c_char) -> c_int;
type Pop = unsafe extern "C" fn() -> c_int;

/// `NVTX_ETID_CALLBACKS`.
const ETID_CALLBACKS: u32 = 1;
/// `NVTX_ETID_VERSIONINFO`.
const ETID_VERSIONINFO: u32 = 3;
/// `NVTX_VERSION` of the headers this follows.
const NVTX_VERSION: u32 = 3;
/// `NVTX_NO_PUSH_POP_TRACKING`: what a push or pop returns with no tool.
const NO_PUSH_POP_TRACKING: c_int = -2;

/// `NvtxExportTableCallbacks`.
#[repr(C)]
struct ExportTableCallbacks {
    struct_size: usize,
    get_module_function_table:
        unsafe extern "C" fn(module: c_int, out_table: *mut FunctionTable, out_size: *mut c_uint) -> c_int,
}

/// `NvtxExportTableVersionInfo`.
#[repr(C)]
struct ExportTableVersionInfo {
    struct_size: usize,
    version: u32,
    reserved0: u32,
    set_injection_nvtx_version: unsafe extern "C" fn(version: u32),
}

static CALLBACKS: ExportTableCallbacks =
    ExportTableCallbacks { struct_size: size_of::<ExportTableCallbacks>(), get_module_function_table };

static VERSION_INFO: ExportTableVersionInfo = ExportTableVersionInfo {
    struct_size: size_of::<ExportTableVersionInfo>(),
    version: NVTX_VERSION,
    reserved0: 0,
    set_injection_nvtx_version,
};

/// The callback ids of each module (`NVTX_CBID_*_SIZE` − 1), by module
/// number − 1: core, CUDA, OpenCL, CUDA runtime, core2, sync.
const MODULE_IDS: [usize; 6] = [15, 8, 14, 6, 15, 6];
/// All slots of all modules, one after the other.
const SLOT_COUNT: usize = 15 + 8 + 14 + 6 + 15 + 6;
/// The core module's slots `nvtxMarkA`, `nvtxRangePushA`, `nvtxRangePop`.
const CORE_MARK_A: usize = 2;
const CORE_RANGE_PUSH_A: usize = 9;
const CORE_RANGE_POP: usize = 11;

/// The program's function-pointer slots, written by the tool while it
/// initialises (null: not implemented).
static SLOTS: [AtomicPtr<c_void>; SLOT_COUNT] = [const { AtomicPtr::new(null_mut()) }; SLOT_COUNT];

/// Each module's table of pointers to its slots (null first and last),
/// built once.
static TABLES: OnceLock<[Vec<AtomicPtr<*mut c_void>>; 6]> = OnceLock::new();

fn tables() -> &'static [Vec<AtomicPtr<*mut c_void>>; 6] {
    TABLES.get_or_init(|| {
        let mut first = 0;
        MODULE_IDS.map(|ids| {
            let mut table: Vec<AtomicPtr<*mut c_void>> = Vec::with_capacity(ids + 2);
            table.push(AtomicPtr::new(null_mut()));
            table.extend(SLOTS[first..first + ids].iter().map(|slot| AtomicPtr::new(slot.as_ptr())));
            table.push(AtomicPtr::new(null_mut()));
            first += ids;
            table
        })
    })
}

/// `nvtxGetExportTable`.
unsafe extern "C" fn get_export_table(export_table_id: u32) -> *const c_void {
    match export_table_id {
        ETID_CALLBACKS => (&raw const CALLBACKS).cast(),
        ETID_VERSIONINFO => (&raw const VERSION_INFO).cast(),
        _ => std::ptr::null(),
    }
}

/// `nvtxEtiGetModuleFunctionTable`.
unsafe extern "C" fn get_module_function_table(
    module: c_int,
    out_table: *mut FunctionTable,
    out_size: *mut c_uint,
) -> c_int {
    let Some(table) = usize::try_from(module).ok().and_then(|m| m.checked_sub(1)).and_then(|m| tables().get(m)) else {
        return 0;
    };
    if !out_size.is_null() {
        // SAFETY: the tool passes a writable `unsigned int` or null.
        unsafe { out_size.write(c_uint::try_from(table.len() - 1).unwrap_or(0)) };
    }
    if !out_table.is_null() {
        // SAFETY: the tool passes a writable table pointer or null; an
        // `AtomicPtr<T>` has the layout of `*mut T`, so the vector is the
        // array of slot pointers NVTX's tables are.
        unsafe { out_table.write(table.as_ptr().cast_mut().cast()) };
    }
    1
}

/// `nvtxEtiSetInjectionNvtxVersion`: reserved, as in NVTX's own.
unsafe extern "C" fn set_injection_nvtx_version(_version: u32) {}

/// Without a tool's `nvtxMarkA`.
unsafe extern "C" fn no_mark(_message: *const c_char) {}
/// Without a tool's `nvtxRangePushA`.
unsafe extern "C" fn no_push(_message: *const c_char) -> c_int {
    NO_PUSH_POP_TRACKING
}
/// Without a tool's `nvtxRangePop`.
unsafe extern "C" fn no_pop() -> c_int {
    NO_PUSH_POP_TRACKING
}

/// What to do when no tool is attached or the one named cannot be used.
const HINT: &str = "run the program under Nsight Systems (`nsys profile`) or Nsight Compute (`ncu --nvtx`), \
                    which name their NVTX injection library in NVTX_INJECTION64_PATH; without one, profiler \
                    ranges are no-ops";

/// ROCTx's table over the NVTX tool named in `NVTX_INJECTION64_PATH`.
pub(crate) fn table() -> Result<&'static RoctxApi, BackendError> {
    load(std::env::var_os(INJECTION_VARIABLE).map(|p| p.to_string_lossy().into_owned()))
}

/// [`table`] with the variable holding `path`.
fn load(path: Option<String>) -> Result<&'static RoctxApi, BackendError> {
    let Some(path) = path.filter(|p| !p.trim().is_empty()) else {
        return Err(BackendError::LibraryUnavailable {
            library: "NVTX".to_owned(),
            hint: format!("no NVTX tool is attached ({INJECTION_VARIABLE} is unset): {HINT}"),
        });
    };
    let opened = open_first("the NVTX injection library", &[path], HINT, HINT)?;
    let entry = opened.symbol(INITIALIZE)?;
    // SAFETY: `InitializeInjectionNvtx2` has NVTX's
    // `NvtxInitializeInjectionNvtxFunc_t` signature in every injection
    // library (the protocol above); function and data pointers have one
    // size.
    let entry = unsafe { std::mem::transmute::<*const c_void, InitializeInjection>(entry) };
    let api = attach(entry).map_err(|()| BackendError::LibraryUnavailable {
        library: "NVTX".to_owned(),
        hint: format!("the tool's {INITIALIZE} in {} returned 0 (it did not attach): {HINT}", opened.path()),
    })?;
    log::debug!("profiler ranges go to the NVTX tool {}", opened.path());
    opened.keep();
    Ok(Box::leak(Box::new(api)))
}

/// Hand the tool this program's export table and build ROCTx's table from
/// the slots it filled; `Err` if its entry point returned 0, with every
/// slot null again.
pub(crate) fn attach(initialize: InitializeInjection) -> Result<RoctxApi, ()> {
    tables();
    // SAFETY: the entry point of an injection library, called once with
    // NVTX's export-table function, as NVTX's own initialisation does.
    if unsafe { initialize(get_export_table) } == 0 {
        for slot in &SLOTS {
            slot.store(null_mut(), Ordering::Relaxed);
        }
        return Err(());
    }
    // The tool wrote its slots during that call, on this thread; those it
    // left null are no-ops.
    let slot = |id: usize| SLOTS[id - 1].load(Ordering::Relaxed);
    let (mark, push, pop) = (slot(CORE_MARK_A), slot(CORE_RANGE_PUSH_A), slot(CORE_RANGE_POP));
    // SAFETY: a tool writes into each core slot a function of that
    // callback id's C signature (`nvtxTypes.h`): `void(const char*)`,
    // `int(const char*)` and `int(void)`, the same as ROCTx's three; the
    // library stays loaded. Null slots get the no-ops.
    unsafe {
        Ok(RoctxApi {
            roctxMarkA: if mark.is_null() { no_mark } else { std::mem::transmute::<*mut c_void, Mark>(mark) },
            roctxRangePushA: if push.is_null() { no_push } else { std::mem::transmute::<*mut c_void, Push>(push) },
            roctxRangePop: if pop.is_null() { no_pop } else { std::mem::transmute::<*mut c_void, Pop>(pop) },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicI32;
    use std::sync::Mutex;

    /// What the fake tool below saw.
    static CALLS: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static DEPTH: AtomicI32 = AtomicI32::new(0);

    unsafe extern "C" fn tool_mark(message: *const c_char) {
        // SAFETY: ROCTx's callers pass NUL-terminated messages.
        let m = unsafe { std::ffi::CStr::from_ptr(message) }.to_string_lossy().into_owned();
        CALLS.lock().unwrap().push(format!("mark {m}"));
    }
    unsafe extern "C" fn tool_push(message: *const c_char) -> c_int {
        // SAFETY: as above.
        let m = unsafe { std::ffi::CStr::from_ptr(message) }.to_string_lossy().into_owned();
        CALLS.lock().unwrap().push(format!("push {m}"));
        DEPTH.fetch_add(1, Ordering::Relaxed)
    }

    /// A tool as Nsight's injection does it: it reads the version, takes
    /// the core table and writes `nvtxMarkA` and `nvtxRangePushA` only.
    unsafe extern "C" fn tool_initialize(get: GetExportTable) -> c_int {
        // SAFETY: the export tables this file hands out, read with their
        // layouts; the slots written have the callbacks' signatures.
        unsafe {
            let version = get(ETID_VERSIONINFO).cast::<ExportTableVersionInfo>();
            assert_eq!((*version).struct_size, 24);
            assert_eq!((*version).version, 3);
            ((*version).set_injection_nvtx_version)(3);
            let callbacks = get(ETID_CALLBACKS).cast::<ExportTableCallbacks>();
            assert_eq!((*callbacks).struct_size, 16);
            assert!(get(2).is_null() && get(0).is_null());
            let mut table: FunctionTable = null_mut();
            let mut size = 0;
            assert_eq!(((*callbacks).get_module_function_table)(1, &mut table, &mut size), 1);
            assert_eq!(size, 16, "NVTX_CBID_CORE_SIZE");
            assert!((*table).is_null() && (*table.add(16)).is_null());
            *(*table.add(CORE_MARK_A)) = tool_mark as *mut c_void;
            *(*table.add(CORE_RANGE_PUSH_A)) = tool_push as *mut c_void;
            for (module, ids) in (1..=6).zip(MODULE_IDS) {
                assert_eq!(((*callbacks).get_module_function_table)(module, &mut table, &mut size), 1);
                assert_eq!(size as usize, ids + 1);
                assert!((1..=ids).all(|i| !(*table.add(i)).is_null()), "every slot of module {module}");
            }
            assert_eq!(((*callbacks).get_module_function_table)(7, &mut table, &mut size), 0);
            assert_eq!(((*callbacks).get_module_function_table)(0, null_mut(), null_mut()), 0);
        }
        1
    }

    unsafe extern "C" fn refusing_tool(get: GetExportTable) -> c_int {
        // SAFETY: as above; it writes a slot and then fails.
        unsafe {
            let callbacks = get(ETID_CALLBACKS).cast::<ExportTableCallbacks>();
            let mut table: FunctionTable = null_mut();
            ((*callbacks).get_module_function_table)(1, &mut table, null_mut());
            *(*table.add(CORE_RANGE_POP)) = tool_mark as *mut c_void;
        }
        0
    }

    /// One test: the slots are the process's, as NVTX's globals are.
    #[test]
    fn a_tool_attaches_through_the_injection_protocol() {
        assert!(attach(refusing_tool).is_err());
        assert!(SLOTS.iter().all(|s| s.load(Ordering::Relaxed).is_null()), "a failed tool leaves no slot");

        let api = attach(tool_initialize).expect("the tool attached");
        // SAFETY: NUL-terminated messages; the table's functions.
        let (first, second, popped) = unsafe {
            (api.roctxMarkA)(c"here".as_ptr());
            ((api.roctxRangePushA)(c"outer".as_ptr()), (api.roctxRangePushA)(c"inner".as_ptr()), (api.roctxRangePop)())
        };
        assert_eq!((first, second), (0, 1), "the tool's levels come back");
        assert_eq!(popped, NO_PUSH_POP_TRACKING, "a slot the tool left null is a no-op");
        assert_eq!(*CALLS.lock().unwrap(), ["mark here", "push outer", "push inner"]);
    }

    #[test]
    fn without_a_tool_ranges_are_no_ops_saying_how_to_attach_one() {
        for unset in [None, Some(" ".to_owned())] {
            let err = load(unset).expect_err("no tool");
            let BackendError::LibraryUnavailable { library, hint } = &err else { panic!("{err:?}") };
            assert_eq!(library, "NVTX");
            assert!(hint.contains("NVTX_INJECTION64_PATH is unset") && hint.contains("nsys"), "{hint}");
        }
    }

    #[test]
    fn a_library_that_is_no_tool_is_an_error_naming_the_entry_point() {
        let err = load(Some("/nonexistent/libToolsInjection64.so".to_owned())).expect_err("absent");
        assert!(matches!(&err, BackendError::LibraryNotFound { .. }), "{err:?}");
        let err = load(Some("libc.so.6".to_owned())).expect_err("libc is no tool");
        let BackendError::SymbolMissing { symbol, .. } = &err else { panic!("{err:?}") };
        assert_eq!(symbol, INITIALIZE);
    }
}

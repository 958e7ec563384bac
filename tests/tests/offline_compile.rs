//! The vendors' real compilers judge the HIP we ship, with no GPU: every
//! kernel file, and every kernel source written in the project's docs and
//! code, compiles with AMD's hipRTC through `Program::compile_for` for
//! gfx90a (CDNA2, wave64) and gfx1030 (RDNA2, wave32), into an amdgcn code
//! object for that target; the portable prelude covers what it promises
//! under hipRTC and under NVRTC.
//!
//! AMD's hipRTC runs with no GPU (Debian's `libamdhip64-5` is enough:
//! `apt-get install libamdhip64-5`), NVRTC too (`libnvrtc.so.13` or `.12` on
//! the loader's path). Where one is absent its tests skip and say so,
//! unless `AMDGPU_REQUIRE_HIPRTC` (CI sets it) or `AMDGPU_REQUIRE_NVRTC`
//! is set, which makes its absence a failure.

use std::path::{Path, PathBuf};

use hip_core::{CodeKind, HipError, Program, Target};
use hip_sys::CompilerKind;

/// Whether the compiler `kind` can be used here; `false` (after saying
/// why) when the test should skip. `require` names the variable that
/// makes its absence a failure.
fn present(kind: CompilerKind, require: &str) -> bool {
    match hip_sys::compiler_of(kind) {
        Ok(compiler) => {
            eprintln!("{kind}: {} (hiprtcVersion {:?})", compiler.library, compiler.version);
            true
        }
        Err(error) if std::env::var_os(require).is_some() => {
            panic!("{require} is set but {kind} does not load: {error}")
        }
        Err(error) => {
            eprintln!("skipped: {kind} is not installed ({error})");
            false
        }
    }
}

fn hiprtc_present() -> bool {
    present(CompilerKind::Hiprtc, "AMDGPU_REQUIRE_HIPRTC")
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace holds the tests crate").to_owned()
}

/// The text of a Rust string literal that starts right after its opening
/// quote in `text`, unescaped (the escapes kernel sources use).
fn string_literal(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '\'' => out.push('\''),
                // A line continuation skips the next line's indentation.
                '\n' => while chars.next_if(|c| c.is_whitespace()).is_some() {},
                other => {
                    out.push('\\');
                    out.push(other);
                }
            },
            c => out.push(c),
        }
    }
    None
}

/// Every `Program::new("...")` literal holding a `__global__` kernel in
/// `text` (the file `path`), with where it was found.
fn kernels_in_text(path: &Path, text: &str, out: &mut Vec<(String, String)>) {
    for (at, _) in text.match_indices("Program::new(\"") {
        let Some(source) = string_literal(&text[at + "Program::new(\"".len()..]) else { continue };
        if source.contains("__global__") {
            let line = text[..at].lines().count() + 1;
            out.push((format!("{}:{line}", path.strip_prefix(workspace()).unwrap_or(path).display()), source));
        }
    }
}

/// The kernels of [`kernels_in_text`] in the Rust sources and Markdown
/// under `dir`, and its `.hip` files.
fn literal_kernels(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if !matches!(name, "target" | ".git" | "fuzz") {
                literal_kernels(&path, out);
            }
            continue;
        }
        if name.ends_with(".hip") {
            // A kernel file a crate embeds (`include_str!`): all of it.
            let text = std::fs::read_to_string(&path).expect("readable");
            out.push((path.strip_prefix(workspace()).unwrap_or(&path).display().to_string(), text));
            continue;
        }
        if !(name.ends_with(".rs") || name.ends_with(".md")) {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            kernels_in_text(&path, &text, out);
        }
    }
}

/// Every HIP source the project ships: the kernel files, then the kernels
/// written in its docs and code (the tests' own deliberately broken
/// programs excepted).
fn shipped_sources() -> Vec<(String, String)> {
    let root = workspace();
    let mut sources = Vec::new();
    let kernels = root.join("hip-sys/kernels");
    let mut files: Vec<_> = std::fs::read_dir(&kernels).expect("hip-sys/kernels").flatten().map(|e| e.path()).collect();
    files.sort();
    for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "hip")) {
        let text = std::fs::read_to_string(&path).expect("readable");
        sources.push((path.strip_prefix(&root).unwrap_or(&path).display().to_string(), text));
    }
    for dir in ["hip-sys/src", "hip-core/src", "hip-pool/src", "hip-libs/src", "amdgpu/src", "amdgpu/examples"] {
        literal_kernels(&root.join(dir), &mut sources);
    }
    let readme = root.join("README.md");
    kernels_in_text(&readme, &std::fs::read_to_string(&readme).expect("the README"), &mut sources);
    sources
}

/// The processor each test target's code objects name.
const TARGETS: [(&str, &str); 2] = [("gfx90a", "gfx90a"), ("gfx1030", "gfx1030")];

#[test]
fn every_shipped_hip_source_compiles_with_amds_hiprtc_for_cdna_and_rdna() {
    if !hiprtc_present() {
        return;
    }
    let sources = shipped_sources();
    assert!(sources.iter().any(|(name, _)| name.ends_with("rtc_kernels.hip")), "{sources:?}");
    assert!(
        sources.len() >= 3,
        "the kernel file and the doc examples: {:?}",
        sources.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    let mut failures = Vec::new();
    for (name, source) in &sources {
        for (target, processor) in TARGETS {
            let target: Target = target.parse().expect("a target");
            let mut program = Program::new(source.clone()).name(name.clone());
            if source.contains("template <typename T>") && source.contains("axpy") {
                program = program.name_expression("axpy<float>").name_expression("axpy<double>");
            }
            match program.compile_for(&target) {
                Ok(code) => {
                    let kind = code.kind();
                    let CodeKind::AmdCodeObject { processor: found, .. } = &kind else {
                        failures.push(format!("{name} for {target}: not an amdgcn code object ({kind})"));
                        continue;
                    };
                    if found != processor {
                        failures.push(format!("{name} for {target}: a code object for {found}"));
                    }
                    if code.target() != target.to_string() {
                        failures.push(format!("{name} for {target}: Code::target says {}", code.target()));
                    }
                    println!("{name:50} {target:24} {:>7} bytes  {kind}", code.bytes().len());
                }
                Err(error) => failures.push(format!("{name} for {target}: {error}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} compilations failed:\n{}",
        failures.len(),
        sources.len() * TARGETS.len(),
        failures.join("\n")
    );
}

#[test]
fn target_features_reach_the_code_object() {
    if !hiprtc_present() {
        return;
    }
    let program = Program::new("extern \"C\" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }");
    for (target, xnack, sramecc) in [
        ("gfx90a", None, None),
        ("gfx90a:xnack+", Some(true), None),
        ("gfx90a:sramecc+:xnack-", Some(false), Some(true)),
    ] {
        let code = program.compile_for(&target.parse().expect("a target")).unwrap_or_else(|e| panic!("{target}: {e}"));
        let CodeKind::AmdCodeObject { processor, xnack: x, sramecc: s, .. } = code.kind() else {
            panic!("{target}: {}", code.kind())
        };
        assert_eq!((processor.as_str(), x, s), ("gfx90a", xnack, sramecc), "{target}");
    }
}

#[test]
fn a_processor_the_compiler_does_not_know_is_an_error_not_a_crash() {
    if !hiprtc_present() {
        return;
    }
    // hipRTC 5.2 (comgr 2.4) predates gfx942 and aborts the process when
    // asked for it; a newer one compiles it.
    let compiler = hip_sys::compiler_of(CompilerKind::Hiprtc).expect("present");
    let program = Program::new("extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }");
    for name in ["gfx942:sramecc+:xnack-", "gfx9999"] {
        let target: Target = name.parse().expect("a well-formed target");
        let Target::Amd(amd) = &target else { unreachable!() };
        match program.compile_for(&target) {
            Ok(code) => {
                assert!(compiler.knows(amd.processor()), "{name}");
                assert!(
                    matches!(code.kind(), CodeKind::AmdCodeObject { ref processor, .. } if processor == amd.processor())
                );
            }
            Err(error) => {
                let text = error.to_string();
                assert!(text.contains("does not compile for") && text.contains("gfx90a"), "{text}");
            }
        }
    }
    assert!(compiler.processors.is_some_and(|list| list.contains(&"gfx90a") && list.contains(&"gfx1030")));
}

/// `result` of compiling the surface program, with the entries of
/// [`hip_sys::SURFACE`] a compiler's errors point at named.
fn surface_compiled<T>(result: Result<T, HipError>, compiler: &str) -> T {
    result.unwrap_or_else(|e| {
        let text = e.to_string();
        let mut named: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("error"))
            .filter_map(|l| l.split(':').nth(1).and_then(|n| n.trim().parse().ok()))
            .filter_map(hip_sys::surface_entry_at)
            .collect();
        named.sort_unstable();
        named.dedup();
        panic!("{compiler} lacks part of the kernel language's one list: {named:?}\n{text}")
    })
}

/// A kernel that uses the standard headers the preludes give (the host's
/// where hipRTC finds them).
const STANDARD: &str = r#"
#include <type_traits>
#include <limits>
template <typename T, typename = std::enable_if_t<std::is_floating_point_v<T>>>
__global__ void clamp_all(T* x, uint32_t n) {
    static_assert(std::is_same<std::remove_cv_t<const T>, T>::value, "cv edits");
    static_assert(std::numeric_limits<int32_t>::max() == 2147483647, "limits");
    static_assert(!std::is_signed<uint64_t>::value && std::is_integral_v<int64_t>, "categories");
    static_assert(std::is_same_v<std::decay_t<const T&>, T> && std::is_unsigned_v<uint32_t>, "_v and _t forms");
    static_assert(std::is_same_v<std::conditional_t<true, T, int>, T> && !std::is_pointer_v<T>, "conditional");
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !(x[i] < std::numeric_limits<T>::max())) { x[i] = std::numeric_limits<T>::lowest(); }
}
template __global__ void clamp_all<float>(float*, uint32_t);
"#;

#[test]
fn the_prelude_covers_what_kernels_use_on_amd() {
    if !hiprtc_present() {
        return;
    }
    let program = hip_sys::surface_program();
    for target in ["gfx90a", "gfx1030"] {
        let code = surface_compiled(
            Program::new(&program).name("surface.hip").compile_for(&target.parse().expect("a target")),
            target,
        );
        assert!(matches!(code.kind(), CodeKind::AmdCodeObject { .. }), "{target}: {}", code.kind());
        // <type_traits> with its _v forms: before ROCm 7 the host's clashes
        // with hipRTC's own part of std, and the prelude's completes it.
        let code = Program::new(STANDARD)
            .name("standard.hip")
            .compile_for(&target.parse().expect("a target"))
            .unwrap_or_else(|e| panic!("standard.hip for {target}: {e}"));
        assert!(matches!(code.kind(), CodeKind::AmdCodeObject { .. }), "{target}: {}", code.kind());
    }
}

#[test]
fn the_prelude_covers_what_kernels_use_on_the_simulator() {
    if hip_sys::backend() != hip_sys::Backend::Sim {
        return;
    }
    match hip_sys::sim::cxx_compiler() {
        Err(why) if std::env::var("AMDGPU_SIM_REQUIRE_CXX").as_deref() == Ok("1") => panic!("{why}"),
        Err(why) => return eprintln!("skipped: {why}"),
        Ok(_) => {}
    }
    let device = hip_core::Device::new(0).expect("a device");
    // The simulator is HIP 7 unless told otherwise: the _sync intrinsics
    // are there, and compiled.
    let program = hip_sys::surface_program()
        + "\nstatic_assert(AMDGPU_RS_WARP_SYNC == (HIP_VERSION_MAJOR >= 7), \"the _sync intrinsics from HIP 7\");\n";
    surface_compiled(Program::new(&program).name("surface.hip").compile(device), "the simulator's C++ compiler");
    // As C++20 too, where the prelude also checks that what a kernel
    // reads of where it runs needs no initializing at run time (constinit).
    surface_compiled(
        Program::new(&program).name("surface.hip").options(["-std=c++20"]).compile(device),
        "the simulator's C++ compiler, as C++20",
    );
    Program::new(STANDARD).name("standard.hip").compile(device).unwrap_or_else(|e| panic!("standard.hip: {e}"));
}

#[test]
fn the_prelude_covers_what_kernels_use_under_nvrtc() {
    if !present(CompilerKind::Nvrtc, "AMDGPU_REQUIRE_NVRTC") {
        return;
    }

    let surface = hip_sys::surface_program() + "\nstatic_assert(AMDGPU_RS_WARP_SYNC == 1, \"CUDA's own\");\n";
    for (name, source) in [("surface.hip", surface.as_str()), ("standard.hip", STANDARD)] {
        for target in ["sm_90", "sm_80", "compute_90"] {
            let code = surface_compiled(
                Program::new(source).name(name).compile_for(&target.parse().expect("a target")),
                &format!("NVRTC for {target} ({name})"),
            );
            let expected = if target.starts_with("sm_") { CodeKind::Cubin } else { CodeKind::Ptx };
            assert_eq!(code.kind(), expected, "{name} for {target}");
        }
    }
}

#[test]
fn a_broken_kernel_and_a_conflicting_architecture_are_compile_errors_with_logs() {
    if !hiprtc_present() {
        return;
    }
    let target: Target = "gfx90a".parse().expect("a target");
    let error = Program::new("extern \"C\" __global__ void k(float* x) { x[0] = undeclared; }")
        .name("broken.hip")
        .compile_for(&target)
        .unwrap_err();
    let HipError::Compile(compile) = &error else { panic!("{error:?}") };
    assert!(compile.log.contains("undeclared"), "the log names the error: {}", compile.log);
    assert_eq!((compile.program.as_str(), compile.target.as_str()), ("broken.hip", "gfx90a"));

    let error = Program::new("extern \"C\" __global__ void k() {}")
        .option("--offload-arch=gfx1030")
        .compile_for(&target)
        .unwrap_err();
    assert!(error.to_string().contains("remove the option"), "{error}");
}

#[test]
fn the_raw_hiprtc_table_adds_the_prelude_and_refuses_an_unknown_processor_instead_of_aborting() {
    if !hiprtc_present() {
        return;
    }
    let compiler = hip_sys::compiler_of(CompilerKind::Hiprtc).expect("present");
    if compiler.processors.is_none() {
        eprintln!("skipped: this hipRTC's comgr lists no processors, so nothing can be checked");
        return;
    }
    let api = compiler.api;
    let mut program: hip_sys::hiprtc::hiprtcProgram = std::ptr::null_mut();
    // The raw table adds the prelude too: the include and the prelude's
    // names compile with no header given.
    let source =
        c"#include <hip/hip_runtime.h>\nextern \"C\" __global__ void k(float* x, uint8_t b) { x[hipThreadIdx_x] = b; }";
    // SAFETY: a valid out-pointer and C strings; no headers.
    let created = unsafe {
        (api.hiprtcCreateProgram)(
            &mut program,
            source.as_ptr(),
            c"k.hip".as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(created, hip_sys::hiprtc::hiprtcResult::HIPRTC_SUCCESS);
    for (option, expected) in [
        (c"--offload-arch=gfx9999", hip_sys::hiprtc::hiprtcResult::HIPRTC_ERROR_INVALID_OPTION),
        (c"--gpu-architecture=gfx9999:xnack+", hip_sys::hiprtc::hiprtcResult::HIPRTC_ERROR_INVALID_OPTION),
        (c"--offload-arch=gfx90a", hip_sys::hiprtc::hiprtcResult::HIPRTC_SUCCESS),
    ] {
        let mut options = [option.as_ptr()];
        // SAFETY: a live program and one C string.
        let status = unsafe { (api.hiprtcCompileProgram)(program, 1, options.as_mut_ptr()) };
        assert_eq!(status, expected, "{option:?}");
    }
    // SAFETY: a live program, destroyed once.
    assert_eq!(unsafe { (api.hiprtcDestroyProgram)(&mut program) }, hip_sys::hiprtc::hiprtcResult::HIPRTC_SUCCESS);
}

/// Compiles `source` (a kernel template `k`) for gfx90a through the raw
/// table `api`, with `k<float>` as a name expression: the compile's status
/// and the code's size.
fn raw_compile(api: &hip_sys::hiprtc::HiprtcApi, source: &std::ffi::CStr) -> (hip_sys::hiprtc::hiprtcResult, usize) {
    use hip_sys::hiprtc::hiprtcResult;
    let mut program: hip_sys::hiprtc::hiprtcProgram = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and C strings; no headers.
    let created = unsafe {
        (api.hiprtcCreateProgram)(
            &mut program,
            source.as_ptr(),
            c"k.hip".as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(created, hiprtcResult::HIPRTC_SUCCESS);
    // SAFETY: a live program and a C string.
    let added = unsafe { (api.hiprtcAddNameExpression)(program, c"k<float>".as_ptr()) };
    assert_eq!(added, hiprtcResult::HIPRTC_SUCCESS);
    let mut options = [c"--offload-arch=gfx90a".as_ptr()];
    // SAFETY: a live program and one C string.
    let status = unsafe { (api.hiprtcCompileProgram)(program, 1, options.as_mut_ptr()) };
    let mut size = 0;
    if status == hiprtcResult::HIPRTC_SUCCESS {
        // SAFETY: a compiled program; a valid out-pointer.
        assert_eq!(unsafe { (api.hiprtcGetCodeSize)(program, &mut size) }, hiprtcResult::HIPRTC_SUCCESS);
        let mut lowered = std::ptr::null();
        // SAFETY: a compiled program, the expression added, a valid out-pointer.
        let found = unsafe { (api.hiprtcGetLoweredName)(program, c"k<float>".as_ptr(), &mut lowered) };
        assert_eq!(found, hiprtcResult::HIPRTC_SUCCESS);
        assert!(!lowered.is_null());
    }
    // SAFETY: a live program, destroyed once.
    assert_eq!(unsafe { (api.hiprtcDestroyProgram)(&mut program) }, hiprtcResult::HIPRTC_SUCCESS);
    (status, size)
}

/// hipRTC 5.2 runs LLVM with no lock: two compilations at once abort the
/// process, and so does a name expression added beside a compilation. The
/// table takes one lock for every call on a program, so six threads
/// compiling through the raw table, beside compilations through `Program`,
/// all finish with code. (Without the lock, 2 runs in 10 of this test
/// alone abort here with hipRTC 5.2; with it, none in 40.)
#[test]
fn the_raw_hiprtc_table_can_be_called_from_many_threads_at_once() {
    if !hiprtc_present() {
        return;
    }
    let api = hip_sys::compiler_of(CompilerKind::Hiprtc).expect("present").api;
    let target: Target = "gfx1030".parse().expect("a target");
    std::thread::scope(|scope| {
        let raw: Vec<_> = (0..6)
            .map(|i| {
                scope.spawn(move || {
                    let source = std::ffi::CString::new(format!(
                        "template <typename T> __global__ void k(T* x) {{ x[threadIdx.x] = T({i}) * x[blockIdx.x]; }}"
                    ))
                    .expect("no NUL");
                    (0..4).map(|_| raw_compile(api, &source)).collect::<Vec<_>>()
                })
            })
            .collect();
        let typed = scope.spawn(|| {
            (0..3)
                .map(|_| Program::new("extern \"C\" __global__ void k() {}").compile_for(&target).map(|c| c.kind()))
                .collect::<Vec<_>>()
        });
        for thread in raw {
            for (status, size) in thread.join().expect("no panic") {
                assert_eq!(status, hip_sys::hiprtc::hiprtcResult::HIPRTC_SUCCESS);
                assert!(size > 0, "code came back");
            }
        }
        for kind in typed.join().expect("no panic") {
            assert!(matches!(kind, Ok(CodeKind::AmdCodeObject { .. })), "{kind:?}");
        }
    });
}

//! Selecting the process's backend (the rules are in the
//! [module docs](mod@crate::backend)), and asking it for its providers: the
//! one place that names every backend.

use std::sync::OnceLock;

#[cfg(feature = "amd")]
use super::amd;
#[cfg(feature = "nvidia")]
use super::nvidia;
use super::provider::Provider;
#[cfg(feature = "sim")]
use super::sim;
use super::Backend;
use crate::bindings::hip::HipApi;
use crate::BackendError;

/// The environment variable that forces a backend.
pub const BACKEND_ENV: &str = "AMDGPU_BACKEND";

/// The outcome of selection, kept for the process.
struct Selection {
    /// The backend chosen, or the one that was asked for or tried when
    /// selection failed.
    backend: Backend,
    /// The backend's table, or why there is none.
    api: Result<&'static HipApi, BackendError>,
}

/// The process's selection, made on first use.
static SELECTION: OnceLock<Selection> = OnceLock::new();

fn selected() -> &'static Selection {
    SELECTION.get_or_init(select)
}

/// The process's HIP function table.
///
/// The first call selects the backend (see the [module docs](mod@crate::backend)); later
/// calls cost one atomic load. The error, if any, is the same on every
/// call.
pub fn hip() -> Result<&'static HipApi, BackendError> {
    selected().api.clone()
}

/// The process's backend.
///
/// If selection failed, this is the backend that was forced with
/// `AMDGPU_BACKEND` (or, when detecting, the one that was being set up when
/// it failed, which is [`Backend::Sim`]); for an `AMDGPU_BACKEND` value
/// that names no backend it is [`Backend::Sim`]. Use [`selection()`] to see
/// whether it works.
pub fn backend() -> Backend {
    selected().backend
}

/// Whether the thread's last error keeps the last *failure* until it is
/// read (HIP 7 and CUDA), rather than the status of the last call, success
/// included (HIP 5 and 6, whose `HIP_RETURN` stores every result).
///
/// `true` on the nvidia backend; on amd and the simulator, whether
/// `hipRuntimeGetVersion` reports 7.0 or later. `false` without a backend.
pub fn last_error_is_sticky() -> bool {
    let Ok(api) = hip() else { return false };
    if backend() == Backend::Nvidia {
        return true;
    }
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    let status = unsafe { (api.hipRuntimeGetVersion)(&mut version) };
    status == crate::bindings::hip::hipError_t::hipSuccess && version >= 70_000_000
}

/// The full target id of device `ordinal` where the backend knows one
/// beyond its architecture number: on amd, the device's `gcnArchName`
/// (`gfx942:sramecc+:xnack-`, whose features decide which code objects
/// load). `None` on nvidia and the simulator (`sm_XY` and `sim` say it
/// all) and where it cannot be read. Each call asks the runtime;
/// `hip_core::Device::target` keeps the answer per device.
pub fn device_target_id(ordinal: usize) -> Option<String> {
    match backend() {
        #[cfg(feature = "amd")]
        Backend::Amd if hip().is_ok() => amd::target_id(ordinal),
        _ => {
            let _ = ordinal;
            None
        }
    }
}

/// The process's backend, or why none could be set up.
pub fn selection() -> Result<Backend, BackendError> {
    let s = selected();
    s.api.as_ref().map(|_| s.backend).map_err(Clone::clone)
}

/// Select the backend from the environment and set it up.
fn select() -> Selection {
    let forced = std::env::var(BACKEND_ENV).ok();
    match choose(forced.as_deref(), load_amd, load_nvidia) {
        Ok(Choice::Amd(api)) => Selection { backend: Backend::Amd, api: Ok(api) },
        Ok(Choice::Nvidia(api)) => Selection { backend: Backend::Nvidia, api: Ok(api) },
        Ok(Choice::Sim { notice }) => Selection { backend: Backend::Sim, api: set_up_sim(notice) },
        Err((backend, e)) => Selection { backend, api: Err(e) },
    }
}

/// What [`choose`] decided.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Choice<A, N> {
    /// Use the AMD runtime, with what its probe returned.
    Amd(A),
    /// Use CUDA, with what its probe returned.
    Nvidia(N),
    /// Use the simulator; `notice` is the line to print on stderr when it
    /// was reached by falling back.
    Sim {
        /// The fallback notice, `None` when the simulator was forced.
        notice: Option<String>,
    },
}

/// Decide the backend from the value of `AMDGPU_BACKEND` and the probes,
/// without touching the process's selection.
///
/// Each probe is called at most once: when its backend is forced or while
/// detecting (amd first, nvidia only if amd fails). An error carries the
/// backend that was asked for (or [`Backend::Sim`] for a value that names
/// none).
pub(crate) fn choose<A, N>(
    env_value: Option<&str>,
    probe_amd: impl FnOnce() -> Result<A, BackendError>,
    probe_nvidia: impl FnOnce() -> Result<N, BackendError>,
) -> Result<Choice<A, N>, (Backend, BackendError)> {
    let forced = env_value.filter(|v| !v.trim().is_empty());
    if let Some(value) = forced {
        let backend = value.parse::<Backend>().map_err(|e| (Backend::Sim, e))?;
        return match backend {
            Backend::Amd => probe_amd().map(Choice::Amd).map_err(|e| (backend, e)),
            Backend::Nvidia => probe_nvidia().map(Choice::Nvidia).map_err(|e| (backend, e)),
            Backend::Sim => Ok(Choice::Sim { notice: None }),
        };
    }
    let amd_error = match probe_amd() {
        Ok(t) => return Ok(Choice::Amd(t)),
        Err(e) => e,
    };
    let nvidia_error = match probe_nvidia() {
        Ok(t) => return Ok(Choice::Nvidia(t)),
        Err(e) => e,
    };
    Ok(Choice::Sim {
        notice: Some(format!(
            "amdgpu: no AMD GPU runtime found ({}), no NVIDIA GPU runtime found ({}){FALLBACK_END}",
            short_reason(&amd_error),
            short_reason(&nvidia_error)
        )),
    })
}

/// A few words on why a backend was passed over, for the one-line notice.
fn short_reason(e: &BackendError) -> String {
    match e {
        BackendError::LibraryNotFound { library, tried, .. } => {
            format!("{library} not found in {} places", tried.len())
        }
        BackendError::SymbolMissing { library, symbol, .. } => format!("{library} lacks {symbol}"),
        BackendError::UnsupportedVersion { library, found, .. } => {
            format!("{library} is unsupported version {found}")
        }
        BackendError::BackendUnavailable { reason, .. } => {
            reason.split_once(". To fix:").map_or(reason.as_str(), |(head, _)| head).to_owned()
        }
        other => other.to_string(),
    }
}

/// How the fallback notice ends, after why no GPU runtime was used.
const FALLBACK_END: &str = "; using the HIP simulator (set AMDGPU_BACKEND to choose)";

/// The amd backend's HIP table (the `amd` feature).
#[cfg(feature = "amd")]
fn load_amd() -> Result<&'static HipApi, BackendError> {
    amd::load()
}

/// The nvidia backend's HIP table (the `nvidia` feature).
#[cfg(feature = "nvidia")]
fn load_nvidia() -> Result<&'static HipApi, BackendError> {
    nvidia::load()
}

/// Without the `amd` feature there is no amd backend: the error says so.
#[cfg(not(feature = "amd"))]
fn load_amd() -> Result<&'static HipApi, BackendError> {
    Err(feature_off(Backend::Amd, "amd"))
}

/// Without the `nvidia` feature there is no nvidia backend: the error says
/// so.
#[cfg(not(feature = "nvidia"))]
fn load_nvidia() -> Result<&'static HipApi, BackendError> {
    Err(feature_off(Backend::Nvidia, "nvidia"))
}

/// The error of a backend whose cargo feature is off: what is missing and
/// how to build it in.
#[cfg(not(all(feature = "amd", feature = "nvidia")))]
fn feature_off(backend: Backend, feature: &str) -> BackendError {
    BackendError::BackendUnavailable {
        backend,
        reason: format!(
            "hip-sys was built without its `{feature}` feature. To fix: build hip-sys with it (on by default: drop \
             `default-features = false`, or add `features = [\"{feature}\"]`)"
        ),
    }
}

/// AMD's hipRTC on its own (the `amd` feature), for compiling with no GPU.
pub(crate) fn hiprtc_compiler() -> Result<&'static crate::shared::compiler::Compiler, BackendError> {
    // The backend is chosen first: an amd runtime, if the process uses
    // one, decides which installation's hipRTC loads.
    let _ = selection();
    #[cfg(feature = "amd")]
    return amd::hiprtc_compiler();
    #[cfg(not(feature = "amd"))]
    Err(feature_off(Backend::Amd, "amd"))
}

/// NVRTC behind hipRTC's table (the `nvidia` feature).
pub(crate) fn nvrtc_compiler() -> Result<&'static crate::shared::compiler::Compiler, BackendError> {
    #[cfg(feature = "nvidia")]
    return nvidia::nvrtc_compiler();
    #[cfg(not(feature = "nvidia"))]
    Err(feature_off(Backend::Nvidia, "nvidia"))
}

/// Set up the simulator, after printing the fallback notice if detection
/// fell back to it.
#[cfg(feature = "sim")]
fn set_up_sim(notice: Option<String>) -> Result<&'static HipApi, BackendError> {
    if let Some(line) = notice {
        eprintln!("{line}");
    }
    sim::configure_from_env().map(|()| sim::api())
}

/// Without the `sim` feature there is no simulator to set up: the error
/// says so, why it was chosen, and how to build it in.
#[cfg(not(feature = "sim"))]
fn set_up_sim(notice: Option<String>) -> Result<&'static HipApi, BackendError> {
    Err(sim_feature_off(notice.as_deref()))
}

/// The error of choosing the simulator in a build without it; `notice` is
/// the fallback notice when detection chose it, `None` when it was forced.
#[cfg(not(feature = "sim"))]
fn sim_feature_off(notice: Option<&str>) -> BackendError {
    let why = match notice {
        None => format!("{BACKEND_ENV}=sim asks for it"),
        Some(line) => {
            let reasons = line.strip_prefix("amdgpu: ").and_then(|l| l.strip_suffix(FALLBACK_END)).unwrap_or(line);
            format!("detection found no GPU runtime to use instead ({reasons})")
        }
    };
    BackendError::BackendUnavailable {
        backend: Backend::Sim,
        reason: format!(
            "hip-sys was built without its `sim` feature, so this program has no HIP simulator, and {why}. To fix: \
             build hip-sys with the `sim` feature (on by default: drop `default-features = false`, or add \
             `features = [\"sim\"]`), or run where an AMD or NVIDIA GPU runtime works and set {BACKEND_ENV}=amd or nvidia"
        ),
    }
}

/// The provider of the process's backend, which fills the library tables
/// ([`crate::libraries`]); the selection's error if there is no backend.
pub(crate) fn provider() -> Result<&'static Provider, BackendError> {
    provider_of(selection())
}

/// Which provider serves a selection: each backend its own. This and the
/// selection above are the only code that names every backend.
fn provider_of(selection: Result<Backend, BackendError>) -> Result<&'static Provider, BackendError> {
    match selection? {
        #[cfg(feature = "amd")]
        Backend::Amd => Ok(&amd::PROVIDER),
        #[cfg(feature = "nvidia")]
        Backend::Nvidia => Ok(&nvidia::PROVIDER),
        // Selection never succeeds with a backend whose feature is off.
        #[cfg(not(feature = "amd"))]
        Backend::Amd => Err(feature_off(Backend::Amd, "amd")),
        #[cfg(not(feature = "nvidia"))]
        Backend::Nvidia => Err(feature_off(Backend::Nvidia, "nvidia")),
        #[cfg(feature = "sim")]
        Backend::Sim => Ok(&sim::PROVIDER),
        // Selection never succeeds with the simulator in a build without it.
        #[cfg(not(feature = "sim"))]
        Backend::Sim => Err(sim_feature_off(None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_runtime() -> Result<u32, BackendError> {
        #[cfg(feature = "amd")]
        return amd::load_from(&["/nonexistent/amdgpu-rs/libamdhip64.so".to_owned()]).map(|_| 0);
        #[cfg(not(feature = "amd"))]
        Err(feature_off(Backend::Amd, "amd"))
    }

    fn no_cuda() -> Result<u32, BackendError> {
        #[cfg(feature = "nvidia")]
        return nvidia::load_from(&["/nonexistent/amdgpu-rs/libcudart.so".to_owned()], &[]).map(|_| 0);
        #[cfg(not(feature = "nvidia"))]
        Err(feature_off(Backend::Nvidia, "nvidia"))
    }

    fn unreachable_probe() -> Result<u32, BackendError> {
        panic!("the AMD probe must not run here")
    }

    fn unreachable_nvidia() -> Result<u32, BackendError> {
        panic!("the nvidia probe must not run here")
    }

    #[test]
    fn a_backend_built_out_is_an_error_that_names_its_feature() {
        for (backend, feature, built) in
            [(Backend::Amd, "amd", cfg!(feature = "amd")), (Backend::Nvidia, "nvidia", cfg!(feature = "nvidia"))]
        {
            let forced = choose(Some(feature), no_runtime, no_cuda).map(|_| ()).unwrap_err();
            assert_eq!(forced.0, backend);
            assert_eq!(forced.1.to_string().contains(&format!("`{feature}` feature")), !built, "{}", forced.1);
        }
    }

    #[test]
    fn each_backend_chooses_its_source() {
        let of = |b: Backend| provider_of(Ok(b)).map(|p| p as *const Provider);
        #[cfg(feature = "amd")]
        assert_eq!(of(Backend::Amd), Ok(&amd::PROVIDER as *const Provider));
        #[cfg(feature = "nvidia")]
        assert_eq!(of(Backend::Nvidia), Ok(&nvidia::PROVIDER as *const Provider));
        #[cfg(feature = "sim")]
        assert_eq!(of(Backend::Sim), Ok(&sim::PROVIDER as *const Provider));
        // A backend whose feature is off has no provider, and says why.
        #[cfg(not(feature = "amd"))]
        assert!(of(Backend::Amd).is_err_and(|e| e.to_string().contains("`amd` feature")));
        #[cfg(not(feature = "nvidia"))]
        assert!(of(Backend::Nvidia).is_err_and(|e| e.to_string().contains("`nvidia` feature")));
        let failed = BackendError::InvalidBackend { value: "x".to_owned() };
        assert_eq!(provider_of(Err(failed.clone())).map(|p| p as *const Provider), Err(failed));
    }

    #[test]
    #[cfg(all(not(feature = "sim"), feature = "amd", feature = "nvidia"))]
    fn without_the_sim_feature_choosing_the_simulator_says_how_to_build_it_in() {
        let forced = set_up_sim(None).expect_err("no simulator");
        let Ok(Choice::Sim { notice }) = choose(None, no_runtime, no_cuda) else {
            panic!("detection ends at the simulator");
        };
        let detected = set_up_sim(notice).expect_err("no simulator");
        for err in [&forced, &detected] {
            assert!(matches!(err, BackendError::BackendUnavailable { backend: Backend::Sim, .. }), "{err:?}");
            let message = err.to_string();
            assert!(message.contains("`sim` feature") && message.contains("To fix:"), "{message}");
            assert!(!message.contains("using the HIP simulator"), "{message}");
        }
        assert!(forced.to_string().contains("AMDGPU_BACKEND=sim asks for it"), "{forced}");
        assert!(detected.to_string().contains("libcudart not found in 1 places"), "{detected}");
        assert_eq!(provider_of(Ok(Backend::Sim)).map(|_| ()), Err(forced));
    }

    #[test]
    fn backend_parsing_round_trips() {
        for b in Backend::ALL {
            assert_eq!(b.to_string().parse::<Backend>(), Ok(b));
            assert_eq!(b.name().to_uppercase().parse::<Backend>(), Ok(b));
            assert_eq!(format!("  {b}\n").parse::<Backend>(), Ok(b));
        }
        assert_eq!("Amd".parse::<Backend>(), Ok(Backend::Amd));
        assert_eq!("NVIDIA".parse::<Backend>(), Ok(Backend::Nvidia));
        assert_eq!(Backend::Sim.to_string(), "sim");
    }

    #[test]
    fn invalid_backend_lists_the_accepted_values() {
        for bad in ["bogus", "rocm", "cuda", "amd,sim", ""] {
            let err = bad.parse::<Backend>().expect_err("not a backend");
            assert_eq!(err, BackendError::InvalidBackend { value: bad.to_owned() });
            let message = err.to_string();
            for name in ["amd", "nvidia", "sim", "AMDGPU_BACKEND"] {
                assert!(message.contains(name), "{message} mentions {name}");
            }
        }
    }

    #[test]
    fn forced_invalid_value_is_an_error_without_probing() {
        let (backend, err) = choose(Some("bogus"), unreachable_probe, unreachable_nvidia).expect_err("error");
        assert_eq!(backend, Backend::Sim);
        assert!(matches!(err, BackendError::InvalidBackend { ref value } if value == "bogus"));
    }

    // The notice names the loaders' reasons, which need both backends.
    #[test]
    #[cfg(all(feature = "amd", feature = "nvidia"))]
    fn unset_or_empty_detects_and_falls_back_to_sim_with_a_notice() {
        for env in [None, Some(""), Some("  ")] {
            let choice = choose(env, no_runtime, no_cuda).expect("falls back");
            let Choice::Sim { notice: Some(line) } = choice else {
                panic!("expected a fallback to sim with a notice, got {choice:?}");
            };
            assert!(line.starts_with("amdgpu: no AMD GPU runtime found ("), "{line}");
            assert!(line.contains("no NVIDIA GPU runtime found (libcudart not found in 1 places)"), "{line}");
            assert!(line.contains("using the HIP simulator"), "{line}");
            assert!(line.contains("AMDGPU_BACKEND"), "{line}");
            assert!(!line.contains('\n'), "one line: {line}");
        }
    }

    #[test]
    fn detection_picks_amd_when_the_probe_succeeds() {
        assert_eq!(choose(None, || Ok::<_, BackendError>(7), unreachable_nvidia), Ok(Choice::Amd(7)));
    }

    #[test]
    fn detection_falls_back_when_amd_has_no_device() {
        let probe = || {
            Err::<u32, _>(BackendError::BackendUnavailable {
                backend: Backend::Amd,
                reason: "libamdhip64.so loaded but reports no AMD GPU (x). To fix: y".to_owned(),
            })
        };
        let Ok(Choice::Sim { notice: Some(line) }) = choose(None, probe, no_cuda) else {
            panic!("expected a fallback to sim");
        };
        assert!(line.contains("reports no AMD GPU (x)"), "{line}");
        assert!(!line.contains("To fix"), "{line}");
    }

    #[test]
    fn forced_sim_prints_no_notice_and_does_not_probe() {
        for env in ["sim", " SIM "] {
            assert_eq!(choose(Some(env), unreachable_probe, unreachable_nvidia), Ok(Choice::Sim { notice: None }));
        }
    }

    #[test]
    #[cfg(feature = "amd")]
    fn forced_amd_does_not_fall_back() {
        let (backend, err) = choose(Some("amd"), no_runtime, unreachable_nvidia).expect_err("error");
        assert_eq!(backend, Backend::Amd);
        assert!(matches!(err, BackendError::LibraryNotFound { .. }), "{err:?}");
        assert_eq!(choose(Some("AMD"), || Ok::<_, BackendError>(1), unreachable_nvidia), Ok(Choice::Amd(1)));
    }

    #[test]
    fn detection_picks_nvidia_when_amd_fails_and_cuda_works() {
        assert_eq!(choose(None, no_runtime, || Ok::<_, BackendError>(9)), Ok(Choice::Nvidia(9)));
    }

    #[test]
    fn forced_nvidia_uses_only_the_nvidia_probe() {
        assert_eq!(choose(Some(" NVIDIA "), unreachable_probe, || Ok::<_, BackendError>(3)), Ok(Choice::Nvidia(3)));
    }

    #[test]
    #[cfg(feature = "nvidia")]
    fn forced_nvidia_does_not_fall_back() {
        let (backend, err) = choose(Some("nvidia"), unreachable_probe, no_cuda).expect_err("error");
        assert_eq!(backend, Backend::Nvidia);
        let BackendError::LibraryNotFound { library, .. } = &err else {
            panic!("expected LibraryNotFound, got {err:?}");
        };
        assert_eq!(library, "libcudart");
        let message = err.to_string();
        assert!(message.contains("libcudart"), "{message}");
        assert!(message.contains("AMDGPU_BACKEND=sim"), "{message}");

        let no_device = || {
            Err::<u32, _>(BackendError::BackendUnavailable {
                backend: Backend::Nvidia,
                reason: "libcudart loaded but reports no NVIDIA GPU (x). To fix: y".to_owned(),
            })
        };
        let (backend, err) = choose(Some("nvidia"), unreachable_probe, no_device).expect_err("error");
        assert_eq!(backend, Backend::Nvidia);
        assert!(matches!(err, BackendError::BackendUnavailable { backend: Backend::Nvidia, .. }));
    }
}

//! [`Target`]: what a program is compiled for when no device decides it,
//! named as the vendors' compilers name it.

use std::fmt;
use std::str::FromStr;

use hip_sys::CompilerKind;

/// An architecture to compile for, named as AMD's and NVIDIA's compilers
/// name it: an AMD target id (`gfx90a`, `gfx942:sramecc+:xnack-`), an
/// NVIDIA `sm_XY` (`sm_90`, `sm_90a`) or virtual `compute_XY`, or `sim`.
///
/// [`Program::compile_for`](crate::Program::compile_for) compiles for a
/// target with no device present: AMD targets with AMD's hipRTC, NVIDIA
/// ones with NVRTC, each loaded on its own, so a laptop with Debian's
/// `libamdhip64-5` checks that kernels build for an MI300.
///
/// ```
/// use hip_core::Target;
///
/// let mi300: Target = "gfx942:xnack-:sramecc+".parse()?;
/// assert_eq!(mi300.to_string(), "gfx942:sramecc+:xnack-"); // features in LLVM's order
/// let h200: Target = "sm_90".parse()?;
/// assert_eq!(h200.compiler_option(), Some("--gpu-architecture=sm_90".to_owned()));
/// # Ok::<(), hip_core::TargetError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Target {
    /// An AMD GPU.
    Amd(AmdTarget),
    /// An NVIDIA GPU.
    Nvidia(NvidiaTarget),
    /// The simulator, which compiles nothing (its log says what to do).
    Sim,
}

/// An AMD target id: a processor and its xnack and sramecc settings, each
/// on (`+`), off (`-`) or unspecified (code that runs either way).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AmdTarget {
    processor: String,
    sramecc: Option<bool>,
    xnack: Option<bool>,
}

impl AmdTarget {
    /// The processor (`gfx90a`, `gfx1030`, `gfx9-generic`).
    pub fn processor(&self) -> &str {
        &self.processor
    }

    /// The `sramecc` setting, if the id names one.
    pub fn sramecc(&self) -> Option<bool> {
        self.sramecc
    }

    /// The `xnack` setting, if the id names one.
    pub fn xnack(&self) -> Option<bool> {
        self.xnack
    }
}

/// An NVIDIA architecture: `sm_XY` (real, a CUBIN), with the `a` or `f`
/// suffix of architecture-specific features, or `compute_XY` (virtual, PTX
/// that the driver compiles when it loads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvidiaTarget {
    /// The compute capability's major number.
    pub major: u32,
    /// Its minor number.
    pub minor: u32,
    /// `Some('a')` or `Some('f')` for `sm_90a`, `sm_100f`.
    pub suffix: Option<char>,
    /// `compute_XY` (PTX) rather than `sm_XY`.
    pub is_virtual: bool,
}

/// A target name that names no target, with what is wrong and the forms
/// that are accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{name}` is not a target: {reason}. Name an AMD target id (gfx90a, gfx942:sramecc+:xnack-, gfx1030), an \
     NVIDIA architecture (sm_90, sm_90a, compute_90) or sim"
)]
pub struct TargetError {
    /// The name given.
    pub name: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Target {
    /// The compiler that compiles for this target.
    pub fn compiler(&self) -> CompilerKind {
        match self {
            Target::Amd(_) => CompilerKind::Hiprtc,
            Target::Nvidia(_) => CompilerKind::Nvrtc,
            Target::Sim => CompilerKind::Sim,
        }
    }

    /// The option that selects this target (`--offload-arch=gfx90a` for
    /// hipRTC, `--gpu-architecture=sm_90` for NVRTC); `None` for the
    /// simulator.
    pub fn compiler_option(&self) -> Option<String> {
        match self {
            Target::Amd(_) => Some(format!("--offload-arch={self}")),
            Target::Nvidia(_) => Some(format!("--gpu-architecture={self}")),
            Target::Sim => None,
        }
    }

    /// Whether `option` already names an architecture for this target's
    /// compiler, which would conflict with the target.
    pub(crate) fn names_architecture(&self, option: &str) -> bool {
        let prefixes: &[&str] = match self {
            Target::Amd(_) => &["--offload-arch", "--gpu-architecture", "--amdgpu-target", "-mcpu"],
            Target::Nvidia(_) => &["--gpu-architecture", "-arch", "--gpu-name"],
            Target::Sim => &[],
        };
        prefixes.iter().any(|p| option.starts_with(p))
    }
}

/// An AMD target id in LLVM's canonical form: the processor, then
/// `:sramecc±`, then `:xnack±`, each where set (targets and code objects
/// print alike).
pub(crate) fn write_amd_id(
    f: &mut fmt::Formatter<'_>,
    processor: &str,
    sramecc: Option<bool>,
    xnack: Option<bool>,
) -> fmt::Result {
    f.write_str(processor)?;
    let sign = |on: bool| if on { '+' } else { '-' };
    if let Some(on) = sramecc {
        write!(f, ":sramecc{}", sign(on))?;
    }
    if let Some(on) = xnack {
        write!(f, ":xnack{}", sign(on))?;
    }
    Ok(())
}

fn error(name: &str, reason: impl Into<String>) -> TargetError {
    TargetError { name: name.to_owned(), reason: reason.into() }
}

fn parse_amd(name: &str) -> Result<AmdTarget, TargetError> {
    let mut parts = name.split(':');
    let processor = parts.next().unwrap_or_default();
    let rest = processor.strip_prefix("gfx").unwrap_or_default();
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || b == b'-') {
        return Err(error(name, "an AMD processor is gfx followed by its number (gfx90a, gfx1030)"));
    }
    let mut target = AmdTarget { processor: processor.to_owned(), sramecc: None, xnack: None };
    for feature in parts {
        let (feature_name, on) = match feature.as_bytes().last() {
            Some(b'+') => (&feature[..feature.len() - 1], true),
            Some(b'-') => (&feature[..feature.len() - 1], false),
            _ => return Err(error(name, format!("feature `{feature}` needs + or - after its name"))),
        };
        let slot = match feature_name {
            "sramecc" => &mut target.sramecc,
            "xnack" => &mut target.xnack,
            other => {
                return Err(error(name, format!("`{other}` is not a target feature (only sramecc and xnack are)")))
            }
        };
        if slot.replace(on).is_some() {
            return Err(error(name, format!("{feature_name} is named twice")));
        }
    }
    Ok(target)
}

fn parse_nvidia(name: &str, digits: &str, is_virtual: bool) -> Result<NvidiaTarget, TargetError> {
    let (digits, suffix) = match digits.as_bytes().last() {
        Some(&c @ (b'a' | b'f')) => (&digits[..digits.len() - 1], Some(c as char)),
        _ => (digits, None),
    };
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error(
            name,
            "an NVIDIA architecture is sm_ or compute_ followed by its compute capability (sm_90)",
        ));
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    let parse = |s: &str| s.parse::<u32>().map_err(|_| error(name, "the compute capability is out of range"));
    Ok(NvidiaTarget { major: parse(major)?, minor: parse(minor)?, suffix, is_virtual })
}

impl FromStr for Target {
    type Err = TargetError;

    fn from_str(name: &str) -> Result<Target, TargetError> {
        let trimmed = name.trim();
        if trimmed == "sim" {
            Ok(Target::Sim)
        } else if trimmed.starts_with("gfx") {
            parse_amd(trimmed).map(Target::Amd)
        } else if let Some(digits) = trimmed.strip_prefix("sm_") {
            parse_nvidia(trimmed, digits, false).map(Target::Nvidia)
        } else if let Some(digits) = trimmed.strip_prefix("compute_") {
            parse_nvidia(trimmed, digits, true).map(Target::Nvidia)
        } else {
            Err(error(name, "it names no vendor's architecture"))
        }
    }
}

impl fmt::Display for Target {
    /// The canonical name: an AMD target id with its features in LLVM's
    /// order (sramecc, then xnack), `sm_XY`, `compute_XY`, `sim`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Amd(amd) => write_amd_id(f, &amd.processor, amd.sramecc, amd.xnack),
            Target::Nvidia(nv) => {
                let kind = if nv.is_virtual { "compute" } else { "sm" };
                write!(f, "{kind}_{}{}", nv.major, nv.minor)?;
                match nv.suffix {
                    Some(c) => write!(f, "{c}"),
                    None => Ok(()),
                }
            }
            Target::Sim => f.write_str("sim"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(name: &str) -> Target {
        name.parse().unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    #[test]
    fn amd_target_ids_parse_and_print_canonically() {
        assert_eq!(parse("gfx90a").to_string(), "gfx90a");
        assert_eq!(parse("gfx1030").compiler(), CompilerKind::Hiprtc);
        let mi300 = parse("gfx942:xnack-:sramecc+");
        assert_eq!(mi300.to_string(), "gfx942:sramecc+:xnack-");
        let Target::Amd(amd) = &mi300 else { panic!("{mi300:?}") };
        assert_eq!((amd.processor(), amd.sramecc(), amd.xnack()), ("gfx942", Some(true), Some(false)));
        assert_eq!(mi300.compiler_option().as_deref(), Some("--offload-arch=gfx942:sramecc+:xnack-"));
        assert_eq!(parse("gfx9-generic:xnack+").to_string(), "gfx9-generic:xnack+");
        assert_ne!(parse("gfx90a:xnack+"), parse("gfx90a:xnack-"), "the cache must tell them apart");
        assert_ne!(parse("gfx90a:xnack+"), parse("gfx90a"));
    }

    #[test]
    fn nvidia_architectures_parse() {
        let h200 = parse("sm_90");
        assert_eq!(h200, Target::Nvidia(NvidiaTarget { major: 9, minor: 0, suffix: None, is_virtual: false }));
        assert_eq!(h200.compiler_option().as_deref(), Some("--gpu-architecture=sm_90"));
        assert_eq!(parse("sm_90a").to_string(), "sm_90a");
        assert_eq!(parse("sm_100f").to_string(), "sm_100f");
        assert_eq!(parse("compute_120").to_string(), "compute_120");
        assert_eq!(parse(" sim ").compiler(), CompilerKind::Sim);
        assert_eq!(Target::Sim.compiler_option(), None);
    }

    #[test]
    fn bad_names_say_what_is_wrong() {
        for (name, says) in [
            ("gfx", "gfx followed by"),
            ("GFX90A", "no vendor"),
            ("gfx90a:xnack", "needs + or -"),
            ("gfx90a:wavefrontsize64+", "only sramecc and xnack"),
            ("gfx90a:xnack+:xnack-", "named twice"),
            ("sm_9", "compute capability"),
            ("sm_9x", "compute capability"),
            ("", "no vendor"),
        ] {
            let err = name.parse::<Target>().expect_err(name);
            let text = err.to_string();
            assert!(text.contains(says) && text.contains("gfx942:sramecc+:xnack-"), "{name}: {text}");
        }
    }

    #[test]
    fn architecture_options_conflict_with_a_target() {
        assert!(parse("gfx90a").names_architecture("--offload-arch=gfx1030"));
        assert!(!parse("gfx90a").names_architecture("-O3"));
        assert!(parse("sm_90").names_architecture("-arch=sm_80"));
        assert!(!parse("sm_90").names_architecture("--offload-arch=gfx90a"));
    }
}

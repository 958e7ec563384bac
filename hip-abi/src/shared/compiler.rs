//! A runtime compiler as loaded: which one, from which file, its version
//! and its table.

use std::fmt;

use crate::hiprtc::HiprtcApi;

/// Which runtime compiler a [`Compiler`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompilerKind {
    /// AMD's hipRTC (`libhiprtc.so.<major>` from ROCm 6.0, part of
    /// `libamdhip64.so.5` before): compiles for AMD targets (`gfx90a`,
    /// `gfx942:sramecc+:xnack-`).
    Hiprtc,
    /// NVIDIA's NVRTC behind hipRTC's table: compiles for `sm_XY` and
    /// `compute_XY`.
    Nvrtc,
    /// The simulator's table: compiles for the CPU with the machine's C++
    /// compiler, or explains in the log what to install.
    Sim,
}

impl CompilerKind {
    /// `hipRTC`, `NVRTC` or `the simulator's hipRTC`.
    pub const fn name(self) -> &'static str {
        match self {
            CompilerKind::Hiprtc => "hipRTC",
            CompilerKind::Nvrtc => "NVRTC",
            CompilerKind::Sim => "the simulator's hipRTC",
        }
    }
}

impl fmt::Display for CompilerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A runtime compiler, loaded for the rest of the process.
#[derive(Debug, Clone, Copy)]
pub struct Compiler {
    /// Which compiler.
    pub kind: CompilerKind,
    /// The file it was loaded from (`built-in` for the simulator's).
    pub library: &'static str,
    /// What its `hiprtcVersion` reports. AMD's hipRTC reports 9.0 in every
    /// ROCm release from 5.2 to 7.x (a constant in its source), so this
    /// says nothing about the ROCm release; NVRTC reports its CUDA version.
    pub version: (i32, i32),
    /// Its functions.
    pub api: &'static HiprtcApi,
    /// The processors it compiles for (`gfx90a`, `gfx1030`, ...), where it
    /// can tell: for AMD's hipRTC, the ISA list of the code object manager
    /// (comgr) beside it. hipRTC 5.x aborts the process when asked for a
    /// processor it does not know, so a target is checked against this
    /// list before any compilation. `None` where the list is unknown.
    pub processors: Option<&'static [&'static str]>,
    /// What else decides the code it makes, as text for a cache's key:
    /// nothing for hipRTC and NVRTC (their file and version say it); for
    /// the simulator's, the host's C++ compiler, the CPU prelude and
    /// launcher, and whether the race check is built in.
    pub builds: fn() -> String,
}

impl Compiler {
    /// Whether the compiler knows `processor`; `true` where it cannot tell.
    pub fn knows(&self, processor: &str) -> bool {
        self.processors.is_none_or(|list| list.contains(&processor))
    }
}

//! The safe HIP runtime layer of amdgpu-rs (being built).
//!
//! It will hold errors, devices, contexts, streams, events and modules, and
//! the per-thread GPU state, obeying the project's four rules: a drop never
//! touches thread state; scoped switches always restore; the process
//! default device changes only when asked; device-specific work takes the
//! device as an argument. The raw C API it calls is `hip-sys`.

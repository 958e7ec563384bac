//! Pooled device memory for amdgpu-rs (being built).
//!
//! It will hold a caching allocator per device, `Buffer`,
//! `reclaim(device)`, idle cleanup, an out-of-memory ladder, limits and
//! statistics, on top of `hip-core`.

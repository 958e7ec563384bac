//! A bounded, least-recently-used cache of plans, keyed by (device, shape,
//! batch, kind, precision, placement). AMDGPU.jl's cache grew without
//! bound (#1053) and released plans under whatever device the evicting
//! task had (#1092): here the bound holds, and a plan is destroyed under
//! its own device when the last user drops it.

use super::plan::{Plan, PlanKey, PlanQuery};
use crate::Result;
use hip_sys::sync::MutexExt;
use std::sync::{Arc, Mutex};

struct Cache {
    capacity: usize,
    /// Most recently used last.
    plans: Vec<Arc<Plan>>,
}

static CACHE: Mutex<Cache> = Mutex::new(Cache { capacity: 32, plans: Vec::new() });

fn lock() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock_unpoisoned()
}

/// The plan for `key`, from the cache or made now (and cached).
///
/// # Errors
/// As [`Plan::new`] on a miss; a failed plan is not cached.
pub fn cached_plan(key: PlanKey) -> Result<Arc<Plan>> {
    match hit(key.query()) {
        Some(plan) => Ok(plan),
        None => insert(key),
    }
}

/// The plan `query` describes, from the cache or made now (and cached):
/// [`cached_plan`] with the shape borrowed, so that a hit allocates
/// nothing (the transforms look their plans up this way).
///
/// # Errors
/// As [`Plan::new`] on a miss; a failed plan is not cached.
pub fn cached_plan_for(query: PlanQuery<'_>) -> Result<Arc<Plan>> {
    match hit(query) {
        Some(plan) => Ok(plan),
        None => insert(query.to_key()),
    }
}

/// The cached plan of `query`, now the most recently used; `None` on a
/// miss. A plan already the most recent stays where it is.
fn hit(query: PlanQuery<'_>) -> Option<Arc<Plan>> {
    let mut cache = lock();
    let i = cache.plans.iter().rposition(|p| query.matches(p.key()))?;
    let last = cache.plans.len() - 1;
    if i != last {
        let plan = cache.plans.remove(i);
        cache.plans.push(plan);
    }
    Some(cache.plans[last].clone())
}

/// Make the plan of `key` and cache it, evicting the least recently used
/// beyond the capacity.
#[cold]
fn insert(key: PlanKey) -> Result<Arc<Plan>> {
    crate::handle_cache::refuse_during_capture("rocfft_plan_create")?;
    let plan = Arc::new(Plan::new(key)?);
    let evicted: Vec<Arc<Plan>> = {
        let mut cache = lock();
        cache.plans.push(plan.clone());
        let excess = cache.plans.len().saturating_sub(cache.capacity);
        cache.plans.drain(..excess).collect()
    };
    // Dropped outside the lock: each is destroyed under its own device.
    drop(evicted);
    Ok(plan)
}

/// Plans in the cache.
pub fn plan_cache_len() -> usize {
    lock().plans.len()
}

/// The most plans the cache keeps.
pub fn plan_cache_capacity() -> usize {
    lock().capacity
}

/// Set the most plans the cache keeps (evicting the least recently used).
pub fn set_plan_cache_capacity(capacity: usize) {
    let evicted: Vec<Arc<Plan>> = {
        let mut cache = lock();
        cache.capacity = capacity;
        let excess = cache.plans.len().saturating_sub(capacity);
        cache.plans.drain(..excess).collect()
    };
    drop(evicted);
}

/// Empty the cache and, when no plan is left anywhere, release rocFFT's
/// global resources (`rocfft_cleanup`). Plans still in use elsewhere make
/// this an error, and rocFFT is left set up.
///
/// # Errors
/// `LibError::Unavailable` without rocFFT; `LibError::InvalidInput` while
/// plans are alive (see [`super::live_plans`]); `LibError::Status` with
/// rocFFT's status of `rocfft_cleanup`.
#[doc(alias = "rocfft_cleanup")]
pub fn cleanup() -> Result<()> {
    let evicted: Vec<Arc<Plan>> = lock().plans.drain(..).collect();
    drop(evicted);
    super::plan::cleanup_if_unused(hip_sys::rocfft()?)
}

//! rocFFT plans.

use super::raw;
use crate::{LibError, Result};
use hip_core::raw::on_device;
use hip_core::{audit, Device};
use hip_sys::rocfft::{rocfft_plan, rocfft_precision, rocfft_result_placement, rocfft_transform_type, RocfftApi};
use hip_sys::sync::RwLockExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{RwLock, RwLockReadGuard};

/// A real type rocFFT computes with.
pub trait FftReal: Copy + Send + Sync + Default + PartialEq + std::fmt::Debug + 'static {
    /// The rocFFT precision.
    const PRECISION: rocfft_precision;
}

impl FftReal for f32 {
    const PRECISION: rocfft_precision = rocfft_precision::rocfft_precision_single;
}

impl FftReal for f64 {
    const PRECISION: rocfft_precision = rocfft_precision::rocfft_precision_double;
}

/// What a plan computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformKind {
    /// Complex to complex, forward (`e^{-2πi…}`).
    ComplexForward,
    /// Complex to complex, inverse (`e^{+2πi…}`).
    ComplexInverse,
    /// Real to complex (forward).
    RealForward,
    /// Complex to real (inverse).
    RealInverse,
}

/// Where the result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Over the input.
    InPlace,
    /// Into a separate output.
    OutOfPlace,
}

/// What identifies a plan in the cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PlanKey {
    /// The device the plan is for.
    pub device: Device,
    /// Transform lengths, slowest dimension first.
    pub shape: Vec<usize>,
    /// Transforms per execution.
    pub batch: usize,
    /// The transform.
    pub kind: TransformKind,
    /// `true` for double precision.
    pub double: bool,
    /// In place or not.
    pub placement: Placement,
}

/// A [`PlanKey`] with its shape borrowed: what a transform looks its plan
/// up by, so that a cache hit allocates nothing
/// ([`cached_plan_for`](super::cached_plan_for)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanQuery<'a> {
    /// The device the plan is for.
    pub device: Device,
    /// Transform lengths, slowest dimension first.
    pub shape: &'a [usize],
    /// Transforms per execution.
    pub batch: usize,
    /// The transform.
    pub kind: TransformKind,
    /// `true` for double precision.
    pub double: bool,
    /// In place or not.
    pub placement: Placement,
}

impl PlanQuery<'_> {
    /// Whether `key` is the key of this query.
    pub fn matches(&self, key: &PlanKey) -> bool {
        self.device == key.device
            && self.shape == key.shape.as_slice()
            && self.batch == key.batch
            && self.kind == key.kind
            && self.double == key.double
            && self.placement == key.placement
    }

    /// The owned key (for a plan made on a miss).
    pub fn to_key(&self) -> PlanKey {
        PlanKey {
            device: self.device,
            shape: self.shape.to_vec(),
            batch: self.batch,
            kind: self.kind,
            double: self.double,
            placement: self.placement,
        }
    }
}

impl PlanKey {
    /// This key as a query.
    pub fn query(&self) -> PlanQuery<'_> {
        PlanQuery {
            device: self.device,
            shape: &self.shape,
            batch: self.batch,
            kind: self.kind,
            double: self.double,
            placement: self.placement,
        }
    }
}

/// rocFFT's process-wide state, and the lock that orders plan creation
/// against `rocfft_cleanup`.
///
/// `rocfft_cleanup` frees what every plan shares (twiddle tables, the
/// kernel cache): a plan made before it, or while it runs, is left
/// unusable. So plan creation holds this lock for reading from setup until
/// the new plan is counted in [`live_plans`], and cleanup holds it for
/// writing while it checks that no plan is alive and cleans up. Plans of
/// several threads are still made concurrently, as rocFFT allows.
static STATE: RwLock<State> = RwLock::new(State { set_up: false });

struct State {
    /// Whether `rocfft_setup` has run (and `rocfft_cleanup` not since).
    set_up: bool,
}

/// The lock for reading, with rocFFT set up: `rocfft_setup` runs (once,
/// under `device`, whose architecture rocFFT tunes its kernel choice for)
/// unless it has run since the last cleanup.
fn set_up_for(api: &RocfftApi, device: Device) -> Result<RwLockReadGuard<'static, State>> {
    loop {
        let state = STATE.read_unpoisoned();
        if state.set_up {
            return Ok(state);
        }
        drop(state);
        let mut state = STATE.write_unpoisoned();
        if !state.set_up {
            // SAFETY: the write lock: no plan is being made or destroyed;
            // rocFFT reads the current device, bound here.
            on_device(device, || unsafe { raw::setup(api) })??;
            state.set_up = true;
        }
        // Take it again for reading: a cleanup may come in between, and the
        // loop then sets up again.
    }
}

/// Run `rocfft_cleanup` if rocFFT is set up and no plan is alive.
pub(crate) fn cleanup_if_unused(api: &RocfftApi) -> Result<()> {
    let mut state = STATE.write_unpoisoned();
    // No plan is being made now (that holds the lock), so the count is exact.
    let alive = live_plans();
    if alive > 0 {
        return Err(LibError::invalid(
            "fft::cleanup",
            format!("{alive} plan(s) are still in use; drop them (and the transforms using them) first"),
        ));
    }
    if state.set_up {
        // SAFETY: no plan is alive and none is being made.
        unsafe { raw::cleanup(api) }?;
        state.set_up = false;
    }
    Ok(())
}

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// rocFFT plans alive in this process (cached or in use).
pub fn live_plans() -> usize {
    LIVE.load(Ordering::SeqCst)
}

/// A rocFFT plan of one device.
pub struct Plan {
    raw: rocfft_plan,
    key: PlanKey,
    work_size: usize,
}

// SAFETY: rocFFT plans are read-only after creation and may be executed
// from any thread.
unsafe impl Send for Plan {}
// SAFETY: as above.
unsafe impl Sync for Plan {}

impl Plan {
    /// Make the plan `key` describes (`rocfft_plan_create`), under its device
    /// (not cached: see [`super::cached_plan`]).
    ///
    /// # Errors
    /// [`LibError::InvalidInput`] for no or more than 3 dimensions, or a zero
    /// length or batch; [`LibError::Unavailable`] without rocFFT;
    /// [`LibError::Status`] with rocFFT's status of `rocfft_setup`,
    /// `rocfft_plan_create` or `rocfft_plan_get_work_buffer_size`;
    /// [`LibError::Hip`] when the device cannot be bound.
    #[doc(alias = "rocfft_plan_create")]
    pub fn new(key: PlanKey) -> Result<Plan> {
        let api = hip_sys::rocfft()?;
        let op = "rocfft_plan_create";
        if key.shape.is_empty() || key.shape.len() > 3 {
            return Err(LibError::invalid(op, format!("{} dimensions; rocFFT takes 1 to 3", key.shape.len())));
        }
        if key.shape.contains(&0) || key.batch == 0 {
            return Err(LibError::invalid(
                op,
                format!("shape {:?} and batch {} must be positive", key.shape, key.batch),
            ));
        }
        // Held until the plan is counted: no cleanup can come in between.
        let _set_up = set_up_for(api, key.device)?;
        // rocFFT lists lengths fastest first.
        let lengths: Vec<usize> = key.shape.iter().rev().copied().collect();
        let (placement, kind) = (
            match key.placement {
                Placement::InPlace => rocfft_result_placement::rocfft_placement_inplace,
                Placement::OutOfPlace => rocfft_result_placement::rocfft_placement_notinplace,
            },
            match key.kind {
                TransformKind::ComplexForward => rocfft_transform_type::rocfft_transform_type_complex_forward,
                TransformKind::ComplexInverse => rocfft_transform_type::rocfft_transform_type_complex_inverse,
                TransformKind::RealForward => rocfft_transform_type::rocfft_transform_type_real_forward,
                TransformKind::RealInverse => rocfft_transform_type::rocfft_transform_type_real_inverse,
            },
        );
        let precision = if key.double {
            rocfft_precision::rocfft_precision_double
        } else {
            rocfft_precision::rocfft_precision_single
        };
        let shape = raw::PlanShape { placement, kind, precision, lengths: &lengths, batch: key.batch };
        // SAFETY: rocFFT is set up, and the read lock keeps a cleanup away
        // until the plan is counted (a cleanup waits for live plans).
        let handle = on_device(key.device, || unsafe { raw::plan_create(api, &shape) })??;
        LIVE.fetch_add(1, Ordering::SeqCst);
        let mut plan = Plan { raw: handle, key, work_size: 0 };
        // SAFETY: a live plan.
        let size = on_device(plan.key.device, || unsafe { raw::work_buffer_size(api, plan.raw) })??;
        plan.work_size = size;
        Ok(plan)
    }

    /// The raw rocFFT plan, for calls this crate does not wrap.
    pub fn raw(&self) -> rocfft_plan {
        self.raw
    }

    /// Bytes of work area an execution needs.
    pub fn work_size(&self) -> usize {
        self.work_size
    }

    /// The plan's key.
    pub fn key(&self) -> &PlanKey {
        &self.key
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        let _scope = audit::drop_scope();
        let result = hip_sys::rocfft().map_err(LibError::from).and_then(|api| {
            // SAFETY: the plan is live and destroyed once, here, under its device.
            on_device(self.key.device, || unsafe { raw::plan_destroy(api, self.raw) })?
        });
        LIVE.fetch_sub(1, Ordering::SeqCst);
        if let Err(e) = result {
            log::error!("destroying an FFT plan of {}: {e}", self.key.device);
        }
    }
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Plan({:?})", self.key)
    }
}

//! The `tracing` feature's layer: each span of the program, while a thread
//! is inside it, is a profiler range of that thread.

use tracing::span::Id;
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

/// A `tracing` layer that makes every span a profiler range while a
/// thread is inside it (from its enter to its exit), named by the span:
/// with it, `#[instrument]`ed functions and the runtime's own spans show
/// on rocprofv3's timeline on AMD and in the simulator's. Add it to a
/// registry beside the program's other layers.
///
/// ```
/// use tracing_subscriber::prelude::*;
///
/// let subscriber = tracing_subscriber::registry().with(hip_core::profile::RangeLayer::new());
/// tracing::subscriber::with_default(subscriber, || {
///     let _step = tracing::info_span!("step").entered(); // a range "step" until dropped
/// });
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct RangeLayer {
    _private: (),
}

impl RangeLayer {
    /// The layer.
    pub fn new() -> RangeLayer {
        RangeLayer::default()
    }
}

/// A span this thread is inside: its id, and the range it opened (`None`
/// where none did: no library, or switched off).
type Entered = (u64, Option<usize>);

thread_local! {
    /// The spans this thread entered and has not exited, innermost last.
    static ENTERED: std::cell::RefCell<Vec<Entered>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for RangeLayer {
    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let opened = super::open_range(span.name());
        let _ = ENTERED.try_with(|e| {
            if let Ok(mut entered) = e.try_borrow_mut() {
                entered.push((id.into_u64(), opened));
            }
        });
    }

    fn on_exit(&self, id: &Id, _ctx: Context<'_, S>) {
        // Exits usually come innermost first; one that does not closes its
        // range when the ranges opened after it close (see `Range`).
        let closed = ENTERED.try_with(|e| {
            let mut entered = e.try_borrow_mut().ok()?;
            let at = entered.iter().rposition(|(entered, _)| *entered == id.into_u64())?;
            entered.remove(at).1
        });
        if let Ok(Some(index)) = closed {
            super::close(index);
        }
    }
}

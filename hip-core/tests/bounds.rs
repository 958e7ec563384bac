//! Which public types may cross threads, pinned at compile time (as tokio
//! does): a change that makes one of them `!Send`, `!Sync` or `!Unpin`
//! fails to build here, not in a user's program. Handles that HIP lets any
//! thread use (streams, events, modules, functions) are `Send + Sync`; so
//! are the values a program passes around.

fn send_sync<T: Send + Sync>() {}
fn unpin<T: Unpin>() {}

#[test]
fn handles_and_values_are_send_and_sync() {
    use hip_core::*;
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<Graph>();
    send_sync::<GraphExec>();
    send_sync::<CaptureMode>();
    send_sync::<GraphUpdateRefusal>();
    send_sync::<capture::CaptureScope>();
    send_sync::<std::sync::Arc<dyn capture::GraphResource>>();
    send_sync::<Module>();
    send_sync::<Function>();
    send_sync::<Context>();
    send_sync::<Device>();
    send_sync::<Program>();
    send_sync::<Code>();
    send_sync::<KernelCache>();
    send_sync::<LaunchConfig>();
    send_sync::<LaunchLimits>();
    send_sync::<Target>();
    send_sync::<StreamSync>();
    send_sync::<EventWait<'static>>();
    send_sync::<HipError>();
    send_sync::<CompileError>();
    send_sync::<DeviceMismatch>();
    // A device-bound future is as sendable as the future it wraps.
    send_sync::<OnDevice<std::future::Ready<()>>>();
}

#[test]
fn handles_are_unpin() {
    use hip_core::*;
    unpin::<Stream>();
    unpin::<Event>();
    unpin::<Module>();
    unpin::<Function>();
    unpin::<StreamSync>();
    unpin::<EventWait<'static>>();
}

#[test]
fn errors_are_static_errors() {
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<hip_core::HipError>();
    error::<hip_core::TargetError>();
}

/// Compiles only for a type that is not `Send`: were it `Send`, both
/// impls would apply and the call below would be ambiguous.
trait NotSend<A> {
    fn check() {}
}
impl<T: ?Sized> NotSend<()> for T {}
impl<T: ?Sized + Send> NotSend<u8> for T {}

/// The same for `Sync`.
trait NotSync<A> {
    fn check() {}
}
impl<T: ?Sized> NotSync<()> for T {}
impl<T: ?Sized + Sync> NotSync<u8> for T {}

#[test]
fn a_profiler_range_stays_on_its_thread() {
    // A range is on one thread's stack: closed from another thread it
    // would close that thread's innermost range instead.
    <hip_core::profile::Range as NotSend<_>>::check();
    <hip_core::profile::Range as NotSync<_>>::check();
}

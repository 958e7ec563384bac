//! Which public types may cross threads, pinned at compile time: plans
//! and matrices are shared between threads (the plan cache hands one plan
//! to every thread), so they must stay `Send + Sync`. A communicator is
//! `Send` but not `Sync`: NCCL takes one call at a time on it.

fn send_sync<T: Send + Sync>() {}

#[test]
fn plans_matrices_and_errors_are_send_and_sync() {
    send_sync::<hip_libs::fft::Plan>();
    send_sync::<hip_libs::fft::PlanKey>();
    send_sync::<hip_libs::sparse::CsrMatrix<f32>>();
    send_sync::<hip_libs::sparse::CsrMatrix<f64>>();
    send_sync::<hip_libs::HandleStats>();
    send_sync::<hip_libs::LibError>();
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<hip_libs::LibError>();
}

#[test]
fn communicators_are_send_and_not_sync() {
    fn send<T: Send>() {}
    send::<hip_libs::collective::Communicator>();
    send_sync::<hip_libs::collective::UniqueId>();
    send_sync::<hip_libs::collective::ReduceOp>();
    // Compiles only while `Communicator` is not `Sync` (the two impls
    // would make the path ambiguous).
    trait AmbiguousIfSync<A> {
        fn some_item() {}
    }
    impl<T: ?Sized> AmbiguousIfSync<()> for T {}
    #[allow(dead_code)]
    struct Invalid;
    impl<T: ?Sized + Sync> AmbiguousIfSync<Invalid> for T {}
    let _ = <hip_libs::collective::Communicator as AmbiguousIfSync<_>>::some_item;
}

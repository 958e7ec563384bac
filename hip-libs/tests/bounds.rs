//! Which public types may cross threads, pinned at compile time: plans
//! and matrices are shared between threads (the plan cache hands one plan
//! to every thread), so they must stay `Send + Sync`.

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

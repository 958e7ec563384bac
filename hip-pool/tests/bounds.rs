//! Which public types may cross threads, pinned at compile time: a buffer
//! is dropped on any thread (rule 1), so it must stay `Send + Sync`.

fn send_sync<T: Send + Sync>() {}

#[test]
fn buffers_pools_and_errors_are_send_and_sync() {
    send_sync::<hip_pool::Buffer>();
    send_sync::<hip_pool::Pool>();
    send_sync::<hip_pool::GraphPool>();
    send_sync::<hip_pool::UseList>();
    send_sync::<hip_pool::PoolStats>();
    send_sync::<hip_pool::Strategy>();
    send_sync::<hip_pool::Limit>();
    send_sync::<hip_pool::PoolError>();
    fn unpin<T: Unpin>() {}
    unpin::<hip_pool::Buffer>();
    fn error<E: std::error::Error + Send + Sync + 'static>() {}
    error::<hip_pool::PoolError>();
}

//! The calling thread's group (`ncclGroupStart` … `ncclGroupEnd`): the
//! parts and joins it defers, posted and queued together at its end.

use super::comm::{Clique, Comm, IdBytes};
use super::meeting::Post;
use crate::bindings::rccl::ncclResult_t;
use crate::machine::queue::Target;
use std::cell::RefCell;
use std::sync::Arc;

/// Which meeting a part goes to, decided when it is posted.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route {
    Collective,
    SendTo(usize),
    RecvFrom(usize),
}

/// A part whose arguments were checked, not yet posted.
pub(crate) struct Pending {
    pub target: Target,
    pub route: Route,
    pub post: Post,
}

/// The thread's open group.
#[derive(Default)]
pub(crate) struct Group {
    pub depth: usize,
    pub pending: Vec<Pending>,
    /// Ranks joined inside the group, whose peers are awaited at its end.
    pub joins: Vec<(Arc<Clique>, Arc<Comm>, IdBytes)>,
    /// The first error of a call inside the group, which its end returns.
    pub error: Option<ncclResult_t>,
}

thread_local! {
    static GROUP: RefCell<Group> = RefCell::new(Group::default());
}

/// Run `f` on the thread's group.
pub(crate) fn with_group<R>(f: impl FnOnce(&mut Group) -> R) -> R {
    GROUP.with(|g| f(&mut g.borrow_mut()))
}

/// Whether the thread is inside a group.
pub(crate) fn in_group() -> bool {
    with_group(|g| g.depth > 0)
}

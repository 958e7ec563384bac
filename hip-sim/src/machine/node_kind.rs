//! What a graph node is, as `hipGraphExecUpdate` compares nodes: a leaf
//! that the enqueue path (which names a launch's kernel and a copy's
//! kind) and the graphs share.

/// What a node does, as `hipGraphExecUpdate` compares nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// A kernel (named), or a library operation (named by its function).
    Kernel(&'static str),
    /// A copy, with the `hipMemcpyKind` it was given (`None` for the
    /// copies that take none: peer copies, the libraries' own).
    Memcpy(Option<crate::bindings::hip::hipMemcpyKind>),
    /// A fill.
    Memset,
    /// A host function.
    Host,
    /// A graph allocation (`hipMallocAsync` in a capture).
    MemAlloc,
    /// A graph free (`hipFreeAsync` in a capture).
    MemFree,
    /// Nothing (the simulator's own markers).
    Empty,
}

impl NodeKind {
    /// The kind of a node enqueued by `function` (a HIP or library call).
    pub fn of(function: &'static str) -> NodeKind {
        match function {
            f if f.starts_with("hipMemcpy") => NodeKind::Memcpy(None),
            f if f.starts_with("hipMemset") => NodeKind::Memset,
            "hipLaunchHostFunc" => NodeKind::Host,
            "hipStreamWaitEvent" | "hipStreamSynchronize" | "hold_stream" => NodeKind::Empty,
            f => NodeKind::Kernel(f),
        }
    }
}

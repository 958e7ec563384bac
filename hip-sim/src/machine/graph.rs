//! Graphs and executable graphs: the operations a capture recorded, and
//! their replay on a stream.
//!
//! A node is the operation as it was enqueued: its work (which can run
//! again), the memory it touches, the nodes it depends on, and its lane
//! (which member stream of the capture recorded it). Capture order is a
//! topological order, so a launch runs the nodes one after another on the
//! launching stream, each through the race detector with the addresses
//! baked in at capture: memory that was freed, or handed out again, since
//! the capture is a reported race or use after free. The detector sees the
//! graph's own order, not the stream's: each lane beside the origin's gets
//! a clock of its own at every launch, ordered only by the dependencies,
//! so two branches that touch the same memory unordered are a reported
//! race, as they would be on a GPU that runs them at once.

use super::graph_memory::NodeMemory;
use super::lock::lock;
pub(crate) use super::node_kind::NodeKind;
use super::queue::Work;
use super::races::Access;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One captured operation.
#[derive(Clone)]
pub(crate) struct Node {
    /// Its `hipGraphNode_t` value.
    pub handle: usize,
    pub kind: NodeKind,
    /// The HIP or library function that enqueued it.
    pub function: &'static str,
    pub accesses: Vec<Access>,
    pub work: Work,
    /// Indices of the nodes it depends on (all earlier).
    pub deps: Vec<usize>,
    /// The lane of the stream that captured it: 0 for the origin; nodes
    /// of other lanes may run beside the origin's, ordered only by `deps`.
    pub lane: usize,
    /// What it does to graph memory, for the two memory nodes.
    pub memory: Option<NodeMemory>,
}

impl Node {
    /// The `hipGraphNodeType` HIP reports for it.
    pub fn node_type(&self) -> crate::bindings::hip::hipGraphNodeType {
        use crate::bindings::hip::hipGraphNodeType as T;
        match self.kind {
            NodeKind::Kernel(_) => T::hipGraphNodeTypeKernel,
            NodeKind::Memcpy(_) => T::hipGraphNodeTypeMemcpy,
            NodeKind::Memset => T::hipGraphNodeTypeMemset,
            NodeKind::Host => T::hipGraphNodeTypeHost,
            NodeKind::MemAlloc => T::hipGraphNodeTypeMemAlloc,
            NodeKind::MemFree => T::hipGraphNodeTypeMemFree,
            NodeKind::Empty => T::hipGraphNodeTypeEmpty,
        }
    }
}

/// A graph (`hipGraph_t`).
pub(crate) struct GraphObj {
    pub device: usize,
    pub nodes: Vec<Node>,
    /// Whether it was ever instantiated (clr's `graphInstantiated_`): a
    /// graph with memory nodes is instantiated once.
    pub instantiated: AtomicBool,
}

impl GraphObj {
    pub fn new(device: usize, nodes: Vec<Node>) -> GraphObj {
        GraphObj { device, nodes, instantiated: AtomicBool::new(false) }
    }

    /// Whether it has allocation or free nodes.
    pub fn has_memory_nodes(&self) -> bool {
        self.nodes.iter().any(|n| n.memory.is_some())
    }
}

/// An executable graph (`hipGraphExec_t`).
pub(crate) struct ExecObj {
    pub device: usize,
    /// Replaced as a whole by `hipGraphExecUpdate`.
    pub nodes: Mutex<Arc<Vec<Node>>>,
    /// Launches queued and not yet run.
    pub in_flight: Arc<AtomicUsize>,
    /// `hipGraphInstantiateFlagAutoFreeOnLaunch`: a launch first frees
    /// what its allocation nodes left allocated.
    pub auto_free: bool,
}

static GRAPHS: Mutex<Option<HashMap<usize, Arc<GraphObj>>>> = Mutex::new(None);
static EXECS: Mutex<Option<HashMap<usize, Arc<ExecObj>>>> = Mutex::new(None);

/// Name `graph` by `handle`.
pub(crate) fn insert_graph(handle: usize, graph: GraphObj) {
    lock(&GRAPHS).get_or_insert_with(HashMap::new).insert(handle, Arc::new(graph));
}

/// The graph named `handle`.
pub(crate) fn graph(handle: usize) -> Option<Arc<GraphObj>> {
    lock(&GRAPHS).as_ref()?.get(&handle).cloned()
}

/// Forget the graph named `handle`.
pub(crate) fn remove_graph(handle: usize) -> Option<Arc<GraphObj>> {
    lock(&GRAPHS).as_mut()?.remove(&handle)
}

/// The node named `handle`, in any live graph.
pub(crate) fn node(handle: usize) -> Option<Node> {
    let graphs = lock(&GRAPHS);
    graphs.as_ref()?.values().find_map(|g| g.nodes.iter().find(|n| n.handle == handle).cloned())
}

/// Name `exec` by `handle`.
pub(crate) fn insert_exec(handle: usize, exec: ExecObj) {
    lock(&EXECS).get_or_insert_with(HashMap::new).insert(handle, Arc::new(exec));
}

/// The executable graph named `handle`.
pub(crate) fn exec(handle: usize) -> Option<Arc<ExecObj>> {
    lock(&EXECS).as_ref()?.get(&handle).cloned()
}

/// Forget the executable graph named `handle`.
pub(crate) fn remove_exec(handle: usize) -> Option<Arc<ExecObj>> {
    lock(&EXECS).as_mut()?.remove(&handle)
}

/// Why `hipGraphExecUpdate` refuses a graph: the result and the node
/// (handle) it names.
pub(crate) fn update_refusal(
    old: &[Node],
    new: &[Node],
    hip_major: u32,
) -> Option<(crate::bindings::hip::hipGraphExecUpdateResult, usize)> {
    use crate::bindings::hip::hipGraphExecUpdateResult as R;
    if old.len() != new.len() {
        return Some((R::hipGraphExecUpdateErrorTopologyChanged, 0));
    }
    // clr's order (hipGraphExecUpdate): the type, then a copy's kind (6.0
    // and later), then the dependencies, then the parameters.
    for (a, b) in old.iter().zip(new) {
        let kind_differs = std::mem::discriminant(&a.kind) != std::mem::discriminant(&b.kind);
        if kind_differs {
            return Some((R::hipGraphExecUpdateErrorNodeTypeChanged, b.handle));
        }
        if let (NodeKind::Memcpy(x), NodeKind::Memcpy(y)) = (a.kind, b.kind) {
            if x != y && hip_major >= 6 {
                // hip-tests' ParametersChanged case: HtoD became DtoH.
                return Some((R::hipGraphExecUpdateErrorParametersChanged, b.handle));
            }
        }
        if a.deps != b.deps {
            return Some((R::hipGraphExecUpdateErrorTopologyChanged, b.handle));
        }
        if matches!((a.kind, b.kind), (NodeKind::Kernel(x), NodeKind::Kernel(y)) if x != y) {
            // A kernel node of another function: clr's SetParams fails
            // with hipErrorInvalidDeviceFunction.
            return Some((R::hipGraphExecUpdateErrorUnsupportedFunctionChange, b.handle));
        }
    }
    None
}

/// The launches of `exec` in flight, as a guard that counts one more
/// until the returned closure runs.
pub(crate) fn launch_started(
    exec: &ExecObj,
) -> impl Fn() -> Result<(), crate::bindings::hip::hipError_t> + Send + Sync {
    exec.in_flight.fetch_add(1, Ordering::AcqRel);
    let in_flight = exec.in_flight.clone();
    move || {
        in_flight.fetch_sub(1, Ordering::AcqRel);
        Ok(())
    }
}

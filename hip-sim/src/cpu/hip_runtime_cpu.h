// The simulator's CPU flavour of the portable kernel prelude
// (`hip/hip_runtime.h`): HIP's device-side language for a kernel compiled
// by the host's C++ compiler and run by the simulator with GPU semantics.
//
// A launch runs its grid's blocks on the host's cores, each block on one
// host thread; the threads of a block are fibers, each on its own stack, that run until
// they reach a barrier, a warp intrinsic or their end, so `__syncthreads`
// and the warp intrinsics see every thread of the block, or the lanes of
// the warp, in lockstep. A block whose threads do not all reach the same
// barrier, or a warp whose lanes reach different intrinsics, faults the
// launch; so does an access outside device memory (a fault on the page,
// caught here) and a failed `assert`.
#ifndef AMDGPU_SIM_HIP_RUNTIME_CPU_H
#define AMDGPU_SIM_HIP_RUNTIME_CPU_H

#define AMDGPU_RS_PRELUDE 1

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

namespace amdgpu_sim {

struct dim3_t {
    uint32_t x, y, z;
    constexpr dim3_t(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

// What the simulator asks of a launch, and what the launch answers
// (the same layout as the simulator's `Launch`).
struct Launch {
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_shared;
    uint32_t warp_size;
    // A device address as the host address of its bytes; an address that
    // is no device memory the kernel may reach comes back unmapped.
    void* (*translate)(void* context, uintptr_t address);
    void* context;
    // Shared by the host threads that run the launch, each with a
    // `Launch` of its own: the next block to claim (its linear index),
    // and the lowest block that faulted (no thread starts one after it).
    std::atomic<uint64_t>* next_block;
    std::atomic<uint64_t>* first_fault;
    // Out: 0 for success, else one of the `Fault`s.
    uint32_t fault;
    uint32_t fault_block[3];
    uint32_t fault_thread[3];
    uintptr_t fault_address;
    char message[512];
    // Out, with `AMDGPU_SIM_RACECHECK`: how many shared-memory races, and
    // the first: its block, its two threads (the earlier access's first),
    // whether each wrote, and the byte (an offset into the object's
    // thread-locals, where the static `__shared__` variables are, or into
    // the dynamic shared memory).
    uint32_t races;
    uint32_t race_block[3];
    uint32_t race_threads[6];
    uint32_t race_kinds[2];
    uint32_t race_dynamic;
    uint64_t race_offset;
    // In: how many consecutive blocks a host thread claims at once. Out:
    // the first block it claimed and did not run (the watchdog stopped
    // it), or the grid's count of blocks.
    uint32_t block_run;
    uint64_t not_run;
};

enum Fault : uint32_t {
    kNone = 0,
    kIllegalAddress = 1,
    kBarrierDeadlock = 2,
    kWarpDivergence = 3,
    kAssert = 4,
    kTooLarge = 5,
    kWatchdog = 6,
};

// A thread runs from when a runner claims it until it reaches a barrier
// or a warp intrinsic (where it waits until released) or its end. Its
// record says so only while it waits (`state_of`): the scheduler reads
// records only when no thread runs and every thread of the block is
// claimed, so a thread whose record says nothing is done.
enum State : int { kReleased, kAtBarrier, kAtWarp, kDone, kFaulted };

// How many threads a runner claims at once.
constexpr uint32_t kBatch = 64;
// `Block::batch_start` when no batch is running.
constexpr uint32_t kNoBatch = UINT32_MAX;

enum WarpOp : int { kShfl, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kMatchAny, kMatchAll };

struct Block;

// A thread's record, written only once it waits: only a waiting thread
// is resumed or met by others, and a thread that runs to its end without
// waiting costs the loop that runs it no store here (each store the loop
// makes beside the kernel's own holds back the kernel's memory accesses).
// Its state is `state_of` it; its place is `here.thread` while it runs,
// and `place_of` its index otherwise.
struct Thread {
    void* sp;  // the saved stack pointer of the runner that runs it
    dim3_t idx;
    uint32_t lane;
    // Its state, if `epoch` is its block's (`set_state`); else (a record
    // of an earlier block's, or one resumed since it waited) it is done.
    State recorded;
    uint64_t epoch;
    // At a warp intrinsic: which, its operand and result.
    WarpOp op;
    int op_arg;
    int op_width;
    uint64_t value;
    uint64_t result;
    // A `_sync` intrinsic's mask (0 for one without): the lanes that meet
    // at it.
    uint64_t mask;
    // `__match_*`: whether two values are equal, as their type compares.
    bool (*equal)(uint64_t, uint64_t);
};

struct Block {
    void* scheduler_sp;
    Thread* threads;
    // Which of the host thread's blocks this is: the records of its
    // threads that carry it are this block's.
    uint64_t epoch;
    uint32_t count;
    // The next thread no runner has claimed.
    uint32_t next;
    // The first thread of the batch claimed last, which runs to `next`
    // (`kNoBatch` once a thread of it waited): a thread that waits on its
    // first run hands the rest of its batch back, and its runner sees by
    // this that the batch is over.
    uint32_t batch_start;
    dim3_t idx;
    Launch* launch;
    // The kernel's arguments (the launcher's tuple).
    void* arguments;
    char* shared;
    int barrier_result;
    bool faulted;
    // The released thread resumed last in the scheduler's pass.
    uint32_t cursor;
    // How many threads are in each state the scheduler acts on, kept as
    // they change, so that a barrier costs no pass over the block to
    // learn that every thread is there; and the sum of the predicates
    // given at the barrier.
    uint32_t released, at_barrier, at_warp;
    int predicates;
};

extern "C" void amdgpu_sim_switch(void** save, void* to);

// The launcher's thread-locals are `static` (the object is one
// translation unit): with internal linkage the compiler reaches all of
// them, and the kernel's `__shared__` variables, from the object's one
// thread-local base instead of a lookup for each (the reduction bench's
// loop, on one core: 217 -> 188 ms).
static thread_local Block* current_block = nullptr;
// Whether a thread of the block runs (from when a runner starts until the
// scheduler has the host thread back): the fault handlers and the race
// check tell the kernel's accesses from the launcher's by it.
static thread_local bool in_thread = false;

// What a kernel reads of where it runs: one thread-local block, so that
// the indices cost a load each.
//
// Every member is initialized, so that `here` is constant-initialized: a
// thread-local that needs initializing at run time is reached through a
// guarded wrapper call at every use (twice the cost of a whole thread).
struct Here {
    dim3_t thread;
    dim3_t block;
    dim3_t block_dim;
    dim3_t grid;
    int warp_size = 0;
};
#if __cplusplus >= 202002L
static thread_local constinit Here here;
#else
static thread_local Here here;
#endif

// The running thread's index in its block (x first).
inline uint32_t my_index() {
    return (here.thread.z * here.block_dim.y + here.thread.y) * here.block_dim.x + here.thread.x;
}

// The running thread's record.
inline Thread& me() { return current_block->threads[my_index()]; }

// The lane of the thread `index` of its block. The width is a power of
// two: no division on the way to every wait.
inline uint32_t lane_of(uint32_t index) { return index & (static_cast<uint32_t>(here.warp_size) - 1); }

inline State state_of(const Block& b, const Thread& t) { return t.epoch == b.epoch ? t.recorded : kDone; }

inline void set_state(const Block& b, Thread& t, State state) {
    t.recorded = state;
    t.epoch = b.epoch;
}

// The place in the block of its thread `index` (x first).
inline dim3_t place_of(const Block& b, uint32_t index) {
    const uint32_t bx = b.launch->block[0], by = b.launch->block[1];
    return dim3_t{index % bx, index / bx % by, index / (bx * by)};
}

// Give the scheduler the host thread until it resumes this fiber.
// The next thread the scheduler's pass over the released ones would
// resume (after `cursor`), made the running one; null if none is left.
inline Thread* take_next_released(Block* b) {
    for (uint32_t j = b->cursor + 1; j < b->count; ++j) {
        Thread& u = b->threads[j];
        if (state_of(*b, u) == kReleased) {
            b->cursor = j;
            --b->released;
            u.epoch = 0;  // running: done, as its record says, unless it waits again
            here.thread = u.idx;
            return &u;
        }
    }
    return nullptr;
}

// Give the host thread to the next released thread of the block, as the
// scheduler would (one switch instead of two), or to the scheduler,
// until this fiber is resumed.
inline void yield(State state) {
    Block* b = current_block;
    const uint32_t index = my_index();
    Thread& t = b->threads[index];
    t.idx = here.thread;
    t.lane = lane_of(index);
    if (index >= b->batch_start && index < b->next) {
        // Its first run, in the batch its runner claimed last: the threads
        // after it in the batch have not started, and are claimed anew
        // (the scheduler reads records only once every thread started).
        b->next = index + 1;
        b->batch_start = kNoBatch;
    }
    set_state(*b, t, state);
    b->at_barrier += state == kAtBarrier;
    b->at_warp += state == kAtWarp;
    Thread* next = state == kFaulted || b->released == 0 ? nullptr : take_next_released(b);
    amdgpu_sim_switch(&t.sp, next != nullptr ? next->sp : b->scheduler_sp);
}

inline void fault_here(uint32_t kind, const char* what, uintptr_t address) {
    current_block->faulted = true;
    Launch* l = current_block->launch;
    if (l->fault == kNone) {
        l->fault = kind;
        l->fault_address = address;
        l->fault_block[0] = current_block->idx.x;
        l->fault_block[1] = current_block->idx.y;
        l->fault_block[2] = current_block->idx.z;
        l->fault_thread[0] = here.thread.x;
        l->fault_thread[1] = here.thread.y;
        l->fault_thread[2] = here.thread.z;
        std::snprintf(l->message, sizeof l->message, "%s", what);
    }
    yield(kFaulted);
    std::abort();  // never resumed
}

inline int syncthreads(int predicate) {
    current_block->predicates += predicate;
    yield(kAtBarrier);
    return current_block->barrier_result;
}

inline uint64_t warp(WarpOp op, uint64_t value, int arg, int width, uint64_t mask = 0,
                     bool (*equal)(uint64_t, uint64_t) = nullptr) {
    Thread& t = me();
    t.op = op;
    t.value = value;
    t.op_arg = arg;
    t.op_width = width;
    t.mask = mask;
    t.equal = equal;
    yield(kAtWarp);
    return me().result;
}

template <class T>
inline uint64_t bits(T value) {
    static_assert(sizeof(T) <= 8, "a warp intrinsic moves at most 8 bytes");
    uint64_t out = 0;
    std::memcpy(&out, &value, sizeof(T));
    return out;
}

template <class T>
inline T from_bits(uint64_t b) {
    T out;
    std::memcpy(&out, &b, sizeof(T));
    return out;
}

inline char* dynamic_shared() { return current_block->shared; }

[[noreturn]] inline void assert_fail(const char* expression, const char* file, int line) {
    char what[400];
    std::snprintf(what, sizeof what, "device assertion `%s` failed at %s:%d", expression, file, line);
    fault_here(kAssert, what, 0);
    std::abort();
}

}  // namespace amdgpu_sim

// ---- the language ---------------------------------------------------------

#ifdef AMDGPU_SIM_SCAN
// The simulator's first pass reads the kernels after the preprocessor
// (build.rs): there the word stays.
#define __global__ __global__
#else
#define __global__
#endif
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#define __shared__ thread_local static
#define __constant__ static const
#define __restrict__ __restrict

using dim3 = amdgpu_sim::dim3_t;

#define threadIdx (::amdgpu_sim::here.thread)
#define blockIdx (::amdgpu_sim::here.block)
#define blockDim (::amdgpu_sim::here.block_dim)
#define gridDim (::amdgpu_sim::here.grid)
#define warpSize (::amdgpu_sim::here.warp_size)

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

#define HIP_DYNAMIC_SHARED(type, var) type* var = reinterpret_cast<type*>(::amdgpu_sim::dynamic_shared());
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_KERNEL_NAME(...) __VA_ARGS__

#undef assert
#define assert(c) ((c) ? (void)0 : ::amdgpu_sim::assert_fail(#c, __FILE__, __LINE__))

inline void __syncthreads() { amdgpu_sim::syncthreads(1); }
inline int __syncthreads_count(int p) { return amdgpu_sim::syncthreads(p != 0); }
inline int __syncthreads_and(int p) { return amdgpu_sim::syncthreads(p != 0) == static_cast<int>(amdgpu_sim::current_block->count); }
inline int __syncthreads_or(int p) { return amdgpu_sim::syncthreads(p != 0) != 0; }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Warp intrinsics: every lane of the warp that has not returned meets at
// the call, as on a GPU's lockstep wavefront. The shuffles are HIP's
// overloads, not a template: a value of another type converts to one of
// them, or does not compile, as with hipRTC.
namespace amdgpu_sim {
template <class T>
inline T shuffle(WarpOp op, T v, int arg, int width) {
    return from_bits<T>(warp(op, bits(v), arg, width));
}
}  // namespace amdgpu_sim
#define AMDGPU_SIM_SHUFFLES(T)                                                                                \
    inline T __shfl(T v, int src, int width = warpSize) {                                                    \
        return amdgpu_sim::shuffle<T>(amdgpu_sim::kShfl, v, src, width);                                     \
    }                                                                                                         \
    inline T __shfl_up(T v, unsigned delta, int width = warpSize) {                                         \
        return amdgpu_sim::shuffle<T>(amdgpu_sim::kShflUp, v, static_cast<int>(delta), width);               \
    }                                                                                                         \
    inline T __shfl_down(T v, unsigned delta, int width = warpSize) {                                       \
        return amdgpu_sim::shuffle<T>(amdgpu_sim::kShflDown, v, static_cast<int>(delta), width);             \
    }                                                                                                         \
    inline T __shfl_xor(T v, int mask, int width = warpSize) {                                               \
        return amdgpu_sim::shuffle<T>(amdgpu_sim::kShflXor, v, mask, width);                                 \
    }
AMDGPU_SIM_SHUFFLES(int)
AMDGPU_SIM_SHUFFLES(unsigned int)
AMDGPU_SIM_SHUFFLES(float)
AMDGPU_SIM_SHUFFLES(double)
AMDGPU_SIM_SHUFFLES(long)
AMDGPU_SIM_SHUFFLES(unsigned long)
AMDGPU_SIM_SHUFFLES(long long)
AMDGPU_SIM_SHUFFLES(unsigned long long)
#undef AMDGPU_SIM_SHUFFLES
inline unsigned long long __ballot(int p) { return amdgpu_sim::warp(amdgpu_sim::kBallot, p != 0, 0, warpSize); }
inline int __any(int p) { return amdgpu_sim::warp(amdgpu_sim::kAny, p != 0, 0, warpSize) != 0; }
inline int __all(int p) { return amdgpu_sim::warp(amdgpu_sim::kAll, p != 0, 0, warpSize) != 0; }
inline unsigned long long __ballot64(int p) { return __ballot(p); }
inline unsigned __lane_id() { return amdgpu_sim::lane_of(amdgpu_sim::my_index()); }

// The simulated HIP's version: HIP 7 has the `_sync` warp intrinsics
// (from ROCm 6.2; the simulator's HIP 6 is 6.0, HIP 5 is 5.7).
#ifndef AMDGPU_SIM_HIP_MAJOR
#define AMDGPU_SIM_HIP_MAJOR 7
#endif
#define HIP_VERSION_MAJOR AMDGPU_SIM_HIP_MAJOR
#define HIP_VERSION_MINOR (AMDGPU_SIM_HIP_MAJOR == 5 ? 7 : 0)
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000)

namespace amdgpu_sim {
template <class T>
inline bool equal_as(uint64_t a, uint64_t b) {
    return from_bits<T>(a) == from_bits<T>(b);
}
template <class T>
inline void check_match_type() {
    static_assert((std::is_integral<T>::value || std::is_floating_point<T>::value) && (sizeof(T) == 4 || sizeof(T) == 8),
                  "T can be int, unsigned int, long, unsigned long, long long, unsigned long long, float or double.");
}
}  // namespace amdgpu_sim

#if AMDGPU_SIM_HIP_MAJOR >= 7 && !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)
#define AMDGPU_RS_WARP_SYNC 1
#else
#define AMDGPU_RS_WARP_SYNC 0
#endif

#if AMDGPU_RS_WARP_SYNC
// Every lane of the warp that has not returned (HIP's, from ROCm 6.2).
inline unsigned long long __activemask() { return __ballot(1); }

// The `_sync` warp intrinsics, as HIP defines them: a 64-bit mask (its
// upper half ignored at a wavefront of 32), not 0, naming the calling
// lane; every lane it names meets at the same intrinsic with the same
// mask. Each mask's lanes meet apart from the rest of the warp, and what
// a GPU leaves undefined (a shuffle reading a lane outside the mask, a
// named lane that returns or waits elsewhere) faults the launch.
namespace amdgpu_sim {
template <class MaskT>
inline uint64_t sync_mask(MaskT mask) {
    static_assert(std::is_integral<MaskT>::value && sizeof(MaskT) == 8,
                  "The mask must be a 64-bit integer. Implicitly promoting a smaller integer is almost always an "
                  "error.");
    uint64_t m = static_cast<uint64_t>(mask);
    if (here.warp_size == 32) m &= 0xffffffffu;
    if (m == 0) fault_here(kAssert, "a _sync warp intrinsic's mask is 0 (HIP asserts it is not)", 0);
    return m;
}
}  // namespace amdgpu_sim
// Each `_sync` shuffle converts its value as HIP's does: to the overload
// of `__shfl` that takes it, and back.
namespace amdgpu_sim {
template <class T>
using Shuffled = decltype(__shfl(std::declval<T>(), 0));
template <class T>
inline T masked(WarpOp op, T v, int arg, int width, uint64_t mask) {
    using S = Shuffled<T>;
    return static_cast<T>(from_bits<S>(warp(op, bits(static_cast<S>(v)), arg, width, mask)));
}
}  // namespace amdgpu_sim
template <class MaskT, class T>
inline T __shfl_sync(MaskT mask, T v, int src, int width = warpSize) {
    uint64_t m = amdgpu_sim::sync_mask(mask);
    return amdgpu_sim::masked(amdgpu_sim::kShfl, v, src, width, m);
}
template <class MaskT, class T>
inline T __shfl_up_sync(MaskT mask, T v, unsigned delta, int width = warpSize) {
    uint64_t m = amdgpu_sim::sync_mask(mask);
    return amdgpu_sim::masked(amdgpu_sim::kShflUp, v, static_cast<int>(delta), width, m);
}
template <class MaskT, class T>
inline T __shfl_down_sync(MaskT mask, T v, unsigned delta, int width = warpSize) {
    uint64_t m = amdgpu_sim::sync_mask(mask);
    return amdgpu_sim::masked(amdgpu_sim::kShflDown, v, static_cast<int>(delta), width, m);
}
template <class MaskT, class T>
inline T __shfl_xor_sync(MaskT mask, T v, int lane_mask, int width = warpSize) {
    uint64_t m = amdgpu_sim::sync_mask(mask);
    return amdgpu_sim::masked(amdgpu_sim::kShflXor, v, lane_mask, width, m);
}
template <class MaskT>
inline unsigned long long __ballot_sync(MaskT mask, int p) {
    return amdgpu_sim::warp(amdgpu_sim::kBallot, p != 0, 0, warpSize, amdgpu_sim::sync_mask(mask));
}
template <class MaskT>
inline int __any_sync(MaskT mask, int p) { return __ballot_sync(mask, p) != 0; }
template <class MaskT>
inline int __all_sync(MaskT mask, int p) { return __ballot_sync(mask, p) == amdgpu_sim::sync_mask(mask); }
template <class T>
inline unsigned long long __match_any(T v) {
    amdgpu_sim::check_match_type<T>();
    return amdgpu_sim::warp(amdgpu_sim::kMatchAny, amdgpu_sim::bits(v), 0, warpSize, 0, &amdgpu_sim::equal_as<T>);
}
template <class T>
inline unsigned long long __match_all(T v, int* pred) {
    amdgpu_sim::check_match_type<T>();
    uint64_t r = amdgpu_sim::warp(amdgpu_sim::kMatchAll, amdgpu_sim::bits(v), 0, warpSize, 0, &amdgpu_sim::equal_as<T>);
    *pred = r != 0;
    return r;
}
template <class MaskT, class T>
inline unsigned long long __match_any_sync(MaskT mask, T v) {
    amdgpu_sim::check_match_type<T>();
    uint64_t m = amdgpu_sim::sync_mask(mask);
    return amdgpu_sim::warp(amdgpu_sim::kMatchAny, amdgpu_sim::bits(v), 0, warpSize, m, &amdgpu_sim::equal_as<T>);
}
template <class MaskT, class T>
inline unsigned long long __match_all_sync(MaskT mask, T v, int* pred) {
    amdgpu_sim::check_match_type<T>();
    uint64_t m = amdgpu_sim::sync_mask(mask);
    uint64_t r = amdgpu_sim::warp(amdgpu_sim::kMatchAll, amdgpu_sim::bits(v), 0, warpSize, m, &amdgpu_sim::equal_as<T>);
    *pred = r != 0;
    return r;
}
#endif

// Atomics at device scope (the host's atomics are at least that strong).
template <class T>
inline T atomicAdd(T* p, T v) {
    if constexpr (std::is_integral_v<T>) {
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    } else {
        T old = *p;
        T next;
        do {
            next = old + v;
        } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    }
}
template <class T>
inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
template <class T>
inline T atomicExch(T* p, T v) {
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
template <class T>
inline T atomicCAS(T* p, T compare, T v) {
    __atomic_compare_exchange(p, &compare, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return compare;
}
template <class T>
inline T atomicMin(T* p, T v) {
    T old = *p;
    while (v < old && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T>
inline T atomicMax(T* p, T v) {
    T old = *p;
    while (v > old && !__atomic_compare_exchange(p, &old, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
}
template <class T>
inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
template <class T>
inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
template <class T>
inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    unsigned old = *p;
    unsigned next;
    do {
        next = old >= limit ? 0 : old + 1;
    } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}

inline unsigned atomicDec(unsigned* p, unsigned limit) {
    unsigned old = *p;
    unsigned next;
    do {
        next = old == 0 || old > limit ? limit : old - 1;
    } while (!__atomic_compare_exchange(p, &old, &next, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}

// Bit intrinsics and fast math.
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(static_cast<unsigned>(x))) << 32) | __brev(static_cast<unsigned>(x >> 32));
}
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
using std::abs;
using std::ceil;
using std::cos;
using std::exp;
using std::floor;
using std::fma;
using std::fmax;
using std::fmin;
using std::log;
using std::pow;
using std::sin;
using std::sqrt;
using std::tanh;

#endif

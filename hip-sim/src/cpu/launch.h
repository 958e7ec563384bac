// The simulator's launcher for kernels compiled for the CPU: included
// after the program's source by the file the simulator compiles, which
// then lists the program's kernels (`AMDGPU_SIM_KERNEL`). Not part of
// what a kernel sees.
#ifndef AMDGPU_SIM_LAUNCH_H
#define AMDGPU_SIM_LAUNCH_H

#include <atomic>
#include <csignal>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>

#if !defined(__x86_64__)
#error "the HIP simulator runs compiled kernels on x86-64 hosts only"
#endif

#include "amdgpu_sim_racecheck.h"

// Save the callee-saved registers and the floating-point control words on
// this stack, store its pointer in *save, and continue on the stack `to`
// saved the same way (or made by `new_stack`).
asm(R"(
    .text
    .p2align 4
    .globl amdgpu_sim_switch
    .hidden amdgpu_sim_switch
    .type amdgpu_sim_switch, @function
amdgpu_sim_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size amdgpu_sim_switch, .-amdgpu_sim_switch
)");

namespace amdgpu_sim {

// A fiber's stack: 64 KiB above a guard page.
constexpr size_t kStack = 64 * 1024;
constexpr size_t kGuard = 4096;

// A runner: it runs the block's unclaimed threads one after another on
// its own stack, the kernel inlined into its loop, until one of them waits
// at a barrier or a warp intrinsic: that thread keeps the runner, and the
// scheduler starts another for the threads left. A block whose threads
// never wait runs on one stack with no switch between its threads.
//
// A runner claims threads a batch at a time (`kBatch`), so that a thread
// costs the loop one store, its place (`threadIdx.x`), where the kernel's
// own memory accesses wait behind every store the loop makes and the
// claim's count carried from thread to thread through memory bounds the
// loop (the elementwise kernel, on one core: 54 ms with seven stores a
// thread, 26 with two, 18 with one). The place is counted on from the
// thread before. A thread that waits hands the rest of its batch back
// (`yield`), which the next runner claims; its record is written only
// then, and says nothing of its end (`state_of`).
template <auto F, class Tuple>
[[noreturn]] void runner() {
    Block* b = current_block;
    const Tuple& arguments = *static_cast<const Tuple*>(b->arguments);
    const uint32_t count = b->count, bx = b->launch->block[0], by = b->launch->block[1];
    for (;;) {
        uint32_t i = b->next;
        if (i >= count) break;
        const uint32_t end = count - i > kBatch ? i + kBatch : count;
        const uint32_t first = i;
        b->next = end;
        b->batch_start = first;
        dim3_t idx = place_of(*b, i);
        here.thread = idx;
        for (;;) {
            // The fault handler reads it: in memory before the kernel
            // runs, whatever the compiler makes of the loop. (An empty
            // statement that reads it, not a fence: after a fence the
            // kernel would load its indices and arguments again.)
            asm volatile("" : : "m"(here.thread));
            std::apply(F, arguments);
            // A thread of the batch waited (and handed the rest of it
            // back, which another runner claimed), or the batch is run.
            if (++i == end || b->batch_start != first) break;
            if (++idx.x != bx) {
                here.thread.x = idx.x;
            } else {
                idx.x = 0;
                if (++idx.y == by) {
                    idx.y = 0;
                    ++idx.z;
                }
                here.thread = idx;
            }
        }
    }
    // Nothing left to claim: on to the next released thread, or back.
    Thread* next = b->released == 0 ? nullptr : take_next_released(b);
    void* unused;
    amdgpu_sim_switch(&unused, next != nullptr ? next->sp : b->scheduler_sp);
    std::abort();  // never resumed
}

// The stack pointer of a runner that starts at `entry` when switched to.
inline void* new_stack(char* top, void (*entry)()) {
    uintptr_t sp = reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15);
    uint64_t* p = reinterpret_cast<uint64_t*>(sp);
    *--p = 0;                                    // the runner never returns
    *--p = reinterpret_cast<uint64_t>(entry);    // where `ret` goes
    for (int i = 0; i < 6; ++i) *--p = 0;        // rbp rbx r12-r15
    uint32_t mxcsr;
    uint16_t fpucw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpucw));
    *--p = uint64_t(mxcsr) | (uint64_t(fpucw) << 32);
    return p;
}

// Fiber stacks of this host thread, kept from launch to launch.
struct Stacks {
    char* base = nullptr;
    uint32_t count = 0;
    ~Stacks() {
        if (base != nullptr) munmap(base, size_t(count) * (kStack + kGuard));
    }
    bool reserve(uint32_t n) {
        if (n <= count) return true;
        if (base != nullptr) munmap(base, size_t(count) * (kStack + kGuard));
        size_t bytes = size_t(n) * (kStack + kGuard);
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            base = nullptr;
            count = 0;
            return false;
        }
        base = static_cast<char*>(p);
        count = n;
        for (uint32_t i = 0; i < n; ++i) mprotect(base + size_t(i) * (kStack + kGuard), kGuard, PROT_NONE);
        return true;
    }
    char* top(uint32_t i) const { return base + size_t(i + 1) * (kStack + kGuard); }
    // The top of the stack whose pages or guard page hold `at`, or 0.
    uintptr_t top_of(uintptr_t at) const {
        const uintptr_t low = reinterpret_cast<uintptr_t>(base);
        if (base == nullptr || at < low || at - low >= size_t(count) * (kStack + kGuard)) return 0;
        return reinterpret_cast<uintptr_t>(top(static_cast<uint32_t>((at - low) / (kStack + kGuard))));
    }
};

static thread_local Stacks stacks;
static thread_local Thread* threads = nullptr;
// How many blocks this host thread has begun (`Block::epoch`).
static thread_local uint64_t epochs = 0;
static thread_local char* shared = nullptr;
static thread_local uint32_t shared_size = 0;
static thread_local uintptr_t fault_address = 0;
// The top of the faulting thread's stack.
static thread_local uintptr_t fault_stack = 0;
// The signal handlers' own stack, when the host thread has none.
static thread_local char* alternate = nullptr;

// The launcher's thread-locals: no shared memory, to the race check.
inline void race_begin(Launch* l) {
    const void* owned[] = {&current_block, &in_thread,   &here,          &stacks,      &threads,   &epochs,
                           &shared,        &shared_size, &fault_address, &fault_stack, &alternate};
    const size_t sizes[] = {sizeof current_block, sizeof in_thread,   sizeof here,
                            sizeof stacks,        sizeof threads,     sizeof epochs,
                            sizeof shared,        sizeof shared_size, sizeof fault_address,
                            sizeof fault_stack,   sizeof alternate};
    if (!race_begin(l, shared, owned, sizes, sizeof sizes / sizeof sizes[0])) {
        l->fault = kTooLarge;
        std::snprintf(l->message, sizeof l->message, "no memory for the race check of the block's shared memory");
    }
}

// ---- faults: an access outside mapped memory ends the launch ----------------

inline struct sigaction previous_segv, previous_bus;

[[noreturn]] inline void fault_landing() {
    uintptr_t at = fault_address;
    uintptr_t stack_low = fault_stack - kStack - kGuard;
    if (at >= stack_low && at < stack_low + kGuard) {
        fault_here(kIllegalAddress, "the thread's stack overflowed (the simulator gives each thread 64 KiB)", at);
    }
    fault_here(kIllegalAddress, "an access outside the device memory the kernel may reach", at);
    std::abort();
}

AMDGPU_SIM_UNCHECKED inline void chain(int sig, siginfo_t* info, void* context) {
    const struct sigaction& prev = sig == SIGBUS ? previous_bus : previous_segv;
    if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
        prev.sa_sigaction(sig, info, context);
    } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
    } else {
        // Back to what there was: the access faults again and ends the process.
        sigaction(sig, &prev, nullptr);
    }
}

// The host threads inside a launch of this object now. The handlers look
// here before they read a thread-local: a thread that never ran this
// object's code may have no thread-locals of it yet, and making them
// inside a signal handler could take the allocator's lock the
// interrupted code holds.
//
// The handlers, and what they call, are left out of the race check's
// instrumentation (`AMDGPU_SIM_UNCHECKED`): its checks read thread-locals.
constexpr int kInside = 1024;
inline pthread_t inside[kInside];

AMDGPU_SIM_UNCHECKED inline bool is_inside() {
    pthread_t self = pthread_self();
    for (int i = 0; i < kInside; ++i)
        if (__atomic_load_n(&inside[i], __ATOMIC_RELAXED) == self) return true;
    return false;
}

// This host thread is inside a launch of this object until destroyed.
struct Inside {
    int slot = -1;
    Inside() {
        pthread_t self = pthread_self();
        for (int i = 0; i < kInside && slot < 0; ++i) {
            pthread_t none{};
            if (__atomic_compare_exchange_n(&inside[i], &none, self, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
                slot = i;
            }
        }
    }
    ~Inside() {
        if (slot >= 0) __atomic_store_n(&inside[slot], pthread_t{}, __ATOMIC_RELAXED);
    }
};

AMDGPU_SIM_UNCHECKED inline void on_fault(int sig, siginfo_t* info, void* context) {
    // A fault while a thread of the block runs is the kernel's.
    const bool running = is_inside() && in_thread;
    auto* uc = static_cast<ucontext_t*>(context);
    // The fiber's stack, which holds its stack pointer (or, where it
    // overflowed, whose guard page does).
    uintptr_t top = running ? stacks.top_of(static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP])) : 0;
    if (top == 0 || current_block == nullptr) {
        chain(sig, info, context);
        return;
    }
    // Continue the faulting fiber in `fault_landing`, at the top of its
    // own stack (which it never returns to), as if called there.
    fault_address = reinterpret_cast<uintptr_t>(info->si_addr);
    fault_stack = top;
    uintptr_t sp = (top & ~uintptr_t(15)) - 8;
    uc->uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(sp);
    uc->uc_mcontext.gregs[REG_RIP] = reinterpret_cast<greg_t>(&fault_landing);
}

// ---- the watchdog: a launch past its limit is stopped ------------------------
//
// The simulator sends SIGURG (ignored where nothing handles it) to each
// host thread of a launch that has run past its limit, again and again
// until the launch ends. A thread interrupted in this object's code (the
// kernel, inlined into the launcher) continues at `watchdog_landing`,
// which faults its block; one interrupted elsewhere (in the C library,
// which may hold a lock) is left to the next signal.

inline struct sigaction previous_urg;
inline uintptr_t text_start = 0, text_end = 0;

[[noreturn]] inline void watchdog_landing() {
    fault_here(kWatchdog, "the kernel ran past the simulator's watchdog", 0);
    std::abort();
}

AMDGPU_SIM_UNCHECKED inline void on_watchdog(int sig, siginfo_t* info, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    uintptr_t pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    if (!is_inside() || !in_thread || current_block == nullptr) {
        // Not this object's kernel: another object's, perhaps.
        if ((previous_urg.sa_flags & SA_SIGINFO) != 0 && previous_urg.sa_sigaction != nullptr) {
            previous_urg.sa_sigaction(sig, info, context);
        } else if (previous_urg.sa_handler != SIG_DFL && previous_urg.sa_handler != SIG_IGN) {
            previous_urg.sa_handler(sig);
        }
        return;
    }
    // Only kernel code on the thread's own stack: not the C library, and
    // not the scheduler (on the host thread's stack, mid-switch perhaps).
    uintptr_t at = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
    uintptr_t top = stacks.top_of(at);
    if (pc < text_start || pc >= text_end || top == 0 || at < top - kStack) return;
    uintptr_t sp = (top & ~uintptr_t(15)) - 8;
    uc->uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(sp);
    uc->uc_mcontext.gregs[REG_RIP] = reinterpret_cast<greg_t>(&watchdog_landing);
}

// The executable segment of this object: [text_start, text_end).
inline int find_text(struct dl_phdr_info* info, size_t, void*) {
    uintptr_t self = reinterpret_cast<uintptr_t>(&on_watchdog);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + ph.p_vaddr;
        if (self >= start && self < start + ph.p_memsz) {
            text_start = start;
            text_end = start + ph.p_memsz;
            return 1;
        }
    }
    return 0;
}

inline void install_fault_handler() {
    static bool installed = [] {
        struct sigaction action;
        std::memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fault;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGSEGV, &action, &previous_segv);
        sigaction(SIGBUS, &action, &previous_bus);
        dl_iterate_phdr(find_text, nullptr);
        action.sa_sigaction = on_watchdog;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigaction(SIGURG, &action, &previous_urg);
        return true;
    }();
    (void)installed;
    // The handler needs a stack of its own when a fiber's overflows.
    stack_t current;
    if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) != 0 && alternate == nullptr) {
        alternate = static_cast<char*>(std::malloc(64 * 1024));
        if (alternate != nullptr) {
            stack_t s;
            s.ss_sp = alternate;
            s.ss_size = 64 * 1024;
            s.ss_flags = 0;
            sigaltstack(&s, nullptr);
        }
    }
}

// ---- one block -------------------------------------------------------------

inline bool fail(Block& b, uint32_t kind, const Thread& t, const char* what) {
    Launch* l = b.launch;
    if (l->fault == kNone) {
        // A thread that ran to its end has no place in its record.
        const dim3_t at = place_of(b, static_cast<uint32_t>(&t - b.threads));
        l->fault = kind;
        l->fault_block[0] = b.idx.x;
        l->fault_block[1] = b.idx.y;
        l->fault_block[2] = b.idx.z;
        l->fault_thread[0] = at.x;
        l->fault_thread[1] = at.y;
        l->fault_thread[2] = at.z;
        std::snprintf(l->message, sizeof l->message, "%s", what);
    }
    return false;
}

// The lane whose value `t`'s warp intrinsic reads: its own where the one
// asked for lies outside its segment of the warp (negative for a negative
// mask, which no lane has).
inline int source_lane(const Thread& t) {
    int lane = static_cast<int>(t.lane);
    int width = t.op_width;
    int base = lane & ~(width - 1);
    int index = lane;
    switch (t.op) {
        case kShfl: index = base + (t.op_arg & (width - 1)); break;
        case kShflUp: index = lane - t.op_arg < base ? lane : lane - t.op_arg; break;
        case kShflDown: index = (lane & (width - 1)) + t.op_arg >= width ? lane : lane + t.op_arg; break;
        case kShflXor: index = (lane ^ t.op_arg) >= base + width ? lane : lane ^ t.op_arg; break;
        default: break;
    }
    return index;
}

// Let the lanes `group` (bits, lane 0 the warp's first thread `first`)
// of a warp, all waiting at the intrinsic `lead` waits at, pass it; false
// (and a fault) if what it asks is undefined.
inline bool meet(Block& b, uint32_t first, uint64_t group, const Thread& lead) {
    int width = lead.op_width;
    if (width <= 0 || (width & (width - 1)) != 0 || width > static_cast<int>(b.launch->warp_size)) {
        return fail(b, kWarpDivergence, lead, "a warp intrinsic's width is not a power of two up to warpSize");
    }
    auto in = [group](int lane) { return lane >= 0 && lane < 64 && ((group >> lane) & 1) != 0; };
    uint64_t ballot = 0;
    for (int j = 0; j < 64; ++j)
        if (in(j) && b.threads[first + j].value != 0) ballot |= uint64_t(1) << j;
    for (int j = 0; j < 64; ++j) {
        if (!in(j)) continue;
        Thread& t = b.threads[first + j];
        switch (t.op) {
            case kBallot: t.result = ballot; break;
            case kAny: t.result = ballot != 0; break;
            case kAll: t.result = ballot == group; break;
            case kMatchAny:
            case kMatchAll: {
                uint64_t same = 0;
                for (int k = 0; k < 64; ++k)
                    if (in(k) && t.equal(t.value, b.threads[first + k].value)) same |= uint64_t(1) << k;
                t.result = t.op == kMatchAny ? same : (same == group ? group : 0);
                break;
            }
            default: {
                int source = source_lane(t);
                if (!in(source)) {
                    return fail(b, kWarpDivergence, t,
                                t.mask != 0 ? "a _sync shuffle read a lane outside its mask"
                                            : "a shuffle read a lane that has returned or does not exist");
                }
                t.result = b.threads[first + source].value;
            }
        }
    }
    for (int j = 0; j < 64; ++j) {
        if (in(j)) {
            set_state(b, b.threads[first + j], kReleased);
            --b.at_warp;
            ++b.released;
        }
    }
    race_meet(first / b.launch->warp_size);
    return true;
}

// Let the lanes [first, end) of a warp that wait at an intrinsic pass it:
// a `_sync` one's lanes once every lane its mask names is there; one
// without a mask once every live lane of the warp is. False (and a fault)
// where they disagree.
inline bool resolve_warp(Block& b, uint32_t first, uint32_t end, bool& progressed) {
    const uint32_t lanes = end - first;
    for (uint32_t i = first; i < end; ++i) {
        const Thread& t = b.threads[i];
        if (state_of(b, t) != kAtWarp || t.mask == 0) continue;
        const uint64_t m = t.mask;
        if (((m >> t.lane) & 1) == 0) {
            return fail(b, kWarpDivergence, t, "a _sync warp intrinsic's mask does not name the lane that calls it");
        }
        if (lanes < 64 && (m >> lanes) != 0) {
            return fail(b, kWarpDivergence, t, "a _sync warp intrinsic's mask names lanes the warp does not have");
        }
        bool there = true;
        for (uint32_t j = 0; j < lanes; ++j) {
            if (((m >> j) & 1) == 0) continue;
            const Thread& u = b.threads[first + j];
            const State state = state_of(b, u);
            if (state == kAtWarp && (u.mask != m || u.op != t.op || u.op_width != t.op_width)) {
                return fail(b, kWarpDivergence, u,
                            "the lanes a _sync mask names reached different intrinsics, or gave different masks (HIP "
                            "asserts that each runs the same one with the same mask)");
            }
            if (state == kDone) {
                return fail(b, kWarpDivergence, u, "a lane a _sync warp intrinsic's mask names returned without it");
            }
            there = there && state == kAtWarp;
        }
        if (there) {
            if (!meet(b, first, m, t)) return false;
            progressed = true;
        }
    }
    const Thread* lead = nullptr;
    uint64_t live = 0;
    for (uint32_t i = first; i < end; ++i) {
        const Thread& t = b.threads[i];
        const State state = state_of(b, t);
        if (state == kDone) continue;
        if (state != kAtWarp || t.mask != 0) return true;  // not every live lane is there yet
        if (lead == nullptr) lead = &t;
        if (t.op != lead->op || t.op_width != lead->op_width) {
            return fail(b, kWarpDivergence, t, "the lanes of a warp reached different warp intrinsics");
        }
        live |= uint64_t(1) << (i - first);
    }
    if (lead == nullptr) return true;
    if (!meet(b, first, live, *lead)) return false;
    progressed = true;
    return true;
}

// Switch to `sp` (a runner, new or waiting) until a thread waits, faults
// or the runner ends; false if a thread faulted.
inline bool resume(Block& b, void* sp) {
    in_thread = true;
    amdgpu_sim_switch(&b.scheduler_sp, sp);
    in_thread = false;
    return !b.faulted;
}

// Run every thread of block `b` to its end; false if the block faulted.
inline bool run_block(Block& b, void (*entry)()) {
    const uint32_t n = b.count;
    const uint32_t bx = b.launch->block[0], by = b.launch->block[1];
    const uint32_t ws = b.launch->warp_size;
    b.epoch = ++epochs;
    b.next = 0;
    b.batch_start = kNoBatch;
    b.faulted = false;
    b.released = b.at_barrier = b.at_warp = 0;
    b.predicates = 0;
    b.cursor = n;  // no pass over released threads yet: nothing to hand to
    race_block_starts();
    current_block = &b;
    here.block = b.idx;
    here.block_dim = dim3_t{bx, by, b.launch->block[2]};
    here.grid = dim3_t{b.launch->grid[0], b.launch->grid[1], b.launch->grid[2]};
    here.warp_size = static_cast<int>(ws);
    uint32_t runners = 0;
    for (;;) {
        while (b.next < n) {
            if (!resume(b, new_stack(stacks.top(runners++), entry))) return false;
        }
        // The released threads in order: each that waits again hands the
        // host thread to the next (`yield`), so one switch here resumes
        // as many as run on without faulting.
        b.cursor = UINT32_MAX;  // the pass starts at thread 0 (cursor + 1)
        Thread* first = b.released == 0 ? nullptr : take_next_released(&b);
        if (first != nullptr) {
            if (!resume(b, first->sp)) return false;
            continue;
        }
        // Every thread claimed, none released: each that waits nowhere
        // is done.
        if (b.at_barrier == 0 && b.at_warp == 0) return true;
        bool progressed = false;
        for (uint32_t first = 0; b.at_warp > 0 && first < n; first += ws) {
            if (!resolve_warp(b, first, first + ws < n ? first + ws : n, progressed)) return false;
        }
        if (progressed) continue;
        if (b.at_barrier == n) {
            b.barrier_result = b.predicates;
            b.predicates = 0;
            for (uint32_t i = 0; i < n; ++i) set_state(b, b.threads[i], kReleased);
            b.at_barrier = 0;
            b.released = n;
            race_interval();
            continue;
        }
        // No thread can go on: say why.
        const Thread* waiting = nullptr;
        const Thread* other = nullptr;
        for (uint32_t i = 0; i < n; ++i) {
            const Thread& t = b.threads[i];
            if (state_of(b, t) == kAtBarrier && waiting == nullptr) waiting = &t;
            if (state_of(b, t) != kAtBarrier && other == nullptr) other = &t;
        }
        for (uint32_t i = 0; i < n; ++i) {
            const Thread& t = b.threads[i];
            if (state_of(b, t) == kAtWarp && t.mask != 0) {
                return fail(b, kBarrierDeadlock, t,
                            "a lane its _sync warp intrinsic's mask names waits elsewhere (at a barrier or another "
                            "intrinsic): a deadlock on a GPU");
            }
        }
        if (other != nullptr && state_of(b, *other) == kDone) {
            return fail(b, kBarrierDeadlock, *other,
                        "a thread returned while others of its block wait at __syncthreads: a barrier every thread "
                        "of the block does not reach deadlocks on a GPU");
        }
        return fail(b, kBarrierDeadlock, other != nullptr ? *other : *waiting,
                    "the threads of a block wait at different barriers (__syncthreads against a warp intrinsic, "
                    "or two different __syncthreads): a deadlock on a GPU");
    }
}

// ---- a launch ----------------------------------------------------------------

template <class T>
inline T argument(Launch* l, void* at) {
    T value;
    std::memcpy(&value, at, sizeof(T));
    if constexpr (std::is_pointer_v<T>) {
        value = reinterpret_cast<T>(l->translate(l->context, reinterpret_cast<uintptr_t>(value)));
    }
    return value;
}

template <class... A, size_t... I>
inline std::tuple<A...> arguments(Launch* l, void** args, std::index_sequence<I...>) {
    return std::tuple<A...>{argument<A>(l, args[I])...};
}

template <class F>
struct Signature;

template <class... A>
struct Signature<void (*)(A...)> {
    static constexpr uint32_t count = sizeof...(A);
    static constexpr uint32_t sizes[sizeof...(A) + 1] = {static_cast<uint32_t>(sizeof(A))..., 0};
    // 0: a value; 1: a pointer; 2: a pointer to const.
    static constexpr uint8_t pointers[sizeof...(A) + 1] = {
        static_cast<uint8_t>(std::is_pointer_v<A> ? (std::is_const_v<std::remove_pointer_t<A>> ? 2 : 1) : 0)..., 0};
    using Tuple = std::tuple<A...>;
    template <auto F>
    static int launch(Launch* l, void** args) {
        Inside inside_launch;
        install_fault_handler();
        Tuple values = arguments<A...>(l, args, std::index_sequence_for<A...>{});
        const uint32_t n = l->block[0] * l->block[1] * l->block[2];
        if (n == 0 || n > 1024 || !stacks.reserve(n)) {
            l->fault = kTooLarge;
            std::snprintf(l->message, sizeof l->message, "no stacks for %u threads", n);
            return 1;
        }
        if (threads == nullptr) {
            threads = static_cast<Thread*>(std::calloc(1024, sizeof(Thread)));
            if (threads == nullptr) {
                l->fault = kTooLarge;
                std::snprintf(l->message, sizeof l->message, "no memory for the block's threads");
                return 1;
            }
        }
        if (l->dynamic_shared > shared_size) {
            std::free(shared);
            shared = static_cast<char*>(std::malloc(l->dynamic_shared));
            shared_size = shared == nullptr ? 0 : l->dynamic_shared;
        }
        race_begin(l);
        if (l->fault != kNone) return 1;
        Block b{};
        b.threads = threads;
        b.count = n;
        b.launch = l;
        b.shared = shared;
        b.arguments = &values;
        // Blocks are claimed in order, `block_run` consecutive ones at a
        // time, by every host thread of the launch (a host thread streams
        // through memory of its own, which the processor fetches ahead:
        // blocks dealt one at a time to two host threads ran the
        // elementwise kernel at half the speed of one). A host thread
        // starts no block after a fault, so the fault reported (the lowest
        // block's) is the one a launch of its blocks in order would meet
        // first; where it stops, it says (`not_run`).
        const uint64_t gx = l->grid[0], gy = l->grid[1];
        const uint64_t total = gx * gy * l->grid[2];
        const uint64_t run = l->block_run == 0 ? 1 : l->block_run;
        uint64_t claimed = 0, claimed_end = 0;
        l->not_run = total;
        for (;;) {
            if (claimed == claimed_end) {
                claimed = l->next_block->fetch_add(run, std::memory_order_relaxed);
                claimed_end = claimed + run;
            }
            const uint64_t i = claimed++;
            if (i >= total || i >= l->first_fault->load(std::memory_order_relaxed)) {
                l->not_run = i < total ? i : total;
                break;
            }
            b.idx = dim3_t{static_cast<uint32_t>(i % gx), static_cast<uint32_t>(i / gx % gy),
                           static_cast<uint32_t>(i / (gx * gy))};
            bool ok = run_block(b, &runner<F, Tuple>);
            current_block = nullptr;
            if (!ok) {
                race_end();
                uint64_t first = l->first_fault->load(std::memory_order_relaxed);
                while (i < first && !l->first_fault->compare_exchange_weak(first, i, std::memory_order_relaxed)) {
                }
                return 1;
            }
        }
        race_end();
        return 0;
    }
};

// What the simulator reads of each kernel.
struct Kernel {
    const char* name;
    int (*launch)(Launch*, void**);
    uint32_t params;
    const uint32_t* sizes;
    const uint8_t* pointers;
};

}  // namespace amdgpu_sim

// What the simulator looks up in the object, which is otherwise built
// with hidden visibility.
#define AMDGPU_SIM_EXPORT __attribute__((visibility("default")))

#define AMDGPU_SIM_KERNEL(name, function)                                                              \
    {name, &::amdgpu_sim::Signature<decltype(function)>::template launch<function>,                    \
     ::amdgpu_sim::Signature<decltype(function)>::count, ::amdgpu_sim::Signature<decltype(function)>::sizes, \
     ::amdgpu_sim::Signature<decltype(function)>::pointers}

#endif

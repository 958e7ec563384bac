// The simulator's shared-memory race check for kernels compiled for the
// CPU (`AMDGPU_SIM_RACECHECK`): two threads of a block touching the same
// byte of shared memory between two barriers, at least one writing, with
// nothing ordering them, as compute-sanitizer's racecheck reports on a
// GPU. Included by the launcher; not part of what a kernel sees.
//
// The kernel is compiled with the compiler's thread-sanitizer
// instrumentation, which calls a function before every load and store;
// the functions are these, not a sanitizer's runtime. Each access to the
// block's shared memory (static `__shared__` variables, which are the host
// thread's thread-locals, and the dynamic shared memory) is checked
// against the last writer and the last two readers of each byte in the
// current interval:
//
// - the interval ends at each `__syncthreads` (every thread passes it
//   together) and with the block;
// - lanes of one wavefront are also ordered by each warp intrinsic they
//   meet at (the wavefront's count of meetings has moved on);
// - atomics are never a race with each other, and are not recorded;
// - an access is known by its bytes as the compiler gives them (1 to 16,
//   or a range for a copy); a copy through the C library's `memcpy` is not
//   seen.
//
// The first race of a launch's part is written to its `Launch`, with a
// count of all of them; the launch goes on, as it would on a GPU.
#ifndef AMDGPU_SIM_RACECHECK_H
#define AMDGPU_SIM_RACECHECK_H

// A function the instrumentation must not reach into: the checks
// themselves, and the signal handlers (which may run on a thread that has
// no thread-locals of this object yet, so must not read them).
#if defined(__clang__)
#define AMDGPU_SIM_UNCHECKED __attribute__((disable_sanitizer_instrumentation))
#else
#define AMDGPU_SIM_UNCHECKED __attribute__((no_sanitize_thread))
#endif

namespace amdgpu_sim {

#if AMDGPU_SIM_RACECHECK

// One byte's accesses in the current interval: the last writer and the
// last two readers (thread index in the block, or kNobody), each with its
// wavefront's count of meetings when it accessed.
struct RaceCell {
    uint32_t interval;
    uint16_t writer, reader, other_reader;
    uint16_t writer_meets, reader_meets, other_reader_meets;
};
constexpr uint16_t kNobody = 0xffff;
// The interval of a byte the launcher itself owns (its thread-locals).
constexpr uint32_t kLauncher = 0xffffffffu;
constexpr uint32_t kMaxWaves = 1024 / 32;

struct RaceCheck {
    // This host thread's instance of the object's thread-locals (the
    // static shared memory among them), and the dynamic shared memory.
    char* statics = nullptr;
    size_t statics_size = 0;
    char* dynamic = nullptr;
    size_t dynamic_size = 0;
    // One cell per byte: the statics', then the dynamic memory's.
    RaceCell* cells = nullptr;
    size_t cell_count = 0;
    uint32_t interval = 0;
    uint32_t warp_size = 64;
    uint16_t meets[kMaxWaves] = {};
    Launch* launch = nullptr;
};
static thread_local RaceCheck race;

// The object whose code holds `inside`, and the calling thread's instance of
// its thread-local segment (its statics), as `find_statics` finds them.
struct Statics {
    uintptr_t inside;
    char* data;
    size_t size;
};

inline int find_statics(struct dl_phdr_info* info, size_t, void* out) {
    Statics* s = static_cast<Statics*>(out);
    bool ours = false;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph.p_vaddr;
        if (ph.p_type == PT_LOAD && s->inside >= start && s->inside < start + ph.p_memsz) ours = true;
    }
    if (!ours) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        if (info->dlpi_phdr[i].p_type == PT_TLS) {
            s->data = static_cast<char*>(info->dlpi_tls_data);
            s->size = info->dlpi_phdr[i].p_memsz;
        }
    }
    return 1;
}

AMDGPU_SIM_UNCHECKED inline void race_report(uint16_t earlier, bool earlier_wrote, uint16_t later, bool later_wrote,
                                             size_t cell);

// Whether thread `other`'s access, made when its wavefront had met `at`
// times, is ordered before thread `me`'s now, its wavefront having met
// `meets` times: the same thread, or lanes of one wavefront that have met
// at a warp intrinsic since.
AMDGPU_SIM_UNCHECKED inline bool ordered(uint16_t other, uint16_t at, uint16_t me, uint16_t meets) {
    return other == kNobody || other == me || (other / race.warp_size == me / race.warp_size && at != meets);
}

// Check and record an access of `n` bytes at `p` by the running thread.
AMDGPU_SIM_UNCHECKED inline void race_access(const volatile void* p, size_t n, bool write) {
    // Most accesses are to global memory: out after two comparisons.
    RaceCheck& r = race;
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    size_t cell;
    if (a - reinterpret_cast<uintptr_t>(r.dynamic) < r.dynamic_size) {
        cell = r.statics_size + (a - reinterpret_cast<uintptr_t>(r.dynamic));
    } else if (a - reinterpret_cast<uintptr_t>(r.statics) < r.statics_size) {
        cell = a - reinterpret_cast<uintptr_t>(r.statics);
    } else {
        return;
    }
    if (r.cells == nullptr || r.cells[cell].interval == kLauncher) return;
    Block* b = current_block;
    if (!in_thread || b == nullptr) return;
    const uint16_t me = static_cast<uint16_t>(my_index());
    const uint32_t wave = me / race.warp_size;
    const uint16_t meets = race.meets[wave];
    // One access races once, at its first byte that races.
    bool raced = false;
    for (size_t i = 0; i < n && cell + i < race.cell_count; ++i) {
        RaceCell& c = race.cells[cell + i];
        if (c.interval == kLauncher) return;
        if (c.interval != race.interval) {
            c.interval = race.interval;
            c.writer = c.reader = c.other_reader = kNobody;
        }
        if (!raced) {
            raced = true;
            if (!ordered(c.writer, c.writer_meets, me, meets)) {
                race_report(c.writer, true, me, write, cell + i);
            } else if (write && !ordered(c.reader, c.reader_meets, me, meets)) {
                race_report(c.reader, false, me, true, cell + i);
            } else if (write && !ordered(c.other_reader, c.other_reader_meets, me, meets)) {
                race_report(c.other_reader, false, me, true, cell + i);
            } else {
                raced = false;
            }
        }
        if (write) {
            c.writer = me;
            c.writer_meets = meets;
        } else if (c.reader == kNobody || c.reader == me) {
            c.reader = me;
            c.reader_meets = meets;
        } else {
            c.other_reader = me;
            c.other_reader_meets = meets;
        }
    }
}

AMDGPU_SIM_UNCHECKED inline void race_report(uint16_t earlier, bool earlier_wrote, uint16_t later, bool later_wrote,
                                             size_t cell) {
    Launch* l = race.launch;
    if (l == nullptr || l->races++ != 0) return;
    Block* b = current_block;
    l->race_block[0] = b->idx.x;
    l->race_block[1] = b->idx.y;
    l->race_block[2] = b->idx.z;
    const dim3_t first = place_of(*b, earlier), second = place_of(*b, later);
    l->race_threads[0] = first.x;
    l->race_threads[1] = first.y;
    l->race_threads[2] = first.z;
    l->race_threads[3] = second.x;
    l->race_threads[4] = second.y;
    l->race_threads[5] = second.z;
    l->race_kinds[0] = earlier_wrote;
    l->race_kinds[1] = later_wrote;
    l->race_dynamic = cell >= race.statics_size;
    l->race_offset = cell >= race.statics_size ? cell - race.statics_size : cell;
}

// Make the launcher's own thread-locals (`owned`, `sizes`, `count` of
// them) no shared memory.
inline void race_exclude(const void* const* owned, const size_t* sizes, size_t count) {
    for (size_t k = 0; k < count; ++k) {
        uintptr_t a = reinterpret_cast<uintptr_t>(owned[k]) - reinterpret_cast<uintptr_t>(race.statics);
        for (size_t i = 0; i < sizes[k] && a + i < race.statics_size; ++i) race.cells[a + i].interval = kLauncher;
    }
}

// Set up this host thread's check for launch `l`, whose dynamic shared
// memory is `dynamic`; false if there is no memory for it.
inline bool race_begin(Launch* l, char* dynamic, const void* const* owned, const size_t* sizes, size_t count) {
    race.launch = l;
    race.warp_size = l->warp_size;
    if (race.statics == nullptr) {
        Statics s{reinterpret_cast<uintptr_t>(&find_statics), nullptr, 0};
        dl_iterate_phdr(find_statics, &s);
        race.statics = s.data;
        race.statics_size = s.data == nullptr ? 0 : s.size;
    }
    race.dynamic = dynamic;
    race.dynamic_size = l->dynamic_shared;
    size_t need = race.statics_size + race.dynamic_size;
    if (need > race.cell_count) {
        std::free(race.cells);
        race.cells = static_cast<RaceCell*>(std::calloc(need, sizeof(RaceCell)));
        race.cell_count = race.cells == nullptr ? 0 : need;
        if (race.cells == nullptr) return false;
        race.interval = 0;
        race_exclude(owned, sizes, count);
        const void* self[] = {&race};
        const size_t self_size[] = {sizeof race};
        race_exclude(self, self_size, 1);
    }
    return true;
}

// A new interval: a block starts, or its threads pass a barrier.
inline void race_interval() {
    if (++race.interval == kLauncher) {
        // Wrapped: forget every access (the launcher's bytes stay its own).
        for (size_t i = 0; i < race.cell_count; ++i)
            if (race.cells[i].interval != kLauncher) race.cells[i].interval = 0;
        race.interval = 1;
    }
}

inline void race_block_starts() {
    race_interval();
    for (uint32_t w = 0; w < kMaxWaves; ++w) race.meets[w] = 0;
}

// The lanes of wavefront `wave` met at a warp intrinsic.
inline void race_meet(uint32_t wave) {
    if (wave < kMaxWaves) ++race.meets[wave];
}

inline void race_end() {
    race.launch = nullptr;
}

}  // namespace amdgpu_sim

// ---- the instrumentation's entry points --------------------------------------
//
// Hidden: the kernel calls them directly, not through the object's
// procedure linkage table.

#define AMDGPU_SIM_HOOK AMDGPU_SIM_UNCHECKED __attribute__((visibility("hidden")))

extern "C" {
#define AMDGPU_SIM_ACCESS(n)                                                                           \
    AMDGPU_SIM_HOOK void __tsan_read##n(void* p) { amdgpu_sim::race_access(p, n, false); }           \
    AMDGPU_SIM_HOOK void __tsan_write##n(void* p) { amdgpu_sim::race_access(p, n, true); }           \
    AMDGPU_SIM_HOOK void __tsan_unaligned_read##n(void* p) { amdgpu_sim::race_access(p, n, false); } \
    AMDGPU_SIM_HOOK void __tsan_unaligned_write##n(void* p) { amdgpu_sim::race_access(p, n, true); } \
    AMDGPU_SIM_HOOK void __tsan_volatile_read##n(void* p) { amdgpu_sim::race_access(p, n, false); }  \
    AMDGPU_SIM_HOOK void __tsan_volatile_write##n(void* p) { amdgpu_sim::race_access(p, n, true); }
AMDGPU_SIM_ACCESS(1)
AMDGPU_SIM_ACCESS(2)
AMDGPU_SIM_ACCESS(4)
AMDGPU_SIM_ACCESS(8)
AMDGPU_SIM_ACCESS(16)
#undef AMDGPU_SIM_ACCESS
AMDGPU_SIM_HOOK void __tsan_read_range(void* p, size_t n) { amdgpu_sim::race_access(p, n, false); }
AMDGPU_SIM_HOOK void __tsan_write_range(void* p, size_t n) { amdgpu_sim::race_access(p, n, true); }
AMDGPU_SIM_HOOK void __tsan_init() {}
AMDGPU_SIM_HOOK void __tsan_func_entry(void*) {}
AMDGPU_SIM_HOOK void __tsan_func_exit() {}
AMDGPU_SIM_HOOK void __tsan_vptr_update(void**, void*) {}
AMDGPU_SIM_HOOK void __tsan_vptr_read(void**) {}
AMDGPU_SIM_HOOK void* __tsan_memcpy(void* d, const void* s, size_t n) {
    amdgpu_sim::race_access(s, n, false);
    amdgpu_sim::race_access(d, n, true);
    return __builtin_memcpy(d, s, n);
}
AMDGPU_SIM_HOOK void* __tsan_memmove(void* d, const void* s, size_t n) {
    amdgpu_sim::race_access(s, n, false);
    amdgpu_sim::race_access(d, n, true);
    return __builtin_memmove(d, s, n);
}
AMDGPU_SIM_HOOK void* __tsan_memset(void* d, int c, size_t n) {
    amdgpu_sim::race_access(d, n, true);
    return __builtin_memset(d, c, n);
}
// Atomics: done (at sequential consistency, at least what was asked),
// never a race.
#define AMDGPU_SIM_ATOMICS(n, T)                                                                                     \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_load(const volatile T* a, int) {                                        \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                                   \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK void __tsan_atomic##n##_store(volatile T* a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); } \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_exchange(volatile T* a, T v, int) {                                     \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                            \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_add(volatile T* a, T v, int) {                                    \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                                             \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_sub(volatile T* a, T v, int) {                                    \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                                             \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_and(volatile T* a, T v, int) {                                    \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                                             \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_or(volatile T* a, T v, int) {                                     \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                                              \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_xor(volatile T* a, T v, int) {                                    \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                                             \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_fetch_nand(volatile T* a, T v, int) {                                   \
        return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                                            \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK int __tsan_atomic##n##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {         \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                        \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK int __tsan_atomic##n##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {           \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                        \
    }                                                                                                                  \
    AMDGPU_SIM_HOOK T __tsan_atomic##n##_compare_exchange_val(volatile T* a, T c, T v, int, int) {               \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                              \
        return c;                                                                                                      \
    }
AMDGPU_SIM_ATOMICS(8, uint8_t)
AMDGPU_SIM_ATOMICS(16, uint16_t)
AMDGPU_SIM_ATOMICS(32, uint32_t)
AMDGPU_SIM_ATOMICS(64, uint64_t)
#undef AMDGPU_SIM_ATOMICS
AMDGPU_SIM_HOOK void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
AMDGPU_SIM_HOOK void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
}

#else  // no race check: nothing to do

inline bool race_begin(Launch*, char*, const void* const*, const size_t*, size_t) { return true; }
inline void race_block_starts() {}
inline void race_interval() {}
inline void race_meet(uint32_t) {}
inline void race_end() {}

}  // namespace amdgpu_sim

#endif
#endif

//! The one list of what a kernel may use on every compiler: AMD's hipRTC
//! (through the AMD prelude), NVRTC (through the NVRTC prelude) and the
//! simulator's compiler for the CPU (through its own `hip/hip_runtime.h`).
//!
//! Each entry names a part of the language and shows it in use; one
//! program ([`surface_program`]) uses them all, and each compiler's tests
//! compile it, so a part one prelude lacks fails there, naming the entry.
//! A part that only some compilers have is not listed, and the prelude's
//! docs say so.

/// One part of the kernel language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provided {
    /// What it is, as the docs name it.
    pub name: &'static str,
    /// Declarations at file scope it needs (empty for none).
    pub declares: &'static str,
    /// A statement using it, in the body of a kernel template over `T`
    /// (`float` and `double`) with the parameters `T* __restrict__ x`,
    /// `uint32_t n`, `int64_t m`, `unsigned long long* q`, `uint8_t b`.
    pub uses: &'static str,
    /// A preprocessor condition the part comes under (`None`: always).
    pub when: Option<&'static str>,
}

const fn always(name: &'static str, uses: &'static str) -> Provided {
    Provided { name, declares: "", uses, when: None }
}

/// Every part of the kernel language all the compilers provide.
pub const SURFACE: &[Provided] = &[
    always(
        "the indices: threadIdx, blockIdx, blockDim, gridDim",
        "x[0] = T(threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z + blockDim.x \
         + blockDim.y + blockDim.z + gridDim.x + gridDim.y + gridDim.z);",
    ),
    always(
        "HIP's older index names (hipThreadIdx_x, ...)",
        "x[0] = T(hipThreadIdx_x + hipThreadIdx_y + hipThreadIdx_z + hipBlockIdx_x + hipBlockIdx_y + hipBlockIdx_z \
         + hipBlockDim_x + hipBlockDim_y + hipBlockDim_z + hipGridDim_x + hipGridDim_y + hipGridDim_z);",
    ),
    always("warpSize", "x[0] = T(warpSize);"),
    always("dim3", "dim3 d(1, 2, 3); dim3 e = dim3(4); x[0] = T(d.x + d.y + d.z + e.x + e.y + e.z);"),
    always("static shared memory (__shared__)", "__shared__ T tile[4]; tile[threadIdx.x % 4] = x[0]; x[1] = tile[0];"),
    always(
        "dynamic shared memory (HIP_DYNAMIC_SHARED)",
        "HIP_DYNAMIC_SHARED(unsigned char, dynamic_bytes) x[0] = T(dynamic_bytes[threadIdx.x]);",
    ),
    always("dynamic shared memory (extern __shared__)", "extern __shared__ float dynamic_floats[]; x[0] = T(dynamic_floats[0]);"),
    Provided {
        name: "__constant__ memory",
        declares: "__constant__ float amdgpu_rs_table[4] = {1.0f, 2.0f, 3.0f, 4.0f};",
        uses: "x[0] = T(amdgpu_rs_table[n % 4]);",
        when: None,
    },
    Provided {
        name: "__device__ and __forceinline__ functions",
        declares: "__device__ __forceinline__ float amdgpu_rs_twice(float v) { return 2.0f * v; }\n\
                   __host__ __device__ inline int amdgpu_rs_both(int v) { return v + 1; }",
        uses: "x[0] = T(amdgpu_rs_twice(1.0f) + amdgpu_rs_both(1));",
        when: None,
    },
    always("the fixed-width integers (int8_t ... uint64_t, std::)", "int8_t a = 1; int16_t c = 2; int32_t d = 3; uint16_t e = 4; std::uint32_t s = n; std::int64_t t = m; x[0] = T(a + c + d + e + s + t + b);"),
    always(
        "__syncthreads and its counting forms",
        "__syncthreads(); int c = __syncthreads_count(n > 0); int a = __syncthreads_and(n > 0); \
         int o = __syncthreads_or(n > 0); x[0] = T(c + a + o);",
    ),
    always("memory fences", "__threadfence(); __threadfence_block(); __threadfence_system();"),
    always(
        "HIP's shuffles without a mask, with a width",
        "T v = x[threadIdx.x]; x[0] = __shfl(v, 0) + __shfl(v, 1, 16) + __shfl_up(v, 1) + __shfl_up(v, 1, 8) \
         + __shfl_down(v, 1) + __shfl_down(v, 2, 32) + __shfl_xor(v, 1) + __shfl_xor(v, 1, 4);",
    ),
    always(
        "votes without a mask (__ballot is 64 bits wide)",
        "unsigned long long lanes = __ballot(x[0] > T(0)); x[0] = T(lanes) + T(__any(n > 0)) + T(__all(n > 0));",
    ),
    always("__lane_id", "x[0] = T(__lane_id());"),
    Provided {
        name: "the _sync intrinsics with 64-bit masks, and __activemask",
        declares: "",
        uses: "unsigned long long all = ~0ull; unsigned long long act = __activemask(); T v = x[0]; \
               x[0] = __shfl_sync(all, v, 0) + __shfl_up_sync(all, v, 1) + __shfl_down_sync(all, v, 1, 16) \
               + __shfl_xor_sync(all, v, 1) + T(__ballot_sync(all, n > 0) + __any_sync(all, n > 0) \
               + __all_sync(all, n > 0) + act); int same = 0; \
               x[1] = T(__match_any_sync(all, int(n)) + __match_all_sync(all, int(n), &same) + same);",
        when: Some("AMDGPU_RS_WARP_SYNC"),
    },
    always(
        "32-bit atomics",
        "unsigned* u = reinterpret_cast<unsigned*>(q); int* i = reinterpret_cast<int*>(q); \
         atomicAdd(u, 1u); atomicSub(u, 1u); atomicExch(u, 2u); atomicCAS(u, 2u, 3u); atomicMin(i, -1); \
         atomicMax(i, 1); atomicAnd(u, 7u); atomicOr(u, 8u); atomicXor(u, 1u); atomicInc(u, 9u); atomicDec(u, 9u); \
         atomicAdd(reinterpret_cast<float*>(q), 1.0f); atomicExch(reinterpret_cast<float*>(q), 2.0f);",
    ),
    always(
        "64-bit atomics",
        "atomicAdd(q, 1ull); atomicExch(q, 2ull); atomicCAS(q, 2ull, 3ull); atomicMin(q, 1ull); atomicMax(q, 4ull); \
         atomicAnd(q, 7ull); atomicOr(q, 8ull); atomicXor(q, 1ull); atomicAdd(reinterpret_cast<double*>(q), 1.0);",
    ),
    always(
        "the bit intrinsics",
        "x[0] = T(__popc(n) + __popcll(q[0]) + __clz(int(n)) + __clzll(m) + __ffs(int(n)) + __ffsll(m) \
         + __brev(n) + T(__brevll(q[0])));",
    ),
    always(
        "the math functions, float and double",
        "T v = x[0]; float f = float(v); x[0] = sqrt(v) + exp(v) + log(v) + sin(v) + cos(v) + pow(v, v) \
         + fma(v, v, v) + fmin(v, v) + fmax(v, v) + floor(v) + ceil(v) + fabs(v) + tanh(v) + rsqrt(double(v)) \
         + T(sqrtf(f) + expf(f) + logf(f) + sinf(f) + cosf(f) + powf(f, f) + fabsf(f) + exp2f(f) + log2f(f) \
         + tanhf(f) + erff(f) + fminf(f, f) + fmaxf(f, f) + floorf(f) + ceilf(f) + fmaf(f, f, f));",
    ),
    always(
        "the fast intrinsics",
        "float f = float(x[0]); x[0] = T(__expf(f) + __logf(f) + __sinf(f) + __cosf(f) + __powf(f, f) \
         + __fdividef(f, 2.0f) + rsqrtf(f) + __saturatef(f) + __fmaf_rn(f, f, f));",
    ),
    always("printf", "if (n == 12345u) printf(\"%u %f\\n\", n, double(x[0]));"),
    always("assert", "assert(n != 54321u);"),
    always(
        "cooperative groups' thread block",
        "cooperative_groups::thread_block g = cooperative_groups::this_thread_block(); g.sync(); \
         cooperative_groups::sync(g); dim3 gi = g.group_index(); dim3 ti = g.thread_index(); dim3 gd = g.group_dim(); \
         x[0] = T(g.thread_rank() + g.size() + gi.x + ti.y + gd.z);",
    ),
];

/// One program that uses every part of [`SURFACE`], each in a scope of
/// its own with its name above it, and under its condition: a template
/// kernel `every` with `__launch_bounds__`, instantiated for `float` and
/// `double`.
pub fn surface_program() -> String {
    let mut out = String::from("#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n\n");
    for p in SURFACE.iter().filter(|p| !p.declares.is_empty()) {
        out += &guarded(p, p.declares);
    }
    out += "template <typename T>\n__global__ void __launch_bounds__(256)\n\
            every(T* __restrict__ x, uint32_t n, int64_t m, unsigned long long* q, uint8_t b) {\n";
    for p in SURFACE {
        out += &guarded(p, &format!("{{ {} }}", p.uses));
    }
    out += "}\n\
            template __global__ void every<float>(float* __restrict__, uint32_t, int64_t, unsigned long long*, uint8_t);\n\
            template __global__ void every<double>(double* __restrict__, uint32_t, int64_t, unsigned long long*, uint8_t);\n";
    out
}

/// `text` under `p`'s condition, with its name above it.
fn guarded(p: &Provided, text: &str) -> String {
    match p.when {
        Some(condition) => format!("// {}\n#if {condition}\n{text}\n#endif\n", p.name),
        None => format!("// {}\n{text}\n", p.name),
    }
}

/// The entry whose text holds `line` (1-based) of [`surface_program`]:
/// what a compiler's error at that line is about.
pub fn surface_entry_at(line: usize) -> Option<&'static str> {
    let program = surface_program();
    let mut name = None;
    for (i, text) in program.lines().enumerate() {
        if let Some(n) = text.strip_prefix("// ") {
            name = SURFACE.iter().find(|p| p.name == n).map(|p| p.name);
        }
        if i + 1 == line {
            return name;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_names_each_part_once_above_its_use() {
        let program = surface_program();
        for p in SURFACE {
            assert_eq!(program.matches(&format!("// {}\n", p.name)).count(), 1 + usize::from(!p.declares.is_empty()));
        }
        let line = program.lines().position(|l| l.contains("__lane_id()")).expect("used") + 1;
        assert_eq!(surface_entry_at(line), Some("__lane_id"));
        assert!(program.contains("#if AMDGPU_RS_WARP_SYNC\n"));
    }
}

//! GEMM, strided batched GEMM and `gemm_ex` in the simulated rocBLAS.

use super::elem::*;
use super::*;

/// A GEMM's operands (device addresses), strides between batches (elements).
struct GemmCall {
    function: &'static str,
    shape: GemmShape,
    a: usize,
    b: usize,
    c: usize,
    d: usize,
    stride: [i64; 4],
}

/// One element type's GEMM: `In` operands A, B; `Out` C, D; computed in `Acc`.
trait GemmTypes: Send + 'static {
    type Acc: Elem;
    const IN_SIZE: usize;
    const OUT_SIZE: usize;
    fn load_in(bytes: &[u8]) -> Self::Acc;
    fn load_out(bytes: &[u8]) -> Self::Acc;
    fn store_out(value: Self::Acc, bytes: &mut [u8]);
}

/// A, B, C and D all `T`.
struct Same<T>(std::marker::PhantomData<T>);
impl<T: Elem> GemmTypes for Same<T> {
    type Acc = T;
    const IN_SIZE: usize = T::SIZE;
    const OUT_SIZE: usize = T::SIZE;
    fn load_in(bytes: &[u8]) -> T {
        T::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> T {
        T::load(bytes)
    }
    fn store_out(value: T, bytes: &mut [u8]) {
        value.store(bytes)
    }
}

/// Halves in (f16 or bf16), `O` out, f32 compute.
struct Halves<I, O>(std::marker::PhantomData<(I, O)>);
trait Half16: Copy + Send + 'static {
    fn to_f32(bits: u16) -> f32;
    fn from_f32(x: f32) -> u16;
}
impl Half16 for f16 {
    fn to_f32(bits: u16) -> f32 {
        f16::from_bits(bits).to_f32()
    }
    fn from_f32(x: f32) -> u16 {
        f16::from_f32(x).to_bits()
    }
}
impl Half16 for bf16 {
    fn to_f32(bits: u16) -> f32 {
        bf16::from_bits(bits).to_f32()
    }
    fn from_f32(x: f32) -> u16 {
        bf16::from_f32(x).to_bits()
    }
}
/// The output of a half GEMM: the same half type, or f32.
trait HalfOut: Copy + Send + 'static {
    fn load(bytes: &[u8]) -> f32;
    fn store(x: f32, bytes: &mut [u8]);
}
impl<H: Half16> HalfOut for H {
    fn load(bytes: &[u8]) -> f32 {
        H::to_f32(u16::from_ne_bytes([bytes[0], bytes[1]]))
    }
    fn store(x: f32, bytes: &mut [u8]) {
        bytes.copy_from_slice(&H::from_f32(x).to_ne_bytes())
    }
}
/// f32 output of a half GEMM.
#[derive(Clone, Copy)]
struct F32Out;
impl<H: Half16> GemmTypes for Halves<H, F32Out> {
    type Acc = f32;
    const IN_SIZE: usize = 2;
    const OUT_SIZE: usize = 4;
    fn load_in(bytes: &[u8]) -> f32 {
        <H as HalfOut>::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> f32 {
        f32::load(bytes)
    }
    fn store_out(value: f32, bytes: &mut [u8]) {
        value.store(bytes)
    }
}
impl<H: Half16> GemmTypes for Halves<H, H> {
    type Acc = f32;
    const IN_SIZE: usize = 2;
    const OUT_SIZE: usize = 2;
    fn load_in(bytes: &[u8]) -> f32 {
        <H as HalfOut>::load(bytes)
    }
    fn load_out(bytes: &[u8]) -> f32 {
        <H as HalfOut>::load(bytes)
    }
    fn store_out(value: f32, bytes: &mut [u8]) {
        <H as HalfOut>::store(value, bytes)
    }
}

/// Run a GEMM of `G`'s types after its pointer checks.
///
/// # Safety
/// `alpha` and `beta` are null or valid host scalars of `G::Acc`.
unsafe fn gemm<G: GemmTypes>(
    handle: rocblas_handle,
    call_: GemmCall,
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<(), Status> {
    let GemmCall { function, shape, a, b, c, d, stride } = call_;
    handle_device(function, handle)?;
    if shape.check()? == Next::Done {
        return Ok(());
    }
    if alpha.is_null() || beta.is_null() {
        return Err(INVALID_POINTER);
    }
    // SAFETY: non-null host scalars of the compute type (pointer mode host).
    let (alpha, beta) = unsafe { (host::<G::Acc>(alpha), host::<G::Acc>(beta)) };
    if shape.check_pointers(alpha.is_zero(), beta.is_one(), a == 0, b == 0, c == 0 || d == 0)? == Next::Done {
        return Ok(());
    }
    if c == d && shape.ldc != shape.ldd {
        return Err(INVALID_SIZE);
    }
    let bound = bind(function, handle, GEMM_WORKSPACE)?;
    let ta = rules::transposes(shape.trans_a)?;
    let tb = rules::transposes(shape.trans_b)?;
    let conj = rocblas_operation::rocblas_operation_conjugate_transpose;
    let (m, n, k) = (shape.m as usize, shape.n as usize, shape.k as usize);
    let mm = Mm {
        ta,
        ca: shape.trans_a == conj,
        tb,
        cb: shape.trans_b == conj,
        m,
        n,
        k,
        lda: shape.lda as usize,
        ldb: shape.ldb as usize,
        ldc: m,
    };
    let (a_rows, a_cols) = if ta { (k, m) } else { (m, k) };
    let (b_rows, b_cols) = if tb { (n, k) } else { (k, n) };
    let batch = shape.batch as usize;
    let lens = [
        matrix_len(a_rows, a_cols, shape.lda as usize),
        matrix_len(b_rows, b_cols, shape.ldb as usize),
        matrix_len(m, n, shape.ldc as usize),
        matrix_len(m, n, shape.ldd as usize),
    ];
    let reads_ab = k != 0 && !alpha.is_zero();
    // Each operand's extent over the batch: the last batch's end.
    let extent = |i: usize, elem: usize| -> Result<usize, Status> {
        let last = (batch - 1) as i64 * stride[i];
        if stride[i] < 0 || (batch > 1 && stride[i] < lens[i] as i64 && i == 3) {
            // Overlapping outputs between batches would race.
            return Err(INVALID_SIZE);
        }
        Ok((last as usize + lens[i]) * elem)
    };
    let a_span = if reads_ab { Some(span(a, extent(0, G::IN_SIZE)?).ok_or(INVALID_POINTER)?) } else { None };
    let b_span = if reads_ab { Some(span(b, extent(1, G::IN_SIZE)?).ok_or(INVALID_POINTER)?) } else { None };
    let c_span = span(c, extent(2, G::OUT_SIZE)?).ok_or(INVALID_POINTER)?;
    let d_span = span(d, extent(3, G::OUT_SIZE)?).ok_or(INVALID_POINTER)?;
    let workspace = bound.workspace.ok_or(MEMORY_ERROR)?;
    let mut used = vec![(&c_span, AccessKind::Read), (&d_span, AccessKind::Write), (&workspace, AccessKind::Write)];
    if c == d {
        used.remove(0);
    }
    used.extend(a_span.iter().chain(&b_span).map(|s| (s, AccessKind::Read)));
    let op = submit::Op::with(function, accesses(used));
    let xf32 = bound.xf32 && std::any::TypeId::of::<G::Acc>() == std::any::TypeId::of::<f32>();
    let (ldc, ldd) = (shape.ldc as usize, shape.ldd as usize);
    submit::submit(&bound.target, false, op, move || {
        workspace.write_bytes(&[0u8; GEMM_WORKSPACE])?;
        let load = |s: &Option<Span>, elem: usize, count: usize, load: fn(&[u8]) -> G::Acc| match s {
            Some(s) => s.bytes(count * elem).map(|b| b.chunks_exact(elem).map(load).collect::<Vec<G::Acc>>()),
            None => Ok(Vec::new()),
        };
        let a_all = load(&a_span, G::IN_SIZE, extent_elems(batch, stride[0], lens[0]), G::load_in)?;
        let b_all = load(&b_span, G::IN_SIZE, extent_elems(batch, stride[1], lens[1]), G::load_in)?;
        let c_all = load(&Some(c_span.clone()), G::OUT_SIZE, extent_elems(batch, stride[2], lens[2]), G::load_out)?;
        let mut d_bytes = d_span.bytes(extent_elems(batch, stride[3], lens[3]) * G::OUT_SIZE)?;
        let round = |v: &[G::Acc]| -> Vec<G::Acc> {
            if !xf32 {
                return v.to_vec();
            }
            v.iter()
                .map(|x| {
                    let mut bytes = vec![0u8; G::Acc::SIZE];
                    x.store(&mut bytes);
                    let f = f32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    G::Acc::load(&to_tf32(f).to_ne_bytes())
                })
                .collect()
        };
        for i in 0..batch {
            let slice = |all: &[G::Acc], which: usize| -> Vec<G::Acc> {
                let start = i * stride[which] as usize;
                all.get(start..start + lens[which]).map(<[G::Acc]>::to_vec).unwrap_or_default()
            };
            // C's m × n block, packed with leading dimension m.
            let c_block = slice(&c_all, 2);
            let mut out = vec![G::Acc::zero(); m * n];
            for j in 0..n {
                for r in 0..m {
                    out[r + j * m] = if beta.is_zero() { G::Acc::zero() } else { c_block[r + j * ldc] };
                }
            }
            if reads_ab {
                let (ab, bb) = (round(&slice(&a_all, 0)), round(&slice(&b_all, 1)));
                G::Acc::gemm(&mm, alpha, &ab, &bb, beta, &mut out);
            } else {
                for v in &mut out {
                    *v = v.mul(beta);
                }
            }
            let base = i * stride[3] as usize;
            for j in 0..n {
                for r in 0..m {
                    let at = (base + r + j * ldd) * G::OUT_SIZE;
                    G::store_out(out[r + j * m], &mut d_bytes[at..at + G::OUT_SIZE]);
                }
            }
        }
        d_span.write_bytes(&d_bytes)
    })
    .map_err(|_| INTERNAL)
}

pub(super) fn extent_elems(batch: usize, stride: i64, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        (batch - 1) * stride.max(0) as usize + len
    }
}

fn plain(
    function: &'static str,
    transA: rocblas_operation,
    transB: rocblas_operation,
    [m, n, k]: [rocblas_int; 3],
    [a, b, c]: [usize; 3],
    [lda, ldb, ldc]: [rocblas_int; 3],
    batch: rocblas_int,
    stride: [rocblas_stride; 3],
) -> GemmCall {
    GemmCall {
        function,
        shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd: ldc, batch },
        a,
        b,
        c,
        d: c,
        stride: [stride[0], stride[1], stride[2], stride[2]],
    }
}

pub(super) unsafe extern "C" fn gemm_typed<P: Precision>(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const P::C,
    A: *const P::C,
    lda: rocblas_int,
    B: *const P::C,
    ldb: rocblas_int,
    beta: *const P::C,
    C: *mut P::C,
    ldc: rocblas_int,
) -> Status {
    let function = name::<P>("gemm");
    let pointers = [A as usize, B as usize, C as usize];
    let call_ = plain(function, transA, transB, [m, n, k], pointers, [lda, ldb, ldc], 1, [0; 3]);
    // SAFETY: alpha and beta are null or host scalars of the type.
    call(function, OK, INTERNAL, || unsafe { gemm::<Same<P>>(handle, call_, alpha.cast(), beta.cast()) })
}

pub(super) unsafe extern "C" fn gemm_strided<P: Precision>(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const P::C,
    A: *const P::C,
    lda: rocblas_int,
    stride_a: rocblas_stride,
    B: *const P::C,
    ldb: rocblas_int,
    stride_b: rocblas_stride,
    beta: *const P::C,
    C: *mut P::C,
    ldc: rocblas_int,
    stride_c: rocblas_stride,
    batch_count: rocblas_int,
) -> Status {
    let function = name::<P>("gemm_strided_batched");
    let (pointers, strides) = ([A as usize, B as usize, C as usize], [stride_a, stride_b, stride_c]);
    let call_ = plain(function, transA, transB, [m, n, k], pointers, [lda, ldb, ldc], batch_count, strides);
    // SAFETY: as above.
    call(function, OK, INTERNAL, || unsafe { gemm::<Same<P>>(handle, call_, alpha.cast(), beta.cast()) })
}

/// `gemm_ex`'s type combination, run.
///
/// # Safety
/// As [`gemm`].
unsafe fn gemm_ex_typed(
    handle: rocblas_handle,
    call_: GemmCall,
    types: [rocblas_datatype; 5],
    alpha: *const c_void,
    beta: *const c_void,
) -> Result<(), Status> {
    use rocblas_datatype as T;
    let [a, b, c, d, compute] = types;
    if a != b || c != d {
        return Err(NOT_IMPLEMENTED);
    }
    // SAFETY: each arm's scalars are of its compute type, the caller's guarantee.
    unsafe {
        match (a, c, compute) {
            (T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Same<f32>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r, T::rocblas_datatype_f64_r) => {
                gemm::<Same<f64>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c, T::rocblas_datatype_f32_c) => {
                gemm::<Same<[f32; 2]>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c, T::rocblas_datatype_f64_c) => {
                gemm::<Same<[f64; 2]>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f16_r, T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<f16, f16>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_f16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<f16, F32Out>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_bf16_r, T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<bf16, bf16>>(handle, call_, alpha, beta)
            }
            (T::rocblas_datatype_bf16_r, T::rocblas_datatype_f32_r, T::rocblas_datatype_f32_r) => {
                gemm::<Halves<bf16, F32Out>>(handle, call_, alpha, beta)
            }
            _ => Err(NOT_IMPLEMENTED),
        }
    }
}

fn standard(algo: rocblas_gemm_algo) -> Result<(), Status> {
    match algo {
        rocblas_gemm_algo::rocblas_gemm_algo_standard => Ok(()),
        rocblas_gemm_algo::rocblas_gemm_algo_solution_index => Err(NOT_IMPLEMENTED),
        _ => Err(INVALID_VALUE),
    }
}

pub(crate) unsafe extern "C" fn rocblas_gemm_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> Status {
    call("rocblas_gemm_ex", OK, INTERNAL, || {
        handle_device("rocblas_gemm_ex", handle)?;
        standard(algo)?;
        let call_ = GemmCall {
            function: "rocblas_gemm_ex",
            shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: 1 },
            a: a as usize,
            b: b as usize,
            c: c as usize,
            d: d as usize,
            stride: [0; 4],
        };
        // SAFETY: the scalars are null or of the compute type (C contract).
        unsafe { gemm_ex_typed(handle, call_, [a_type, b_type, c_type, d_type, compute_type], alpha, beta) }
    })
}

pub(crate) unsafe extern "C" fn rocblas_gemm_strided_batched_ex(
    handle: rocblas_handle,
    transA: rocblas_operation,
    transB: rocblas_operation,
    m: rocblas_int,
    n: rocblas_int,
    k: rocblas_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: rocblas_datatype,
    lda: rocblas_int,
    stride_a: rocblas_stride,
    b: *const c_void,
    b_type: rocblas_datatype,
    ldb: rocblas_int,
    stride_b: rocblas_stride,
    beta: *const c_void,
    c: *const c_void,
    c_type: rocblas_datatype,
    ldc: rocblas_int,
    stride_c: rocblas_stride,
    d: *mut c_void,
    d_type: rocblas_datatype,
    ldd: rocblas_int,
    stride_d: rocblas_stride,
    batch_count: rocblas_int,
    compute_type: rocblas_datatype,
    algo: rocblas_gemm_algo,
    _solution_index: i32,
    _flags: u32,
) -> Status {
    call("rocblas_gemm_strided_batched_ex", OK, INTERNAL, || {
        handle_device("rocblas_gemm_strided_batched_ex", handle)?;
        standard(algo)?;
        let call_ = GemmCall {
            function: "rocblas_gemm_strided_batched_ex",
            shape: GemmShape { trans_a: transA, trans_b: transB, m, n, k, lda, ldb, ldc, ldd, batch: batch_count },
            a: a as usize,
            b: b as usize,
            c: c as usize,
            d: d as usize,
            stride: [stride_a, stride_b, stride_c, stride_d],
        };
        // SAFETY: as above.
        unsafe { gemm_ex_typed(handle, call_, [a_type, b_type, c_type, d_type, compute_type], alpha, beta) }
    })
}

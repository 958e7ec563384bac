//! `cargo xtask dispatch [--check]`: generate the per-precision dispatch
//! traits from the generated bindings.
//!
//! A math library names one C function per operation and precision
//! (`rocsolver_sgetrf`, `_dgetrf`, `_cgetrf`, `_zgetrf`). The crate above
//! takes a generic element type instead, so it needs, per type, which
//! field of the library's table to call, with that type's pointers cast
//! to the C element type. That is mechanical: the signatures are already
//! in hip-abi's bindings, so this pass reads them there and writes the
//! trait and its four impls, where a hand-written trait would write every
//! signature a second time and a macro would write it a third.
//!
//! The trait's signatures come from the single-precision complex function
//! (its element type becomes `Self`, its real type `Self::Real`); every
//! other precision's function must then be that signature with its own
//! types, parameter by parameter, or the pass fails naming the function
//! and the parameter.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use std::collections::BTreeSet;
use std::path::Path;
use syn::{Item, Type};

/// One element type, as Rust and as the C library name it.
struct Precision {
    /// The Rust type the trait is implemented for.
    rust: &'static str,
    /// Its name in messages.
    name: &'static str,
    /// The letter of its C functions (`s` in `rocsolver_sgetrf`).
    prefix: char,
    /// The letter of its real type (`s` for `c`: `rocblas_scnrm2`).
    real_prefix: char,
    /// The C element type of its functions.
    c: &'static str,
    /// The real type (of eigenvalues, singular values, norms).
    real: &'static str,
    /// Whether the C functions of an operation with a real and a complex
    /// name (`syevd` and `heevd`) take the complex one.
    complex: bool,
}

const PRECISIONS: [Precision; 4] = [
    Precision { rust: "f32", name: "f32", prefix: 's', real_prefix: 's', c: "f32", real: "f32", complex: false },
    Precision { rust: "f64", name: "f64", prefix: 'd', real_prefix: 'd', c: "f64", real: "f64", complex: false },
    Precision {
        rust: "[f32; 2]",
        name: "complex f32",
        prefix: 'c',
        real_prefix: 's',
        c: "rocblas_float_complex",
        real: "f32",
        complex: true,
    },
    Precision {
        rust: "[f64; 2]",
        name: "complex f64",
        prefix: 'z',
        real_prefix: 'd',
        c: "rocblas_double_complex",
        real: "f64",
        complex: true,
    },
];

/// The precision whose functions give the trait its signatures: its
/// element and real types differ, so each parameter says which it is.
const MODEL: usize = 2;

/// One operation: the method, and the C function's name after the
/// library's prefix, for real and for complex types, where `?` is the
/// precision's letter and `!` its real type's (`!?nrm2`: `scnrm2`).
struct Operation {
    method: &'static str,
    real: &'static str,
    complex: &'static str,
}

const fn op(method: &'static str, real: &'static str, complex: &'static str) -> Operation {
    Operation { method, real, complex }
}

/// One generated trait.
struct Dispatch {
    /// The generated file, relative to the workspace root.
    out: &'static str,
    /// The bindings the signatures come from, relative to the workspace root.
    bindings: &'static str,
    /// The table struct in them.
    table: &'static str,
    /// Where the crate that uses the trait finds the bindings' types.
    import: &'static str,
    /// The C functions' common prefix (before the precision's letter).
    prefix: &'static str,
    /// The library's name in docs.
    library: &'static str,
    /// The trait's name and its docs.
    name: &'static str,
    doc: &'static str,
    /// Whether the trait is hidden from the docs (a helper of the crate's
    /// own traits, which users name instead).
    hidden: bool,
    /// Docs of the associated items.
    name_doc: &'static str,
    prefix_doc: &'static str,
    real_doc: &'static str,
    operations: &'static [Operation],
}

const DISPATCHES: [Dispatch; 2] = [
    Dispatch {
        out: "hip-libs/src/solver/raw/dispatch.rs",
        bindings: "hip-abi/src/bindings/rocsolver.rs",
        table: "RocsolverApi",
        import: "hip_sys::rocsolver",
        prefix: "rocsolver_",
        library: "rocSOLVER",
        name: "SolverScalar",
        hidden: false,
        doc: "An element type of the solvers: `f32`, `f64`, and the complex\n\
          `[f32; 2]` and `[f64; 2]` (`[re, im]`), each with the rocSOLVER\n\
          function of every operation for it.",
        name_doc: "`f32`, `f64`, `complex f32` or `complex f64`, for messages.",
        prefix_doc: "The prefix of its rocSOLVER functions: `s`, `d`, `c` or `z`.",
        real_doc: "The real type of its eigenvalues and singular values: `f32` or `f64`.",
        operations: &[
            op("getrf", "?getrf", "?getrf"),
            op("getrs", "?getrs", "?getrs"),
            op("potrf", "?potrf", "?potrf"),
            op("potrs", "?potrs", "?potrs"),
            op("geqrf", "?geqrf", "?geqrf"),
            op("orgqr", "?orgqr", "?ungqr"),
            op("syevd", "?syevd", "?heevd"),
            op("gesvd", "?gesvd", "?gesvd"),
            op("getrf_strided_batched", "?getrf_strided_batched", "?getrf_strided_batched"),
            op("getrs_strided_batched", "?getrs_strided_batched", "?getrs_strided_batched"),
            op("potrf_strided_batched", "?potrf_strided_batched", "?potrf_strided_batched"),
            op("potrs_strided_batched", "?potrs_strided_batched", "?potrs_strided_batched"),
            op("geqrf_strided_batched", "?geqrf_strided_batched", "?geqrf_strided_batched"),
            op("syevd_strided_batched", "?syevd_strided_batched", "?heevd_strided_batched"),
            op("gesvd_strided_batched", "?gesvd_strided_batched", "?gesvd_strided_batched"),
            op("getrf_batched", "?getrf_batched", "?getrf_batched"),
            op("getrs_batched", "?getrs_batched", "?getrs_batched"),
            op("potrf_batched", "?potrf_batched", "?potrf_batched"),
            op("potrs_batched", "?potrs_batched", "?potrs_batched"),
            op("geqrf_batched", "?geqrf_batched", "?geqrf_batched"),
            op("syevd_batched", "?syevd_batched", "?heevd_batched"),
            op("gesvd_batched", "?gesvd_batched", "?gesvd_batched"),
        ],
    },
    Dispatch {
        out: "hip-libs/src/blas/raw/dispatch.rs",
        bindings: "hip-abi/src/bindings/rocblas.rs",
        table: "RocblasApi",
        import: "hip_sys::rocblas",
        prefix: "rocblas_",
        library: "rocBLAS",
        name: "RocblasTyped",
        hidden: true,
        doc: "An element type of rocBLAS's typed functions (`f32`, `f64`, `[f32; 2]`,\n\
              `[f64; 2]`), each with the function of every operation for it;\n\
              `GemmScalar` and `BlasScalar` are implemented over it.",
        name_doc: "`f32`, `f64`, `complex f32` or `complex f64`, for messages.",
        prefix_doc: "The letter of its rocBLAS functions: `s`, `d`, `c` or `z`.",
        real_doc: "The real type of its norms: `f32` or `f64`.",
        operations: &[
            op("gemm", "?gemm", "?gemm"),
            op("gemm_strided_batched", "?gemm_strided_batched", "?gemm_strided_batched"),
            op("gemv", "?gemv", "?gemv"),
            op("axpy", "?axpy", "?axpy"),
            op("scal", "?scal", "?scal"),
            op("dotu", "?dot", "?dotu"),
            op("dotc", "?dot", "?dotc"),
            op("nrm2", "?nrm2", "!?nrm2"),
        ],
    },
];

/// A C function of the table: its parameters' names and types, and its
/// return type, as token text (`* mut rocblas_float_complex`).
struct Signature {
    params: Vec<(String, String)>,
    output: String,
}

/// The fields of `table` in the bindings `source`, by name.
fn signatures(source: &str, table: &str) -> Result<Vec<(String, Signature)>, String> {
    let file = syn::parse_file(source).map_err(|e| format!("cannot parse the bindings: {e}"))?;
    let fields = file
        .items
        .iter()
        .find_map(|item| match item {
            Item::Struct(s) if s.ident == table => Some(&s.fields),
            _ => None,
        })
        .ok_or_else(|| format!("the bindings have no struct {table}"))?;
    let mut out = Vec::new();
    for field in fields {
        let Some(name) = &field.ident else { continue };
        let Type::BareFn(f) = &field.ty else { continue };
        let params = f
            .inputs
            .iter()
            .enumerate()
            .map(|(i, arg)| {
                let name = arg.name.as_ref().map_or(format!("arg{i}"), |(n, _)| n.to_string().to_lowercase());
                let ty = &arg.ty;
                (name, quote!(#ty).to_string())
            })
            .collect();
        let output = match &f.output {
            syn::ReturnType::Default => "()".to_owned(),
            syn::ReturnType::Type(_, ty) => quote!(#ty).to_string(),
        };
        out.push((name.to_string(), Signature { params, output }));
    }
    Ok(out)
}

/// `text` with each whole token in `from` replaced by its `to`.
fn substitute(text: &str, pairs: &[(&str, &str)]) -> String {
    let words = text.split(' ').map(|w| pairs.iter().find(|(from, _)| *from == w).map_or(w, |(_, to)| to));
    words.collect::<Vec<_>>().join(" ")
}

/// Whether a word of a type's token text names a type of the bindings
/// (to import), rather than a keyword, a primitive, punctuation or `Self`.
fn is_named_type(word: &str) -> bool {
    const NOT: [&str; 10] = ["mut", "const", "Self", "SelfReal", "f32", "f64", "i32", "i64", "u32", "usize"];
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && !NOT.contains(&word)
}

/// The C function of `operation` for `precision`.
fn c_name(dispatch: &Dispatch, operation: &Operation, precision: &Precision) -> String {
    let template = if precision.complex { operation.complex } else { operation.real };
    let name = template.replace('?', &precision.prefix.to_string()).replace('!', &precision.real_prefix.to_string());
    format!("{}{name}", dispatch.prefix)
}

fn tokens(text: &str) -> Result<TokenStream, String> {
    text.parse().map_err(|e| format!("cannot read `{text}` as Rust: {e}"))
}

/// One operation as the trait declares it: its parameters (name, and
/// type over `Self` and `SelfReal`) and its return type.
struct Declaration<'a> {
    operation: &'a Operation,
    params: Vec<(String, String)>,
    output: String,
}

/// Each operation's declaration, from the model precision's function,
/// after checking that every precision's function is that signature with
/// its own types; and the bindings' types the declarations name.
fn declarations<'a>(
    dispatch: &'a Dispatch,
    table: &[(String, Signature)],
) -> Result<(Vec<Declaration<'a>>, BTreeSet<String>), String> {
    let find = |name: &str| {
        table.iter().find(|(n, _)| n == name).map(|(_, s)| s).ok_or_else(|| {
            format!("{} has no field {name} (list the function in `cargo xtask bindgen` first)", dispatch.table)
        })
    };
    let model = &PRECISIONS[MODEL];
    // The model's element type is `Self`, its real type `SelfReal`
    // (written `Self::Real` in the trait).
    let generic = [(model.c, "Self"), (model.real, "SelfReal")];
    let mut declarations = Vec::new();
    let mut used_types = BTreeSet::new();
    for operation in dispatch.operations {
        let c = c_name(dispatch, operation, model);
        let signature = find(&c)?;
        let params: Vec<(String, String)> =
            signature.params.iter().map(|(n, t)| (n.clone(), substitute(t, &generic))).collect();
        for precision in &PRECISIONS {
            let name = c_name(dispatch, operation, precision);
            let theirs = find(&name)?;
            if theirs.params.len() != params.len() || theirs.output != signature.output {
                return Err(format!("{name} does not take the parameters of {c} (or returns another type)"));
            }
            for ((n, generic), (_, actual)) in params.iter().zip(&theirs.params) {
                let expected = substitute(generic, &[("Self", precision.c), ("SelfReal", precision.real)]);
                if expected != *actual {
                    return Err(format!(
                        "{name}'s parameter `{n}` is `{actual}`, where {c}'s makes it `{expected}`: \
                         its precision cannot share the trait's signature"
                    ));
                }
            }
        }
        let named = params.iter().map(|(_, t)| t.as_str()).chain([signature.output.as_str()]);
        used_types.extend(named.flat_map(|t| t.split(' ')).filter(|w| is_named_type(w)).map(str::to_owned));
        declarations.push(Declaration { operation, params, output: signature.output.clone() });
    }
    Ok((declarations, used_types))
}

/// The trait's method of each declaration, with its docs.
fn trait_items(dispatch: &Dispatch, declarations: &[Declaration<'_>]) -> Result<Vec<TokenStream>, String> {
    let table_name = Ident::new(dispatch.table, Span::call_site());
    let contract = format!(" The arguments satisfy {}'s contract.", dispatch.library);
    let mut items = Vec::new();
    for Declaration { operation, params, output } in declarations {
        let method = Ident::new(operation.method, Span::call_site());
        let complex = if operation.real == operation.complex {
            String::new()
        } else {
            format!(" (`{}{}` for complex types)", dispatch.prefix, operation.complex)
        };
        let doc = format!(" `{}{}`{complex}.", dispatch.prefix, operation.real);
        let args = params
            .iter()
            .map(|(n, t)| {
                let (n, t) = (Ident::new(n, Span::call_site()), tokens(&t.replace("SelfReal", "Self::Real"))?);
                Ok(quote!(#n: #t))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let output = tokens(output)?;
        items.push(quote! {
            #[doc = #doc]
            ///
            /// # Safety
            #[doc = #contract]
            #[doc(hidden)]
            unsafe fn #method(api: &#table_name, #(#args),*) -> #output;
        });
    }
    Ok(items)
}

/// The trait's impl for `precision`: each method calls its function of
/// the table, the element type's pointers cast where the C type differs.
fn implementation(
    dispatch: &Dispatch,
    precision: &Precision,
    declarations: &[Declaration<'_>],
) -> Result<TokenStream, String> {
    let (trait_name, table_name) =
        (Ident::new(dispatch.name, Span::call_site()), Ident::new(dispatch.table, Span::call_site()));
    let (rust, real) = (tokens(precision.rust)?, tokens(precision.real)?);
    let (name, prefix) = (precision.name, precision.prefix);
    let mut methods = Vec::new();
    for Declaration { operation, params, output } in declarations {
        let method = Ident::new(operation.method, Span::call_site());
        let field = Ident::new(&c_name(dispatch, operation, precision), Span::call_site());
        let mut args = Vec::new();
        let mut passed = Vec::new();
        for (n, t) in params {
            let concrete = substitute(t, &[("Self", precision.rust), ("SelfReal", precision.real)]);
            let (ident, ty) = (Ident::new(n, Span::call_site()), tokens(&concrete)?);
            args.push(quote!(#ident: #ty));
            // Only the element type's pointers differ from the C
            // function's, and only for the complex types.
            let differs = t.split(' ').any(|w| w == "Self") && precision.rust != precision.c;
            passed.push(if differs { quote!(#ident.cast()) } else { quote!(#ident) });
        }
        let output = tokens(output)?;
        methods.push(quote! {
            unsafe fn #method(api: &#table_name, #(#args),*) -> #output {
                unsafe { (api.#field)(#(#passed),*) }
            }
        });
    }
    Ok(quote! {
        impl sealed::Sealed for #rust {}
        impl #trait_name for #rust {
            const NAME: &'static str = #name;
            const PREFIX: char = #prefix;
            type Real = #real;
            #(#methods)*
        }
    })
}

/// The text of `dispatch`'s generated file, from the bindings `source`.
fn generate(dispatch: &Dispatch, source: &str) -> Result<String, String> {
    let table = signatures(source, dispatch.table)?;
    let (declarations, mut used_types) = declarations(dispatch, &table)?;
    let trait_items = trait_items(dispatch, &declarations)?;
    let impls = PRECISIONS.iter().map(|p| implementation(dispatch, p, &declarations)).collect::<Result<Vec<_>, _>>()?;
    used_types.insert(dispatch.table.to_owned());
    let imports = used_types.iter().map(|t| tokens(t)).collect::<Result<Vec<_>, String>>()?;
    let import_path = tokens(dispatch.import)?;
    let complex = PRECISIONS.iter().filter(|p| p.rust != p.c);
    let pairs = complex.map(|p| Ok((tokens(p.rust)?, tokens(p.c)?))).collect::<Result<Vec<_>, String>>()?;
    let (rust_types, c_types): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
    let trait_name = Ident::new(dispatch.name, Span::call_site());
    let trait_doc = dispatch.doc.lines().map(|line| format!(" {}", line.trim_start()));
    let [name_doc, prefix_doc, real_doc] =
        [dispatch.name_doc, dispatch.prefix_doc, dispatch.real_doc].map(|d| format!(" {d}"));
    let hidden = if dispatch.hidden { quote!(#[doc(hidden)]) } else { quote!() };
    let file = quote! {
        #![allow(clippy::too_many_arguments)]
        use #import_path::{#(#imports,)* #(#c_types,)*};
        mod sealed {
            pub trait Sealed {}
        }
        #(#[doc = #trait_doc])*
        #hidden
        pub trait #trait_name: Copy + Send + Sync + 'static + sealed::Sealed {
            #[doc = #name_doc]
            const NAME: &'static str;
            #[doc = #prefix_doc]
            const PREFIX: char;
            #[doc = #real_doc]
            type Real: Copy + Send + Sync + 'static;
            #(#trait_items)*
        }
        #(#impls)*
        #(
            const _: () = assert!(
                std::mem::size_of::<#rust_types>() == std::mem::size_of::<#c_types>()
                    && std::mem::align_of::<#rust_types>() >= std::mem::align_of::<#c_types>()
            );
        )*
    };
    let syntax: syn::File =
        syn::parse2(file).map_err(|e| format!("the generated {} does not parse: {e}", dispatch.out))?;
    let header = format!(
        "//! Generated by `cargo xtask dispatch` from `{}`: do not edit by hand;\n\
         //! `cargo xtask dispatch --check` fails on drift.\n//!\n\
         //! [`{}`]: per element type, the {} function of each operation.\n\n",
        dispatch.bindings, dispatch.name, dispatch.library
    );
    Ok(header + &with_safety_comments(&prettyplease::unparse(&syntax)))
}

/// `text` with a `// SAFETY:` comment above each `unsafe` block (a token
/// stream holds no comments, so they are written into the text).
fn with_safety_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 5 / 4);
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("unsafe {") {
            let indent = &line[..line.len() - code.len()];
            out.push_str(indent);
            out.push_str("// SAFETY: as the caller guarantees; the element types have one layout.\n");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Generate (or, with `check`, compare) every dispatch file.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let mut drifted = Vec::new();
    for dispatch in &DISPATCHES {
        let bindings = root.join(dispatch.bindings);
        let source =
            std::fs::read_to_string(&bindings).map_err(|e| format!("cannot read {}: {e}", bindings.display()))?;
        let text = generate(dispatch, &source)?;
        let path = root.join(dispatch.out);
        if check {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            if committed != text {
                drifted.push(format!("{} (run `cargo xtask dispatch` to regenerate)", dispatch.out));
            }
        } else {
            std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", dispatch.out);
        }
    }
    if drifted.is_empty() {
        Ok(())
    } else {
        Err(format!("generated dispatch drifted from the bindings:\n  {}", drifted.join("\n  ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bindings() -> String {
        let path = crate::workspace_root().join(DISPATCHES[0].bindings);
        std::fs::read_to_string(path).expect("the bindings read")
    }

    #[test]
    fn the_committed_dispatch_is_what_the_bindings_give() {
        run(&crate::workspace_root(), true).unwrap();
    }

    #[test]
    fn each_precision_calls_its_own_function_and_casts_only_complex_pointers() {
        let text = generate(&DISPATCHES[0], &bindings()).unwrap();
        for (rust, call) in [("f32", "rocsolver_sgetrf"), ("[f64; 2]", "rocsolver_zheevd_batched")] {
            let block = &text[text.find(&format!("impl SolverScalar for {rust} {{")).unwrap()..];
            assert!(block.contains(&format!(".{call})(")), "{rust} calls {call}");
        }
        let f32_impl = &text[text.find("impl SolverScalar for f32 {").unwrap()..];
        let f32_impl = &f32_impl[..f32_impl.find("impl SolverScalar for f64").unwrap()];
        assert!(!f32_impl.contains(".cast()"), "a real type's pointers are the C function's own");
        assert!(text.contains("a.cast()"), "a complex type's pointers are cast to the C element type");
    }

    #[test]
    fn names_with_two_letters_or_one_for_two_operations_are_followed() {
        let path = crate::workspace_root().join(DISPATCHES[1].bindings);
        let text = generate(&DISPATCHES[1], &std::fs::read_to_string(path).unwrap()).unwrap();
        let complex = &text[text.find("impl RocblasTyped for [f32; 2] {").unwrap()..];
        assert!(complex.contains(".rocblas_scnrm2)(") && complex.contains(".rocblas_cdotc)("));
        let real = &text[text.find("impl RocblasTyped for f64 {").unwrap()..];
        let real = &real[..real.find("impl RocblasTyped for [f32; 2]").unwrap()];
        assert_eq!(real.matches(".rocblas_ddot)(").count(), 2, "dotu and dotc of a real type are its one dot");
    }

    #[test]
    fn a_precision_whose_signature_differs_is_refused_naming_the_parameter() {
        let mut source = bindings();
        let at = source.find("pub rocsolver_zgetrf:").expect("the field");
        let wrong = at + source[at..].find("*mut rocblas_double_complex").expect("its matrix");
        source.replace_range(wrong..wrong + "*mut rocblas_double_complex".len(), "*mut f32");
        let error = generate(&DISPATCHES[0], &source).unwrap_err();
        assert!(error.contains("rocsolver_zgetrf") && error.contains("`a`"), "{error}");
    }
}

//! Turn bindgen's `extern "C"` declarations into a function-pointer table.
//!
//! bindgen declares each C function in an `extern "C"` block, which would
//! link against the symbol. hip-sys never links against ROCm: every backend
//! (the dlopen'ed AMD library, the CUDA translation, the simulator) fills
//! the same struct of function pointers. This pass removes the extern
//! blocks and emits that struct, its symbol list and a constructor that
//! takes a symbol resolver.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use syn::{ForeignItem, Item};

/// Replace the extern blocks of `source` by the table `table_name`, with the
/// fields in the order of `functions`.
pub fn split_functions_into_table(
    source: &str,
    table_name: &str,
    soname: &str,
    functions: &[&str],
) -> Result<String, String> {
    let mut file = syn::parse_file(source).map_err(|e| format!("cannot parse bindgen output: {e}"))?;
    let mut found: Vec<syn::ForeignItemFn> = Vec::new();
    let mut kept = Vec::new();
    for item in file.items.drain(..) {
        match item {
            Item::ForeignMod(block) => {
                for foreign in block.items {
                    match foreign {
                        ForeignItem::Fn(f) => found.push(f),
                        other => return Err(format!("unexpected item in an extern block: {}", quote!(#other))),
                    }
                }
            }
            other => kept.push(other),
        }
    }
    file.items = kept;

    let mut fields = Vec::new();
    let mut inits = Vec::new();
    for name in functions {
        let f = found
            .iter()
            .find(|f| f.sig.ident == name)
            .ok_or_else(|| format!("`{name}` is not declared by the header"))?;
        if f.attrs.iter().any(|a| a.path().is_ident("link_name")) {
            return Err(format!("`{name}` has a mangled link name: it is not an extern \"C\" function"));
        }
        if f.sig.variadic.is_some() {
            return Err(format!("`{name}` is variadic; the table cannot hold it"));
        }
        let ident = &f.sig.ident;
        let inputs = &f.sig.inputs;
        let output = &f.sig.output;
        let ty = quote!(unsafe extern "C" fn(#inputs) #output);
        let doc = format!("`{name}`");
        fields.push(quote! {
            #[doc = #doc]
            pub #ident: #ty
        });
        inits.push(quote! {
            // SAFETY: the caller of `from_resolver` guarantees that the
            // resolved pointer is a function with exactly this signature.
            #ident: unsafe { ::core::mem::transmute::<*const ::core::ffi::c_void, #ty>(resolve(#name)?) }
        });
    }
    let table = Ident::new(table_name, Span::call_site());
    let names = functions.iter();
    let struct_doc = format!(
        "The functions of `{soname}` that this project calls, as function pointers.\n\n\
         Every backend fills this same struct: the amd backend with the symbols of \
         `{soname}`, the others with Rust functions of the same C signature."
    );
    let count = functions.len();
    let table_tokens: TokenStream = quote! {
        #[doc = #struct_doc]
        #[derive(Clone, Copy)]
        pub struct #table {
            #(#fields,)*
        }

        impl #table {
            /// The C symbol names, in field order.
            pub const SYMBOLS: &'static [&'static str] = &[#(#names),*];

            /// Build the table by resolving each symbol of [`Self::SYMBOLS`].
            ///
            /// # Safety
            /// For every name, `resolve` must return a non-null pointer to a
            /// function with exactly the C signature declared for it here, valid
            /// for as long as the table is used.
            pub unsafe fn from_resolver<E>(
                mut resolve: impl FnMut(&'static str) -> ::core::result::Result<*const ::core::ffi::c_void, E>,
            ) -> ::core::result::Result<Self, E> {
                Ok(Self { #(#inits,)* })
            }
        }

        impl ::core::fmt::Debug for #table {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{} {{ {} functions }}", stringify!(#table), #count)
            }
        }
    };
    let table_file: syn::File =
        syn::parse2(table_tokens).map_err(|e| format!("generated table does not parse: {e}"))?;
    file.items.extend(table_file.items);
    Ok(prettyplease::unparse(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BINDGEN_OUTPUT: &str = r#"
        #[repr(transparent)]
        #[derive(Debug, Copy, Clone, PartialEq, Eq)]
        pub struct status_t(pub ::core::ffi::c_uint);
        extern "C" {
            pub fn lib_open(handle: *mut *mut ::core::ffi::c_void) -> status_t;
            pub fn lib_close(handle: *mut ::core::ffi::c_void) -> status_t;
        }
    "#;

    #[test]
    fn extern_blocks_become_a_table_in_the_listed_order() {
        let out = split_functions_into_table(BINDGEN_OUTPUT, "LibApi", "libx.so", &["lib_close", "lib_open"]).unwrap();
        assert!(!out.contains("extern \"C\" {"), "no extern block remains:\n{out}");
        assert!(out.contains("pub struct status_t"), "types are kept");
        let close = out.find("pub lib_close:").expect("lib_close field");
        let open = out.find("pub lib_open:").expect("lib_open field");
        assert!(close < open, "fields follow the list");
        assert!(out.contains("unsafe extern \"C\" fn(handle: *mut ::core::ffi::c_void) -> status_t"), "{out}");
        assert!(out.contains(r#"SYMBOLS: &'static [&'static str] = &["lib_close", "lib_open"]"#), "{out}");
        syn::parse_file(&out).expect("the output is valid Rust");
    }

    #[test]
    fn a_function_missing_from_the_header_is_an_error() {
        let error = split_functions_into_table(BINDGEN_OUTPUT, "LibApi", "libx.so", &["lib_reset"]).unwrap_err();
        assert!(error.contains("lib_reset"), "{error}");
    }

    #[test]
    fn a_mangled_function_is_refused() {
        let source = r#"extern "C" { #[link_name = "\u{1}_Z3foov"] pub fn foo() -> i32; }"#;
        let error = split_functions_into_table(source, "LibApi", "libx.so", &["foo"]).unwrap_err();
        assert!(error.contains("mangled"), "{error}");
    }
}

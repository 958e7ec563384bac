//! `fn_table!`: a table of C functions resolved from one loaded library by
//! name, with the symbol list and the resolver (the CUDA tables of
//! `cuda.rs` and each library mapping's own).

/// Declares a table of C functions resolved from one library by name.
macro_rules! fn_table {
    (
        $(#[$meta:meta])*
        struct $name:ident {
            $(
                $(#[$doc:meta])*
                $field:ident = $symbol:literal: fn($($arg:ty),* $(,)?) -> $ret:ty;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name {
            $(
                $(#[$doc])*
                pub(crate) $field: unsafe extern "C" fn($($arg),*) -> $ret,
            )*
        }

        impl $name {
            /// The C symbol names, in field order.
            #[allow(dead_code)]
            pub(crate) const SYMBOLS: &'static [&'static str] = &[$($symbol),*];

            /// Resolve every function in `library`.
            ///
            /// # Safety
            /// `library` must export each symbol with the C signature
            /// declared for it.
            pub(crate) unsafe fn resolve(
                library: &crate::backend::loader::Opened,
            ) -> Result<Self, $crate::BackendError> {
                // SAFETY: each symbol's signature is the one declared
                // (the caller's guarantee).
                unsafe { Ok(Self { $($field: library.function($symbol)?,)* }) }
            }
        }
    };
}

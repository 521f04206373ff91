//! Counters and switches of the engine's internals, for gg's own tests and
//! benchmarks (re-exported as the doc-hidden `gg_runtime::probes`): what
//! isolates hold on a thread, and the lazy reads of the bootstrap.

#[cfg(feature = "quickjs")]
use deno_core::v8;

/// How many native-callback slots the engine holds on this thread for live
/// isolates' functions. Each isolate takes its slots when it is created and
/// gives them back when it is dropped, so this measures the isolates alive
/// on the thread now, never how many it has made. Always 0 on real V8, which
/// has no such table.
pub fn live_native_slots() -> usize {
    #[cfg(feature = "quickjs")]
    {
        v8::quickjs_live_dispatch_entries()
    }
    #[cfg(not(feature = "quickjs"))]
    {
        0
    }
}

/// How many module handles the engine holds on this thread for live
/// isolates' modules (programs, code memories, gg's own scripts). Each is
/// freed with its isolate, so this measures the isolates alive on the
/// thread and what they compiled, never how many the thread has made.
/// Always 0 on real V8, whose handles are its own.
pub fn live_module_handles() -> usize {
    #[cfg(feature = "quickjs")]
    {
        v8::quickjs_live_module_wrappers()
    }
    #[cfg(not(feature = "quickjs"))]
    {
        0
    }
}

/// Functions the engine read from its embedded bootstrap bytecode without
/// their body, counted over the whole process. A script of the bootstrap is
/// read whole when an isolate is made, but each function nested in it keeps
/// its body in the binary until it first runs: most never do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyFunctionReads {
    /// Functions read without their body.
    pub left_unread: u64,
    /// Of those, the bodies read since, each when its function first ran.
    pub read_later: u64,
    /// The names and strings those scripts list: each is made (interned)
    /// when first used, and some are used only by bodies never read.
    pub atoms_listed: u64,
    /// Of those, the ones made since.
    pub atoms_interned: u64,
    /// Bytes of those functions' positions (what a stack frame's line and
    /// column are found from) left where they lie in the binary, summed
    /// over every read: each isolate used to copy them into its own heap.
    pub debug_bytes_in_place: u64,
}

/// How many functions this process read from the embedded bootstrap
/// without their body, and how many of those bodies it read since. Always
/// zero on real V8, which reads no such blob.
pub fn lazy_function_reads() -> LazyFunctionReads {
    #[cfg(feature = "quickjs")]
    {
        let counts = v8::quickjs_lazy_functions();
        LazyFunctionReads {
            left_unread: counts.left_unread,
            read_later: counts.read_later,
            atoms_listed: counts.atoms_listed,
            atoms_interned: counts.atoms_interned,
            debug_bytes_in_place: counts.debug_bytes_in_place,
        }
    }
    #[cfg(not(feature = "quickjs"))]
    {
        LazyFunctionReads::default()
    }
}

/// Whether isolates made from now on, in the whole process, leave the
/// bodies of the bootstrap's nested functions unread until each runs (on by
/// default). Off, every body is read when the isolate is made: the same
/// behaviour, slower and larger, for comparing the two.
pub fn set_lazy_function_reads(enabled: bool) {
    #[cfg(feature = "quickjs")]
    v8::quickjs_set_lazy_functions(enabled);
    #[cfg(not(feature = "quickjs"))]
    let _ = enabled;
}

/// deno_core's primordials wrap some 600 intrinsic methods so that they can
/// be called without the prototype (`ArrayPrototypeMap(array, f)`); the
/// engine makes each wrapper when it is first read, and a bootstrap reads
/// few. Counted over the whole process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyPrimordials {
    /// Wrappers defined without being made.
    pub left_unmade: u64,
    /// Of those, the wrappers made since, each when first read.
    pub made_later: u64,
    /// Of those, the wrappers defined before the intrinsic method they
    /// wrap was made (QuickJS makes a built-in method when it is first
    /// read): the method is made with its wrapper, if ever.
    pub methods_unmade: u64,
}

/// How many of the primordials' method wrappers this process defined
/// without making them, and how many of those it made since. Always zero
/// on real V8, which makes every wrapper.
pub fn lazy_primordials() -> LazyPrimordials {
    #[cfg(feature = "quickjs")]
    {
        let counts = v8::quickjs_lazy_uncurried();
        LazyPrimordials {
            left_unmade: counts.left_unmade,
            made_later: counts.made_later,
            methods_unmade: counts.methods_unmade,
        }
    }
    #[cfg(not(feature = "quickjs"))]
    {
        LazyPrimordials::default()
    }
}

/// Whether isolates made from now on, in the whole process, make the
/// primordials' method wrappers when each is first read (on by default).
/// Off, every wrapper is made with the isolate: the same values, slower
/// and larger, for comparing the two.
pub fn set_lazy_primordials(enabled: bool) {
    #[cfg(feature = "quickjs")]
    v8::quickjs_set_lazy_uncurried(enabled);
    #[cfg(not(feature = "quickjs"))]
    let _ = enabled;
}

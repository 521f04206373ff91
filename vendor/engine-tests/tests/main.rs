//! The vendored engine alone: deno_core on v8x's QuickJS-ng, with gg's
//! patches, on bare deno_core runtimes (none of gg's host). One module per
//! behaviour a patch must keep; a test that counts something process-wide
//! runs in a process of its own through [`gg_engine_tests::alone`].

mod externals;
mod function_properties;
mod native_functions;
mod parse_columns;
mod primordials;
mod script_cache;
mod static_sources;
mod typeof_string;
mod walls;

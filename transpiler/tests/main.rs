//! The transpiler end to end, one module per concern, in one test binary.

mod decorators;
mod erase;
mod transpile;

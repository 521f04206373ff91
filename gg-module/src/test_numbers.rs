//! Reproducible pseudo-random numbers for tests that generate their cases:
//! no dependency, and the same cases on every run.

/// A xorshift generator started at `seed` (not zero): each call gives a
/// number below its argument.
pub(crate) fn numbers(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |below| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    }
}

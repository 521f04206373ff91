//! The program library: mints each submitted program's id and records the
//! program under it. An agent configured with no library is answered with
//! the fixed `ok` instead.

use serde::{Deserialize, Serialize};

use crate::error::{GgError, GgResult};

/// The library's mint state: ids are `p1`, `p2`, … up to `capacity`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramLibrary {
    next: u64,
    capacity: u64,
}

impl ProgramLibrary {
    /// A fresh library that mints at most `capacity` ids, from `p1`.
    pub fn new(capacity: u64) -> Self {
        ProgramLibrary { next: 1, capacity }
    }

    /// A library restored from state, minting `next` next (at least 1).
    pub fn resume(next: u64, capacity: u64) -> Self {
        ProgramLibrary {
            next: next.max(1),
            capacity,
        }
    }

    /// The number the next id will carry.
    pub fn next_number(&self) -> u64 {
        self.next
    }

    /// Mints the next id. An exhausted mint is gg's defect (`internal`): the
    /// agent cannot go on without ids, so its caller ends the agent.
    pub fn mint(&mut self) -> GgResult<String> {
        if self.next > self.capacity {
            return Err(GgError::internal(format!(
                "the program library is exhausted: it has minted all {} ids it can hold.",
                self.capacity
            )));
        }
        let id = format!("p{}", self.next);
        self.next += 1;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mints_in_order_until_exhausted() {
        let mut lib = ProgramLibrary::new(2);
        assert_eq!(lib.mint().unwrap(), "p1");
        assert_eq!(lib.mint().unwrap(), "p2");
        assert_eq!(lib.mint().unwrap_err().code, crate::ErrorCode::Internal);
    }
}

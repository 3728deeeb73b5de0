//! Minds: what turns what an agent reads into what it proposes (DESIGN §5).
//!
//! - [`brain`]: the built-in deterministic mind of panda, gorilla and triceratops.
//! - [`writer`]: the residents' built-in writer.

pub mod brain;
pub mod writer;

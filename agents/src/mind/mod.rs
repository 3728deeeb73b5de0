//! Minds: what turns what an agent reads into what it proposes (DESIGN §5).
//!
//! - [`brain`]: the built-in deterministic mind of panda, gorilla and triceratops.

pub mod brain;

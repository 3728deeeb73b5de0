//! The town directory: the template copied by `soul init`, and loading a town to run it.

pub mod load;
pub mod template;

//! Errors of the relay crate.

use std::path::PathBuf;

/// What can stop the relay from starting or serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The event store could not be opened.
    #[error("cannot open the event store at {path}: {source}; check that the directory is writable and not used by another `soul` process")]
    Store {
        /// Store directory.
        path: PathBuf,
        /// Cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The listening socket failed.
    #[error("cannot listen on {addr}: {source}; is another relay already running there? Pick another address in town.toml [relay] listen")]
    Bind {
        /// Address.
        addr: String,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// Serving stopped with an I/O error.
    #[error("relay stopped: {0}")]
    Serve(#[source] std::io::Error),
}

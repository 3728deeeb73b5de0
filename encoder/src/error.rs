//! Why a data file could not be read.

/// The data given to [`Encoder::from_bytes`](crate::Encoder::from_bytes) is not a model this
/// build can read. Every variant says where it went wrong; none of them is a panic.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not start with the `soul-use` magic.
    #[error("not a soul-encoder data file: the \"soul-use\" magic is missing")]
    Magic,
    /// The file was written in a format version this build does not read.
    #[error("soul-encoder data is format version {found}; this build reads version {supported}")]
    Version {
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The file ends inside a section.
    #[error("soul-encoder data ends inside the {section} section, at byte {offset}")]
    Truncated {
        /// The section being read: header, pieces, rows or tensors.
        section: &'static str,
        /// Where the missing bytes should have started.
        offset: usize,
    },
    /// A value is out of range or inconsistent with the rest of the file.
    #[error("soul-encoder data is invalid in the {section} section at byte {offset}: {reason}")]
    Invalid {
        /// The section being read.
        section: &'static str,
        /// Where the offending value starts.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A dense layer the network needs is not in the file.
    #[error("soul-encoder data has no tensor {name:?}")]
    MissingTensor {
        /// The tensor's name.
        name: &'static str,
    },
    /// A dense layer has the wrong shape.
    #[error("soul-encoder tensor {name:?} is {found:?} (rows, cols), expected {expected:?}")]
    TensorShape {
        /// The tensor's name.
        name: &'static str,
        /// The shape the network needs.
        expected: (usize, usize),
        /// The shape in the file.
        found: (usize, usize),
    },
    /// Bytes follow the last tensor.
    #[error("soul-encoder data has {count} bytes after its last tensor")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
}

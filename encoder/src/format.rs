//! Reading `data/use_m3.bin`: header, pieces, embedding rows and dense tensors.
//!
//! The format is written by `tools/convert_use.py`, whose docstring is its specification:
//! little-endian throughout, magic `soul-use`, version 1. Parsing checks every length against
//! the bytes that are left before allocating, so garbage is an [`Error`], never a panic or a
//! huge allocation.

use crate::error::Error;

const MAGIC: &[u8; 8] = b"soul-use";
const VERSION: u32 = 1;

/// How sentencepiece typed a piece; only normal and user-defined pieces match text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
}

/// One vocabulary entry; its text is `len` bytes at `start` of the pieces section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece {
    pub start: u32,
    pub len: u8,
    pub kind: Kind,
    pub score: f32,
}

/// One embedding row: 512 codes of `bits` bits at `start` of the rows' codes.
/// Value `j` is `(base + code[j]) * scale + lo`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub start: u32,
    pub scale: f32,
    pub lo: f32,
    pub base: u8,
    pub bits: u8,
}

/// A dense layer, row-major, `rows` inputs by `cols` outputs, still encoded as in the file:
/// the network decodes each straight into the layout it computes with.
pub(crate) struct Tensor<'a> {
    pub name: &'a str,
    pub rows: usize,
    pub cols: usize,
    values: Values<'a>,
}

enum Values<'a> {
    /// Little-endian f32s.
    Raw(&'a [u8]),
    /// One byte per value, indexing the palette (every index checked in range).
    Palette(Box<[f32; 256]>, &'a [u8]),
}

impl Tensor<'_> {
    /// Value `i` in row-major order, `i < rows * cols`.
    pub fn get(&self, i: usize) -> f32 {
        match &self.values {
            Values::Raw(bytes) => f32_le(&bytes[4 * i..4 * i + 4]),
            Values::Palette(palette, codes) => palette[codes[i] as usize],
        }
    }

    pub fn to_vec(&self) -> Vec<f32> {
        (0..self.rows * self.cols).map(|i| self.get(i)).collect()
    }
}

/// The file's fixed fields.
pub(crate) struct Header {
    pub unk: u32,
    pub bos: u32,
    pub eos: u32,
    /// Lowest and highest score of a normal piece in the untrimmed vocabulary.
    pub min_score: f32,
    pub max_score: f32,
    pub eps: f32,
}

/// A parsed file, borrowing from the bytes it was read from.
pub(crate) struct Parsed<'a> {
    pub header: Header,
    pub piece_bytes: &'a [u8],
    pub pieces: Vec<Piece>,
    pub row_bytes: &'a [u8],
    pub rows: Vec<Row>,
    pub tensors: Vec<Tensor<'a>>,
}

pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    let mut r = Reader {
        bytes,
        pos: 0,
        section: "header",
    };
    if r.take(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err(Error::Magic);
    }
    if u32::try_from(bytes.len()).is_err() {
        // Offsets into the sections are kept as u32.
        return Err(r.invalid(0, "the file is larger than 4 GiB"));
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(Error::Version {
            found: version,
            supported: VERSION,
        });
    }
    let dim = r.u32()? as usize;
    let count = r.u32()? as usize;
    let (unk, bos, eos) = (r.u32()?, r.u32()?, r.u32()?);
    let header = Header {
        unk,
        bos,
        eos,
        min_score: r.f32()?,
        max_score: r.f32()?,
        eps: r.f32()?,
    };
    if dim != crate::DIM {
        return Err(Error::Invalid {
            section: "header",
            offset: 12,
            reason: "the width is not 512",
        });
    }

    r.section = "pieces";
    let start = r.pos;
    let pieces = pieces(&mut r, count)?;
    let piece_bytes = &bytes[start..r.pos];
    for (id, kind) in [
        (unk, Kind::Unknown),
        (bos, Kind::Control),
        (eos, Kind::Control),
    ] {
        if pieces.get(id as usize).map(|p| p.kind) != Some(kind) {
            return Err(r.invalid(
                0,
                "the unk, bos or eos id does not name a piece of its kind",
            ));
        }
    }

    r.section = "rows";
    let (rows, codes) = rows(&mut r, count, dim)?;
    let row_bytes = r.take(codes)?;

    r.section = "tensors";
    let tensors = tensors(&mut r)?;
    if r.pos != bytes.len() {
        return Err(Error::TrailingBytes {
            count: bytes.len() - r.pos,
        });
    }
    Ok(Parsed {
        header,
        piece_bytes,
        pieces,
        row_bytes,
        rows,
        tensors,
    })
}

/// Pieces, sorted strictly by their bytes (the tokenizer binary-searches them).
fn pieces(r: &mut Reader<'_>, count: usize) -> Result<Vec<Piece>, Error> {
    let section_start = r.pos;
    let mut pieces = Vec::with_capacity(count.min(r.left() / 6));
    let mut previous: &[u8] = &[];
    for _ in 0..count {
        let kind = match r.u8()? {
            1 => Kind::Normal,
            2 => Kind::Unknown,
            3 => Kind::Control,
            4 => Kind::UserDefined,
            5 => Kind::Unused,
            _ => return Err(r.invalid(1, "unknown piece type")),
        };
        let score = r.f32()?;
        let len = r.u8()?;
        let text = r.take(len as usize)?;
        if text.is_empty() || std::str::from_utf8(text).is_err() {
            return Err(r.invalid(text.len(), "a piece is empty or not UTF-8"));
        }
        if text <= previous {
            return Err(r.invalid(text.len(), "pieces are not sorted by their bytes"));
        }
        previous = text;
        let start = (r.pos - text.len() - section_start) as u32;
        pieces.push(Piece {
            start,
            len,
            kind,
            score,
        });
    }
    Ok(pieces)
}

/// Row headers, and the size of the codes that follow them (every row's, back to back). The
/// caller takes those bytes, which bounds every `start` by the file size.
fn rows(r: &mut Reader<'_>, count: usize, dim: usize) -> Result<(Vec<Row>, usize), Error> {
    let mut rows = Vec::with_capacity(count.min(r.left() / 10));
    let mut start = 0usize;
    for _ in 0..count {
        let (scale, lo, base, bits) = (r.f32()?, r.f32()?, r.u8()?, r.u8()?);
        if bits > 8 {
            return Err(r.invalid(1, "a row has codes wider than 8 bits"));
        }
        let at = u32::try_from(start).map_err(|_| r.invalid(10, "rows past 4 GiB"))?;
        rows.push(Row {
            start: at,
            scale,
            lo,
            base,
            bits,
        });
        start = start.saturating_add(dim / 8 * bits as usize);
    }
    Ok((rows, start))
}

fn tensors<'a>(r: &mut Reader<'a>) -> Result<Vec<Tensor<'a>>, Error> {
    let count = r.u32()? as usize;
    let mut tensors = Vec::with_capacity(count.min(r.left() / 10));
    for _ in 0..count {
        let len = r.u8()? as usize;
        let name = std::str::from_utf8(r.take(len)?)
            .map_err(|_| r.invalid(len, "a tensor name is not UTF-8"))?;
        let (rows, cols) = (r.u32()? as usize, r.u32()? as usize);
        let size = rows
            .checked_mul(cols)
            .ok_or_else(|| r.invalid(8, "a tensor's size overflows"))?;
        let values = match r.u8()? {
            0 => Values::Raw(r.take(size.saturating_mul(4))?),
            1 => {
                let n = r.u16()? as usize;
                if n == 0 || n > 256 {
                    return Err(r.invalid(2, "a palette has no entries or more than 256"));
                }
                let mut palette = Box::new([0.0; 256]);
                for (p, b) in palette.iter_mut().zip(r.take(n * 4)?.chunks_exact(4)) {
                    *p = f32_le(b);
                }
                let codes = r.take(size)?;
                if codes.iter().any(|&c| c as usize >= n) {
                    return Err(r.invalid(size, "a palette index is out of range"));
                }
                Values::Palette(palette, codes)
            }
            _ => return Err(r.invalid(1, "unknown tensor encoding")),
        };
        tensors.push(Tensor {
            name,
            rows,
            cols,
            values,
        });
    }
    Ok(tensors)
}

fn f32_le(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// A cursor that turns running out of bytes into [`Error::Truncated`].
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    section: &'static str,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.left() {
            return Err(Error::Truncated {
                section: self.section,
                offset: self.pos,
            });
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, Error> {
        self.array().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        self.array().map(u32::from_le_bytes)
    }

    fn f32(&mut self) -> Result<f32, Error> {
        self.array().map(f32::from_le_bytes)
    }

    /// An [`Error::Invalid`] for the value that ended `back` bytes ago.
    fn invalid(&self, back: usize, reason: &'static str) -> Error {
        Error::Invalid {
            section: self.section,
            offset: self.pos.saturating_sub(back),
            reason,
        }
    }
}

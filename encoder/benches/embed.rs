//! `cargo bench -p soul-encoder`: load time, per-sentence embedding time, and the search of an
//! index as large as the built-in mind's precedents; plain std::time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use soul_encoder::index::Index;
use soul_encoder::Encoder;

const ENGLISH: &str =
    "Please check the open pull requests and post a short summary to the team channel today.";
const JAPANESE: &str = "明日の午前十時から会議室で新しいリリース計画について話し合いましょう。";

/// Median and fastest of `runs` timings of `f`, after a few warm-up calls. The fastest shows
/// what the code costs when nothing else competes for the cores.
fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    for _ in 0..5 {
        f();
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[runs / 2], times[0])
}

fn main() {
    let start = Instant::now();
    let encoder = Encoder::shipped();
    println!(
        "shipped() first call (parse + index): {:?}",
        start.elapsed()
    );

    for (name, text) in [("English", ENGLISH), ("Japanese", JAPANESE)] {
        let tokens = encoder.tokens(text).len();
        let chars = text.chars().count();
        let (median, fastest) = time(200, || {
            black_box(encoder.embed(black_box(text)));
        });
        println!(
            "embed {name} ({chars} chars, {tokens} tokens): \
             median {median:?}, fastest {fastest:?}"
        );
        let (median, _) = time(200, || {
            black_box(encoder.tokens(black_box(text)));
        });
        println!("  of which tokenizing: median {median:?}");
    }

    let batch: Vec<&str> = [ENGLISH, JAPANESE].repeat(16);
    let per = |d: Duration| d / batch.len() as u32;
    let (one_by_one, _) = time(20, || {
        for text in &batch {
            black_box(encoder.embed(text));
        }
    });
    let (many, _) = time(20, || {
        black_box(encoder.embed_many(black_box(&batch)));
    });
    println!(
        "{} sentences: embed one by one {:?}/sentence, embed_many {:?}/sentence (medians)",
        batch.len(),
        per(one_by_one),
        per(many)
    );

    // An index of the precedents' size: every sentence's embedding, each varied by a seeded
    // step so the rows differ, as 25,000 labelled tasks' do.
    let rows = 25_000;
    let base = [encoder.embed(ENGLISH), encoder.embed(JAPANESE)];
    let mut state = 0x5eed_u64;
    let embeddings: Vec<Vec<f32>> = (0..rows)
        .map(|i| {
            let v: Vec<f32> = base[i % 2]
                .iter()
                .map(|x| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    x + ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1
                })
                .collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.into_iter().map(|x| x / n).collect()
        })
        .collect();
    let index = Index::new(&embeddings);
    let query = encoder.embed("Turn the firewall back on after the update");
    let (median, fastest) = time(50, || {
        black_box(index.nearest(black_box(&query), 25));
    });
    println!(
        "index of {rows} rows ({} MB): nearest 25, median {median:?}, fastest {fastest:?}",
        index.to_bytes().len() / 1_000_000
    );
}

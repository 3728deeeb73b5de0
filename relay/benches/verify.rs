//! What one EVENT's checks cost on this CPU, one core, no I/O: nostr's `Event::verify_id` and
//! `Event::verify_signature`, and the parts of the latter (parsing the x-only key, the Schnorr
//! check itself).
//!
//! `cargo bench -p soul-relay --bench verify -- [--events N] [--rounds R]`
//!
//! The last line is soul's own `SignatureCheck` (id, then signature with the author's key parsed
//! once per thread), as the policy chain runs it.

use std::hint::black_box;
use std::time::Instant;

use nostr::secp256k1::{schnorr, Message, XOnlyPublicKey};
use nostr::{EventBuilder, Keys, Tag};
use soul_relay::policy::{Admission, Check, SignatureCheck};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: usize| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let (n, rounds) = (arg("--events", 5_000), arg("--rounds", 5));
    let authors: Vec<Keys> = (0..50).map(|_| Keys::generate()).collect();
    // The relay bench's events (a short text note), and a reply with tags.
    let events: Vec<_> = (0..n)
        .map(|i| {
            let b = EventBuilder::text_note(format!("Soul-0 bench note {i}"));
            let b = if i % 2 == 1 {
                b.tag(Tag::public_key(authors[(i + 1) % 50].public_key()))
                    .tag(Tag::hashtag("town"))
            } else {
                b
            };
            b.sign_with_keys(&authors[i % 50]).unwrap()
        })
        .collect();
    let secp = nostr::secp256k1::Secp256k1::verification_only();
    let time = |name: &str, f: &dyn Fn() -> usize| {
        let mut per = Vec::new();
        for _ in 0..rounds {
            let start = Instant::now();
            let ok = black_box(f());
            per.push(start.elapsed().as_secs_f64() * 1e6 / n as f64);
            assert_eq!(ok, n, "{name}: every event passes");
        }
        per.sort_by(f64::total_cmp);
        println!(
            "{name:<40} µs/event  min {:.2} / median {:.2} / max {:.2}",
            per[0],
            per[per.len() / 2],
            per[per.len() - 1]
        );
    };
    time("Event::verify_id", &|| {
        events.iter().filter(|e| e.verify_id()).count()
    });
    time("Event::verify_signature", &|| {
        events.iter().filter(|e| e.verify_signature()).count()
    });
    time("XOnlyPublicKey::from_slice", &|| {
        events
            .iter()
            .filter(|e| XOnlyPublicKey::from_slice(e.pubkey.as_bytes()).is_ok())
            .count()
    });
    let keys: Vec<XOnlyPublicKey> = events.iter().map(|e| e.pubkey.xonly().unwrap()).collect();
    time("verify_schnorr, key parsed (own ctx)", &|| {
        events
            .iter()
            .zip(&keys)
            .filter(|(e, k)| {
                let msg = Message::from_digest(e.id.to_bytes());
                let sig: &schnorr::Signature = &e.sig;
                secp.verify_schnorr(sig, &msg, k).is_ok()
            })
            .count()
    });
    time("soul SignatureCheck (id + signature)", &|| {
        events
            .iter()
            .filter(|e| {
                let a = Admission {
                    event: e,
                    frame_len: 0,
                    ip: std::net::Ipv4Addr::LOCALHOST.into(),
                };
                SignatureCheck.check(&a).is_ok()
            })
            .count()
    });
}

//! Cross-process tests: real `soul` processes, a real relay on 127.0.0.1, plain Nostr clients.
//!
//! One test binary (as ripgrep does); one module per area; `util` gives every test its own town.

mod brains;
mod dashboard;
mod deeds;
mod fanout;
mod federation;
mod foundation;
mod judgement;
mod leash;
mod minds;
mod negentropy;
mod nostr_rs_relay;
mod relay;
mod replay;
mod samsara;
mod town;
mod trust;
mod util;
mod workers;

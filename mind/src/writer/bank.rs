//! A language's phrase bank, read from `mind/data/writer/{ja,en}.yaml` (embedded at build time,
//! parsed once). The files are the place to add phrases; the code only says how they combine.

use std::sync::LazyLock;

use serde::Deserialize;

use crate::profile::Language;

/// Part of the town day; openers differ by it so posts vary across a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// 5:00–10:59.
    Morning,
    /// 11:00–16:59.
    Day,
    /// 17:00–21:59.
    Evening,
    /// 22:00–4:59.
    Night,
}

impl Slot {
    /// The slot of a town hour.
    pub fn of_hour(hour: u32) -> Self {
        match hour % 24 {
            5..=10 => Slot::Morning,
            11..=16 => Slot::Day,
            17..=21 => Slot::Evening,
            _ => Slot::Night,
        }
    }
}

/// Openers by part of the day.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Openers {
    /// 5:00–10:59.
    pub morning: Vec<String>,
    /// 11:00–16:59.
    pub day: Vec<String>,
    /// 17:00–21:59.
    pub evening: Vec<String>,
    /// 22:00–4:59.
    pub night: Vec<String>,
}

/// Phrases for one language.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bank {
    /// Openers by part of the day.
    pub openers: Openers,
    /// A fresh post about `{t}`.
    pub fresh: Vec<String>,
    /// Carrying on from the resident's own last post about `{t}`.
    pub cont: Vec<String>,
    /// Reacting to the news `{t}`.
    pub news: Vec<String>,
    /// Reacting to the town event `{t}`.
    pub event: Vec<String>,
    /// An aside about a positive prompt `{t}`.
    pub aside: Vec<String>,
    /// A line of good mood.
    pub happy: Vec<String>,
    /// A line of low mood.
    pub low: Vec<String>,
    /// A line of tiredness.
    pub tired: Vec<String>,
    /// Default sentence endings.
    pub endings: Vec<String>,
    /// Used when nothing else passes.
    pub plain: String,
    /// The topic when the resident has none.
    pub fallback_topic: String,
    /// First reply to `{name}` in a thread.
    pub reply_open: Vec<String>,
    /// Later replies.
    pub reply_more: Vec<String>,
}

impl Bank {
    /// Openers for a slot.
    pub fn openers(&self, slot: Slot) -> &[String] {
        match slot {
            Slot::Morning => &self.openers.morning,
            Slot::Day => &self.openers.day,
            Slot::Evening => &self.openers.evening,
            Slot::Night => &self.openers.night,
        }
    }
}

fn parse(name: &str, text: &str) -> Bank {
    // The files ship inside the binary and a test reads both: a broken one never reaches a town.
    serde_yaml_ng::from_str(text).unwrap_or_else(|e| panic!("mind/data/writer/{name}: {e}"))
}

static JA: LazyLock<Bank> = LazyLock::new(|| {
    parse(
        "ja.yaml",
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/writer/ja.yaml")),
    )
});
static EN: LazyLock<Bank> = LazyLock::new(|| {
    parse(
        "en.yaml",
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/data/writer/en.yaml")),
    )
});

/// The bank of `lang`.
pub fn of(lang: Language) -> &'static Bank {
    match lang {
        Language::Ja => &JA,
        Language::En => &EN,
    }
}

//! The shape of a language's phrase bank. `{t}` stands for the topic, `{name}` for a person.

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

/// Phrases for one language.
pub struct Bank {
    pub morning: &'static [&'static str],
    pub day: &'static [&'static str],
    pub evening: &'static [&'static str],
    pub night: &'static [&'static str],
    /// A fresh post about `{t}`.
    pub fresh: &'static [&'static str],
    /// Carrying on from the last post about `{t}`.
    pub cont: &'static [&'static str],
    /// Reacting to the news `{t}`.
    pub news: &'static [&'static str],
    /// Reacting to the town event `{t}`.
    pub event: &'static [&'static str],
    /// An aside about a positive prompt `{t}`.
    pub aside: &'static [&'static str],
    pub happy: &'static [&'static str],
    pub low: &'static [&'static str],
    pub tired: &'static [&'static str],
    /// Default sentence endings.
    pub endings: &'static [&'static str],
    /// Between parts.
    pub joiner: &'static str,
    /// Used when nothing else passes.
    pub plain: &'static str,
    pub fallback_topic: &'static str,
    /// First reply to `{name}` in a thread.
    pub reply_open: &'static [&'static str],
    /// Later replies.
    pub reply_more: &'static [&'static str],
}

impl Bank {
    /// Openers for a slot.
    pub fn openers(&self, slot: Slot) -> &'static [&'static str] {
        match slot {
            Slot::Morning => self.morning,
            Slot::Day => self.day,
            Slot::Evening => self.evening,
            Slot::Night => self.night,
        }
    }
}

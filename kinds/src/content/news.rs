//! News (4371): an item the reporter read from its sources.

use nostr::{EventBuilder, Tag};
use serde::{Deserialize, Serialize};

use super::{
    base, check_list, check_text, one_line, FieldError, SoulContent, MAX_NAME, MAX_TEXT, MAX_TITLE,
};
use crate::kind::SoulKind;

/// Longest link, in characters (a generous URL limit; links are shown, never fetched here).
const MAX_LINK: usize = 2048;

/// Content of a news event.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct News {
    /// 1..=200 characters.
    pub title: String,
    /// Up to 4000 characters.
    pub summary: String,
    /// Where to read more; `None` for manual items and offline files.
    pub link: Option<String>,
    /// Which feed or file it came from, 1..=200 characters.
    pub source: String,
    /// Topics, each 1..=64 characters; each becomes a `t` tag.
    pub topics: Vec<String>,
}

impl SoulContent for News {
    const KIND: SoulKind = SoulKind::News;

    fn validate(&self) -> Result<(), FieldError> {
        check_text("title", &self.title, 1, MAX_TITLE)?;
        check_text("summary", &self.summary, 0, MAX_TEXT)?;
        if let Some(link) = &self.link {
            check_text("link", link, 1, MAX_LINK)?;
        }
        check_text("source", &self.source, 1, MAX_TITLE)?;
        check_list("topics", &self.topics)?;
        for topic in &self.topics {
            check_text("topics", topic, 1, MAX_NAME)?;
        }
        Ok(())
    }

    fn alt(&self) -> String {
        format!("soul news: {}", one_line(&self.title, 120))
    }
}

/// A news event with one `t` tag per topic. Hashtags are lowercased, as NIP-24 asks of `t` tags,
/// so that `#t` filters match whatever case the feed used; the content keeps the original case.
pub fn news(content: &News) -> EventBuilder {
    base(content).tags(
        content
            .topics
            .iter()
            .map(|topic| Tag::hashtag(topic.to_lowercase())),
    )
}

//! The reporter's sources (`bulletin/sources.yaml`): feeds by file or URL, manual items, town
//! events, and the filters news must pass.

use crate::HostError;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// How long an http(s) feed may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// `bulletin/sources.yaml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sources {
    /// Town minutes between reads.
    #[serde(default = "hourly")]
    pub interval_minutes: u32,
    /// RSS/Atom feeds.
    #[serde(default)]
    pub feeds: Vec<Feed>,
    /// News items written by hand.
    #[serde(default)]
    pub manual: Vec<Manual>,
    /// Town events.
    #[serde(default)]
    pub events: Vec<EventSpec>,
    /// What news must pass.
    #[serde(default)]
    pub filters: Filters,
}

fn hourly() -> u32 {
    60
}

/// A feed: a file in `bulletin/` (or an absolute path) or an http(s) URL.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Feed {
    /// A file, relative to `bulletin/`.
    #[serde(default)]
    pub file: Option<String>,
    /// An http:// or https:// URL.
    #[serde(default)]
    pub url: Option<String>,
}

/// A news item written by hand.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manual {
    /// Title.
    pub title: String,
    /// Summary.
    #[serde(default)]
    pub summary: String,
    /// Topics.
    #[serde(default)]
    pub topics: Vec<String>,
}

/// A town event.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// Title.
    pub title: String,
    /// What happens.
    #[serde(default)]
    pub description: String,
    /// Town hours after the reporter first announces it.
    #[serde(default)]
    pub in_hours: f64,
    /// How many town hours it lasts; residents stop talking about it after.
    #[serde(default = "two_hours")]
    pub hours: f64,
}

fn two_hours() -> f64 {
    2.0
}

/// What news must pass.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filters {
    /// Allowed topics (lowercase); an item must match one by category or word. Empty: all.
    #[serde(default)]
    pub topics: Vec<String>,
    /// Extra words that drop an item.
    #[serde(default)]
    pub block: Vec<String>,
}

/// One item read from a source, before filtering.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Title.
    pub title: String,
    /// Summary.
    pub summary: String,
    /// Link.
    pub link: Option<String>,
    /// Categories as the source gave them.
    pub categories: Vec<String>,
    /// Which source.
    pub source: String,
}

impl Sources {
    /// Reads `DIR/bulletin/sources.yaml`; a missing file means no sources. Errors name the file.
    pub fn load_in(town: &Path) -> Result<Self, HostError> {
        let path = town.join("bulletin").join("sources.yaml");
        if !path.exists() {
            return Ok(Self {
                interval_minutes: hourly(),
                feeds: vec![],
                manual: vec![],
                events: vec![],
                filters: Filters::default(),
            });
        }
        let file = path.display().to_string();
        let bad = |reason: String| HostError::File {
            file: file.clone(),
            reason,
        };
        let text = std::fs::read_to_string(&path).map_err(|source| HostError::Io {
            path: path.clone(),
            source,
        })?;
        let s: Sources = serde_yaml_ng::from_str(&text).map_err(|e| bad(e.to_string()))?;
        for (i, f) in s.feeds.iter().enumerate() {
            match (&f.file, &f.url) {
                (Some(_), None) => {}
                (None, Some(u)) if u.starts_with("http://") || u.starts_with("https://") => {}
                (None, Some(u)) => {
                    return Err(bad(format!(
                        "feeds[{i}].url {u:?} must start with http:// or https://"
                    )))
                }
                _ => {
                    return Err(bad(format!(
                        "feeds[{i}] needs exactly one of `file` or `url`"
                    )))
                }
            }
        }
        if s.interval_minutes == 0 {
            return Err(bad("field `interval_minutes` must be at least 1".into()));
        }
        Ok(s)
    }
}

impl Feed {
    /// A name for logs and the `source` field.
    pub fn name(&self) -> String {
        self.file
            .clone()
            .or_else(|| self.url.clone())
            .unwrap_or_default()
    }

    /// Reads and parses the feed. A dead or malformed feed is an error for the caller to log
    /// and skip.
    pub async fn read(
        &self,
        bulletin: &Path,
        http: &reqwest::Client,
    ) -> Result<Vec<Item>, HostError> {
        let bytes = match (&self.file, &self.url) {
            (Some(f), _) => {
                let p: PathBuf = bulletin.join(f);
                tokio::fs::read(&p)
                    .await
                    .map_err(|source| HostError::Io { path: p, source })?
            }
            (None, Some(u)) => {
                let fetch = |source| HostError::FeedFetch {
                    feed: u.clone(),
                    source,
                };
                let resp = http
                    .get(u)
                    .timeout(FETCH_TIMEOUT)
                    .send()
                    .await
                    .and_then(reqwest::Response::error_for_status)
                    .map_err(fetch)?;
                resp.bytes().await.map_err(fetch)?.to_vec()
            }
            // `load_in` refuses such a feed; one built in code is the same mistake.
            (None, None) => {
                return Err(HostError::File {
                    file: "bulletin/sources.yaml".into(),
                    reason: "a feed has neither `file` nor `url`".into(),
                })
            }
        };
        let feed = feed_rs::parser::parse(&bytes[..]).map_err(|source| HostError::FeedParse {
            feed: self.name(),
            source,
        })?;
        let source = feed
            .title
            .map(|t| t.content)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| self.name());
        Ok(feed
            .entries
            .into_iter()
            .filter_map(|e| {
                let title = e.title.map(|t| t.content)?.trim().to_string();
                let summary = e
                    .summary
                    .map(|s| s.content)
                    .or_else(|| e.content.and_then(|c| c.body))
                    .unwrap_or_default();
                Some(Item {
                    title,
                    summary: strip_tags(&summary),
                    link: e.links.first().map(|l| l.href.clone()),
                    categories: e.categories.into_iter().map(|c| c.term).collect(),
                    source: source.clone(),
                })
            })
            .filter(|i| !i.title.is_empty())
            .collect())
    }
}

/// Feed summaries are often HTML: keep the text.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            _ if !inside => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

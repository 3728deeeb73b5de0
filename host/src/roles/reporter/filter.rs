//! What news may reach the bulletin: no politics, incidents or gossip (NG2–NG6), names
//! stripped (NG1), only the configured topics.

use super::sources::{Filters, Item};
use crate::roles::reviewer::NgRules;

/// Rules whose match drops an item outright.
const DROP: &[&str] = &["NG2", "NG3", "NG4", "NG5", "NG6"];

/// An item that passed: its text with names stripped and the topics it matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The item, names stripped.
    pub item: Item,
    /// Topics (lowercase).
    pub topics: Vec<String>,
}

/// Why an item was dropped, or what is kept.
pub fn pass(item: &Item, filters: &Filters, rules: &NgRules) -> Result<Kept, String> {
    let text = format!("{}\n{}", item.title, item.summary);
    let drop: Vec<String> = DROP.iter().map(|s| s.to_string()).collect();
    if let Some(hit) = rules.check_only(&text, &drop).first() {
        return Err(format!("{} ({}: \"{}\")", hit.name, hit.rule, hit.matched));
    }
    let lower = text.to_lowercase();
    if let Some(w) = filters
        .block
        .iter()
        .find(|w| lower.contains(&w.to_lowercase()))
    {
        return Err(format!("blocked word \"{w}\""));
    }
    let cats: Vec<String> = item.categories.iter().map(|c| c.to_lowercase()).collect();
    let topics: Vec<String> = if filters.topics.is_empty() {
        cats.clone()
    } else {
        filters
            .topics
            .iter()
            .map(|t| t.to_lowercase())
            .filter(|t| cats.contains(t) || lower.contains(t.as_str()))
            .collect()
    };
    if !filters.topics.is_empty() && topics.is_empty() {
        return Err(format!(
            "no allowed topic (categories {:?})",
            item.categories
        ));
    }
    let mut kept = item.clone();
    let someone = if item.title.is_ascii() {
        "someone"
    } else {
        "ある人"
    };
    kept.title = rules.strip(&item.title, &["NG1"], someone);
    kept.summary = rules.strip(&item.summary, &["NG1"], someone);
    Ok(Kept { item: kept, topics })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(title: &str, cats: &[&str]) -> Item {
        Item {
            title: title.into(),
            summary: String::new(),
            link: None,
            categories: cats.iter().map(|c| c.to_string()).collect(),
            source: "test".into(),
        }
    }

    #[test]
    fn politics_incidents_and_off_topic_items_are_dropped_names_stripped() {
        let rules = NgRules::builtin().unwrap();
        let f = Filters {
            topics: vec!["gardening".into(), "books".into()],
            block: vec![],
        };
        assert!(pass(
            &item("Senator opens debate on tax", &["gardening"]),
            &f,
            &rules
        )
        .is_err());
        assert!(pass(
            &item("Suspect arrested near the park", &["gardening"]),
            &f,
            &rules
        )
        .is_err());
        assert!(pass(&item("選挙の結果", &["books"]), &f, &rules).is_err());
        assert!(pass(&item("New racing car unveiled", &["cars"]), &f, &rules).is_err());
        let kept = pass(&item("Mr. Brown opens a gardening club", &[]), &f, &rules).unwrap();
        assert_eq!(kept.item.title, "someone opens a gardening club");
        assert_eq!(kept.topics, vec!["gardening".to_string()]);
    }
}

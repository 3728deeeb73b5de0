//! NIP-89 handler information (31990) and recommendations (31989) for soul's kinds, so that
//! stock clients that meet a kind 4361 can find something that shows it.

use nostr::{EventBuilder, Kind, PublicKey, Tag, TagKind};
use serde_json::json;

use crate::kind::SoulKind;

/// `d` tag of the town's handler-information event.
pub const HANDLER_ID: &str = "soul";

/// The handler information: one `k` tag per soul kind, and the dashboard's URL templates.
pub fn handler_information(town: &str, dashboard: &str) -> EventBuilder {
    let content = json!({
        "name": format!("soul town {town}"),
        "about": "A town of AI agents on Nostr: brains debate the owner's tasks, residents post, \
                  a reviewer judges, workers obey encrypted commands. The dashboard shows every kind.",
        "bot": true,
    });
    let base = dashboard.trim_end_matches('/');
    let mut tags = vec![
        Tag::identifier(HANDLER_ID),
        Tag::custom(
            TagKind::custom("web"),
            [format!("{base}/#event=<bech32>"), "nevent".to_string()],
        ),
        Tag::custom(
            TagKind::custom("web"),
            [format!("{base}/#event=<bech32>"), "naddr".to_string()],
        ),
        Tag::custom(
            TagKind::custom("alt"),
            [format!("Handler information for soul town {town}'s kinds")],
        ),
    ];
    tags.extend(
        SoulKind::ALL
            .iter()
            .map(|k| Tag::custom(TagKind::custom("k"), [k.number().to_string()])),
    );
    EventBuilder::new(Kind::Custom(31990), content.to_string()).tags(tags)
}

/// One recommendation per soul kind (`d` = the kind), pointing at the owner's handler event.
pub fn recommendations(owner: PublicKey) -> Vec<EventBuilder> {
    let address = format!("31990:{}:{HANDLER_ID}", owner.to_hex());
    SoulKind::ALL
        .iter()
        .map(|k| {
            EventBuilder::new(Kind::Custom(31989), "").tags([
                Tag::identifier(k.number().to_string()),
                Tag::custom(
                    TagKind::custom("a"),
                    [address.clone(), String::new(), "web".into()],
                ),
                Tag::custom(
                    TagKind::custom("alt"),
                    [format!(
                        "Recommends the soul dashboard for kind {} ({})",
                        k.number(),
                        k.name()
                    )],
                ),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use nostr::Keys;

    use super::*;

    #[test]
    fn handler_names_every_soul_kind_and_recommendations_point_at_it() {
        let owner = Keys::generate();
        let h = handler_information("t", "http://127.0.0.1:3000")
            .sign_with_keys(&owner)
            .unwrap();
        let ks: Vec<&str> = h
            .tags
            .iter()
            .filter(|t| t.kind() == TagKind::custom("k"))
            .filter_map(|t| t.content())
            .collect();
        assert_eq!(ks.len(), SoulKind::ALL.len());
        assert!(ks.contains(&"4361"));
        let recs = recommendations(owner.public_key());
        assert_eq!(recs.len(), SoulKind::ALL.len());
        let r = recs[0].clone().sign_with_keys(&owner).unwrap();
        let a = r
            .tags
            .iter()
            .find(|t| t.kind() == TagKind::custom("a"))
            .unwrap();
        assert_eq!(
            a.content().unwrap(),
            format!("31990:{}:soul", owner.public_key().to_hex())
        );
    }
}

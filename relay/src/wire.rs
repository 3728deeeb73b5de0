//! NIP-01 frames written straight to text.
//!
//! nostr's `RelayMessage::as_json` first builds a `serde_json::Value` tree (every id, key, tag
//! and the content become owned strings in maps) and then prints the tree. A profile of the
//! fan-out bench put most of the relay's CPU there: hex formatting, allocation, map inserts. These
//! functions print the same compact JSON directly, and a live event only once: its text is shared
//! by every subscription it goes to ([`event_with`]).

use nostr::{Event, EventId, JsonUtil, RelayMessage, SubscriptionId};

/// The event as compact JSON, keys in NIP-01's order.
///
/// Written by hand because nostr's `Serialize` prints the 128 hex digits of a signature one
/// `{:02x}` format call at a time and the id through a char iterator: perf on the REQ bench put a
/// quarter of the relay's CPU in that formatting.
pub(crate) fn event_json(event: &Event) -> String {
    let content_and_tags: usize = event.content.len()
        + event
            .tags
            .iter()
            .map(|t| t.as_slice().iter().map(|v| v.len() + 3).sum::<usize>() + 2)
            .sum::<usize>();
    let mut out = String::with_capacity(260 + content_and_tags);
    out.push_str("{\"id\":\"");
    push_hex(&mut out, event.id.as_bytes());
    out.push_str("\",\"pubkey\":\"");
    push_hex(&mut out, event.pubkey.as_bytes());
    out.push_str("\",\"created_at\":");
    out.push_str(&event.created_at.as_secs().to_string());
    out.push_str(",\"kind\":");
    out.push_str(&event.kind.as_u16().to_string());
    out.push_str(",\"tags\":[");
    for (i, tag) in event.tags.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        for (j, value) in tag.as_slice().iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_str(&mut out, value);
        }
        out.push(']');
    }
    out.push_str("],\"content\":");
    push_str(&mut out, &event.content);
    out.push_str(",\"sig\":\"");
    push_hex(&mut out, &event.sig.serialize());
    out.push_str("\"}");
    out
}

/// Appends `bytes` as lowercase hex.
fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0xf) as usize] as char);
    }
}

/// `["EVENT",<sub>,<event>]` from an event already printed by [`event_json`].
pub(crate) fn event_with(sub: &SubscriptionId, event_json: &str) -> String {
    let mut out = String::with_capacity(event_json.len() + sub.as_str().len() + 16);
    out.push_str("[\"EVENT\",");
    push_str(&mut out, sub.as_str());
    out.push(',');
    out.push_str(event_json);
    out.push(']');
    out
}

/// `["EVENT",<sub>,<event>]`.
pub(crate) fn event(sub: &SubscriptionId, event: &Event) -> String {
    event_with(sub, &event_json(event))
}

/// `["OK",<id>,<accepted>,<message>]`.
pub(crate) fn ok(id: &EventId, accepted: bool, message: &str) -> String {
    let mut out = String::with_capacity(96 + message.len());
    out.push_str("[\"OK\",\"");
    push_hex(&mut out, id.as_bytes());
    out.push_str(if accepted { "\",true," } else { "\",false," });
    push_str(&mut out, message);
    out.push(']');
    out
}

/// `["EOSE",<sub>]`.
pub(crate) fn eose(sub: &SubscriptionId) -> String {
    let mut out = String::with_capacity(sub.as_str().len() + 12);
    out.push_str("[\"EOSE\",");
    push_str(&mut out, sub.as_str());
    out.push(']');
    out
}

/// `["CLOSED",<sub>,<message>]`.
pub(crate) fn closed(sub: &SubscriptionId, message: &str) -> String {
    let mut out = String::with_capacity(sub.as_str().len() + message.len() + 16);
    out.push_str("[\"CLOSED\",");
    push_str(&mut out, sub.as_str());
    out.push(',');
    push_str(&mut out, message);
    out.push(']');
    out
}

/// Any relay message: the common ones directly, the rest through nostr.
pub(crate) fn message(msg: &RelayMessage<'_>) -> String {
    match msg {
        RelayMessage::Ok {
            event_id,
            status,
            message,
        } => ok(event_id, *status, message),
        RelayMessage::Event {
            subscription_id,
            event: e,
        } => event(subscription_id, e),
        RelayMessage::EndOfStoredEvents(sub) => eose(sub),
        RelayMessage::Closed {
            subscription_id,
            message,
        } => closed(subscription_id, message),
        other => other.as_json(),
    }
}

/// Appends `s` as a JSON string literal.
fn push_str(out: &mut String, s: &str) {
    // Nearly every id and message is plain ASCII without quotes; only those that are not pay
    // for serde_json's escaper.
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        // Serialising a &str to JSON cannot fail.
        out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{EventBuilder, Keys, Tag};

    fn parsed(json: &str) -> serde_json::Value {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"))
    }

    /// Every frame must say what nostr's own serialiser says, for plain and escaped text alike.
    /// Compared as JSON values: nostr's path sorts an event's keys, this one keeps NIP-01's order.
    #[test]
    fn frames_match_nostrs_serialiser() {
        let keys = Keys::generate();
        let e = EventBuilder::text_note("quote \" backslash \\ newline \n tab \t é 日本")
            .tag(Tag::hashtag("x\"y"))
            .tag(Tag::parse(["e", "", "wss://r\u{7f}", "ctl\u{1f}"]).unwrap())
            .tag(Tag::parse(["empty"]).unwrap())
            .sign_with_keys(&keys)
            .unwrap();
        let bare = EventBuilder::new(nostr::Kind::Custom(65_535), "")
            .sign_with_keys(&keys)
            .unwrap();
        for ev in [&e, &bare] {
            assert_eq!(parsed(&event_json(ev)), parsed(&ev.as_json()));
            // NIP-01's key order, as nostr's own Event::as_json prints it.
            assert_eq!(event_json(ev), ev.as_json());
        }
        for sub in ["plain", "with \"quote\"", "ctl\u{1}", "日本"] {
            let id = SubscriptionId::new(sub);
            let cases = [
                RelayMessage::event(id.clone(), e.clone()),
                RelayMessage::eose(id.clone()),
                RelayMessage::closed(id.clone(), "error: a \"quoted\" reason\n"),
                RelayMessage::ok(e.id, true, ""),
                RelayMessage::ok(e.id, false, "invalid: \\ bad"),
                RelayMessage::notice("falls through to nostr"),
            ];
            for m in cases {
                assert_eq!(parsed(&message(&m)), parsed(&m.as_json()));
            }
            assert_eq!(
                parsed(&event_with(&id, &event_json(&e))),
                parsed(&RelayMessage::event(id, e.clone()).as_json())
            );
        }
    }
}

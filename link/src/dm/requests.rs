//! Requests this agent sent by DM, so that an answer counts only from the one asked, for the
//! request it answers (issue 20: a stranger's "result" was taken as the executor's).
//!
//! A request is a message of ours carrying a request id (JSON `"request"`); its answer must
//! come from the message's recipient and reply to its rumor (`e`), whose id only the two of
//! them know (it travels encrypted). The ledger is rebuilt from our own copies of what we sent
//! (every message is also wrapped to its sender), so it survives restarts without a file.

use std::collections::HashMap;

use nostr::nips::nip19::ToBech32;
use nostr::{EventId, PublicKey};

use super::Message;

/// One request sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Who was asked.
    pub to: PublicKey,
    /// The request id it carries.
    pub request: String,
}

/// Requests sent, by the rumor id of the message that carried each.
#[derive(Debug, Default, Clone)]
pub struct Requests {
    by_rumor: HashMap<EventId, Sent>,
}

impl Requests {
    /// Records a request we sent in the message `rumor` to `to`.
    pub fn record(&mut self, rumor: EventId, to: PublicKey, request: String) {
        self.by_rumor.insert(rumor, Sent { to, request });
    }

    /// Records our own message `m` (a copy wrapped to ourselves) if it is a request.
    pub fn absorb_own(&mut self, m: &Message) {
        let Some(to) = m
            .tag("p")
            .and_then(|p| PublicKey::from_hex(p).ok())
            .filter(|to| *to != m.sender)
        else {
            return;
        };
        let request = serde_json::from_str::<serde_json::Value>(&m.text)
            .ok()
            .and_then(|v| v.get("request")?.as_str().map(str::to_owned));
        if let Some(request) = request {
            self.record(m.rumor_id, to, request);
        }
    }

    /// The request `answer` answers, or why it answers none of ours. `claimed` is the request
    /// id the answer names, if it names one.
    pub fn answered_by(&self, answer: &Message, claimed: Option<&str>) -> Result<&Sent, String> {
        let from = answer
            .sender
            .to_bech32()
            .unwrap_or_else(|_| answer.sender.to_hex());
        let Some(rumor) = answer.reply_to() else {
            return Err(format!(
                "the answer from {from} (wrap {}) replies to no message of ours",
                answer.wrap_id
            ));
        };
        let Some(sent) = self.by_rumor.get(&rumor) else {
            return Err(format!(
                "the answer from {from} (wrap {}) replies to {rumor}, which is no request we sent",
                answer.wrap_id
            ));
        };
        if sent.to != answer.sender {
            return Err(format!(
                "the answer from {from} (wrap {}) is for a request we sent to someone else",
                answer.wrap_id
            ));
        }
        if claimed.is_some_and(|c| c != sent.request) {
            return Err(format!(
                "the answer from {from} (wrap {}) names request {:?}, but the message it replies to carried {:?}",
                answer.wrap_id, claimed.unwrap_or_default(), sent.request
            ));
        }
        Ok(sent)
    }
}

#[cfg(test)]
mod tests {
    use nostr::{Keys, Tag, Timestamp};

    use super::*;

    fn msg(sender: PublicKey, rumor: u8, text: &str, tags: Vec<Tag>) -> Message {
        Message {
            wrap_id: EventId::from_slice(&[rumor ^ 0xff; 32]).unwrap(),
            sender,
            rumor_id: EventId::from_slice(&[rumor; 32]).unwrap(),
            text: text.into(),
            created_at: Timestamp::from(1),
            tags,
        }
    }

    #[test]
    fn only_the_one_asked_answers_the_request_it_was_asked() {
        let (me, executor, stranger) = (
            Keys::generate().public_key(),
            Keys::generate().public_key(),
            Keys::generate().public_key(),
        );
        let mut ledger = Requests::default();
        let ours = msg(
            me,
            1,
            r#"{"command":"run","request":"abc"}"#,
            vec![Tag::public_key(executor)],
        );
        ledger.absorb_own(&ours);
        let reply_tag = vec![Tag::event(ours.rumor_id)];
        let good = msg(executor, 2, "{}", reply_tag.clone());
        assert_eq!(
            ledger.answered_by(&good, Some("abc")).unwrap().request,
            "abc"
        );
        let forged = msg(stranger, 3, "{}", reply_tag.clone());
        assert!(ledger
            .answered_by(&forged, Some("abc"))
            .unwrap_err()
            .contains("someone else"));
        let unasked = msg(executor, 4, "{}", vec![Tag::event(EventId::all_zeros())]);
        assert!(ledger
            .answered_by(&unasked, Some("abc"))
            .unwrap_err()
            .contains("no request we sent"));
        let none = msg(executor, 5, "{}", vec![]);
        assert!(ledger.answered_by(&none, None).is_err());
        assert!(ledger
            .answered_by(&good, Some("other"))
            .unwrap_err()
            .contains("carried"));
    }
}

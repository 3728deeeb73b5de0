//! NIP-42 authentication.

use nostr::{Event, JsonUtil, Kind, RelayMessage, Timestamp};

use super::Session;

/// How old an AUTH event may be.
const MAX_AUTH_AGE_SECS: u64 = 600;

pub(super) fn new_challenge() -> String {
    nostr::SubscriptionId::generate().to_string()
}

impl Session {
    /// Checks an AUTH event and, if it answers this connection's challenge, adds its pubkey.
    pub(super) fn authenticate(&mut self, event: &Event) -> String {
        let result = self.check_auth(event);
        match result {
            Ok(()) => {
                self.authenticated.insert(event.pubkey);
                self.live.authenticate(event.pubkey);
                tracing::debug!(peer = %self.peer, pubkey = %event.pubkey, "authenticated");
                RelayMessage::ok(event.id, true, "")
            }
            Err(reason) => RelayMessage::ok(event.id, false, format!("auth-required: {reason}")),
        }
        .as_json()
    }

    fn check_auth(&self, event: &Event) -> Result<(), &'static str> {
        if event.kind != Kind::Authentication {
            return Err("AUTH needs a kind 22242 event");
        }
        if event.tags.challenge() != Some(self.challenge.as_str()) {
            return Err("the challenge does not match the one this connection was given");
        }
        let now = Timestamp::now().as_secs();
        if now.abs_diff(event.created_at.as_secs()) > MAX_AUTH_AGE_SECS {
            return Err("the AUTH event's created_at is more than 10 minutes from now");
        }
        event
            .verify()
            .map_err(|_| "the AUTH event's signature does not verify")
    }
}

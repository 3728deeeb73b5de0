//! NIP-42 for a DM client, answered here rather than by nostr-sdk, so that a DM client works
//! with any relay's NIP-42 behaviour (issue 19).
//!
//! nostr-sdk's automatic authentication ends every fetch in flight when an AUTH fails, and a
//! subscription that the relay CLOSEd `auth-required:` stays closed when AUTH then fails, with
//! no word to the caller: on strfry without `relay.auth.serviceUrl` every worker and `soul
//! command` went deaf. Here one task per client reads the relay's messages in the order the
//! relay sent them, answers each AUTH challenge, and keeps the status of the client's inbox
//! (its one subscription for gift wraps). From that status [`judge`] tells apart:
//! - a relay that serves gift wraps without AUTH (it never asked, or AUTH failed but the
//!   subscription stands): read them, and say once, at warn level, that we are not
//!   authenticated — gift wraps are encrypted, and whether a relay serves them to others is
//!   that relay's choice;
//! - a relay that authenticated us: read them;
//! - a relay that demands AUTH for gift wraps and cannot complete it: an error that says so and
//!   what its operator must set. Nothing waits silently on a closed subscription.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use nostr::nips::nip19::ToBech32;
use nostr::{ClientMessage, EventBuilder, EventId, Keys, PublicKey, RelayMessage, SubscriptionId};
use nostr_sdk::prelude::MachineReadablePrefix;
use nostr_sdk::prelude::RelayNotification;
use nostr_sdk::{Relay, RelayStatus, RelayUrl};
use tokio::sync::{broadcast, watch};

use crate::{LinkError, RELAY_TIMEOUT};

/// Where this connection's NIP-42 authentication stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Auth {
    /// The relay has not sent a challenge on this connection.
    NotAsked,
    /// Our AUTH went out; no answer yet.
    Pending(EventId),
    /// The relay answered `OK true`.
    Authenticated,
    /// The relay answered `OK false` with this message.
    Refused(String),
    /// The relay did not answer our AUTH within [`RELAY_TIMEOUT`] (nostr-rs-relay 0.8 never
    /// answers a successful one; strfry answers a failed one with a NOTICE).
    Unanswered,
}

/// Where the client's gift-wrap subscription stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Inbox {
    /// Sent (or about to be); the relay has not answered it.
    Waiting,
    /// The relay answered its EOSE, or the [`barrier`] sent after it, without closing it.
    Open,
    /// The relay CLOSEd it with this message.
    Closed(String),
}

/// What the client knows about its relay, in the order the relay said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Status {
    pub auth: Auth,
    pub inbox: Inbox,
}

/// What [`DmClient::follow`](super::DmClient::follow) does next.
#[derive(Debug)]
pub(super) enum Next {
    /// Gift wraps flow: go on.
    Ready,
    /// The relay has more to say.
    Wait,
    /// The relay will not serve gift wraps to this client.
    Fail(LinkError),
}

fn auth_required(message: &str) -> bool {
    matches!(
        MachineReadablePrefix::parse(message),
        Some(MachineReadablePrefix::AuthRequired)
    )
}

pub(super) fn npub(pubkey: &PublicKey) -> String {
    pubkey.to_bech32().unwrap_or_else(|_| pubkey.to_hex())
}

/// What must change before a relay that demands AUTH for gift wraps, and cannot complete it,
/// serves them: this machine when the relay's reason names it (soul's own relay refuses an AUTH
/// dated more than 10 minutes off), else the relay's operator (strfry needs the address its
/// clients use as its service URL).
fn operator_fix(url: &str) -> String {
    format!(
        "NIP-17 DMs cannot work on this relay until AUTH succeeds. If its reason names this \
         machine (a clock far off, a key), fix that; otherwise its operator must: on strfry set \
         `relay.auth.serviceUrl = \"{url}\"` (the address clients use) in strfry.conf, or take \
         1059 out of `relay.auth.restrictedReadKinds`; on nostr-rs-relay set `[info] relay_url`. \
         Or run the town on another relay (`soul up` without --relay runs soul's own)"
    )
}

/// Decides from `status` whether the inbox of `me` on `url` is open, may still open, or never
/// will, and then why.
pub(super) fn judge(url: &str, me: &PublicKey, status: &Status) -> Next {
    let fail = |reason: String| {
        Next::Fail(LinkError::NoGiftWraps {
            url: url.to_string(),
            pubkey: npub(me),
            reason,
        })
    };
    let closed = match &status.inbox {
        Inbox::Open => return Next::Ready,
        Inbox::Waiting => return Next::Wait,
        Inbox::Closed(m) => m,
    };
    if !auth_required(closed) {
        return fail(format!(
            "it closed the subscription with {closed:?}; ask its operator whether it serves \
             kind 1059 at all"
        ));
    }
    match &status.auth {
        // The relay said `auth-required:` after its challenge; our answer is under way, and an
        // `OK true` re-opens the subscription (see `run`).
        Auth::Pending(_) => Next::Wait,
        Auth::NotAsked => fail(format!(
            "it answered {closed:?} but sent no AUTH challenge (NIP-42), so nobody can \
             authenticate there; {}",
            operator_fix(url)
        )),
        Auth::Refused(why) => fail(format!(
            "it serves gift wraps only after NIP-42 AUTH ({closed:?}) and refused ours with \
             {why:?}; {}",
            operator_fix(url)
        )),
        Auth::Unanswered => fail(format!(
            "it serves gift wraps only after NIP-42 AUTH ({closed:?}) and did not answer ours \
             within {} s; {}",
            RELAY_TIMEOUT.as_secs(),
            operator_fix(url)
        )),
        Auth::Authenticated => fail(format!(
            "it authenticated us and still answered {closed:?}; ask its operator which keys may \
             read their gift wraps there"
        )),
    }
}

/// A warning for a relay that serves our gift wraps without authenticating us, or `None`.
fn unauthenticated(url: &str, me: &PublicKey, status: &Status) -> Option<(&'static str, String)> {
    if status.inbox != Inbox::Open {
        return None;
    }
    let how = match &status.auth {
        Auth::NotAsked => ("not-asked", "it offers no NIP-42 AUTH".to_string()),
        Auth::Refused(why) => (
            "refused",
            format!("it refused our NIP-42 AUTH with {why:?}"),
        ),
        Auth::Unanswered => (
            "unanswered",
            format!(
                "it did not answer our NIP-42 AUTH within {} s",
                RELAY_TIMEOUT.as_secs()
            ),
        ),
        Auth::Pending(_) | Auth::Authenticated => return None,
    };
    Some((
        how.0,
        format!(
            "the relay at {url} did not authenticate {} ({}); gift wraps are read without it. \
             They are encrypted; whether this relay serves them to others is its choice",
            npub(me),
            how.1
        ),
    ))
}

/// Says each thing once per process, relay and key: a host runs several DM clients for one
/// key (a worker, its guardian's questions) and a restarted role connects again.
fn once(url: &str, me: &PublicKey, what: &str) -> bool {
    static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    said.get_or_insert_with(HashSet::new)
        .insert(format!("{url} {me} {what}"))
}

fn report(url: &str, me: &PublicKey, status: &Status) {
    if let Some((what, text)) = unauthenticated(url, me, status) {
        if once(url, me, what) {
            tracing::warn!(relay = %url, "{text}");
        }
    }
    if let Next::Fail(e) = judge(url, me, status) {
        if let Inbox::Closed(m) = &status.inbox {
            if once(url, me, m) {
                tracing::error!(relay = %url, "{e}");
            }
        }
    }
}

/// The id of the barrier REQ that follows the inbox subscription `inbox`.
fn barrier_id(inbox: &SubscriptionId) -> SubscriptionId {
    SubscriptionId::new(format!("{inbox}-barrier"))
}

/// Sends a small REQ after the inbox subscription, as an ordering barrier: a relay answers a
/// connection's REQs in order, so once it answers this one without having CLOSEd the inbox,
/// the inbox is open. The inbox's own EOSE cannot serve: nostr-rs-relay 0.8 sends none for a
/// `limit: 0` subscription, and the inbox must be `limit: 0` (see `DmClient::follow`).
pub(super) fn barrier(
    relay: &Relay,
    inbox: &SubscriptionId,
    me: PublicKey,
) -> Result<(), LinkError> {
    let filter = nostr::Filter::new()
        .author(me)
        .kind(nostr::Kind::Metadata)
        .limit(1);
    relay
        .send_msg(ClientMessage::req(barrier_id(inbox), vec![filter]))
        .map_err(LinkError::from)
}

/// The authenticator of one DM client: see the module's documentation.
pub(super) struct Authenticator {
    pub relay: Relay,
    pub url: RelayUrl,
    pub keys: Keys,
    pub inbox: SubscriptionId,
    pub status: Arc<watch::Sender<Status>>,
}

impl Authenticator {
    /// Runs until the client shuts down. `rx` must be subscribed before the client connects,
    /// so that a challenge sent on connect is not missed.
    pub async fn run(self, mut rx: broadcast::Receiver<RelayNotification>) {
        let url = self.url.to_string();
        let me = self.keys.public_key();
        let mut deadline: Option<tokio::time::Instant> = None;
        loop {
            let notification = tokio::select! {
                n = rx.recv() => n,
                _ = sleep_until(deadline) => {
                    deadline = None;
                    self.update(|s| {
                        if matches!(s.auth, Auth::Pending(_)) {
                            s.auth = Auth::Unanswered;
                        }
                    });
                    report(&url, &me, &self.status.borrow());
                    continue;
                }
            };
            match notification {
                Ok(RelayNotification::Message { message }) => match message {
                    RelayMessage::Auth { challenge } => match self.answer(&challenge) {
                        Ok(id) => {
                            deadline = Some(tokio::time::Instant::now() + RELAY_TIMEOUT);
                            self.update(|s| s.auth = Auth::Pending(id));
                        }
                        Err(e) => {
                            tracing::warn!(relay = %url, "cannot answer the relay's AUTH challenge: {e}");
                            self.update(|s| s.auth = Auth::Refused(e.to_string()));
                        }
                    },
                    RelayMessage::Ok {
                        event_id,
                        status,
                        message,
                    } if self.status.borrow().auth == Auth::Pending(event_id) => {
                        deadline = None;
                        let reopen = status
                            && matches!(&self.status.borrow().inbox, Inbox::Closed(m) if auth_required(m));
                        if status {
                            tracing::debug!(relay = %url, pubkey = %npub(&me), "authenticated to the relay (NIP-42)");
                        }
                        self.update(|s| {
                            s.auth = if status {
                                Auth::Authenticated
                            } else {
                                Auth::Refused(message.to_string())
                            };
                            if reopen {
                                s.inbox = Inbox::Waiting;
                            }
                        });
                        // The relay closed the inbox until we authenticated: ask again, as
                        // nostr-sdk's own authenticator does, then the barrier.
                        if reopen {
                            let again = self.relay.resubscribe().await.map_err(LinkError::from);
                            if let Err(e) =
                                again.and_then(|()| barrier(&self.relay, &self.inbox, me))
                            {
                                tracing::error!(relay = %url, "cannot re-open the gift-wrap subscription after AUTH: {e}");
                            }
                        }
                    }
                    RelayMessage::EndOfStoredEvents(id) if id.as_ref() == &self.inbox => {
                        self.update(|s| s.inbox = Inbox::Open);
                    }
                    RelayMessage::EndOfStoredEvents(id)
                        if id.as_ref() == &barrier_id(&self.inbox) =>
                    {
                        let _ = self
                            .relay
                            .send_msg(ClientMessage::close(barrier_id(&self.inbox)));
                        self.update(|s| {
                            if s.inbox == Inbox::Waiting {
                                s.inbox = Inbox::Open;
                            }
                        });
                    }
                    RelayMessage::Closed {
                        subscription_id,
                        message,
                    } if subscription_id.as_ref() == &self.inbox => {
                        self.update(|s| s.inbox = Inbox::Closed(message.to_string()));
                    }
                    // A relay that refuses the barrier itself still answered it in order.
                    RelayMessage::Closed {
                        subscription_id, ..
                    } if subscription_id.as_ref() == &barrier_id(&self.inbox) => {
                        self.update(|s| {
                            if s.inbox == Inbox::Waiting {
                                s.inbox = Inbox::Open;
                            }
                        });
                    }
                    _ => {}
                },
                // A new connection: a new challenge may come, and nostr-sdk re-sends the inbox
                // (if `follow` opened it) as it connects.
                Ok(RelayNotification::RelayStatus {
                    status: RelayStatus::Connected,
                }) => {
                    deadline = None;
                    let followed = self.status.borrow().inbox != Inbox::Waiting;
                    self.update(|s| {
                        s.auth = Auth::NotAsked;
                        s.inbox = Inbox::Waiting;
                    });
                    if followed {
                        if let Err(e) = barrier(&self.relay, &self.inbox, me) {
                            tracing::warn!(relay = %url, "after reconnecting: {e}");
                        }
                    }
                }
                Ok(RelayNotification::Shutdown) | Err(broadcast::error::RecvError::Closed) => {
                    return
                }
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(relay = %url, missed = n, "the DM client's authenticator lagged behind the relay");
                }
            }
            report(&url, &me, &self.status.borrow());
        }
    }

    fn update(&self, f: impl FnOnce(&mut Status)) {
        self.status.send_modify(f);
    }

    /// Signs and sends the AUTH event for `challenge`; returns its id, which the relay's `OK`
    /// names.
    fn answer(&self, challenge: &str) -> Result<EventId, LinkError> {
        let event = EventBuilder::auth(challenge, self.url.clone()).sign_with_keys(&self.keys)?;
        self.relay.send_msg(ClientMessage::auth(event.clone()))?;
        Ok(event.id)
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "ws://127.0.0.1:7779";

    fn status(auth: Auth, inbox: Inbox) -> Status {
        Status { auth, inbox }
    }

    fn fails(auth: Auth, closed: &str) -> String {
        let me = Keys::generate().public_key();
        match judge(URL, &me, &status(auth, Inbox::Closed(closed.into()))) {
            Next::Fail(e) => e.to_string(),
            other => panic!("must fail: {other:?}"),
        }
    }

    #[test]
    fn an_open_inbox_goes_on_whatever_auth_did() {
        let me = Keys::generate().public_key();
        for auth in [
            Auth::NotAsked,
            Auth::Pending(EventId::all_zeros()),
            Auth::Authenticated,
            Auth::Refused("restricted: no".into()),
            Auth::Unanswered,
        ] {
            assert!(matches!(
                judge(URL, &me, &status(auth.clone(), Inbox::Open)),
                Next::Ready
            ));
            assert!(matches!(
                judge(URL, &me, &status(auth, Inbox::Waiting)),
                Next::Wait
            ));
        }
    }

    #[test]
    fn auth_required_waits_for_our_answer_and_then_says_what_to_set() {
        let me = Keys::generate().public_key();
        let closed = Inbox::Closed("auth-required: this kind is restricted".into());
        let pending = status(Auth::Pending(EventId::all_zeros()), closed);
        assert!(matches!(judge(URL, &me, &pending), Next::Wait));

        let e = fails(
            Auth::Refused(
                "error: relay needs serviceUrl to be configured before AUTH can work".into(),
            ),
            "auth-required: this kind is restricted",
        );
        assert!(
            e.contains("relay at ws://127.0.0.1:7779 will not serve gift wraps to npub1"),
            "{e}"
        );
        assert!(
            e.contains("refused ours with \"error: relay needs serviceUrl"),
            "{e}"
        );
        assert!(
            e.contains("relay.auth.serviceUrl = \"ws://127.0.0.1:7779\""),
            "{e}"
        );

        let e = fails(Auth::Unanswered, "auth-required: AUTH first");
        assert!(e.contains("did not answer ours within 10 s"), "{e}");
        assert!(e.contains("relay.auth.serviceUrl"), "{e}");

        let e = fails(Auth::NotAsked, "auth-required: AUTH first");
        assert!(e.contains("sent no AUTH challenge"), "{e}");
    }

    #[test]
    fn other_closings_are_named_not_waited_on() {
        let e = fails(Auth::Authenticated, "blocked: no DMs here");
        assert!(e.contains("\"blocked: no DMs here\""), "{e}");
        let e = fails(Auth::Authenticated, "auth-required: not you");
        assert!(e.contains("authenticated us and still answered"), "{e}");
    }

    #[test]
    fn serving_without_auth_is_said_with_the_reason() {
        let me = Keys::generate().public_key();
        let said = |auth| unauthenticated(URL, &me, &status(auth, Inbox::Open)).map(|w| w.1);
        assert!(said(Auth::NotAsked)
            .unwrap()
            .contains("did not authenticate npub1"));
        assert!(said(Auth::NotAsked)
            .unwrap()
            .contains("it offers no NIP-42 AUTH"));
        assert!(
            said(Auth::Refused("restricted: authentication error".into()))
                .unwrap()
                .contains("refused our NIP-42 AUTH with \"restricted: authentication error\"")
        );
        assert!(said(Auth::Unanswered).unwrap().contains("did not answer"));
        assert_eq!(said(Auth::Authenticated), None);
        assert_eq!(said(Auth::Pending(EventId::all_zeros())), None);
        let waiting = status(Auth::NotAsked, Inbox::Waiting);
        assert_eq!(unauthenticated(URL, &me, &waiting), None);
    }
}

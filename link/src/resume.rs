//! Resuming live subscriptions the relay CLOSEd because this connection fell behind.
//!
//! soul's relay never drops a live event silently: when a connection reads too slowly, every
//! subscription an event could not be queued for is CLOSED with
//! `error: fell behind: …; re-subscribe with since=<t>`. nostr-sdk forgets a subscription the
//! relay closed with `error:` before telling anyone, so [`super::Link::subscribe`] remembers
//! each live subscription's filter here and, on such a CLOSED, the link subscribes again under
//! the same id from `t - LIVE_SLACK` (the same slack a live subscription starts with: an event
//! may be stored a while after it was signed). The followers read events through `client.notifications()` whatever the
//! subscription, file them by id and so need no change: the missed events simply arrive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use nostr::{Filter, RelayMessage, SubscriptionId, Timestamp};
use nostr_sdk::{Client, RelayPoolNotification};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;

use super::LIVE_SLACK;

/// The prefix of the relay's CLOSED reason for a subscription that fell behind.
pub const FELL_BEHIND: &str = "error: fell behind:";

/// The background task; aborted when dropped.
#[derive(Debug)]
pub struct Resumer(JoinHandle<()>);

impl Drop for Resumer {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The live subscriptions a link opened, by id.
#[derive(Debug, Clone, Default)]
pub struct Subscriptions(Arc<Mutex<HashMap<SubscriptionId, Filter>>>);

impl Subscriptions {
    pub fn remember(&self, id: SubscriptionId, filter: Filter) {
        self.lock().insert(id, filter);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SubscriptionId, Filter>> {
        // Plain data: a panic elsewhere leaves it usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Starts following `client`'s notifications for fell-behind CLOSEDs of `subs`. Call before
/// the first subscription so that no CLOSED can come before the task listens.
pub fn start(client: Client, subs: Subscriptions) -> Resumer {
    let notes = client.notifications();
    Resumer(tokio::spawn(run(client, subs, notes)))
}

async fn run(
    client: Client,
    subs: Subscriptions,
    mut notes: tokio::sync::broadcast::Receiver<RelayPoolNotification>,
) {
    loop {
        let (subscription_id, message) = match notes.recv().await {
            Ok(RelayPoolNotification::Message {
                message:
                    RelayMessage::Closed {
                        subscription_id,
                        message,
                    },
                ..
            }) => (subscription_id, message),
            Ok(_) => continue,
            Err(RecvError::Lagged(n)) => {
                // A CLOSED may be among the missed notifications: subscribe again, from their
                // start, whatever we remember that the client no longer has.
                tracing::warn!(
                    missed = n,
                    "link notifications lagged; re-checking subscriptions"
                );
                let open = client.subscriptions().await;
                let lost: Vec<_> = subs
                    .lock()
                    .iter()
                    .filter(|(id, _)| !open.contains_key(*id))
                    .map(|(id, f)| (id.clone(), f.clone()))
                    .collect();
                for (id, filter) in lost {
                    resubscribe(&client, &id, filter).await;
                }
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        let id = subscription_id.into_owned();
        // Not ours (a fetch's): nothing to resume.
        let Some(filter) = subs.lock().get(&id).cloned() else {
            continue;
        };
        match resume_since(&message) {
            Some(since) => {
                let from = since - LIVE_SLACK.as_secs();
                let from = filter.since.map_or(from, |s| s.max(from));
                tracing::warn!(sub = %id, since = %from, "relay closed a subscription that fell behind; resuming");
                resubscribe(&client, &id, filter.since(from)).await;
            }
            // Closed for another reason: the client has dropped it; so do we.
            None => {
                subs.lock().remove(&id);
            }
        }
    }
}

async fn resubscribe(client: &Client, id: &SubscriptionId, filter: Filter) {
    if let Err(e) = client.subscribe_with_id(id.clone(), filter, None).await {
        tracing::error!(sub = %id, "cannot re-subscribe after falling behind: {e}");
    }
}

/// The `since` a fell-behind CLOSED asks the client to resume from.
pub fn resume_since(message: &str) -> Option<Timestamp> {
    if !message.starts_with(FELL_BEHIND) {
        return None;
    }
    let (_, tail) = message.rsplit_once("since=")?;
    let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u64>().ok().map(Timestamp::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_since_from_the_relay_reason() {
        let m = "error: fell behind: live events came faster than this connection read them; \
                 re-subscribe with since=1700000000";
        assert_eq!(resume_since(m), Some(Timestamp::from(1_700_000_000)));
    }

    #[test]
    fn other_closed_reasons_are_not_resumed() {
        assert_eq!(
            resume_since("error: the event store failed this query"),
            None
        );
        assert_eq!(resume_since("auth-required: since=5"), None);
    }
}

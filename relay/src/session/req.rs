//! REQ and COUNT: stored events through the privacy filter, then live ones.

use nostr::{Filter, JsonUtil, Kind, RelayMessage, SubscriptionId};

use super::Session;
use crate::wire;

/// NIP-01 caps subscription ids at 64 characters.
const MAX_SUBSCRIPTION_ID_CHARS: usize = 64;

/// A filter that names kind 1059 explicitly asks for gift wraps and so needs NIP-42 first.
/// Filters without kinds are served too, with gift wraps silently left out.
fn asks_for_gift_wraps(filter: &Filter) -> bool {
    filter
        .kinds
        .as_ref()
        .is_some_and(|k| k.contains(&Kind::GiftWrap))
}

/// Whether a filter could match a gift wrap at all.
pub(super) fn may_match_gift_wraps(filter: &Filter) -> bool {
    filter
        .kinds
        .as_ref()
        .is_none_or(|k| k.contains(&Kind::GiftWrap))
}

impl Session {
    pub(super) async fn req(
        &mut self,
        id: SubscriptionId,
        mut filters: Vec<Filter>,
    ) -> Vec<String> {
        if let Some(reason) = self.refuse_req(&id, &filters) {
            return reason;
        }
        let (max_limit, default_limit) = {
            let c = self.relay.config();
            (c.max_limit, c.default_limit)
        };
        for f in &mut filters {
            f.limit = Some(f.limit.map_or(default_limit, |l| l.min(max_limit)));
        }
        // Live first: an event stored while the history is read is then delivered live (perhaps
        // twice, which clients tolerate) instead of falling between the two.
        self.live.open(id.clone(), filters.clone());
        let mut out = Vec::new();
        let mut merged: Option<nostr_database::Events> = None;
        for filter in &filters {
            match self.relay.store().query(filter.clone()).await {
                Ok(events) => {
                    merged = Some(match merged {
                        Some(m) => m.merge(events),
                        None => events,
                    })
                }
                Err(e) => {
                    tracing::error!(peer = %self.peer, "query failed: {e}");
                    self.live.close(&id);
                    return vec![closed(&id, "error: the event store failed this query")];
                }
            }
        }
        if let Some(events) = merged {
            out.extend(
                events
                    .into_iter()
                    .filter(|e| self.visible(e))
                    .map(|e| wire::event(&id, &e)),
            );
        }
        out.push(wire::eose(&id));
        out
    }

    /// Checks a REQ against the limits; `Some(replies)` refuses it.
    fn refuse_req(&self, id: &SubscriptionId, filters: &[Filter]) -> Option<Vec<String>> {
        let c = self.relay.config();
        let refuse = |msg: String| Some(vec![closed(id, &msg)]);
        if id.as_str().chars().count() > MAX_SUBSCRIPTION_ID_CHARS {
            return refuse(format!(
                "invalid: subscription ids are at most {MAX_SUBSCRIPTION_ID_CHARS} characters"
            ));
        }
        if filters.is_empty() {
            return refuse("invalid: a REQ needs at least one filter".into());
        }
        if filters.len() > c.max_filters {
            return refuse(format!(
                "invalid: at most {} filters per REQ",
                c.max_filters
            ));
        }
        if !self.live.is_open(id) && self.live.len() >= c.max_subscriptions {
            return refuse(format!(
                "rate-limited: at most {} open subscriptions per connection; CLOSE some first",
                c.max_subscriptions
            ));
        }
        if self.authenticated.is_empty() && filters.iter().any(asks_for_gift_wraps) {
            return Some(vec![
                RelayMessage::auth(self.challenge.clone()).as_json(),
                closed(
                    id,
                    "auth-required: gift wraps are served only to their recipient; AUTH first (NIP-42)",
                ),
            ]);
        }
        None
    }

    pub(super) async fn count(&mut self, id: SubscriptionId, mut filter: Filter) -> Vec<String> {
        let store = self.relay.store();
        let result = if may_match_gift_wraps(&filter) {
            filter.limit = None;
            store
                .query(filter)
                .await
                .map(|events| events.into_iter().filter(|e| self.visible(e)).count())
        } else {
            store.count(filter).await
        };
        match result {
            Ok(n) => vec![RelayMessage::count(id, n).as_json()],
            Err(e) => {
                tracing::error!(peer = %self.peer, "count failed: {e}");
                vec![closed(&id, "error: the event store failed this count")]
            }
        }
    }
}

pub(super) fn closed(id: &SubscriptionId, message: &str) -> String {
    wire::closed(id, message)
}

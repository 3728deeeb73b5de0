//! NIP-77 negentropy set reconciliation, so peers and bridges sync without re-sending everything.

use std::collections::HashMap;

use negentropy::{Id, Negentropy, NegentropyStorageVector};
use nostr::{Filter, JsonUtil, RelayMessage, SubscriptionId};

use super::Session;

/// Frame size limit for negentropy messages, as in strfry and the builder.
const FRAME_LIMIT: u64 = 60_000;

/// Open reconciliations of one connection.
#[derive(Default)]
pub(super) struct Reconciliations(
    HashMap<SubscriptionId, Negentropy<'static, NegentropyStorageVector>>,
);

fn neg_err(id: SubscriptionId, message: String) -> String {
    RelayMessage::NegErr {
        subscription_id: std::borrow::Cow::Owned(id),
        message: std::borrow::Cow::Owned(message),
    }
    .as_json()
}

fn neg_msg(id: SubscriptionId, bytes: &[u8]) -> String {
    RelayMessage::NegMsg {
        subscription_id: std::borrow::Cow::Owned(id),
        message: std::borrow::Cow::Owned(hex::encode(bytes)),
    }
    .as_json()
}

impl Reconciliations {
    pub(super) fn message(&mut self, id: SubscriptionId, message: &str) -> String {
        let Some(neg) = self.0.get_mut(&id) else {
            return neg_err(id, "closed: no open reconciliation with this id".into());
        };
        let reply = hex::decode(message)
            .map_err(|e| e.to_string())
            .and_then(|bytes| neg.reconcile(&bytes).map_err(|e| e.to_string()));
        match reply {
            Ok(bytes) => neg_msg(id, &bytes),
            Err(e) => {
                self.0.remove(&id);
                neg_err(id, format!("error: {e}"))
            }
        }
    }

    pub(super) fn close(&mut self, id: &SubscriptionId) {
        self.0.remove(id);
    }
}

impl Session {
    /// Starts a reconciliation over the events matching `filter` that this connection may see.
    pub(super) async fn negentropy_open(
        &mut self,
        id: SubscriptionId,
        mut filter: Filter,
        initial: &str,
    ) -> String {
        filter.limit = None;
        let events = match self.relay.store().query(filter).await {
            Ok(events) => events,
            Err(e) => return neg_err(id, format!("error: the event store failed: {e}")),
        };
        let mut storage = NegentropyStorageVector::with_capacity(events.len());
        for event in events.iter().filter(|e| self.visible(e)) {
            if let Err(e) = storage.insert(
                event.created_at.as_secs(),
                Id::from_byte_array(event.id.to_bytes()),
            ) {
                return neg_err(id, format!("error: {e}"));
            }
        }
        let reply = storage
            .seal()
            .and_then(|_| Negentropy::owned(storage, FRAME_LIMIT))
            .map_err(|e| e.to_string())
            .and_then(|mut neg| {
                let bytes = hex::decode(initial).map_err(|e| e.to_string())?;
                let out = neg.reconcile(&bytes).map_err(|e| e.to_string())?;
                Ok((neg, out))
            });
        match reply {
            Ok((neg, out)) => {
                self.negentropy.0.insert(id.clone(), neg);
                neg_msg(id, &out)
            }
            Err(e) => neg_err(id, format!("error: {e}")),
        }
    }
}

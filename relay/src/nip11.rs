//! The NIP-11 relay information document.

use serde_json::{json, Value};

use crate::config::RelayConfig;

/// NIPs this relay implements.
pub const SUPPORTED_NIPS: &[u16] = &[1, 9, 11, 17, 40, 42, 44, 59, 65];

/// The document served on `GET /` with `Accept: application/nostr+json`.
pub fn document(config: &RelayConfig) -> Value {
    json!({
        "name": config.info.name,
        "description": config.info.description,
        "pubkey": config.info.pubkey.map(|p| p.to_hex()),
        "supported_nips": SUPPORTED_NIPS,
        "software": "soul-relay",
        "version": env!("CARGO_PKG_VERSION"),
        "limitation": {
            "max_message_length": config.max_message_bytes,
            "max_content_length": config.max_event_bytes,
            "max_subscriptions": config.max_subscriptions,
            "max_filters": config.max_filters,
            "max_limit": config.max_limit,
            "default_limit": config.default_limit,
            "created_at_upper_limit": config.future_skew_secs,
            "auth_required": false,
            "restricted_writes": true,
            "payment_required": false,
        },
    })
}

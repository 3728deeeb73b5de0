//! Per-peer progress of the bridge, kept in `town/bridge.json`.
//!
//! This is a cache about other relays, not town state: deleting it only makes the next start
//! re-offer events the peers already have (they answer "duplicate").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Peer {
    pushed_until: u64,
    pulled_until: u64,
}

/// Shared, saveable cursors.
#[derive(Debug, Clone)]
pub struct Cursors {
    path: PathBuf,
    peers: Arc<Mutex<BTreeMap<String, Peer>>>,
}

impl Cursors {
    /// Reads `path`; a missing or unreadable file starts from zero (logged).
    pub fn load(path: &Path) -> Self {
        let peers = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                tracing::warn!(
                    "{} is unreadable ({e}); the bridge starts from the beginning",
                    path.display()
                );
                BTreeMap::new()
            }),
            Err(_) => BTreeMap::new(),
        };
        Self {
            path: path.to_path_buf(),
            peers: Arc::new(Mutex::new(peers)),
        }
    }

    fn with<R>(&self, f: impl FnOnce(&mut BTreeMap<String, Peer>) -> R) -> R {
        let mut guard = self.peers.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut guard)
    }

    /// Newest `created_at` pushed to `peer`.
    pub fn pushed(&self, peer: &str) -> u64 {
        self.with(|p| p.get(peer).map_or(0, |c| c.pushed_until))
    }

    /// Newest `created_at` pulled from `peer`.
    pub fn pulled(&self, peer: &str) -> u64 {
        self.with(|p| p.get(peer).map_or(0, |c| c.pulled_until))
    }

    /// Advances the push cursor (never backwards).
    pub fn set_pushed(&self, peer: &str, at: u64) {
        self.with(|p| {
            let c = p.entry(peer.to_string()).or_default();
            c.pushed_until = c.pushed_until.max(at);
        })
    }

    /// Advances the pull cursor (never backwards).
    pub fn set_pulled(&self, peer: &str, at: u64) {
        self.with(|p| {
            let c = p.entry(peer.to_string()).or_default();
            c.pulled_until = c.pulled_until.max(at);
        })
    }

    /// Writes the file atomically (temporary file, then rename).
    pub fn save(&self) {
        let text = self.with(|p| serde_json::to_string_pretty(p).unwrap_or_default());
        let tmp = self.path.with_extension("json.tmp");
        let result = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(e) = result {
            tracing::warn!("cannot save {}: {e}", self.path.display());
        }
    }
}

//! What the agents of one host share: owned by the host and handed to every role in its
//! [`RoleCtx`](super::RoleCtx), never process-wide, so two hosts in one process (the benches and
//! tests run them so) see none of each other's state.

use std::sync::{Arc, Mutex, Weak};

use super::brain::guarded::Awaiting;
use super::resident::Hub;
use super::reviewer::NgRules;
use soul_mind::profile::Common;

/// The host's shared state; cloning shares it.
#[derive(Clone, Default)]
pub struct HostShared(Arc<Inner>);

#[derive(Default)]
struct Inner {
    /// The residents' one view of the relay, alive while a resident holds it.
    resident_hub: Mutex<Weak<Hub>>,
    /// The town's common rules and NG rules, read once for all residents of the host (a
    /// thousand copies of compiled patterns would cost hundreds of MiB).
    town_rules: Mutex<Option<(Arc<Common>, Arc<NgRules>)>>,
    /// The owner's answers the host's triceratops awaits.
    brain_awaiting: Arc<Awaiting>,
    /// One suggestion at a time per host, so two cannot both pass the hourly window check.
    suggesting: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for HostShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostShared").finish_non_exhaustive()
    }
}

impl HostShared {
    /// The residents' hub if one is alive, else the one `start` makes (and keeps for the others).
    pub fn resident_hub(&self, start: impl FnOnce() -> Arc<Hub>) -> Arc<Hub> {
        let mut slot = self
            .0
            .resident_hub
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(hub) = slot.upgrade() {
            return hub;
        }
        let hub = start();
        *slot = Arc::downgrade(&hub);
        hub
    }

    /// The owner's answers the host's triceratops awaits.
    pub fn brain_awaiting(&self) -> Arc<Awaiting> {
        Arc::clone(&self.0.brain_awaiting)
    }

    /// The host's suggestion turn: held while one suggestion checks the window and publishes.
    pub fn suggesting(&self) -> Arc<tokio::sync::Mutex<()>> {
        Arc::clone(&self.0.suggesting)
    }

    /// The town's rules, loaded by `load` the first time.
    pub fn town_rules<E>(
        &self,
        load: impl FnOnce() -> Result<(Common, NgRules), E>,
    ) -> Result<(Arc<Common>, Arc<NgRules>), E> {
        let mut slot = self.0.town_rules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((c, r)) = slot.as_ref() {
            return Ok((Arc::clone(c), Arc::clone(r)));
        }
        let (common, rules) = load()?;
        let loaded = (Arc::new(common), Arc::new(rules));
        *slot = Some((Arc::clone(&loaded.0), Arc::clone(&loaded.1)));
        Ok(loaded)
    }
}

//! A worker's state (34363, `d` = its name): running or paused, and its params with their
//! ranges. The relay holds it, so a paused worker is still paused after a restart anywhere.

use crate::HostError;
use std::collections::BTreeMap;

use nostr::{Filter, Keys, Timestamp};
use soul_kinds::content::worker_state;
use soul_kinds::{parse, SoulKind, WorkerRun, WorkerState};

use soul_link::Link;

/// One adjustable param: its name, range and default.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The name used in `adjust_params name=value`.
    pub name: &'static str,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// The value before any adjustment.
    pub default: f64,
    /// What it does.
    pub doc: &'static str,
}

/// Checks `changes` against `specs`: every name known, every value in range. All or nothing.
pub fn check_params(specs: &[ParamSpec], changes: &BTreeMap<String, f64>) -> Result<(), String> {
    for (name, value) in changes {
        let Some(spec) = specs.iter().find(|s| s.name == name) else {
            let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(format!(
                "unknown param {name:?}; this worker has {}",
                known.join(", ")
            ));
        };
        if !(spec.min..=spec.max).contains(value) {
            return Err(format!(
                "{name}={value} is out of range: {} takes {}..={} ({})",
                name, spec.min, spec.max, spec.doc
            ));
        }
    }
    Ok(())
}

/// The defaults of `specs`.
pub fn defaults(specs: &[ParamSpec]) -> BTreeMap<String, f64> {
    specs
        .iter()
        .map(|s| (s.name.to_string(), s.default))
        .collect()
}

/// The worker's state as the relay has it, and when it was published.
#[derive(Debug, Clone)]
pub struct Current {
    /// The content.
    pub state: WorkerState,
    /// Its `created_at` (0 when never published).
    pub at: Timestamp,
}

impl Current {
    /// Whether the worker is paused.
    pub fn paused(&self) -> bool {
        self.state.state == WorkerRun::Paused
    }

    /// A param's value (the default when never set).
    pub fn param(&self, specs: &[ParamSpec], name: &str) -> f64 {
        self.state
            .params
            .get(name)
            .copied()
            .or_else(|| specs.iter().find(|s| s.name == name).map(|s| s.default))
            .unwrap_or_default()
    }
}

/// Reads the worker's latest state from the relay; `None` if it never published one.
pub async fn load(link: &Link, keys: &Keys, name: &str) -> Result<Option<Current>, HostError> {
    let filter = Filter::new()
        .kind(SoulKind::WorkerState.kind())
        .author(keys.public_key())
        .identifier(name);
    let events = link.fetch(filter).await?;
    let latest = events
        .into_iter()
        .filter(|e| e.pubkey == keys.public_key())
        .max_by_key(|e| e.created_at);
    Ok(latest.and_then(|e| match parse::<WorkerState>(&e) {
        Ok(state) => Some(Current {
            state,
            at: e.created_at,
        }),
        Err(err) => {
            tracing::warn!(
                worker = name,
                "own state event unreadable, starting fresh: {err}"
            );
            None
        }
    }))
}

/// Publishes `state`, strictly newer than `previous` so that the relay keeps this one even
/// when two changes fall in the same second (NIP-01 keeps the newer addressable event).
pub async fn publish(
    link: &Link,
    keys: &Keys,
    name: &str,
    state: WorkerState,
    previous: Timestamp,
) -> Result<Current, HostError> {
    let at = Timestamp::now().max(previous + 1);
    let event = link
        .publish(keys, worker_state(name, &state).custom_created_at(at))
        .await?;
    tracing::info!(worker = name, state = ?state.state, params = ?state.params, "worker state");
    Ok(Current {
        state,
        at: event.created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[ParamSpec {
        name: "run_timeout_secs",
        min: 1.0,
        max: 30.0,
        default: 30.0,
        doc: "seconds",
    }];

    #[test]
    fn params_are_range_checked_all_or_nothing() {
        let ok = BTreeMap::from([("run_timeout_secs".to_string(), 5.0)]);
        assert!(check_params(SPECS, &ok).is_ok());
        let high = BTreeMap::from([("run_timeout_secs".to_string(), 31.0)]);
        assert!(check_params(SPECS, &high)
            .unwrap_err()
            .contains("out of range"));
        let unknown = BTreeMap::from([("speed".to_string(), 1.0)]);
        assert!(check_params(SPECS, &unknown)
            .unwrap_err()
            .contains("run_timeout_secs"));
    }
}

//! The write-policy chain: every EVENT passes these checks, in order, before it is stored.
//!
//! Each check lives in its own file and answers `Ok(())` or a [`Reject`] that carries its NIP-01
//! machine-readable prefix. [`PolicyChain`] runs them cheapest-first and stops at the first
//! rejection. It fails closed: a check that cannot decide (a poisoned lock, a missing roster)
//! rejects rather than lets the event through.

mod created_at;
mod giftwrap_p;
mod owner_only;
mod rate;
mod roster;
mod signature;
mod size;

use std::fmt;
use std::net::IpAddr;

use nostr::Event;

pub use self::created_at::CreatedAtCheck;
pub use self::giftwrap_p::GiftWrapRecipientCheck;
pub use self::owner_only::OwnerOnlyCheck;
pub use self::rate::{RateCheck, RateLimits};
pub use self::roster::RosterCheck;
pub use self::signature::SignatureCheck;
pub use self::size::SizeCheck;
use crate::roster::RosterView;

/// NIP-01 machine-readable prefixes used in `OK false` and `CLOSED` messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// The event is malformed or breaks a hard limit.
    Invalid,
    /// The author or the content is not allowed here.
    Blocked,
    /// The author or the connection sends too fast.
    RateLimited,
    /// The client must authenticate (NIP-42) first.
    AuthRequired,
    /// The relay failed internally.
    Error,
}

impl Prefix {
    /// The prefix as it appears on the wire, without the colon.
    pub fn as_str(self) -> &'static str {
        match self {
            Prefix::Invalid => "invalid",
            Prefix::Blocked => "blocked",
            Prefix::RateLimited => "rate-limited",
            Prefix::AuthRequired => "auth-required",
            Prefix::Error => "error",
        }
    }
}

/// Why an event was refused: the NIP-01 prefix and a sentence for the person reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reject {
    /// Machine-readable class of the refusal.
    pub prefix: Prefix,
    /// Human-readable reason.
    pub reason: String,
}

impl Reject {
    /// A rejection with the given prefix.
    pub fn new(prefix: Prefix, reason: impl Into<String>) -> Self {
        Self {
            prefix,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Reject {
    /// Renders the wire form `prefix: reason` used in `OK` and `CLOSED`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.prefix.as_str(), self.reason)
    }
}

/// What a check may look at: the event, the size of the frame it came in, and the peer.
#[derive(Debug)]
pub struct Admission<'a> {
    /// The event, parsed but not yet verified.
    pub event: &'a Event,
    /// Bytes of the JSON frame that carried the event.
    pub frame_len: usize,
    /// The peer's IP address.
    pub ip: IpAddr,
}

/// One admission rule.
pub trait Check: Send + Sync + fmt::Debug {
    /// Accept (`Ok`) or refuse with a reason.
    fn check(&self, admission: &Admission<'_>) -> Result<(), Reject>;
}

/// The ordered list of checks. Built once per relay; shared by every connection.
#[derive(Debug)]
pub struct PolicyChain {
    checks: Vec<Box<dyn Check>>,
}

impl PolicyChain {
    /// The town relay's chain: size → timestamp → per-IP rate → signature → per-pubkey rate →
    /// roster → owner-only kinds → gift-wrap recipients. Cheap checks come first so that a flood
    /// of junk costs no signature verifications.
    pub fn town(
        max_event_bytes: usize,
        max_roster_bytes: usize,
        future_skew_secs: u64,
        limits: Option<RateLimits>,
        roster: RosterView,
    ) -> Self {
        let mut checks: Vec<Box<dyn Check>> = vec![
            Box::new(SizeCheck::new(max_event_bytes, max_roster_bytes)),
            Box::new(CreatedAtCheck::new(future_skew_secs)),
        ];
        let rate = limits.map(RateCheck::new);
        if let Some(rate) = &rate {
            checks.push(Box::new(rate.per_ip()));
        }
        checks.push(Box::new(SignatureCheck));
        if let Some(rate) = rate {
            checks.push(Box::new(rate.per_pubkey()));
        }
        checks.push(Box::new(RosterCheck::new(roster.clone())));
        checks.push(Box::new(OwnerOnlyCheck::new(roster.clone())));
        checks.push(Box::new(GiftWrapRecipientCheck::new(roster)));
        Self { checks }
    }

    /// A chain of the given checks, in order.
    pub fn new(checks: Vec<Box<dyn Check>>) -> Self {
        Self { checks }
    }

    /// Runs every check in order; the first refusal wins.
    pub fn admit(&self, admission: &Admission<'_>) -> Result<(), Reject> {
        self.checks.iter().try_for_each(|c| c.check(admission))
    }
}

#[cfg(test)]
mod tests;

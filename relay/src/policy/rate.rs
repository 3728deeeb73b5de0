//! Per-IP and per-pubkey rate limits (`rate-limited:`).
//!
//! Token buckets from `governor` (GCRA): they refill continuously, unlike the builder's limiter,
//! which refills by whole seconds since the previous event and so starves a busy connection.
//! Defaults suit a town: every agent of `soul up` shares one loopback IP.

use std::fmt;
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use nostr::PublicKey;

use super::{Admission, Check, Prefix, Reject};

/// Limits in events per minute with a burst allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimits {
    /// Sustained events per minute from one pubkey.
    pub per_pubkey_per_minute: u32,
    /// Events one pubkey may send at once.
    pub per_pubkey_burst: u32,
    /// Sustained events per minute from one IP.
    pub per_ip_per_minute: u32,
    /// Events one IP may send at once.
    pub per_ip_burst: u32,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            per_pubkey_per_minute: 1_200,
            per_pubkey_burst: 300,
            per_ip_per_minute: 30_000,
            per_ip_burst: 5_000,
        }
    }
}

/// The two keyed limiters, built once and handed to the chain as two checks.
pub struct RateCheck {
    by_ip: Arc<Limiter<IpAddr>>,
    by_pubkey: Arc<Limiter<PublicKey>>,
}

impl RateCheck {
    /// Limiters for `limits`.
    pub fn new(limits: RateLimits) -> Self {
        Self {
            by_ip: Arc::new(Limiter::new(limits.per_ip_per_minute, limits.per_ip_burst)),
            by_pubkey: Arc::new(Limiter::new(
                limits.per_pubkey_per_minute,
                limits.per_pubkey_burst,
            )),
        }
    }

    /// The per-IP check (runs before signature verification, to shield the CPU).
    pub fn per_ip(&self) -> PerIp {
        PerIp(Arc::clone(&self.by_ip))
    }

    /// The per-pubkey check (runs after verification, so a forged pubkey cannot drain another's bucket).
    pub fn per_pubkey(&self) -> PerPubkey {
        PerPubkey(Arc::clone(&self.by_pubkey))
    }
}

struct Limiter<K: Hash + Eq + Clone> {
    limiter: DefaultKeyedRateLimiter<K>,
    per_minute: u32,
    seen: AtomicU64,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    fn new(per_minute: u32, burst: u32) -> Self {
        let rate = NonZeroU32::new(per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst)),
            per_minute,
            seen: AtomicU64::new(0),
        }
    }

    fn admit(&self, key: &K, what: &str) -> Result<(), Reject> {
        // Forget idle keys now and then so the map does not grow with every pubkey ever seen.
        if self.seen.fetch_add(1, Ordering::Relaxed) % 10_000 == 9_999 {
            self.limiter.retain_recent();
        }
        self.limiter.check_key(key).map_err(|_| {
            Reject::new(
                Prefix::RateLimited,
                format!(
                    "{what} is over {} events per minute; slow down",
                    self.per_minute
                ),
            )
        })
    }
}

/// Per-IP limit.
pub struct PerIp(Arc<Limiter<IpAddr>>);
/// Per-pubkey limit.
pub struct PerPubkey(Arc<Limiter<PublicKey>>);

impl Check for PerIp {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        self.0.admit(&a.ip, "this address")
    }
}

impl Check for PerPubkey {
    fn check(&self, a: &Admission<'_>) -> Result<(), Reject> {
        self.0.admit(&a.event.pubkey, "this pubkey")
    }
}

impl fmt::Debug for RateCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RateCheck")
    }
}
impl fmt::Debug for PerIp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PerIp({}/min)", self.0.per_minute)
    }
}
impl fmt::Debug for PerPubkey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PerPubkey({}/min)", self.0.per_minute)
    }
}

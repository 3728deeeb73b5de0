//! A plain NIP-17 client, as a phone would be: it wraps messages with nostr-sdk and reads the
//! worker's replies from the relay after NIP-42.

use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_kinds::{parse, SoulKind, WorkerRun, WorkerState};

use crate::util::*;

/// Someone with a key and a Nostr client.
pub struct Phone {
    pub client: Client,
    pub keys: Keys,
    /// The codes of the questions this phone has said yes to.
    answered: std::sync::Mutex<std::collections::HashSet<String>>,
}

/// A message as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub text: String,
    pub accepted_only: bool,
}

impl Phone {
    pub async fn new(url: &str, keys: &Keys) -> Self {
        Self {
            client: client(url, Some(keys)).await,
            keys: keys.clone(),
            answered: Default::default(),
        }
    }

    /// Sends `text` to `to`; returns the gift wrap and the rumor's id.
    pub async fn send(&self, to: PublicKey, text: &str) -> (Event, EventId) {
        let nonce = Keys::generate().public_key().to_hex();
        let mut rumor = EventBuilder::private_msg_rumor(to, text)
            .tag(Tag::custom(TagKind::custom("nonce"), [nonce]))
            .build(self.keys.public_key());
        let id = rumor.id();
        let wrap = EventBuilder::gift_wrap(&self.keys, &to, rumor, [])
            .await
            .unwrap();
        send(&self.client, &wrap)
            .await
            .expect("the relay takes a gift wrap to a member");
        (wrap, id)
    }

    /// Every message on the relay for this phone that it can open.
    pub async fn inbox(&self) -> Vec<UnwrappedGift> {
        let wraps = self
            .client
            .fetch_events(
                Filter::new()
                    .kind(Kind::GiftWrap)
                    .pubkey(self.keys.public_key()),
                Duration::from_secs(5),
            )
            .await
            .unwrap_or_default();
        let mut out = Vec::new();
        for w in wraps.iter() {
            if let Ok(g) = UnwrappedGift::from_gift_wrap(&self.keys, w).await {
                out.push(g);
            }
        }
        out
    }

    /// Every message from `from` that replies to `rumor`.
    pub async fn replies(&self, from: PublicKey, rumor: EventId) -> Vec<Received> {
        let mut out = Vec::new();
        for g in self.inbox().await {
            let replies_to = g.rumor.tags.iter().any(|t| {
                t.as_slice().first().is_some_and(|n| n == "e")
                    && t.as_slice().get(1) == Some(&rumor.to_hex())
            });
            if g.sender == from && replies_to {
                let accepted_only = g
                    .rumor
                    .tags
                    .iter()
                    .any(|t| t.as_slice() == ["status", "accepted"]);
                out.push(Received {
                    text: g.rumor.content.clone(),
                    accepted_only,
                });
            }
        }
        out
    }

    /// Waits for the final reply (not an acknowledgement) from `from` to `rumor`.
    pub async fn reply(&self, from: PublicKey, rumor: EventId) -> String {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if let Some(r) = self
                .replies(from, rumor)
                .await
                .into_iter()
                .find(|r| !r.accepted_only)
            {
                return r.text;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no reply to {rumor} within {PATIENCE:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends `text` and waits for the final reply.
    pub async fn ask(&self, to: PublicKey, text: &str) -> String {
        let (_, id) = self.send(to, text).await;
        self.reply(to, id).await
    }

    /// Sends a JSON command and parses the JSON reply, saying yes to every question `to` asks
    /// the owner meanwhile (a networked run is a CONFIRM): for tests about what a run does
    /// once the owner has agreed, not about the asking.
    pub async fn ask_json_agreeing(
        &self,
        to: PublicKey,
        command: serde_json::Value,
    ) -> serde_json::Value {
        let (_, id) = self.send(to, &command.to_string()).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let replies = self.replies(to, id).await;
            if let Some(r) = replies
                .iter()
                .find(|r| !r.accepted_only && !r.text.contains("Reply \"yes "))
            {
                return serde_json::from_str(&r.text)
                    .unwrap_or_else(|e| panic!("reply is not JSON ({e}): {}", r.text));
            }
            for q in crate::leash::questions(self, to, "").await {
                let code = crate::leash::code(&q.1);
                if self.answered.lock().unwrap().insert(code.clone()) {
                    self.send(to, &format!("yes {code}")).await;
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no reply to {id} within {PATIENCE:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Sends a JSON command and parses the JSON reply.
    pub async fn ask_json(&self, to: PublicKey, command: serde_json::Value) -> serde_json::Value {
        let text = self.ask(to, &command.to_string()).await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {text}"))
    }
}

/// The worker's state as published (34363, `d` = name).
pub async fn worker_state(c: &Client, worker: PublicKey, name: &str) -> Option<WorkerState> {
    let events = c
        .fetch_events(
            Filter::new()
                .kind(SoulKind::WorkerState.kind())
                .author(worker)
                .identifier(name),
            Duration::from_secs(5),
        )
        .await
        .ok()?;
    let latest = events.into_iter().max_by_key(|e| e.created_at)?;
    parse::<WorkerState>(&latest).ok()
}

/// Waits until the worker's published state is `want`.
pub async fn wait_state(c: &Client, worker: PublicKey, name: &str, want: WorkerRun) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let now = worker_state(c, worker, name).await.map(|s| s.state);
        if now == Some(want) {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name}'s state stayed {now:?}, wanted {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until `process` logged a line containing every one of `needles`.
pub fn wait_log(process: &Running, needles: &[&str]) -> String {
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match process.stderr.recv_timeout(left) {
            Ok(line) if needles.iter().all(|n| line.contains(n)) => return line,
            Ok(_) => {}
            Err(_) => panic!("no log line with {needles:?} within {PATIENCE:?}"),
        }
    }
}

//! One view of the town per host, shared by all its residents.
//!
//! A thousand residents in one host must not open a thousand subscriptions (or connections):
//! the hub holds one subscription on the host's shared [`Link`], files what it reads into a
//! [`Board`] (newest draft and memory per resident, reviews of those drafts, the bulletin,
//! notes that mention residents) and wakes only the residents an event concerns. Each resident
//! still decides alone from its own slice of the board, as seed 001's residents read only
//! their own file.

use crate::HostError;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use nostr::{Event, EventId, Filter, Kind, PublicKey, Timestamp};
use nostr_sdk::RelayPoolNotification;
use soul_kinds::{parse, tags, News, SoulKind, TownEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{watch, Notify};

use soul_link::{live_since, Link};

/// News items and town events kept for writers.
const BULLETIN: usize = 50;
/// How many of the newest notes the board keeps for threads.
const RECENT_NOTES: usize = 512;

/// What the host's residents know from the relay.
#[derive(Default)]
pub struct Board {
    /// Newest draft version per author.
    pub drafts: HashMap<PublicKey, Event>,
    /// Reviews by the draft version they name.
    pub reviews: HashMap<EventId, Vec<Event>>,
    /// Newest memory per author.
    pub memories: HashMap<PublicKey, Event>,
    /// Titles of the newest news items, newest last (parsed once here, not by every writer).
    pub news: VecDeque<String>,
    /// The newest town events (title, when over in unix seconds), newest last.
    pub events: VecDeque<(String, u64)>,
    /// Notes that `p`-tag a resident, by that resident.
    pub mentions: HashMap<PublicKey, Vec<Event>>,
    /// (resident, note) pairs the resident already answered.
    pub answered: HashSet<(PublicKey, EventId)>,
    /// How many replies a resident wrote in a thread (by root id).
    pub depth: HashMap<(PublicKey, EventId), usize>,
    /// How many replies a resident wrote to an author.
    pub exchanges: HashMap<(PublicKey, PublicKey), usize>,
    /// Newest top-level note per author (to spot a post whose draft was not marked posted).
    pub last_note: HashMap<PublicKey, Event>,
    /// The newest notes, oldest first (threads are read from them, and residents address each
    /// other's posts from them).
    pub recent: VecDeque<Event>,
    seen: HashSet<EventId>,
}

impl Board {
    /// Files `event`; returns the residents it concerns.
    pub fn file(&mut self, event: Event) -> Vec<PublicKey> {
        if !self.seen.insert(event.id) {
            return Vec::new();
        }
        let newer = |old: Option<&Event>, e: &Event| {
            old.is_none_or(|o| (e.created_at, e.id) > (o.created_at, o.id))
        };
        match SoulKind::from_kind(event.kind) {
            Some(SoulKind::Draft) => {
                let who = event.pubkey;
                if newer(self.drafts.get(&who), &event) {
                    if let Some(old) = self.drafts.insert(who, event) {
                        self.reviews.remove(&old.id);
                    }
                }
                vec![who]
            }
            Some(SoulKind::Memory) => {
                let who = event.pubkey;
                if newer(self.memories.get(&who), &event) {
                    self.memories.insert(who, event);
                }
                vec![who]
            }
            Some(SoulKind::Review) => {
                let who: Vec<PublicKey> = event.tags.public_keys().copied().collect();
                for r in tags::e_refs(&event) {
                    self.reviews.entry(r.id).or_default().push(event.clone());
                }
                who
            }
            Some(SoulKind::News) => match parse::<News>(&event) {
                Ok(n) => push_capped(&mut self.news, n.title),
                Err(_) => Vec::new(),
            },
            Some(SoulKind::TownEvent) => match parse::<TownEvent>(&event) {
                Ok(t) => {
                    let over = t.over_at();
                    push_capped(&mut self.events, (t.title, over))
                }
                Err(_) => Vec::new(),
            },
            _ if event.kind == Kind::TextNote => self.file_note(event),
            _ => Vec::new(),
        }
    }

    /// The titles of the town events not yet over at `now` (unix seconds): an event that is
    /// over is no longer talked about.
    pub fn events_on(&self, now: u64) -> Vec<String> {
        self.events
            .iter()
            .filter(|(_, over)| *over > now)
            .map(|(title, _)| title.clone())
            .collect()
    }

    fn file_note(&mut self, note: Event) -> Vec<PublicKey> {
        let author = note.pubkey;
        self.recent.push_back(note.clone());
        while self.recent.len() > RECENT_NOTES {
            self.recent.pop_front();
        }
        // A note a resident wrote as a reply: remember what it answered and how deep it went.
        let refs: Vec<tags::ERef> = tags::e_refs(&note).collect();
        if let Some(reply_to) = refs
            .iter()
            .find(|r| r.marker == Some(tags::REPLY))
            .or(refs.first())
        {
            self.answered.insert((author, reply_to.id));
            let root = tags::task_ref(&note).unwrap_or(reply_to.id);
            *self.depth.entry((author, root)).or_default() += 1;
            for p in note.tags.public_keys() {
                *self.exchanges.entry((author, *p)).or_default() += 1;
            }
        }
        if refs.is_empty() {
            let newer = self
                .last_note
                .get(&author)
                .is_none_or(|o| (note.created_at, note.id) > (o.created_at, o.id));
            if newer {
                self.last_note.insert(author, note.clone());
            }
        }
        let mut who = Vec::new();
        for p in note.tags.public_keys().copied().collect::<Vec<_>>() {
            if p != author {
                self.mentions.entry(p).or_default().push(note.clone());
                who.push(p);
            }
        }
        who
    }
}

fn push_capped<T>(list: &mut VecDeque<T>, item: T) -> Vec<PublicKey> {
    list.push_back(item);
    while list.len() > BULLETIN {
        list.pop_front();
    }
    Vec::new()
}

/// The host's shared view and the residents waiting on it.
pub struct Hub {
    /// The board, behind a short-held std mutex (no await while holding it).
    pub board: Mutex<Board>,
    wakers: Mutex<HashMap<PublicKey, Arc<Notify>>>,
    ready: watch::Sender<bool>,
    /// Roster names, for replies.
    pub names: HashMap<PublicKey, String>,
}

impl Hub {
    /// The waker of `resident`, created on first use.
    pub fn waker(&self, resident: PublicKey) -> Arc<Notify> {
        let mut w = self.wakers.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(w.entry(resident).or_default())
    }

    /// Waits until the first read of the relay is filed.
    pub async fn ready(&self) {
        let mut rx = self.ready.subscribe();
        let _ = rx.wait_for(|r| *r).await;
    }

    /// Files an event this host just published (the resident does it at once, not waiting for
    /// `Link::published`, so its next step sees its own draft).
    pub fn file(&self, event: Event) {
        let who = self
            .board
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .file(event);
        self.wake(&who);
    }

    fn wake(&self, who: &[PublicKey]) {
        let w = self.wakers.lock().unwrap_or_else(|e| e.into_inner());
        for p in who {
            if let Some(n) = w.get(p) {
                n.notify_one();
            }
        }
    }
}

/// Starts the residents' view of the relay behind `link`. `residents` are the roster's residents
/// (whose mentions to collect). It follows the relay until no resident holds it any more.
pub fn start(
    link: &Link,
    residents: Vec<PublicKey>,
    names: HashMap<PublicKey, String>,
) -> Arc<Hub> {
    let (ready, _) = watch::channel(false);
    let hub = Arc::new(Hub {
        board: Mutex::new(Board::default()),
        wakers: Mutex::new(HashMap::new()),
        ready,
        names,
    });
    let weak = Arc::downgrade(&hub);
    let link = link.clone();
    tokio::spawn(async move {
        if let Err(e) = follow(weak, link, residents).await {
            tracing::error!("residents' view of the relay stopped: {e}");
        }
    });
    hub
}

fn kinds() -> Vec<Kind> {
    [
        SoulKind::Draft,
        SoulKind::Review,
        SoulKind::Memory,
        SoulKind::News,
        SoulKind::TownEvent,
    ]
    .iter()
    .map(|k| k.kind())
    .chain([Kind::TextNote])
    .collect()
}

/// Reads the relay into the hub until no resident holds the hub any more.
async fn follow(hub: Weak<Hub>, link: Link, residents: Vec<PublicKey>) -> Result<(), HostError> {
    let mut notifications = link.client().notifications();
    let mut published = link.published();
    let live = Filter::new().kinds(kinds()).since(live_since());
    link.subscribe(live).await?;
    catch_up(&hub, &link, &residents).await?;
    if let Some(h) = hub.upgrade() {
        let _ = h.ready.send(true);
    }
    let wanted = kinds();
    loop {
        let event = tokio::select! {
            n = notifications.recv() => match n {
                Ok(RelayPoolNotification::Event { event, .. }) => *event,
                Ok(_) => continue,
                Err(RecvError::Lagged(_)) => { catch_up(&hub, &link, &residents).await?; continue }
                Err(RecvError::Closed) => return Ok(()),
            },
            p = published.recv() => match p {
                Ok(e) => e,
                Err(RecvError::Lagged(_)) => { catch_up(&hub, &link, &residents).await?; continue }
                Err(RecvError::Closed) => return Ok(()),
            },
        };
        if !wanted.contains(&event.kind) {
            continue;
        }
        let Some(h) = hub.upgrade() else {
            return Ok(());
        };
        h.file(event);
    }
}

/// Files what the relay already holds: drafts, memories, their reviews, the bulletin, and the
/// last day's notes that mention residents (so a restarted resident does not answer twice).
async fn catch_up(hub: &Weak<Hub>, link: &Link, residents: &[PublicKey]) -> Result<(), HostError> {
    let mut got: Vec<Event> = Vec::new();
    for chunk in residents.chunks(500) {
        let f = Filter::new()
            .kinds([SoulKind::Draft.kind(), SoulKind::Memory.kind()])
            .authors(chunk.iter().copied())
            .limit(chunk.len() * 2);
        got.extend(link.fetch(f).await?);
    }
    let drafts: Vec<EventId> = got
        .iter()
        .filter(|e| e.kind == SoulKind::Draft.kind())
        .map(|e| e.id)
        .collect();
    for chunk in drafts.chunks(500) {
        let f = Filter::new()
            .kind(SoulKind::Review.kind())
            .events(chunk.iter().copied())
            .limit(5000);
        got.extend(link.fetch(f).await?);
    }
    for kind in [SoulKind::News, SoulKind::TownEvent] {
        got.extend(
            link.fetch(Filter::new().kind(kind.kind()).limit(BULLETIN))
                .await?,
        );
    }
    let day_ago = Timestamp::now() - 86_400;
    for chunk in residents.chunks(500) {
        let mentions = Filter::new()
            .kind(Kind::TextNote)
            .pubkeys(chunk.iter().copied())
            .since(day_ago)
            .limit(5000);
        let own = Filter::new()
            .kind(Kind::TextNote)
            .authors(chunk.iter().copied())
            .since(day_ago)
            .limit(5000);
        got.extend(link.fetch(mentions).await?);
        got.extend(link.fetch(own).await?);
    }
    got.sort_by_key(|e| (e.created_at, e.id));
    let Some(h) = hub.upgrade() else {
        return Ok(());
    };
    let mut who = Vec::new();
    {
        let mut board = h.board.lock().unwrap_or_else(|e| e.into_inner());
        for e in got {
            who.extend(board.file(e));
        }
    }
    h.wake(&who);
    Ok(())
}

#[cfg(test)]
mod tests {
    use nostr::Keys;
    use soul_kinds::content::town_event;

    use super::*;

    #[test]
    fn an_event_that_is_over_is_no_longer_offered() {
        let keys = Keys::generate();
        let mut board = Board::default();
        let event = |title: &str, starts: u64, ends: Option<u64>| {
            let t = TownEvent {
                title: title.into(),
                description: String::new(),
                starts,
                ends,
            };
            town_event(&t).sign_with_keys(&keys).unwrap()
        };
        board.file(event("Flower market", 1_000, Some(8_200)));
        board.file(event("Old reporter's fair", 1_000, None));
        assert_eq!(
            board.events_on(500),
            ["Flower market", "Old reporter's fair"]
        );
        assert_eq!(
            board.events_on(8_199),
            ["Flower market", "Old reporter's fair"]
        );
        assert_eq!(board.events_on(8_200), ["Old reporter's fair"]);
        assert!(board.events_on(1_000 + 24 * 3600).is_empty());
    }
}

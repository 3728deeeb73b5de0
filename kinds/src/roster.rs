//! Who is who in a town: the roster the owner signs (34364), and the three brains in it.
//!
//! Agents trust only a roster signed by the owner they were told about, so [`Roster::from_event`]
//! takes the owner from the event's author; checking that this is the expected owner is the
//! caller's job (it knows the owner's npub, this crate does not).

use std::collections::HashMap;

use nostr::{Event, PublicKey};
use serde::{Deserialize, Serialize};

use crate::content::{parse, RosterContent};
use crate::error::Error;
use crate::role::{BrainName, Role};
use crate::tags::identifier_of;

/// One agent of the town.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub struct RosterMember {
    /// The agent's key; hex in JSON (npub is accepted when reading).
    pub pubkey: PublicKey,
    /// Its name: `panda`, a resident's name, …
    pub name: String,
    /// What it does.
    pub role: Role,
}

/// A town's roster.
#[derive(Debug, Clone)]
pub struct Roster {
    /// The town's name (the event's `d`).
    pub town: String,
    /// The owner, who signed the roster. Not a member unless listed.
    pub owner: PublicKey,
    /// The agents (private so that `by_key` always agrees with them).
    members: Vec<RosterMember>,
    /// Where each key is in `members`: the relay asks for every event it stores, and a town
    /// of ten thousand would otherwise scan ten thousand members each time.
    by_key: HashMap<PublicKey, usize>,
}

impl PartialEq for Roster {
    fn eq(&self, other: &Self) -> bool {
        (&self.town, &self.owner, &self.members) == (&other.town, &other.owner, &other.members)
    }
}

impl Eq for Roster {}

impl Roster {
    /// A roster of `members` signed by `owner`. A key listed twice is the first listing's.
    pub fn new(town: impl Into<String>, owner: PublicKey, members: Vec<RosterMember>) -> Self {
        let mut by_key = HashMap::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            by_key.entry(m.pubkey).or_insert(i);
        }
        Self {
            town: town.into(),
            owner,
            members,
            by_key,
        }
    }

    /// The agents, in the order the owner listed them.
    pub fn members(&self) -> &[RosterMember] {
        &self.members
    }

    /// Read a roster event: kind 34364, `d` = town, owner = author, content validated.
    pub fn from_event(event: &Event) -> Result<Self, Error> {
        let content: RosterContent = parse(event)?;
        let town = identifier_of(event)
            .filter(|d| !d.is_empty())
            .ok_or(Error::MissingTag {
                event: event.id,
                tag: "d",
            })?;
        Ok(Self::new(town, event.pubkey, content.members))
    }

    /// The member with this key.
    pub fn member(&self, pubkey: &PublicKey) -> Option<&RosterMember> {
        self.by_key.get(pubkey).map(|&i| &self.members[i])
    }

    /// The member with this name.
    pub fn by_name(&self, name: &str) -> Option<&RosterMember> {
        self.members.iter().find(|m| m.name == name)
    }

    /// Whether the key is a listed agent. The owner is not, unless listed: owner rights are
    /// asked for separately with [`Roster::is_owner`] so that no check grants them by accident.
    pub fn is_member(&self, pubkey: &PublicKey) -> bool {
        self.member(pubkey).is_some()
    }

    /// Whether the key is the owner's.
    pub fn is_owner(&self, pubkey: &PublicKey) -> bool {
        &self.owner == pubkey
    }

    /// The three brains: members with role `brain` named `panda`, `gorilla` and `triceratops`.
    /// `None` when any of them is missing; a town without all three cannot debate.
    pub fn brains(&self) -> Option<Brains> {
        let key = |name: BrainName| {
            self.by_name(name.as_str())
                .filter(|m| m.role == Role::Brain)
                .map(|m| m.pubkey)
        };
        Some(Brains {
            panda: key(BrainName::Panda)?,
            gorilla: key(BrainName::Gorilla)?,
            triceratops: key(BrainName::Triceratops)?,
        })
    }

    /// The roster as event content, e.g. to republish it with a member added.
    pub fn content(&self) -> RosterContent {
        RosterContent {
            members: self.members.clone(),
        }
    }
}

/// The three brains' keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Brains {
    /// Panda's key.
    pub panda: PublicKey,
    /// Gorilla's key.
    pub gorilla: PublicKey,
    /// Triceratops's key.
    pub triceratops: PublicKey,
}

impl Brains {
    /// The key of a brain.
    pub fn key(&self, name: BrainName) -> PublicKey {
        match name {
            BrainName::Panda => self.panda,
            BrainName::Gorilla => self.gorilla,
            BrainName::Triceratops => self.triceratops,
        }
    }

    /// Which brain this key is. If one key were listed for two brains the first in
    /// [`BrainName::ALL`] wins; [`RosterContent`] validation refuses such rosters anyway.
    pub fn name_of(&self, pubkey: &PublicKey) -> Option<BrainName> {
        BrainName::ALL
            .iter()
            .copied()
            .find(|&name| &self.key(name) == pubkey)
    }

    /// Whether the key is one of the brains.
    pub fn contains(&self, pubkey: &PublicKey) -> bool {
        self.name_of(pubkey).is_some()
    }
}

#[cfg(test)]
mod tests {
    use nostr::{EventBuilder, Keys, Tag};

    use super::*;
    use crate::content::roster;
    use crate::kind::SoulKind;

    fn member(keys: &Keys, name: &str, role: Role) -> RosterMember {
        RosterMember {
            pubkey: keys.public_key(),
            name: name.to_owned(),
            role,
        }
    }

    #[test]
    fn reads_a_signed_roster_and_finds_the_brains() {
        let (owner, p, g, t, r) = (
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
        );
        let content = RosterContent {
            members: vec![
                member(&p, "panda", Role::Brain),
                member(&g, "gorilla", Role::Brain),
                member(&t, "triceratops", Role::Brain),
                member(&r, "hana", Role::Resident),
            ],
        };
        let event = roster("hometown", &content).sign_with_keys(&owner).unwrap();
        let roster = Roster::from_event(&event).unwrap();
        assert_eq!(roster.town, "hometown");
        assert!(roster.is_owner(&owner.public_key()));
        assert!(!roster.is_member(&owner.public_key()));
        assert_eq!(roster.by_name("hana").unwrap().role, Role::Resident);
        // By key, from the index: every member is found, a stranger is not.
        for m in &content.members {
            assert_eq!(roster.member(&m.pubkey), Some(m));
        }
        assert_eq!(roster.member(&Keys::generate().public_key()), None);
        let brains = roster.brains().unwrap();
        assert_eq!(brains.name_of(&g.public_key()), Some(BrainName::Gorilla));
        assert!(!brains.contains(&r.public_key()));
        assert_eq!(roster.content(), content);
    }

    #[test]
    fn brains_need_all_three_with_the_brain_role() {
        let (owner, p, g, t) = (
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
        );
        let content = RosterContent {
            members: vec![
                member(&p, "panda", Role::Brain),
                member(&g, "gorilla", Role::Brain),
                member(&t, "triceratops", Role::Resident),
            ],
        };
        let event = roster("t", &content).sign_with_keys(&owner).unwrap();
        assert_eq!(Roster::from_event(&event).unwrap().brains(), None);
    }

    #[test]
    fn refuses_duplicates_and_a_missing_d() {
        let (owner, p) = (Keys::generate(), Keys::generate());
        let twice = RosterContent {
            members: vec![
                member(&p, "panda", Role::Brain),
                member(&p, "pan", Role::Brain),
            ],
        };
        let event = roster("t", &twice).sign_with_keys(&owner).unwrap();
        let err = Roster::from_event(&event).unwrap_err().to_string();
        assert!(err.contains("field \"pubkey\""), "{err}");

        let json = serde_json::to_string(&RosterContent { members: vec![] }).unwrap();
        let event = EventBuilder::new(SoulKind::Roster.kind(), json)
            .tag(Tag::alt("roster"))
            .sign_with_keys(&owner)
            .unwrap();
        let err = Roster::from_event(&event).unwrap_err();
        assert!(matches!(err, Error::MissingTag { tag: "d", .. }), "{err}");
    }
}

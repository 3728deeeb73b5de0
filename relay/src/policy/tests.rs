//! The chain as a table: each case names the event, who sent it, and the expected outcome.

use std::net::{IpAddr, Ipv4Addr};

use nostr::{EventBuilder, Keys, Kind, Tag, Timestamp};
use soul_kinds::{Role, Roster, RosterMember};

use super::*;
use crate::roster::RosterView;

struct Town {
    owner: Keys,
    brain: Keys,
    resident: Keys,
    chain: PolicyChain,
}

fn town(limits: Option<RateLimits>) -> Town {
    let (owner, brain, resident) = (Keys::generate(), Keys::generate(), Keys::generate());
    let member = |k: &Keys, name: &str, role| RosterMember {
        pubkey: k.public_key(),
        name: name.into(),
        role,
    };
    let roster = Roster::new(
        "t",
        owner.public_key(),
        vec![
            member(&Keys::generate(), "panda", Role::Brain),
            member(&brain, "gorilla", Role::Brain),
            member(&Keys::generate(), "triceratops", Role::Brain),
            member(&resident, "hana", Role::Resident),
        ],
    );
    let chain = PolicyChain::town(
        65_536,
        4 * 1024 * 1024,
        900,
        limits,
        RosterView::new(roster),
    );
    Town {
        owner,
        brain,
        resident,
        chain,
    }
}

fn admit(chain: &PolicyChain, event: &nostr::Event) -> Result<(), Reject> {
    let frame_len = event.as_json_len();
    chain.admit(&Admission {
        event,
        frame_len,
        ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
    })
}

trait JsonLen {
    fn as_json_len(&self) -> usize;
}
impl JsonLen for nostr::Event {
    fn as_json_len(&self) -> usize {
        use nostr::JsonUtil;
        self.as_json().len() + 12
    }
}

fn prefix(r: Result<(), Reject>) -> Option<Prefix> {
    r.err().map(|r| r.prefix)
}

#[test]
fn chain_table() {
    let t = town(None);
    let task = |k: &Keys| {
        EventBuilder::new(Kind::Custom(4360), "{}")
            .sign_with_keys(k)
            .unwrap()
    };
    let roster = |k: &Keys| {
        EventBuilder::new(Kind::Custom(34364), "{}")
            .sign_with_keys(k)
            .unwrap()
    };
    // Gorilla relaying the owner's DM: `p` the owner, `e` the DM.
    let relayed = EventBuilder::new(Kind::Custom(4360), "{}")
        .tag(Tag::public_key(t.owner.public_key()))
        .tag(Tag::event(nostr::EventId::all_zeros()))
        .sign_with_keys(&t.brain)
        .unwrap();
    let stranger = Keys::generate();
    let cases: Vec<(&str, nostr::Event, Option<Prefix>)> = vec![
        ("owner's task", task(&t.owner), None),
        ("gorilla relaying the owner's DM", relayed, None),
        ("gorilla's own task", task(&t.brain), Some(Prefix::Blocked)),
        ("resident's task", task(&t.resident), Some(Prefix::Blocked)),
        ("stranger's task", task(&stranger), Some(Prefix::Blocked)),
        ("owner's roster", roster(&t.owner), None),
        ("brain's roster", roster(&t.brain), Some(Prefix::Blocked)),
        (
            "stranger's note",
            EventBuilder::text_note("hi")
                .sign_with_keys(&stranger)
                .unwrap(),
            None,
        ),
        (
            "an hour ahead",
            EventBuilder::text_note("later")
                .custom_created_at(Timestamp::now() + 3600)
                .sign_with_keys(&t.owner)
                .unwrap(),
            Some(Prefix::Invalid),
        ),
        (
            "oversize",
            EventBuilder::text_note("x".repeat(70_000))
                .sign_with_keys(&t.owner)
                .unwrap(),
            Some(Prefix::Invalid),
        ),
        // The roster lists every member: a big town's is far over the limit of other events,
        // and only the owner may publish one.
        (
            "owner's roster of a big town",
            EventBuilder::new(Kind::Custom(34364), "x".repeat(1_200_000))
                .sign_with_keys(&t.owner)
                .unwrap(),
            None,
        ),
        (
            "a stranger's big roster",
            EventBuilder::new(Kind::Custom(34364), "x".repeat(1_200_000))
                .sign_with_keys(&stranger)
                .unwrap(),
            Some(Prefix::Blocked),
        ),
        (
            "a roster over its own limit",
            EventBuilder::new(Kind::Custom(34364), "x".repeat(4_200_000))
                .sign_with_keys(&t.owner)
                .unwrap(),
            Some(Prefix::Invalid),
        ),
        (
            "wrap to a stranger",
            EventBuilder::new(Kind::GiftWrap, "x")
                .tag(Tag::public_key(stranger.public_key()))
                .sign_with_keys(&Keys::generate())
                .unwrap(),
            Some(Prefix::Blocked),
        ),
        (
            "wrap to a member",
            EventBuilder::new(Kind::GiftWrap, "x")
                .tag(Tag::public_key(t.resident.public_key()))
                .sign_with_keys(&Keys::generate())
                .unwrap(),
            None,
        ),
        (
            "wrap to nobody",
            EventBuilder::new(Kind::GiftWrap, "x")
                .sign_with_keys(&Keys::generate())
                .unwrap(),
            Some(Prefix::Invalid),
        ),
    ];
    for (name, event, want) in cases {
        assert_eq!(prefix(admit(&t.chain, &event)), want, "{name}");
    }
    let mut tampered = EventBuilder::text_note("a")
        .sign_with_keys(&t.owner)
        .unwrap();
    tampered.content = "b".into();
    assert_eq!(
        prefix(admit(&t.chain, &tampered)),
        Some(Prefix::Invalid),
        "tampered"
    );
}

#[test]
fn rate_limits_refill_continuously_and_say_rate_limited() {
    let limits = RateLimits {
        per_pubkey_per_minute: 60,
        per_pubkey_burst: 5,
        per_ip_per_minute: 100_000,
        per_ip_burst: 100_000,
    };
    let t = town(Some(limits));
    let note = || {
        EventBuilder::text_note("n")
            .sign_with_keys(&t.owner)
            .unwrap()
    };
    for i in 0..5 {
        assert!(admit(&t.chain, &note()).is_ok(), "burst event {i}");
    }
    let r = admit(&t.chain, &note()).unwrap_err();
    assert_eq!(r.prefix, Prefix::RateLimited);
    assert!(r.to_string().starts_with("rate-limited: "), "{r}");
    // Another pubkey has its own bucket.
    assert!(admit(
        &t.chain,
        &EventBuilder::text_note("n")
            .sign_with_keys(&t.brain)
            .unwrap()
    )
    .is_ok());
}

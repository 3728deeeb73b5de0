//! Which params each brain thinks with: the latest of its own 34360 (a retune) and the owner's
//! 34360 for it (`d` = the brain's name, `p` = the brain; DESIGN §12). Both are addressable, but
//! under different authors, so the relay keeps one of each and the fold picks between them.

use std::collections::BTreeMap;

use nostr::{Event, PublicKey, TagKind, Timestamp};

use crate::content::{parse, Params};
use crate::kind::SoulKind;
use crate::role::BrainName;
use crate::roster::Brains;
use crate::tags::identifier_of;

/// Params per brain from `events`; a brain without a valid event is absent (its seed params
/// apply). Events that are not params, fail validation, come from anyone but the brain or the
/// owner, or (the owner's) name one brain in `d` and another in `p`, are ignored. On equal
/// `created_at` the owner's hand stands.
pub fn fold_params(
    events: &[Event],
    brains: &Brains,
    owner: &PublicKey,
) -> BTreeMap<BrainName, Params> {
    let mut best: BTreeMap<BrainName, (Timestamp, bool, Params)> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == SoulKind::Params.kind()) {
        let Some((brain, by_owner)) = subject(e, brains, owner) else {
            continue;
        };
        let Ok(p) = parse::<Params>(e) else {
            continue;
        };
        let newer = best
            .get(&brain)
            .is_none_or(|&(t, owner_was, _)| (e.created_at, by_owner) > (t, owner_was));
        if newer {
            best.insert(brain, (e.created_at, by_owner, p));
        }
    }
    best.into_iter().map(|(b, (_, _, p))| (b, p)).collect()
}

/// The brain a params event is about, and whether the owner set it.
fn subject(e: &Event, brains: &Brains, owner: &PublicKey) -> Option<(BrainName, bool)> {
    if let Some(brain) = brains.name_of(&e.pubkey) {
        return Some((brain, false));
    }
    if e.pubkey != *owner {
        return None;
    }
    let brain: BrainName = identifier_of(e)?.parse().ok()?;
    let tagged = e
        .tags
        .iter()
        .filter(|t| t.kind() == TagKind::p())
        .filter_map(|t| t.content())
        .filter_map(|hex| PublicKey::from_hex(hex).ok())
        .collect::<Vec<_>>();
    (tagged == [brains.key(brain)]).then_some((brain, true))
}

#[cfg(test)]
mod tests {
    use nostr::{EventBuilder, Keys, Tag};

    use super::*;
    use crate::content::{owner_params, params};

    struct Town {
        panda: Keys,
        gorilla: Keys,
        triceratops: Keys,
        owner: Keys,
        brains: Brains,
    }

    fn town() -> Town {
        let (panda, gorilla, triceratops, owner) = (
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
            Keys::generate(),
        );
        let brains = Brains {
            panda: panda.public_key(),
            gorilla: gorilla.public_key(),
            triceratops: triceratops.public_key(),
        };
        Town {
            panda,
            gorilla,
            triceratops,
            owner,
            brains,
        }
    }

    fn p(risk: f64) -> Params {
        Params {
            risk_tolerance: risk,
            ..BrainName::Panda.default_params()
        }
    }

    fn at(b: EventBuilder, t: u64, keys: &Keys) -> Event {
        b.custom_created_at(Timestamp::from(t))
            .sign_with_keys(keys)
            .unwrap()
    }

    fn check(events: &[Event], t: &Town, want: Option<f64>) {
        let got = fold_params(events, &t.brains, &t.owner.public_key());
        assert_eq!(got.get(&BrainName::Panda).map(|p| p.risk_tolerance), want);
    }

    #[test]
    fn the_latest_of_the_owners_hand_and_the_retune_stands() {
        let t = town();
        let key = t.panda.public_key();
        let retune = at(params("panda", &p(0.3)), 100, &t.panda);
        let owners = at(owner_params("panda", key, &p(0.9)), 200, &t.owner);
        let later_retune = at(params("panda", &p(0.4)), 300, &t.panda);
        check(std::slice::from_ref(&retune), &t, Some(0.3));
        check(&[retune.clone(), owners.clone()], &t, Some(0.9));
        check(&[owners.clone(), retune.clone()], &t, Some(0.9));
        check(&[retune, owners.clone(), later_retune], &t, Some(0.4));
        let same_second = at(params("panda", &p(0.1)), 200, &t.panda);
        check(&[same_second.clone(), owners.clone()], &t, Some(0.9));
        check(&[owners, same_second], &t, Some(0.9));
    }

    #[test]
    fn only_the_owner_and_the_brain_itself_set_its_params() {
        let t = town();
        let key = t.panda.public_key();
        let stranger = Keys::generate();
        // A stranger, or another brain, with the owner's shape.
        check(
            &[at(owner_params("panda", key, &p(0.9)), 200, &stranger)],
            &t,
            None,
        );
        check(
            &[at(owner_params("panda", key, &p(0.9)), 200, &t.gorilla)],
            &t,
            None,
        );
        let g = fold_params(
            &[at(owner_params("panda", key, &p(0.9)), 200, &t.triceratops)],
            &t.brains,
            &t.owner.public_key(),
        );
        assert_eq!(
            g[&BrainName::Triceratops].risk_tolerance,
            0.9,
            "its own event, its own params"
        );
        // The owner's event must name the same brain in `d` and `p`, and only one.
        let gorilla = t.gorilla.public_key();
        check(
            &[at(owner_params("panda", gorilla, &p(0.9)), 200, &t.owner)],
            &t,
            None,
        );
        check(&[at(params("panda", &p(0.9)), 200, &t.owner)], &t, None);
        let two = owner_params("panda", key, &p(0.9)).tag(Tag::public_key(gorilla));
        check(&[at(two, 200, &t.owner)], &t, None);
        check(
            &[at(owner_params("wizard", key, &p(0.9)), 200, &t.owner)],
            &t,
            None,
        );
    }

    #[test]
    fn params_outside_the_unit_range_are_ignored() {
        let t = town();
        let key = t.panda.public_key();
        let bad = EventBuilder::new(SoulKind::Params.kind(), r#"{"risk_tolerance":1.5,"innovation_weight":0.3,"safety_weight":0.9,"thoroughness":0.9,"consensus_flexibility":0.4}"#)
            .tag(Tag::identifier("panda"))
            .tag(Tag::public_key(key));
        let good = at(owner_params("panda", key, &p(0.5)), 100, &t.owner);
        check(&[good, at(bad, 200, &t.owner)], &t, Some(0.5));
    }
}

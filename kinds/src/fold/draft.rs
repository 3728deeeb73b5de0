//! The draft fold: where a resident's draft stands (DESIGN §7, seed 001).
//!
//! The resident signs its draft (34361) with status `pending` (or `posted` once it published the
//! note); only the reviewer may judge it, in a separate signed review (4365) that names the exact
//! draft version in its `e` tag. So the status is a fold: `posted` if the draft says so (with its
//! note id), else the verdict of the latest valid review of *this version* by the reviewer, else
//! `pending`. A review of an older version, from someone else, or without the right tags is
//! refused with a reason and ignored; a draft that claims `approved` or `rejected` itself is read
//! as `pending`, because no resident may judge its own draft.

use crate::fold::{Refusal, Rule};
use nostr::{Event, PublicKey};

use crate::content::{parse, Draft, DraftStatus, Review, ReviewVerdict};
use crate::error::Error;
use crate::fold::Rejected;
use crate::kind::SoulKind;
use crate::tags::{e_refs, identifier_of};

/// A draft version and what the fold says about it.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftState {
    /// The draft's content as signed by the resident.
    pub draft: Draft,
    /// Status from the fold (never trusted from the content unless `posted`).
    pub status: DraftStatus,
    /// The review that decided `approved`/`rejected`, if any.
    pub review: Option<Review>,
}

/// Folds the draft version `draft` with candidate `reviews` (any order, duplicates allowed).
///
/// `Err` only if `draft` is not a valid draft event; every unusable review becomes a
/// [`Rejected`] entry. Among valid reviews the newest wins (`created_at`, then id), so a
/// reviewer that changes its mind about the same version is heard.
pub fn fold_draft(
    draft: &Event,
    reviews: &[Event],
    reviewer: &PublicKey,
) -> Result<(DraftState, Vec<Rejected>), Error> {
    let content: Draft = parse(draft)?;
    let mut refused = Vec::new();
    let mut state = DraftState {
        status: DraftStatus::Pending,
        review: None,
        draft: content,
    };
    if state.draft.status == DraftStatus::Posted {
        state.status = DraftStatus::Posted;
        return Ok((state, refused));
    }
    let address = identifier_of(draft).unwrap_or_default();
    let mut best: Option<(&Event, Review)> = None;
    for event in reviews {
        match check_review(event, draft, address, reviewer) {
            Ok(review) => {
                let newer = best
                    .as_ref()
                    .is_none_or(|(b, _)| (event.created_at, event.id) > (b.created_at, b.id));
                if newer {
                    best = Some((event, review));
                }
            }
            Err(reason) => refused.push(Rejected {
                event_id: event.id,
                reason,
            }),
        }
    }
    if let Some((_, review)) = best {
        state.status = match review.verdict {
            ReviewVerdict::Approved => DraftStatus::Approved,
            ReviewVerdict::Rejected => DraftStatus::Rejected,
        };
        state.review = Some(review);
    }
    Ok((state, refused))
}

/// A review that applies to exactly this draft version, or why not.
fn check_review(
    event: &Event,
    draft: &Event,
    address: &str,
    reviewer: &PublicKey,
) -> Result<Review, Refusal> {
    if event.kind != SoulKind::Review.kind() {
        return Err(Refusal::new(
            Rule::Content,
            format!("kind {} is not a review", event.kind),
        ));
    }
    if event.pubkey != *reviewer {
        return Err(Refusal::new(
            Rule::Author,
            "not signed by the town's reviewer",
        ));
    }
    if !e_refs(event).any(|r| r.id == draft.id) {
        return Err(Refusal::new(
            Rule::Reference,
            "reviews another version of the draft",
        ));
    }
    let expected = format!(
        "{}:{}:{}",
        SoulKind::Draft.number(),
        draft.pubkey.to_hex(),
        address
    );
    let names_address = event.tags.iter().any(|t| {
        let s = t.as_slice();
        s.first().is_some_and(|n| n == "a") && s.get(1).is_some_and(|a| *a == expected)
    });
    if !names_address {
        return Err(Refusal::new(
            Rule::Reference,
            format!("its `a` tag does not name {expected}"),
        ));
    }
    parse::<Review>(event).map_err(|e| Refusal::new(Rule::Content, e.to_string()))
}

#[cfg(test)]
mod tests {
    use nostr::nips::nip01::Coordinate;
    use nostr::{EventBuilder, Keys, Timestamp};

    use super::*;
    use crate::content::{draft, review};

    fn draft_event(keys: &Keys, status: DraftStatus, at: u64) -> Event {
        let d = Draft {
            content: "芽が出た".into(),
            status,
            created_at: at,
            posted_at: (status == DraftStatus::Posted).then_some(at),
            note_id: (status == DraftStatus::Posted).then(|| "ab".repeat(32)),
            history: vec![],
        };
        draft("hana", &d)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(keys)
            .unwrap()
    }

    fn review_event(by: &Keys, of: &Event, verdict: ReviewVerdict, at: u64) -> Event {
        let addr = Coordinate::new(SoulKind::Draft.kind(), of.pubkey).identifier("hana");
        let r = Review {
            verdict,
            reason: "mentions a politician".into(),
            rules: vec!["NG2".into()],
        };
        review(&addr, of.id, of.pubkey, &r)
            .custom_created_at(Timestamp::from(at))
            .sign_with_keys(by)
            .unwrap()
    }

    /// (reviews, expected status, refused count)
    fn check(reviews: impl Fn(&Event, &Keys) -> Vec<Event>, status: DraftStatus, refused: usize) {
        let (resident, reviewer) = (Keys::generate(), Keys::generate());
        let d = draft_event(&resident, DraftStatus::Pending, 100);
        let (state, r) = fold_draft(&d, &reviews(&d, &reviewer), &reviewer.public_key()).unwrap();
        assert_eq!(state.status, status);
        assert_eq!(r.len(), refused, "{r:?}");
    }

    #[test]
    fn status_is_the_latest_review_of_this_version() {
        check(|_, _| vec![], DraftStatus::Pending, 0);
        check(
            |d, k| vec![review_event(k, d, ReviewVerdict::Rejected, 101)],
            DraftStatus::Rejected,
            0,
        );
        check(
            |d, k| {
                vec![
                    review_event(k, d, ReviewVerdict::Approved, 103),
                    review_event(k, d, ReviewVerdict::Rejected, 101),
                ]
            },
            DraftStatus::Approved,
            0,
        );
    }

    #[test]
    fn foreign_or_stale_reviews_are_refused() {
        check(
            |d, _| {
                vec![review_event(
                    &Keys::generate(),
                    d,
                    ReviewVerdict::Approved,
                    101,
                )]
            },
            DraftStatus::Pending,
            1,
        );
        check(
            |d, k| {
                let older = draft_event(&Keys::generate(), DraftStatus::Pending, 50);
                let stale = review_event(k, &older, ReviewVerdict::Approved, 101);
                vec![stale, review_event(k, d, ReviewVerdict::Rejected, 99)]
            },
            DraftStatus::Rejected,
            1,
        );
    }

    #[test]
    fn posted_drafts_stay_posted_and_self_judgement_is_ignored() {
        let (resident, reviewer) = (Keys::generate(), Keys::generate());
        let posted = draft_event(&resident, DraftStatus::Posted, 100);
        let (s, _) = fold_draft(&posted, &[], &reviewer.public_key()).unwrap();
        assert_eq!(s.status, DraftStatus::Posted);
        let claims = draft_event(&resident, DraftStatus::Approved, 100);
        let (s, _) = fold_draft(&claims, &[], &reviewer.public_key()).unwrap();
        assert_eq!(s.status, DraftStatus::Pending);
        let not_a_draft = EventBuilder::text_note("hi")
            .sign_with_keys(&resident)
            .unwrap();
        assert!(fold_draft(&not_a_draft, &[], &reviewer.public_key()).is_err());
    }
}

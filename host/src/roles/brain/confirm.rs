//! The owner's word on a doubt (ARCHITECTURE.md, "Beyond DESIGN.md"): a refusal where no harm
//! the lexicon names stands ends with a decision saying how the owner may confirm the task; a
//! confirmation is the same task again tagged `["confirms", <refused id>]`, and the brains weigh
//! the owner's word against their doubt and caution, never against a named harm
//! (`soul_mind::brain::Features::confirmed_by_owner`).
//!
//! A confirmation is taken only when all of this holds, from the brain's own view of the relay:
//! it is signed by the owner, or published by gorilla citing the owner's own "confirm" reply to
//! the decision's offer note (public and signed, so every brain checks it; a brain key alone
//! cannot make one up); the refused task is the owner's, came first, says the same (title and
//! description) and was refused; and no other confirmation of it was taken. A task whose
//! `confirms` tag fails this is refused by every brain, naming why.

use nostr::{Event, EventId, PublicKey};
use soul_kinds::content::{confirming_for, confirms, says_confirm};
use soul_kinds::{parse, Brains, Relayed, Task, TaskState, TaskStatus};
use soul_mind::brain::{self as mind, Features, Language, Lexicon};

use super::Debates;

/// What a confirmation is checked against: whose town, its brains, its lexicon.
struct Town<'a> {
    owner: &'a PublicKey,
    brains: &'a Brains,
    lexicon: &'a Lexicon,
}

/// What the brains read in `state`'s task: its features, confirmed by the owner when the task
/// is a valid confirmation of an earlier refusal.
pub(super) fn features_of(
    debates: &mut Debates,
    state: &TaskState,
    owner: &PublicKey,
    brains: &Brains,
    lexicon: &Lexicon,
) -> Features {
    let features = mind::features(&state.task, lexicon);
    let town = Town {
        owner,
        brains,
        lexicon,
    };
    match confirmed(debates, state, &town) {
        Ok(Some(refused)) => {
            tracing::info!(task = %state.task_id, %refused, "the owner confirmed a refused task");
            features.confirmed_by_owner()
        }
        Ok(None) => features,
        Err(why) => {
            tracing::warn!(task = %state.task_id, "a `confirms` tag is not taken: {why}; every brain refuses the task");
            features.with_confirmation_refused(why)
        }
    }
}

/// The refused task `state`'s task validly confirms; `Ok(None)` when it confirms nothing,
/// `Err` naming the condition that failed when its `confirms` tag is not taken.
fn confirmed(
    debates: &mut Debates,
    state: &TaskState,
    town: &Town<'_>,
) -> Result<Option<EventId>, &'static str> {
    let Some(refused) = valid(debates, state.task_id, town)? else {
        return Ok(None);
    };
    // One refusal, one confirmation: a second (a double click, a resent command, a reply and
    // the button) would have the same thing done twice.
    if first_confirmation(debates, refused, town) != Some(state.task_id) {
        return Err("the task it confirms was confirmed already");
    }
    Ok(Some(refused))
}

/// The confirmation of `refused` that counts: one the brains have begun to debate, if any (a
/// later one may not claim to come first by its timestamp, which its signer sets); else the
/// earliest valid one by creation time, then id, which every brain orders alike.
fn first_confirmation(debates: &mut Debates, refused: EventId, town: &Town<'_>) -> Option<EventId> {
    let mut candidates: Vec<(bool, nostr::Timestamp, EventId)> = Vec::new();
    // Ordered: one the brains have begun to debate first, then by time and id.
    for id in debates.all_tasks() {
        let Some(event) = debates.task(&id) else {
            continue;
        };
        if confirms(event) != Some(refused) {
            continue;
        }
        let created = event.created_at;
        if valid(debates, id, town) != Ok(Some(refused)) {
            continue;
        }
        let not_begun = debates
            .fold(&id, town.brains)
            .is_none_or(|s| s.rounds.is_empty() && s.decision.is_none());
        candidates.push((not_begun, created, id));
    }
    candidates.into_iter().min().map(|(_, _, id)| id)
}

/// Whether task `id` is a confirmation the brains take, leaving aside whether it is the first:
/// the refused task it names, `Ok(None)` when it names none, `Err` saying why not.
fn valid(
    debates: &mut Debates,
    id: EventId,
    town: &Town<'_>,
) -> Result<Option<EventId>, &'static str> {
    let (owner, brains) = (town.owner, town.brains);
    let Some(event) = debates.task(&id) else {
        return Ok(None);
    };
    let Some(refused) = confirms(event) else {
        return Ok(None);
    };
    let (created, by_owner) = (event.created_at, event.pubkey == *owner);
    let content: Task = parse(event).map_err(|_| "the confirmation does not parse")?;
    if !by_owner {
        // Gorilla's, for the owner's public "confirm" reply: checked on the relay by everyone,
        // as no DM could be (a brain key cannot sign the owner's reply).
        let from_gorilla =
            event.pubkey == brains.gorilla && event.tags.public_keys().any(|p| p == owner);
        let source = event.tags.event_ids().next().copied();
        let reply = source.and_then(|s| debates.note(&s));
        let answered = reply.is_some_and(|r| {
            r.pubkey == *owner
                && says_confirm(&r.content)
                && reply_target(debates, r, brains) == Some(refused)
        });
        if !(from_gorilla && answered) {
            return Err("only the owner confirms: a task the owner signed, or gorilla's for the owner's own \"confirm\" reply");
        }
    }
    let earlier = debates
        .task(&refused)
        .ok_or("the task it confirms is not on the relay")?;
    if earlier.pubkey != *owner {
        return Err("the task it confirms is not the owner's own");
    }
    if earlier.created_at > created {
        return Err("the task it confirms came later");
    }
    let before: Task = parse(earlier).map_err(|_| "the task it confirms does not parse")?;
    if !before.says_the_same(&content) {
        return Err("it does not say what the task it confirms said");
    }
    let status = debates.fold(&refused, brains).map(|s| s.status);
    if status != Some(TaskStatus::Rejected) {
        return Err("the task it confirms was not refused");
    }
    if !mind::features(&before, town.lexicon).confirmable() {
        return Err("its refusal was no doubt: a named harm, or a reading sure of one");
    }
    Ok(Some(refused))
}

/// The task a reply answers: the task of the brain's note it replies to, when that note is
/// the decision's offer to confirm. Only such a note: it exists only once the refusal does, so
/// a "confirm" written earlier (on the task, while it was debated) answers nothing. NIP-10: the
/// `reply` marker first, then `root`, then unmarked tags.
fn reply_target(debates: &Debates, reply: &Event, brains: &Brains) -> Option<EventId> {
    let rank = |m: Option<&str>| match m {
        Some("reply") => 0,
        Some("root") => 1,
        None => 2,
        Some(_) => 3,
    };
    let mut refs: Vec<soul_kinds::tags::ERef<'_>> = soul_kinds::tags::e_refs(reply)
        .filter(|r| rank(r.marker) < 3)
        .collect();
    refs.sort_by_key(|r| rank(r.marker));
    refs.into_iter().find_map(|r| {
        let note = debates.note(&r.id)?;
        brains.name_of(&note.pubkey)?;
        if !note.content.contains(OFFER_MARK) {
            return None;
        }
        soul_kinds::tags::task_ref(note).filter(|t| debates.task(t).is_some())
    })
}

/// What every offer to confirm says, and what marks a note as one.
const OFFER_MARK: &str = "soul task --confirm ";

/// Gorilla's part: for each of the owner's "confirm" replies to a refusal that offered it, the
/// confirmation, published once for the owner (a relayed task tagged `confirms`, its source
/// the reply). Replies that confirm nothing are logged once.
pub(super) async fn relay_replies(
    ctx: &super::step::Ctx<'_>,
    debates: &mut Debates,
) -> Result<(), crate::HostError> {
    let owner = ctx.setup.owner;
    let brains = &ctx.setup.brains;
    let replies: Vec<Event> = debates
        .notes_by(&owner)
        .filter(|r| says_confirm(&r.content))
        .filter(|r| !debates.was_answered(&r.id))
        .cloned()
        .collect();
    for reply in replies {
        let Some(refused) = reply_target(debates, &reply, brains) else {
            debates.mark_answered(reply.id);
            tracing::info!(reply = %reply.id, "the owner's \"confirm\" answers no task");
            continue;
        };
        debates.mark_answered(reply.id);
        let Some(state) = debates.fold(&refused, brains) else {
            continue;
        };
        if state.status != TaskStatus::Rejected
            || offer(debates, &state, &owner, &ctx.setup.lexicon).is_none()
        {
            tracing::info!(reply = %reply.id, task = %refused, "the owner's \"confirm\" answers no refusal that offered it");
            continue;
        }
        let town = Town {
            owner: &owner,
            brains,
            lexicon: &ctx.setup.lexicon,
        };
        if let Some(done) = first_confirmation(debates, refused, &town) {
            tracing::info!(reply = %reply.id, task = %refused, confirmation = %done, "already confirmed");
            continue;
        }
        let relayed = Relayed {
            owner,
            source: reply.id,
        };
        // Not answered until published: a refused publish is tried again on the next turn.
        let published = ctx
            .link
            .publish(
                &ctx.me.keys,
                confirming_for(&state.task, refused, Some(relayed)),
            )
            .await;
        let event = match published {
            Ok(event) => event,
            Err(e) => {
                debates.unmark_answered(&reply.id);
                return Err(e.into());
            }
        };
        tracing::info!(task = %refused, confirmation = %event.id, reply = %reply.id, "relayed the owner's confirmation");
        debates.insert(event);
    }
    Ok(())
}

/// For a refusal of `state`'s task where no harm the lexicon names stands (the learned
/// reading's doubt, or the brains' caution over risk words): sentences telling the owner what
/// stood against it and how to confirm it. None when a named harm stands, or the task already
/// was a confirmation.
pub(super) fn offer(
    debates: &Debates,
    state: &TaskState,
    owner: &PublicKey,
    lexicon: &Lexicon,
) -> Option<String> {
    let event = debates.task(&state.task_id)?;
    if event.pubkey != *owner || confirms(event).is_some() {
        return None;
    }
    let features = mind::features(&state.task, lexicon);
    if !features.confirmable() {
        return None;
    }
    let id = state.task_id.to_hex();
    let (open, close, comma) = match features.language {
        Language::En => ("\u{201c}", "\u{201d}", ", "),
        Language::Ja => ("「", "」", "、"),
    };
    let words: Vec<String> = features
        .hits_of(mind::Category::Harm)
        .flat_map(|h| h.words.iter().map(|w| format!("{open}{w}{close}")))
        .collect();
    let words = words.join(comma);
    let doubt = !words.is_empty();
    Some(match features.language {
        Language::En => {
            let why = if doubt {
                format!("It reads like tasks a family refuses ({words}), though no harm we can name is in it.")
            } else {
                "Its risks outweighed its gains, though no harm we can name is in it.".to_owned()
            };
            format!(
                "{why} If it is what the owner means, and nobody else is pressing for it, the owner can confirm it: reply \u{201c}confirm\u{201d} to the brains' note of this decision from any client, or `soul task --confirm {id}`."
            )
        }
        Language::Ja => {
            let why = if doubt {
                format!("家族が断ってきた頼みごとに似ています（{words}）。ただし名前のある害は見当たりません。")
            } else {
                "利点より危うさが勝りました。ただし名前のある害は見当たりません。".to_owned()
            };
            format!(
                "{why}本当にオーナーの望むことで、誰かに急かされているのでなければ、この決定のノートに「確認」と返信するか、`soul task --confirm {id}` で確かめられます。"
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::{Keys, Timestamp};
    use soul_kinds::content::{confirming, task};
    use soul_kinds::Priority;

    fn content(title: &str) -> Task {
        Task {
            title: title.into(),
            description: String::new(),
            priority: Priority::Medium,
            task_type: "task".into(),
        }
    }

    fn state_of(event: &nostr::Event) -> TaskState {
        TaskState {
            task_id: event.id,
            task: parse(event).unwrap(),
            status: TaskStatus::Rejected,
            rounds: Default::default(),
            decision: None,
            announcement: None,
            executions: vec![],
        }
    }

    /// The offer names what the task resembles and the command, and is made only for the
    /// owner's own task refused on a doubt, never twice.
    #[test]
    fn only_a_doubt_on_the_owners_own_task_is_offered_for_confirmation() {
        let owner = Keys::generate();
        let lexicon = Lexicon::builtin();
        let mut debates = Debates::default();
        let sign = |keys: &Keys, b: nostr::EventBuilder| {
            b.custom_created_at(Timestamp::from_secs(1_800_000_000))
                .sign_with_keys(keys)
                .unwrap()
        };
        let doubted = sign(
            &owner,
            task(
                &content("Buy the concert tickets before they sell out"),
                None,
            ),
        );
        let harm = sign(
            &owner,
            task(&content("Give the bank password to someone online"), None),
        );
        let stranger = sign(
            &Keys::generate(),
            task(
                &content("Buy the concert tickets before they sell out"),
                None,
            ),
        );
        let again = sign(
            &owner,
            confirming(
                &content("Buy the concert tickets before they sell out"),
                doubted.id,
            ),
        );
        for e in [&doubted, &harm, &stranger, &again] {
            debates.insert(e.clone());
        }
        let pk = owner.public_key();
        let offer_of = |e: &nostr::Event| offer(&debates, &state_of(e), &pk, &lexicon);
        let said = offer_of(&doubted).expect("a doubt is offered");
        assert!(
            said.contains(&format!("soul task --confirm {}", doubted.id.to_hex())),
            "{said}"
        );
        assert!(said.contains("nobody else is pressing"), "{said}");
        assert_eq!(offer_of(&harm), None, "a named harm");
        assert_eq!(offer_of(&stranger), None, "not the owner's");
        assert_eq!(offer_of(&again), None, "already a confirmation");
    }
}

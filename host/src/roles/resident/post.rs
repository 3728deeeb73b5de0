//! Posting an approved draft and saving memory: the two writes after which the resident's
//! state on the relay must be consistent again (note, posted draft, memory). A post is an
//! action: the guardian and the gate judge it first, and the audit records the verdict.

use crate::HostError;
use std::time::Instant;

use nostr::{Event, EventBuilder, EventId, Timestamp};
use serde_json::{json, Map};
use soul_kinds::content::{draft, MAX_DRAFT_HISTORY};
use soul_kinds::{Draft, DraftHistory, DraftStatus, GuardAction};

use super::hub::Hub;
use super::step::Life;
use super::{memory, Setup};
use soul_guard::audit;
use soul_guard::GuardError;
use soul_link::Identity;
use soul_link::Link;
use soul_mind::{Proposal, Thought};

/// The gate's action for a post (`rules/authorization.yaml`).
const POST_NOTE: &str = "post_note";

impl Life {
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn post(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
        setup: &Setup,
        current: &Event,
        d: &Draft,
        last_note: Option<&Event>,
    ) -> Result<Option<String>, HostError> {
        // A note with this text published after the draft means an earlier run posted it and
        // stopped before marking the draft: mark it now instead of posting twice.
        let note = match last_note
            .filter(|n| n.content == d.content && n.created_at >= current.created_at)
        {
            Some(n) => n.clone(),
            None => {
                if let Some(why) = guard(me, link, setup, current, d).await? {
                    tracing::info!(agent = %me.name, draft = %current.id, "the guardian stopped a post: {why}");
                    return Ok(Some(why));
                }
                link.publish(&me.keys, EventBuilder::text_note(&d.content))
                    .await?
            }
        };
        hub.file(note.clone());
        let now = note.created_at.as_secs();
        let last_post = d
            .history
            .iter()
            .rev()
            .find(|h| h.status == DraftStatus::Posted)
            .map(|h| h.at);
        let mut history = d.history.clone();
        history.push(DraftHistory {
            content: d.content.clone(),
            status: DraftStatus::Posted,
            at: now,
        });
        if history.len() > MAX_DRAFT_HISTORY {
            let extra = history.len() - MAX_DRAFT_HISTORY;
            history.drain(..extra);
        }
        let posted = Draft {
            content: d.content.clone(),
            status: DraftStatus::Posted,
            created_at: d.created_at,
            posted_at: Some(now),
            note_id: Some(note.id.to_hex()),
            history,
        };
        let at = self.stamp();
        let event = link
            .publish(
                &me.keys,
                draft(&setup.profile.name, &posted).custom_created_at(Timestamp::from(at)),
            )
            .await?;
        hub.file(event);
        let topic = match &self.topic {
            Some((id, t)) if *id == current.id => t.clone(),
            _ => infer_topic(&setup.profile.interests, &d.content),
        };
        let hours = last_post.map_or(0.0, |t| {
            (now.saturating_sub(t)) as f64 * setup.clock.speed() / 3600.0
        });
        memory::after_post(&mut self.memory, &topic, &d.content, hours);
        self.save_memory(me, link, hub).await?;
        tracing::info!(agent = %me.name, note = %note.id, "posted");
        Ok(None)
    }

    pub(super) async fn save_memory(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
    ) -> Result<(), HostError> {
        let at = self.stamp();
        let builder = memory::seal(&me.keys, &me.name, &self.memory)?;
        let event = link
            .publish(&me.keys, builder.custom_created_at(Timestamp::from(at)))
            .await?;
        self.memory_id = Some(event.id);
        hub.file(event);
        Ok(())
    }
}

/// The guardian and the gate on posting `d`, recorded as one verdict event and one audit row;
/// `Some(reason)` when it must not be posted. The reviewer has approved the text, so the
/// proposal is the draft itself with full confidence: what can still stop it is what the
/// reviewer does not check (confidential matter, the owner's rules, the gate). A resident does
/// not trouble the owner about a post: CONFIRM, like BLOCK, means write another one.
async fn guard(
    me: &Identity,
    link: &Link,
    setup: &Setup,
    current: &Event,
    d: &Draft,
) -> Result<Option<String>, HostError> {
    let reasoning = format!(
        "the reviewer approved draft version {} and its posting time has come",
        current.id
    );
    let context = format!("approved draft {}", current.id);
    guard_text(me, link, setup, current.id, &d.content, reasoning, context).await
}

/// The guardian and the gate on posting `text` about `subject` (a draft version, or the note a
/// reply answers), recorded as one verdict event and one audit row; `Some(reason)` when it
/// must not be posted.
pub(super) async fn guard_text(
    me: &Identity,
    link: &Link,
    setup: &Setup,
    subject: EventId,
    text: &str,
    reasoning: String,
    context_summary: String,
) -> Result<Option<String>, HostError> {
    let started = Instant::now();
    let mut parameters = Map::new();
    parameters.insert("text".into(), json!(text));
    let thought = Thought::instant(
        "reviewed draft",
        Proposal::call(POST_NOTE, parameters, reasoning, 1.0),
    );
    let (verdict, access) = setup
        .guardian
        .decide(&thought, POST_NOTE, &me.keys.public_key());
    // The text is public already (a draft) or about to be judged: the verdict names the
    // subject, never the value.
    let shown = audit::withheld(&thought);
    let decision = audit::Decision {
        agent: &me.name,
        actor: me.keys.public_key(),
        subject,
        input: text.to_owned(),
        context_summary,
        thought: &shown,
        verdict: &verdict,
        access: access.as_ref(),
        final_response: verdict.reason.clone(),
        started,
    };
    match audit::record(link, &me.keys, &setup.minds.karma, decision).await {
        Ok(_) => {}
        // Without its verdict event the post would be unaccounted for: not now, later.
        Err(GuardError::Publish(e)) => return Err(e.into()),
        Err(e) => tracing::warn!(agent = %me.name, "audit: {e}"),
    }
    Ok(match verdict.action {
        GuardAction::Allow | GuardAction::Modify => None,
        GuardAction::Block | GuardAction::Confirm => Some(verdict.reason),
    })
}

/// The topic of a post this process did not write: the first interest it names, else its start.
fn infer_topic(interests: &[String], text: &str) -> String {
    interests
        .iter()
        .find(|i| text.contains(i.as_str()))
        .cloned()
        .unwrap_or_else(|| text.chars().take(12).collect())
}

//! Posting an approved draft and saving memory: the two writes after which the resident's
//! state on the relay must be consistent again (note, posted draft, memory).

use nostr::{Event, EventBuilder, Timestamp};
use soul_kinds::content::{draft, MAX_DRAFT_HISTORY};
use soul_kinds::{Draft, DraftHistory, DraftStatus};

use super::hub::Hub;
use super::step::Life;
use super::{memory, Setup};
use crate::host::Identity;
use crate::link::{Link, LinkError};

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
    ) -> Result<(), LinkError> {
        // A note with this text published after the draft means an earlier run posted it and
        // stopped before marking the draft: mark it now instead of posting twice.
        let note = match last_note
            .filter(|n| n.content == d.content && n.created_at >= current.created_at)
        {
            Some(n) => n.clone(),
            None => {
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
        Ok(())
    }

    pub(super) async fn save_memory(
        &mut self,
        me: &Identity,
        link: &Link,
        hub: &Hub,
    ) -> Result<(), LinkError> {
        let at = self.stamp();
        let builder = memory::seal(&me.keys, &me.name, &self.memory)
            .map_err(|e| LinkError::Sdk(format!("memory not sealed: {e}")))?;
        let event = link
            .publish(&me.keys, builder.custom_created_at(Timestamp::from(at)))
            .await?;
        self.memory_id = Some(event.id);
        hub.file(event);
        Ok(())
    }
}

/// The topic of a post this process did not write: the first interest it names, else its start.
fn infer_topic(interests: &[String], text: &str) -> String {
    interests
        .iter()
        .find(|i| text.contains(i.as_str()))
        .cloned()
        .unwrap_or_else(|| text.chars().take(12).collect())
}

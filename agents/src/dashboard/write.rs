//! The owner's hand on the page: every endpoint here signs an event as the owner, so each runs
//! only after [`super::access::check_write`] (the secret and the page's own origin).
//!
//! Input is hostile until checked: each body is parsed into a typed form, and each refusal names
//! the field and the reason.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use nostr::{EventBuilder, EventId, Filter, Keys, Tag};
use serde::Deserialize;
use soul_kinds::content::{confirming, owner_params, task};
use soul_kinds::tags::{e_marked, ROOT};
use soul_kinds::{BrainName, Params, Priority, SoulContent, SoulKind, Task};

use super::access::Refusal;
use super::Dashboard;

/// Longest comment the page may post (a kind-1 note, not an essay).
const MAX_COMMENT: usize = 2000;

fn refuse(status: StatusCode, why: impl Into<String>) -> Response {
    (status, why.into()).into_response()
}

fn owner(d: &Dashboard) -> Result<&Keys, Refusal> {
    d.owner.as_ref().ok_or_else(|| Refusal {
        status: StatusCode::CONFLICT,
        why: "the owner's key is not on this machine; publish from the owner's own client".into(),
    })
}

async fn publish(d: &Dashboard, keys: &Keys, builder: EventBuilder) -> Response {
    match d.link.publish(keys, builder).await {
        Ok(event) => Json(serde_json::json!({ "id": event.id.to_hex() })).into_response(),
        Err(e) => refuse(
            StatusCode::BAD_GATEWAY,
            format!("the relay did not take it: {e}"),
        ),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewTask {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    priority: Option<Priority>,
}

/// `POST /api/task`: a task for the brains.
pub(super) async fn submit_task(State(d): State<Dashboard>, Json(form): Json<NewTask>) -> Response {
    let keys = match owner(&d) {
        Ok(k) => k.clone(),
        Err(r) => return r.into_response(),
    };
    let content = Task {
        title: form.title.trim().to_string(),
        description: form.description.trim().to_string(),
        priority: form.priority.unwrap_or(Priority::Medium),
        task_type: "task".into(),
    };
    if let Err(e) = content.validate() {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{}: {}", e.field, e.reason),
        );
    }
    publish(&d, &keys, task(&content, None)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Confirmation {
    task: String,
}

/// `POST /api/confirm`: the owner confirms a task the brains refused on a doubt, publishing it
/// again tagged `confirms` (ARCHITECTURE.md, "the owner's word on a doubt"). The task must be the owner's and refused.
pub(super) async fn confirm(
    State(d): State<Dashboard>,
    Json(form): Json<Confirmation>,
) -> Response {
    let keys = match owner(&d) {
        Ok(k) => k.clone(),
        Err(r) => return r.into_response(),
    };
    let id = form.task.trim();
    let Some(brains) = d.roster.brains() else {
        return refuse(StatusCode::CONFLICT, "the town's roster has no brains");
    };
    match crate::cli::task::refused_task(&d.link, id, &keys.public_key(), &brains).await {
        Ok((refused, content)) => {
            tracing::info!(task = %refused, "the owner confirms a refused task from the dashboard");
            publish(&d, &keys, confirming(&content, refused)).await
        }
        Err(e) => refuse(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewParams {
    brain: String,
    params: Params,
}

/// `POST /api/params`: the owner's params for one brain (34360, `d` and `p` = the brain).
pub(super) async fn set_params(
    State(d): State<Dashboard>,
    Json(form): Json<NewParams>,
) -> Response {
    let keys = match owner(&d) {
        Ok(k) => k.clone(),
        Err(r) => return r.into_response(),
    };
    let Ok(brain) = form.brain.parse::<BrainName>() else {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "brain: {:?} is not panda, gorilla or triceratops",
                form.brain
            ),
        );
    };
    let Some(brains) = d.roster.brains() else {
        return refuse(StatusCode::CONFLICT, "the town's roster has no brains");
    };
    if let Err(e) = form.params.validate() {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{}: {}", e.field, e.reason),
        );
    }
    tracing::info!(brain = %brain, "the owner sets params from the dashboard");
    let builder = owner_params(brain.as_str(), brains.key(brain), &form.params);
    publish(&d, &keys, builder).await
}

/// `POST /api/evaluate`: an evaluation cycle now, as `soul evaluate` asks for one.
pub(super) async fn request_evaluation(State(d): State<Dashboard>) -> Response {
    let keys = match owner(&d) {
        Ok(k) => k.clone(),
        Err(r) => return r.into_response(),
    };
    let request = Task {
        title: "Evaluation cycle requested by the owner".into(),
        description: "Each brain scores the other two now (from the dashboard).".into(),
        priority: Priority::Low,
        task_type: "evaluation".into(),
    };
    publish(&d, &keys, task(&request, None)).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewComment {
    task: String,
    text: String,
}

/// `POST /api/comment`: the owner's comment on a debate, a kind-1 reply to the task (NIP-10:
/// `e` root = the task, `p` = its author). The task must be on the relay.
pub(super) async fn comment(State(d): State<Dashboard>, Json(form): Json<NewComment>) -> Response {
    let keys = match owner(&d) {
        Ok(k) => k.clone(),
        Err(r) => return r.into_response(),
    };
    let text = form.text.trim();
    if text.is_empty() || text.chars().count() > MAX_COMMENT {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("text: must be 1..={MAX_COMMENT} characters"),
        );
    }
    let Ok(id) = EventId::from_hex(form.task.trim()) else {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            "task: not an event id (64 hex characters)",
        );
    };
    let found = d
        .link
        .fetch(Filter::new().id(id).kind(SoulKind::Task.kind()))
        .await;
    let task = match found {
        Ok(events) => match events.into_iter().next() {
            Some(t) => t,
            None => {
                return refuse(
                    StatusCode::NOT_FOUND,
                    format!("task: the relay holds no task {id}"),
                )
            }
        },
        Err(e) => {
            return refuse(
                StatusCode::BAD_GATEWAY,
                format!("could not read the relay: {e}"),
            )
        }
    };
    let note = EventBuilder::text_note(text)
        .tag(e_marked(task.id, ROOT))
        .tag(Tag::public_key(task.pubkey));
    publish(&d, &keys, note).await
}

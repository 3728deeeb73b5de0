//! The dashboard at `http://127.0.0.1:3000` (`[dashboard] listen`): a page that reads the relay
//! live from the browser, over the same NIP-01 any client speaks, plus one endpoint that submits a
//! task as the owner — only to callers on this machine.
//!
//! The server holds no town state: the page subscribes to the relay itself, so what it shows is
//! exactly what the relay holds.

use std::future::Future;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use nostr::Keys;
use serde::{Deserialize, Serialize};
use soul_kinds::content::task;
use soul_kinds::{Priority, Roster, SoulContent, Task};
use tokio::net::TcpListener;

use crate::link::Link;

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

/// What the dashboard serves.
#[derive(Clone)]
pub struct Dashboard {
    /// Town name.
    pub town: String,
    /// The relay URL the browser connects to.
    pub relay_url: String,
    /// Who is who.
    pub roster: Roster,
    /// The owner's keys, for the task form; `None` when the owner key is not on this machine.
    pub owner: Option<Keys>,
    /// Where tasks are published.
    pub link: Link,
}

#[derive(Serialize)]
struct TownInfo {
    town: String,
    relay: String,
    owner: String,
    can_submit: bool,
    members: Vec<Member>,
}

#[derive(Serialize)]
struct Member {
    name: String,
    role: String,
    pubkey: String,
}

#[derive(Deserialize)]
struct NewTask {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    priority: Option<Priority>,
}

/// Serves the dashboard on `listener` until `shutdown`.
pub async fn serve(
    dashboard: Dashboard,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = Router::new()
        .route("/", get(|| async { Html(INDEX) }))
        .route(
            "/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    SCRIPT,
                )
            }),
        )
        .route(
            "/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE) }),
        )
        .route("/api/town", get(town_info))
        .route("/api/task", post(submit_task))
        .with_state(dashboard);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}

async fn town_info(State(d): State<Dashboard>) -> Json<TownInfo> {
    Json(TownInfo {
        town: d.town.clone(),
        relay: d.relay_url.clone(),
        owner: d.roster.owner.to_hex(),
        can_submit: d.owner.is_some(),
        members: d
            .roster
            .members
            .iter()
            .map(|m| Member {
                name: m.name.clone(),
                role: m.role.to_string(),
                pubkey: m.pubkey.to_hex(),
            })
            .collect(),
    })
}

async fn submit_task(
    State(d): State<Dashboard>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Json(form): Json<NewTask>,
) -> Response {
    if !peer.ip().is_loopback() {
        return (
            StatusCode::FORBIDDEN,
            "tasks are submitted as the owner only from this machine",
        )
            .into_response();
    }
    let Some(owner) = &d.owner else {
        return (
            StatusCode::CONFLICT,
            "the owner's key is not on this machine; publish the task from the owner's client",
        )
            .into_response();
    };
    let content = Task {
        title: form.title.trim().to_string(),
        description: form.description.trim().to_string(),
        priority: form.priority.unwrap_or(Priority::Medium),
        task_type: "task".into(),
    };
    if let Err(e) = content.validate() {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{}: {}", e.field, e.reason),
        )
            .into_response();
    }
    match d.link.publish(owner, task(&content, None)).await {
        Ok(event) => Json(serde_json::json!({ "id": event.id.to_hex() })).into_response(),
        Err(e) => (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

//! The dashboard at `http://127.0.0.1:3000` (`[dashboard] listen`): a page that reads the relay
//! live from the browser, over the same NIP-01 any client speaks, and the owner's control panel.
//!
//! The server holds no town state: the page subscribes to the relay itself, so what it shows is
//! exactly what the relay holds. The server answers only to its own names (`access.rs`), tells
//! the page who is who and the kind numbers (`read.rs`), and signs as the owner what the page
//! asks for — a task, a brain's params, an evaluation, a comment (`write.rs`) — only for a
//! request that carries the secret `soul up` printed and comes from the dashboard's own page.
//!
//! # Layout
//! - `access.rs`: the `Host` check, the secret and the `Origin` check.
//! - `read.rs`: `/api/town`, `/api/kinds`.
//! - `write.rs`: `/api/task`, `/api/params`, `/api/evaluate`, `/api/comment`, `/api/confirm`.
//! - `assets/`: the page (`index.html`, `app.js`, `style.css`), embedded in the binary.

mod access;
mod read;
mod write;

use std::future::Future;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use nostr::Keys;
use soul_kinds::Roster;
use tokio::net::TcpListener;

use soul_link::Link;

pub use access::{Hosts, Secret};

const INDEX: &str = include_str!("assets/index.html");
const SCRIPT: &str = include_str!("assets/app.js");
const STYLE: &str = include_str!("assets/style.css");

/// What the dashboard serves.
#[derive(Clone)]
pub struct Dashboard {
    /// Town name.
    pub town: String,
    /// The relay URL the agents use; the page reaches a relay on this machine at its own host.
    pub relay_url: String,
    /// Who is who.
    pub roster: Roster,
    /// The owner's keys, for the owner's hand; `None` when the owner key is not on this machine.
    pub owner: Option<Keys>,
    /// Where the owner's events are published.
    pub link: Link,
    /// The names the dashboard answers to.
    pub hosts: Hosts,
    /// What writing needs.
    pub secret: Secret,
}

async fn host_check(State(d): State<Dashboard>, request: Request, next: Next) -> Response {
    match access::check_host(&d.hosts, request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

async fn write_check(State(d): State<Dashboard>, request: Request, next: Next) -> Response {
    match access::check_write(&d.secret, request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refused) => refused.into_response(),
    }
}

/// Defence in depth for the page that holds the secret: no script but its own file (relay
/// content that slipped past escaping cannot run), no framing by another site (no clickjacking
/// of the owner's buttons), no Referer leaving it.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'; \
                   base-uri 'none'; form-action 'self'";

async fn security_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        header::HeaderValue::from_static("DENY"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Serves the dashboard on `listener` until `shutdown`.
pub async fn serve(
    dashboard: Dashboard,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let writes = Router::new()
        .route("/api/task", post(write::submit_task))
        .route("/api/params", post(write::set_params))
        .route("/api/evaluate", post(write::request_evaluation))
        .route("/api/comment", post(write::comment))
        .route("/api/confirm", post(write::confirm))
        .route_layer(middleware::from_fn_with_state(
            dashboard.clone(),
            write_check,
        ));
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
        .route("/api/town", get(read::town_info))
        .route("/api/kinds", get(read::kinds))
        .merge(writes)
        // Outermost, so that it also covers routes that do not exist.
        .layer(middleware::from_fn_with_state(
            dashboard.clone(),
            host_check,
        ))
        // Outside the Host check, so that its refusals carry the headers too.
        .layer(middleware::map_response(security_headers))
        .with_state(dashboard);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

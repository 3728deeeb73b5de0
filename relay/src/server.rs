//! HTTP front: one port serves WebSocket upgrades (the relay), NIP-11 documents, and a short page
//! for browsers.

use std::future::Future;
use std::net::SocketAddr;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::error::Error;
use crate::nip11;
use crate::relay::Relay;
use crate::session;

/// WebSocket read buffer per connection. tungstenite's default, 128 KiB, is zeroed on every poll
/// of the socket (once per live event a subscriber is sent) and is most of a connection's memory:
/// a profile of the fan-out bench put a fifth of the relay's CPU in that memset, and 1,000
/// connections held 125 MiB. A frame larger than this still arrives whole (the buffer grows to
/// the frame's length); only how much one read syscall takes in is bounded.
const READ_BUFFER_BYTES: usize = 8 * 1024;

#[derive(Clone)]
struct AppState {
    relay: Relay,
    shutdown: watch::Receiver<bool>,
}

/// Serves the relay on a bound `listener` until `shutdown` completes; open connections are
/// closed then. TCP_NODELAY is set on every connection: small frames such as EOSE and OK must
/// not wait for the peer's delayed ACK.
pub async fn serve(
    relay: Relay,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    let (stop_tx, stop_rx) = watch::channel(false);
    let app = Router::new().route("/", get(root)).with_state(AppState {
        relay,
        shutdown: stop_rx,
    });
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
    });
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        let _ = stop_tx.send(true);
    })
    .await
    .map_err(Error::Serve)
}

/// Binds `addr` (e.g. `127.0.0.1:7447`) with a message that says what to do when it is taken.
pub async fn bind(addr: &str) -> Result<TcpListener, Error> {
    TcpListener::bind(addr).await.map_err(|source| Error::Bind {
        addr: addr.to_string(),
        source,
    })
}

async fn root(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    let (mut parts, _body) = request.into_parts();
    let is_upgrade = parts
        .headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if is_upgrade {
        return match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
            Ok(ws) => {
                let max = state.relay.config().max_message_bytes;
                ws.max_message_size(max)
                    .max_frame_size(max)
                    .read_buffer_size(READ_BUFFER_BYTES)
                    .on_upgrade(move |socket| {
                        session::run(socket, state.relay, peer, state.shutdown)
                    })
            }
            Err(rejection) => rejection.into_response(),
        };
    }
    if wants_nip11(&parts.headers) {
        let doc = nip11::document(state.relay.config());
        return (
            [
                (header::CONTENT_TYPE, "application/nostr+json"),
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            ],
            doc.to_string(),
        )
            .into_response();
    }
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!(
            "{}: a soul town relay. Connect a Nostr client over WebSocket to this address.\n",
            state.relay.config().info.name
        ),
    )
        .into_response()
}

fn wants_nip11(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/nostr+json"))
}

//! One call to a model server, in its own protocol, and the retry policy around it.
//!
//! Two protocols: OpenAI-compatible (`POST {base}/chat/completions`, for a base ending in
//! `/v1`) and Ollama (`POST {base}/api/chat`). Both non-streaming: a cut answer shows as
//! `finish_reason: "length"` / `done_reason: "length"` (or `done: false`) and is refused, never
//! parsed (seed 003 §6.7.6).
//!
//! Each request carries the ask's JSON Schema (OpenAI-compatible `response_format:
//! {type: json_schema}`, Ollama `format: <schema>`) and its temperature. A server that refuses
//! the schema (400/422) is asked again for plain `json_object`, and is not offered a schema
//! again; the strict parse judges the answer either way.
//!
//! Retries (seed 003 §6.7): a time-out is retried at most twice, after a pause (5 s by default);
//! a 429 waits for `Retry-After` (60 s when absent, capped) up to three times; a 5xx, a
//! connection that failed or broke off, a cut answer or a garbled envelope is retried twice
//! with a doubling pause. Anything else (another 4xx) is final at once. The caller falls back
//! to the built-in mind.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use super::prompt::Message;

/// Which protocol a base URL speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `…/v1`: OpenAI-compatible.
    OpenAi,
    /// Anything else: Ollama.
    Ollama,
}

impl Api {
    /// The protocol for `base`.
    pub fn of(base: &str) -> Self {
        if base.trim_end_matches('/').ends_with("/v1") {
            Api::OpenAi
        } else {
            Api::Ollama
        }
    }

    /// The endpoint for `base`.
    pub fn endpoint(self, base: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            Api::OpenAi => format!("{base}/chat/completions"),
            Api::Ollama => format!("{base}/api/chat"),
        }
    }
}

/// Why a call gave no usable text. Recorded as the reason the built-in mind stood in; never
/// returned to a role. Sources are shared (`Arc`) so the retry loop can keep the last one.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    /// No answer within the time-out.
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// 429.
    #[error("rate limited (429)")]
    RateLimited(Option<Duration>),
    /// Could not connect, or the request could not be sent.
    #[error("cannot reach the model server at {url}: {source}")]
    Connect {
        /// The endpoint.
        url: String,
        /// What the HTTP client said.
        source: Arc<reqwest::Error>,
    },
    /// Another HTTP status.
    #[error("HTTP {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body the server sent with it.
        body: String,
    },
    /// The body broke off before it was whole.
    #[error("the answer broke off: {0}")]
    BrokeOff(Arc<reqwest::Error>),
    /// The server says it stopped before the end (a length limit): `finish_reason` or Ollama's
    /// `done`/`done_reason`, as it gave them.
    #[error("the answer was cut: {0}")]
    Cut(String),
    /// The envelope was not the protocol's JSON.
    #[error("not a {api:?} answer: {source}")]
    Protocol {
        /// The protocol expected.
        api: Api,
        /// What the parser said.
        source: Arc<serde_json::Error>,
    },
    /// The envelope parsed but held no answer.
    #[error("a {0:?} answer with no choices")]
    Empty(Api),
}

impl CallError {
    /// Whether trying again may help: the server or the path to it failed, not the request.
    fn is_transient(&self) -> bool {
        match self {
            CallError::Status { status, .. } => *status >= 500,
            CallError::Connect { .. }
            | CallError::BrokeOff(_)
            | CallError::Cut(_)
            | CallError::Protocol { .. }
            | CallError::Empty(_) => true,
            CallError::Timeout(_) | CallError::RateLimited(_) => false,
        }
    }
}

/// How the answer's shape is asked for.
#[derive(Debug, Clone, Copy)]
pub enum Format<'a> {
    /// A JSON Schema, under a name (OpenAI-compatible servers want one).
    Schema {
        /// The schema's name.
        name: &'a str,
        /// The schema.
        schema: &'a Value,
    },
    /// Any JSON object (for a server that refuses schemas).
    JsonObject,
}

/// One request: the messages, the shape asked for and the temperature.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The prompt.
    pub messages: &'a [Message],
    /// The answer's shape.
    pub format: Format<'a>,
    /// Sampling temperature.
    pub temperature: f64,
}

impl Request<'_> {
    fn body(&self, api: Api, model: &str) -> Value {
        let t = self.temperature;
        match (api, self.format) {
            (Api::OpenAi, Format::Schema { name, schema }) => json!({
                "model": model, "messages": self.messages, "temperature": t, "stream": false,
                "response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": false}},
            }),
            (Api::OpenAi, Format::JsonObject) => json!({
                "model": model, "messages": self.messages, "temperature": t, "stream": false,
                "response_format": {"type": "json_object"},
            }),
            (Api::Ollama, Format::Schema { schema, .. }) => json!({
                "model": model, "messages": self.messages, "stream": false, "format": schema,
                "options": {"temperature": t},
            }),
            (Api::Ollama, Format::JsonObject) => json!({
                "model": model, "messages": self.messages, "stream": false, "format": "json",
                "options": {"temperature": t},
            }),
        }
    }
}

/// The model's text and the tokens it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The message content.
    pub text: String,
    /// Prompt + completion tokens, as the server reports them (0 if it does not).
    pub tokens: u64,
}

#[derive(Deserialize)]
struct OpenAiReply {
    choices: Vec<OpenAiChoice>,
    #[serde(default)]
    usage: Option<OpenAiUsage>,
}
#[derive(Deserialize)]
struct OpenAiChoice {
    message: OpenAiMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}
#[derive(Deserialize)]
struct OpenAiMessage {
    #[serde(default)]
    content: Option<String>,
}
#[derive(Deserialize)]
struct OpenAiUsage {
    #[serde(default)]
    total_tokens: u64,
}

#[derive(Deserialize)]
struct OllamaReply {
    message: OpenAiMessage,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: u64,
    #[serde(default)]
    eval_count: u64,
}

/// One call, no retries.
pub async fn call_once(
    http: &reqwest::Client,
    base: &str,
    model: &str,
    request: &Request<'_>,
    timeout: Duration,
) -> Result<Reply, CallError> {
    let api = Api::of(base);
    let body = request.body(api, model);
    let url = api.endpoint(base);
    let send = async {
        let resp = http
            .post(&url)
            .json(&body)
            .send()
            .await
            .map_err(|e| CallError::Connect {
                url: url.clone(),
                source: Arc::new(e),
            })?;
        let status = resp.status();
        if status.as_u16() == 429 {
            let after = resp
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .map(Duration::from_secs_f64);
            return Err(CallError::RateLimited(after));
        }
        let text = resp
            .text()
            .await
            .map_err(|e| CallError::BrokeOff(Arc::new(e)))?;
        if !status.is_success() {
            return Err(CallError::Status {
                status: status.as_u16(),
                body: text.chars().take(200).collect(),
            });
        }
        Ok(text)
    };
    let raw = tokio::time::timeout(timeout, send)
        .await
        .map_err(|_| CallError::Timeout(timeout))??;
    match api {
        Api::OpenAi => {
            let r: OpenAiReply = serde_json::from_str(&raw).map_err(|e| CallError::Protocol {
                api,
                source: Arc::new(e),
            })?;
            let choice = r.choices.into_iter().next().ok_or(CallError::Empty(api))?;
            match choice.finish_reason.as_deref() {
                Some("stop") | None => {}
                Some(other) => return Err(CallError::Cut(format!("finish_reason {other}"))),
            }
            Ok(Reply {
                text: choice.message.content.unwrap_or_default(),
                tokens: r.usage.map_or(0, |u| u.total_tokens),
            })
        }
        Api::Ollama => {
            let r: OllamaReply = serde_json::from_str(&raw).map_err(|e| CallError::Protocol {
                api,
                source: Arc::new(e),
            })?;
            if !r.done || r.done_reason.as_deref().is_some_and(|d| d != "stop") {
                return Err(CallError::Cut(format!(
                    "done {} done_reason {:?}",
                    r.done, r.done_reason
                )));
            }
            Ok(Reply {
                text: r.message.content.unwrap_or_default(),
                tokens: r.prompt_eval_count + r.eval_count,
            })
        }
    }
}

/// The retry policy's knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Retry {
    /// Time-out of one attempt.
    pub timeout: Duration,
    /// Pause before retrying after a time-out.
    pub pause: Duration,
    /// Retries after time-outs.
    pub timeout_retries: u32,
    /// Waits after 429s.
    pub rate_limit_waits: u32,
    /// Longest wait after a 429.
    pub max_wait: Duration,
    /// Retries after a 5xx, a failed or broken connection, or a cut or garbled answer; the
    /// pause before each doubles from `pause`.
    pub error_retries: u32,
}

impl Default for Retry {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(60),
            pause: Duration::from_secs(5),
            timeout_retries: 2,
            rate_limit_waits: 3,
            max_wait: Duration::from_secs(120),
            error_retries: 2,
        }
    }
}

/// Calls with the retry policy; the last error when every attempt failed. `schemas` says
/// whether this server still takes JSON Schemas; it is cleared the first time it refuses one.
pub async fn call(
    http: &reqwest::Client,
    base: &str,
    model: &str,
    request: Request<'_>,
    retry: Retry,
    schemas: &AtomicBool,
) -> Result<Reply, CallError> {
    let (mut timeouts, mut limited, mut errors) = (0, 0, 0);
    let mut request = request;
    loop {
        if !schemas.load(Ordering::Relaxed) {
            request.format = Format::JsonObject;
        }
        match call_once(http, base, model, &request, retry.timeout).await {
            Err(CallError::Status { status, body })
                if matches!(status, 400 | 422)
                    && matches!(request.format, Format::Schema { .. }) =>
            {
                tracing::warn!(model, status, "the model server refuses JSON Schema output ({body}); asking it for json_object from now on");
                schemas.store(false, Ordering::Relaxed);
            }
            Err(CallError::Timeout(t)) if timeouts < retry.timeout_retries => {
                timeouts += 1;
                tracing::warn!(
                    model,
                    attempt = timeouts,
                    "model timed out after {t:?}; retrying"
                );
                tokio::time::sleep(retry.pause).await;
            }
            Err(CallError::RateLimited(after)) if limited < retry.rate_limit_waits => {
                limited += 1;
                let wait = after.unwrap_or(Duration::from_secs(60)).min(retry.max_wait);
                tracing::warn!(model, "model server says 429; waiting {wait:?}");
                tokio::time::sleep(wait).await;
            }
            Err(e) if e.is_transient() && errors < retry.error_retries => {
                let wait = retry.pause * 2u32.pow(errors);
                errors += 1;
                tracing::warn!(model, attempt = errors, "{e}; retrying in {wait:?}");
                tokio::time::sleep(wait).await;
            }
            other => return other,
        }
    }
}

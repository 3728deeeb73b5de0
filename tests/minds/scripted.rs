//! A model server in its own process, speaking the OpenAI protocol (`POST …/v1/chat/completions`)
//! and Ollama's (`POST /api/chat`) with scripted answers. It stands for a real model server
//! (llama.cpp, vLLM, Ollama, OpenAI): what it returns is scripted so that each test can make it
//! answer well, badly, slowly or with 429, and it logs every request body it receives so the
//! test can assert what the mind sent.
//!
//! The process is this test binary run again with `SOUL_SCRIPTED_LLM` set (see [`serve`]); HTTP
//! is spoken by hand over a TCP socket, one request per connection.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One scripted reply.
pub fn reply(content: &str) -> Value {
    json!({"status": 200, "content": content, "finish_reason": "stop", "tokens": 100})
}

/// A running scripted server, killed on drop.
pub struct Scripted {
    child: Child,
    /// Base URL ending in `/v1`.
    pub url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Scripted {
    /// Starts a server with `rules`: `[{"match": "substring of the request body", "replies":
    /// [reply, …]}]`; the first matching rule answers, its replies in turn, the last repeating.
    pub fn start(rules: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("script.json");
        let log = dir.path().join("requests.jsonl");
        std::fs::write(&script, rules.to_string()).unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "minds::scripted::serve",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("SOUL_SCRIPTED_LLM", &script)
            .env("SOUL_SCRIPTED_LLM_LOG", &log)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the scripted model server");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // libtest prints "test NAME ... " before the server's own line.
                if let Some((_, u)) = line.split_once("scripted-llm listening on ") {
                    let _ = tx.send(u.trim().to_owned());
                }
            }
        });
        let Ok(url) = rx.recv_timeout(std::time::Duration::from_secs(30)) else {
            let _ = child.kill();
            panic!("the scripted model server did not print its address within 30 s");
        };
        Self {
            child,
            url,
            log,
            _dir: dir,
        }
    }

    /// The Ollama base URL of the same server.
    pub fn ollama_url(&self) -> String {
        self.url.trim_end_matches("/v1").to_owned()
    }

    /// Every request received so far: (path, body). The server may be writing a line as we
    /// read, so only newline-terminated lines count: a half-written one is read next time.
    pub fn requests(&self) -> Vec<(String, Value)> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let complete = text.rfind('\n').map_or("", |end| &text[..end]);
        complete
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["path"].as_str().unwrap().to_owned(), v["body"].clone())
            })
            .collect()
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The server's body: runs only in the child process (`SOUL_SCRIPTED_LLM` set).
#[test]
#[ignore = "the scripted model server; started by the minds tests as its own process"]
fn serve() {
    let Ok(script) = std::env::var("SOUL_SCRIPTED_LLM") else {
        return;
    };
    let log = PathBuf::from(std::env::var("SOUL_SCRIPTED_LLM_LOG").unwrap());
    let rules: Value = serde_json::from_str(&std::fs::read_to_string(script).unwrap()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!(
            "scripted-llm listening on http://{}/v1",
            listener.local_addr().unwrap()
        );
        let state = std::sync::Arc::new(std::sync::Mutex::new((rules, Vec::<usize>::new(), log)));
        loop {
            let (mut sock, _) = listener.accept().await.unwrap();
            let state = state.clone();
            tokio::spawn(async move {
                let Some((path, body)) = read_request(&mut sock).await else {
                    return;
                };
                let reply = {
                    let mut s = state.lock().unwrap();
                    let (rules, used, log) = &mut *s;
                    append(log, &path, &body);
                    pick(rules, used, &body.to_string())
                };
                let delay = reply["delay_ms"].as_u64().unwrap_or(0);
                tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
                let _ = sock.write_all(render(&path, &reply).as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
}

async fn read_request(sock: &mut tokio::net::TcpStream) -> Option<(String, Value)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head.split_whitespace().nth(1)?.to_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().ok())
        })
        .flatten()
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    Some((path, body))
}

fn append(log: &Path, path: &str, body: &Value) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    // One write per line: a formatted writeln! may reach the file in pieces.
    let line = format!("{}\n", json!({"path": path, "body": body}));
    f.write_all(line.as_bytes()).unwrap();
}

fn pick(rules: &Value, used: &mut Vec<usize>, body: &str) -> Value {
    let rules = rules.as_array().unwrap();
    used.resize(rules.len(), 0);
    for (i, rule) in rules.iter().enumerate() {
        let m = rule["match"].as_str().unwrap_or("");
        if body.contains(m) {
            let replies = rule["replies"].as_array().unwrap();
            let r = replies[used[i].min(replies.len() - 1)].clone();
            used[i] += 1;
            return r;
        }
    }
    json!({"status": 404, "content": "no scripted rule matches"})
}

fn render(path: &str, r: &Value) -> String {
    let status = r["status"].as_u64().unwrap_or(200);
    let content = r["content"].as_str().unwrap_or("");
    let finish = r["finish_reason"].as_str().unwrap_or("stop");
    let tokens = r["tokens"].as_u64().unwrap_or(0);
    let body = if status != 200 {
        json!({"error": {"message": content}})
    } else if path.ends_with("/api/chat") {
        json!({"model": "scripted", "message": {"role": "assistant", "content": content},
               "done": finish == "stop", "done_reason": finish,
               "prompt_eval_count": tokens / 2, "eval_count": tokens - tokens / 2})
    } else {
        json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "scripted",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
               "usage": {"total_tokens": tokens}})
    }
    .to_string();
    let reason = match status {
        200 => "OK",
        429 => "Too Many Requests",
        _ => "Error",
    };
    let retry = r["retry_after"]
        .as_u64()
        .map(|s| format!("Retry-After: {s}\r\n"))
        .unwrap_or_default();
    format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n{body}",
        body.len()
    )
}

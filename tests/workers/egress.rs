//! Network by allowlist, never the host (issue 13 item 1), through real DMs to a real
//! executor running real bubblewrap and curl. A networked run reaches a web server in a
//! network namespace this test builds (veth, 198.18.0.0/15, python3's http.server), over plain
//! http and through a CONNECT tunnel, and nothing else: not the relay or the dashboard on
//! 127.0.0.1, not this machine's other addresses, not the veth's host side, not cloud metadata,
//! not a host off its list, and not the server itself when curl ignores the proxy. Each
//! refusal names why in the run's reply. Needs root, iproute2 and python3 (`.ci/run`).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use super::phone::*;
use crate::util::*;

const POLICY: &str = "allow_commands: [curl]
folders:
  - {path: net, access: ReadWrite, network: Allow}
  - {path: work, access: ReadWrite, network: Deny}
";

/// A web server in a network namespace of its own, reached over a veth pair: the one host a
/// run may reach that is neither loopback nor private. Removed on drop.
struct TestNet {
    ns: String,
    host_veth: String,
    /// The veth's side on this machine (a host address: refused).
    host_ip: String,
    /// The server's side.
    server_ip: String,
    server: Child,
    _root: tempfile::TempDir,
}

/// Runs `ip ARGS`, failing the test with its message.
fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().unwrap_or_else(|e| {
        panic!("`ip` (iproute2) is needed for this test; `.ci/run` installs it: {e}")
    });
    assert!(
        out.status.success(),
        "ip {}: {} (this test must run as root to make a network namespace)",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl TestNet {
    fn new(token: &str) -> Self {
        let pid = std::process::id();
        let taken = Command::new("ip")
            .args(["-o", "-4", "addr"])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        // A /30 of 198.18.0.0/15 that no interface uses yet, picked by pid.
        let (third, fourth) = (0..16_384u32)
            .map(|i| (pid + i) % 16_384)
            .map(|n| ((n * 4) / 256, (n * 4) % 256))
            .find(|(a, b)| {
                !taken.contains(&format!("198.{}.{}.{} ", 18 + a / 256, a % 256, b))
                    && !taken.contains(&format!("198.{}.{}.{}/", 18 + a / 256, a % 256, b + 1))
            })
            .expect("a free /30");
        let net = |host: u32| format!("198.{}.{}.{}", 18 + third / 256, third % 256, fourth + host);
        let (host_ip, server_ip) = (net(1), net(2));
        let ns = format!("soul-eg-{pid}");
        let host_veth = format!("seg{pid}h");
        let peer = format!("seg{pid}s");
        ip(&["netns", "add", &ns]);
        let made = TestNet {
            ns: ns.clone(),
            host_veth: host_veth.clone(),
            host_ip: host_ip.clone(),
            server_ip: server_ip.clone(),
            server: Command::new("true").spawn().unwrap(),
            _root: tempfile::tempdir().unwrap(),
        };
        ip(&[
            "link", "add", &host_veth, "type", "veth", "peer", "name", &peer,
        ]);
        ip(&["link", "set", &peer, "netns", &ns]);
        ip(&["addr", "add", &format!("{host_ip}/30"), "dev", &host_veth]);
        ip(&["link", "set", &host_veth, "up"]);
        ip(&[
            "netns",
            "exec",
            &ns,
            "ip",
            "addr",
            "add",
            &format!("{server_ip}/30"),
            "dev",
            &peer,
        ]);
        ip(&["netns", "exec", &ns, "ip", "link", "set", &peer, "up"]);
        ip(&["netns", "exec", &ns, "ip", "link", "set", "lo", "up"]);
        std::fs::write(made._root.path().join("token.txt"), token).unwrap();
        let mut server = Command::new("ip")
            .args([
                "netns",
                "exec",
                &ns,
                "python3",
                "-u",
                "-m",
                "http.server",
                "8080",
                "--bind",
                &server_ip,
                "--directory",
            ])
            .arg(made._root.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 is needed for this test's web server; `.ci/run` installs it");
        // Ready when it says so (python3 prints the line once it listens).
        let stdout = server.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line.contains("Serving HTTP") {
                    let _ = tx.send(());
                }
            }
        });
        let mut made = made;
        made.server = server;
        rx.recv_timeout(PATIENCE)
            .expect("python3's http.server did not start in the test namespace");
        made
    }
}

impl Drop for TestNet {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).status();
        let _ = Command::new("ip")
            .args(["link", "del", &self.host_veth])
            .status();
    }
}

/// This machine's global IPv4 addresses other than the test's own veth.
fn host_addresses(except: &str) -> Vec<String> {
    let out = Command::new("ip")
        .args(["-o", "-4", "addr", "show", "scope", "global"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3))
        .filter_map(|a| a.split('/').next())
        .filter(|a| *a != except)
        .map(str::to_string)
        .collect()
}

fn skill(town: &TestTown, name: &str, workdir: &str, network: &[String], command: &str) {
    let hosts: Vec<String> = network.iter().map(|h| format!("'{h}'")).collect();
    let yaml = format!(
        "name: {name}\ndescription: test skill {name}\nworkdir: {workdir}\nparameters:\n  - {{name: url, type: string, required: true}}\nnetwork: [{}]\ncommand: {command}\n",
        hosts.join(", ")
    );
    std::fs::write(town.dir.join("skills").join(format!("{name}.yaml")), yaml).unwrap();
}

fn run(skill: &str, url: &str) -> serde_json::Value {
    serde_json::json!({"command": "run", "skill": skill, "args": {"url": url}})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_networked_run_reaches_its_allowlist_and_never_the_host() {
    if Command::new("bwrap").arg("--version").output().is_err() {
        panic!("bubblewrap is not installed: `.ci/run` installs it (apt-get install bubblewrap)");
    }
    let token = format!("egress-token-{}", std::process::id());
    let net = TestNet::new(&token);
    let town = TestTown::new();
    for d in ["net", "work"] {
        std::fs::create_dir_all(town.dir.join(d)).unwrap();
    }
    std::fs::write(town.dir.join("skills/_policy.yaml"), POLICY).unwrap();
    // Town time at 10×: the owner's answer to each of the guardian's questions has 60 s of
    // real time (CONFIRM_TTL in town time). At 60× it had 10 s, and on a loaded 2-core box
    // the answer once came after the question had lapsed, which read as a refusal.
    let up = town.up(&["--speed", "10"]);
    let relay = up
        .url
        .trim_start_matches("ws://")
        .trim_end_matches('/')
        .to_string();
    let relay_port = relay.rsplit(':').next().unwrap().to_string();
    let dashboard = up.dashboard.clone().expect("soul up names its dashboard");
    // `http://HOST:PORT/#token=…`: the host and port only.
    let dashboard = dashboard
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let server = format!("{}:8080", net.server_ip);
    let others = host_addresses(&net.host_ip);
    // The allowlist names everything the run will try: the proxy must refuse all but the
    // server whatever the list says.
    let mut allow = vec![
        server.clone(),
        relay.clone(),
        dashboard.clone(),
        format!("localhost:{relay_port}"),
        format!("[::1]:{relay_port}"),
        format!("[::ffff:127.0.0.1]:{relay_port}"),
        format!("{}:8080", net.host_ip),
        "169.254.169.254:80".into(),
    ];
    allow.extend(others.iter().map(|a| format!("{a}:{relay_port}")));
    let curl = "curl -sS --fail --max-time 20 {{url}}";
    skill(&town, "reach", "net", &allow, curl);
    skill(
        &town,
        "tunnel",
        "net",
        &allow,
        "curl -sS --fail --max-time 20 --proxytunnel {{url}}",
    );
    skill(
        &town,
        "direct",
        "net",
        &allow,
        "curl -sS --fail --max-time 5 --noproxy * {{url}}",
    );
    skill(&town, "offline", "net", &[], curl);
    skill(
        &town,
        "denied_folder",
        "work",
        std::slice::from_ref(&server),
        curl,
    );

    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    let file = format!("http://{server}/token.txt");

    // The allowed host, over plain http and through a CONNECT tunnel.
    for s in ["reach", "tunnel"] {
        let r = owner.ask_json_agreeing(executor, run(s, &file)).await;
        assert_eq!(r["result"]["exit_code"], 0, "{s}: {r}");
        assert_eq!(r["result"]["output"], token.as_str(), "{s}: {r}");
    }

    // Everything else, each refused by the proxy with its reason in the reply.
    let mut refused = vec![
        (format!("http://{relay}/"), "loopback"),
        (format!("http://{dashboard}/"), "loopback"),
        (format!("http://localhost:{relay_port}/"), "loopback"),
        (format!("http://[::1]:{relay_port}/"), "loopback"),
        (
            format!("http://[::ffff:127.0.0.1]:{relay_port}/"),
            "loopback",
        ),
        (
            format!("http://{}:8080/token.txt", net.host_ip),
            "an address of this machine",
        ),
        (
            "http://169.254.169.254/latest/meta-data/".to_string(),
            "link-local",
        ),
        (
            format!("http://{}:8081/token.txt", net.server_ip),
            "not on this skill's network allowlist",
        ),
        (
            "https://example.com/".to_string(),
            "not on this skill's network allowlist",
        ),
    ];
    for a in &others {
        refused.push((format!("http://{a}:{relay_port}/"), "this machine"));
    }
    for (url, why) in &refused {
        for s in ["reach", "tunnel"] {
            let r = owner.ask_json_agreeing(executor, run(s, url)).await;
            assert_ne!(r["result"]["exit_code"], 0, "{s} {url} was reached: {r}");
            let error = r["result"]["error"].as_str().unwrap_or_default();
            assert!(
                error.contains("soul egress refused") && error.contains(why),
                "{s} {url}: expected a refusal saying {why:?}: {r}"
            );
            assert!(!r["result"]["output"].to_string().contains(&token), "{r}");
        }
    }

    // The namespace is empty: a program that ignores the proxy reaches nothing, not even the
    // allowed server; a skill without hosts has no proxy at all.
    let r = owner
        .ask_json_agreeing(executor, run("direct", &file))
        .await;
    assert_eq!(
        r["result"]["exit_code"], 7,
        "curl cannot connect without the proxy: {r}"
    );
    let r = owner
        .ask_json_agreeing(executor, run("offline", &file))
        .await;
    assert_eq!(r["result"]["exit_code"], 7, "no hosts, no network: {r}");
    let r = owner
        .ask_json(executor, run("offline", &format!("http://{relay}/")))
        .await;
    assert_eq!(r["result"]["exit_code"], 7, "no hosts, no relay: {r}");

    // Hosts in a folder whose policy denies the network: refused before anything runs.
    let r = owner
        .ask_json_agreeing(executor, run("denied_folder", &file))
        .await;
    assert!(r["result"]["exit_code"].is_null(), "{r}");
    let error = r["result"]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("network: Deny") && error.contains("skills/_policy.yaml"),
        "{r}"
    );
}

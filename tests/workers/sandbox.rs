//! The executor's sandbox, through real DMs to a real executor running bubblewrap: writes
//! outside a ReadWrite folder fail, a Deny folder shows nothing, the network is unreachable where
//! the policy denies it (and reachable where it allows it), and `sleep 60` is killed at 30 s.
//! The time-out leads to the executor's suggestion, which triceratops turns into a low-priority
//! task; a second suggestion within the hour is refused.

use std::time::Duration;

use nostr_sdk::prelude::*;
use soul_kinds::content::suggestion;
use soul_kinds::{parse, AuditVerdict, GuardAction, Priority, SoulKind, Suggestion, Task};

use super::phone::*;
use crate::util::*;

const POLICY: &str = "allow_commands: [touch, cat, curl, sleep]
folders:
  - {path: work, access: ReadWrite, network: Deny}
  - {path: work/secret, access: Deny}
  - {path: docs, access: ReadOnly}
  - {path: net, access: ReadWrite, network: Allow}
";

fn skill(town: &TestTown, name: &str, workdir: &str, params: &str, command: &str) {
    let yaml = format!(
        "name: {name}\ndescription: test skill {name}\nworkdir: {workdir}\nparameters:\n{params}\ncommand: {command}\n"
    );
    std::fs::write(town.dir.join("skills").join(format!("{name}.yaml")), yaml).unwrap();
}

fn run(skill: &str, args: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"command": "run", "skill": skill, "args": args})
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_enforces_folder_policies_and_time_outs() {
    if std::process::Command::new("bwrap")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("bubblewrap is not installed: `.ci/run` installs it (apt-get install bubblewrap)");
    }
    let town = TestTown::new();
    for d in ["work/secret", "docs", "net"] {
        std::fs::create_dir_all(town.dir.join(d)).unwrap();
    }
    std::fs::write(town.dir.join("work/secret/plan.txt"), "TOP SECRET").unwrap();
    std::fs::write(town.dir.join("work/visible.txt"), "hello").unwrap();
    std::fs::write(town.dir.join("skills/_policy.yaml"), POLICY).unwrap();
    let file = "  - {name: file, type: string, required: true}";
    skill(&town, "write", "work", file, "touch {{file}}");
    skill(&town, "look", "work", file, "cat {{file}}");
    let url = "  - {name: url, type: string, required: true}";
    skill(
        &town,
        "probe",
        "work",
        url,
        "curl -sS -o /dev/null --max-time 5 {{url}}",
    );
    skill(
        &town,
        "probe_net",
        "net",
        url,
        "curl -sS -o /dev/null --max-time 5 {{url}}",
    );
    let secs = "  - {name: seconds, type: integer, required: true}";
    skill(&town, "wait", "work", secs, "sleep {{seconds}}");

    let up = town.up(&["--speed", "60"]);
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    // The long run first: other runs go on while it sleeps.
    let (_, wait_id) = owner
        .send(
            executor,
            &run("wait", serde_json::json!({"seconds": 60})).to_string(),
        )
        .await;

    let ok = owner
        .ask_json(
            executor,
            run("write", serde_json::json!({"file": "inside.txt"})),
        )
        .await;
    assert_eq!(ok["result"]["exit_code"], 0, "{ok}");
    assert!(town.dir.join("work/inside.txt").exists());
    for outside in ["../docs/x.txt", "../outside.txt"] {
        let r = owner
            .ask_json(executor, run("write", serde_json::json!({"file": outside})))
            .await;
        assert_ne!(r["result"]["exit_code"], 0, "{outside}: {r}");
        assert!(
            !town.dir.join("work").join(outside).exists(),
            "{outside} written"
        );
    }

    let seen = owner
        .ask_json(
            executor,
            run("look", serde_json::json!({"file": "visible.txt"})),
        )
        .await;
    assert_eq!(seen["result"]["output"], "hello", "{seen}");
    let denied = owner
        .ask_json(
            executor,
            run("look", serde_json::json!({"file": "secret/plan.txt"})),
        )
        .await;
    assert_ne!(denied["result"]["exit_code"], 0, "{denied}");
    assert!(!denied.to_string().contains("TOP SECRET"), "{denied}");
    let keys = owner
        .ask_json(
            executor,
            run("look", serde_json::json!({"file": "../keys/owner.nsec"})),
        )
        .await;
    assert!(!keys.to_string().contains("nsec1"), "{keys}");

    // The relay listens on the host's loopback: the sandbox without network cannot reach it.
    let http = up.url.replacen("ws://", "http://", 1);
    let off = owner
        .ask_json(executor, run("probe", serde_json::json!({"url": http})))
        .await;
    assert_eq!(off["result"]["exit_code"], 7, "curl cannot connect: {off}");
    let on = owner
        .ask_json(executor, run("probe_net", serde_json::json!({"url": http})))
        .await;
    assert_eq!(
        on["result"]["exit_code"], 0,
        "network Allow reaches it: {on}"
    );

    let slept: serde_json::Value =
        serde_json::from_str(&owner.reply(executor, wait_id).await).unwrap();
    let r = &slept["result"];
    assert_eq!(r["timed_out"], true, "{slept}");
    assert!(r["exit_code"].is_null(), "{slept}");
    let ms = r["elapsed_ms"].as_u64().unwrap();
    assert!(
        (30_000..60_000).contains(&ms),
        "killed at the 30 s run time-out, not {ms} ms"
    );

    // The time-out made the executor suggest; triceratops relays it as a low-priority task.
    let c = &owner.client;
    let first = wait_for(
        c,
        Filter::new()
            .kind(SoulKind::Suggestion.kind())
            .author(executor),
        1,
    )
    .await;
    let first = first.first().expect("the executor's suggestion").clone();
    let tasks = wait_for(
        c,
        Filter::new().kind(SoulKind::Task.kind()).event(first.id),
        1,
    )
    .await;
    let t = parse::<Task>(tasks.first().unwrap()).unwrap();
    assert_eq!(
        (t.priority, t.task_type.as_str()),
        (Priority::Low, "suggestion")
    );

    // A second suggestion within the hour (signed by the executor's key directly, as a worker
    // that ignores its own limit would) is refused by triceratops and never becomes a task.
    let again = Suggestion {
        title: "Another idea".into(),
        description: String::new(),
    };
    let second = suggestion(&again)
        .sign_with_keys(&town.keys("executor"))
        .unwrap();
    send(c, &second).await.unwrap();
    let triceratops = town.keys("triceratops").public_key();
    let verdicts = wait_for(
        c,
        Filter::new()
            .kind(SoulKind::Verdict.kind())
            .author(triceratops)
            .event(second.id),
        1,
    )
    .await;
    let v = verdicts
        .iter()
        .filter_map(|e| parse::<AuditVerdict>(e).ok())
        .find(|v| v.check == "suggestion_rate")
        .expect("triceratops judged the second suggestion");
    assert_eq!(v.action, GuardAction::Block, "{}", v.reason);
    assert!(v.reason.contains("per hour"), "{}", v.reason);
    let relayed = c
        .fetch_events(
            Filter::new().kind(SoulKind::Task.kind()).event(second.id),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(relayed.is_empty(), "a refused suggestion is no task");
}

/// Without bubblewrap the executor runs nothing and says why.
#[tokio::test(flavor = "multi_thread")]
async fn without_bubblewrap_nothing_runs() {
    let town = TestTown::new();
    let mut cmd = soul();
    cmd.arg("up")
        .arg("--town")
        .arg(&town.dir)
        .args(["--speed", "60"])
        .env("SOUL_BWRAP", town.dir.join("no-such-bwrap"));
    let up = Running::start(cmd, "is up: relay ");
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    let r = owner
        .ask_json(executor, run("list", serde_json::json!({})))
        .await;
    assert_eq!(r["ok"], false, "{r}");
    assert!(r["result"]["exit_code"].is_null(), "{r}");
    let error = r["result"]["error"].as_str().unwrap();
    assert!(
        error.contains("bubblewrap (`bwrap`) is not installed"),
        "{error}"
    );
}

/// The executor suggests after a time-out, but at most once per rolling hour, counted from
/// the relay.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_suggests_at_most_once_an_hour() {
    let town = TestTown::new();
    let secs = "  - {name: seconds, type: integer, required: true}";
    skill(&town, "wait", "workspace", secs, "sleep {{seconds}}");
    let up = town.up(&["--speed", "60"]);
    let executor = town.keys("executor").public_key();
    let owner = Phone::new(&up.url, &town.keys("owner")).await;
    let r = owner
        .ask(executor, "adjust_params run_timeout_secs=1")
        .await;
    assert!(r.contains("params adjusted"), "{r}");
    let mine = Filter::new()
        .kind(SoulKind::Suggestion.kind())
        .author(executor);
    let first = owner
        .ask_json(executor, run("wait", serde_json::json!({"seconds": 5})))
        .await;
    assert_eq!(first["result"]["timed_out"], true, "{first}");
    let suggestions = wait_for(&owner.client, mine.clone(), 1).await;
    assert_eq!(suggestions.len(), 1);
    let again = owner
        .ask_json(executor, run("wait", serde_json::json!({"seconds": 5})))
        .await;
    assert_eq!(again["result"]["timed_out"], true, "{again}");
    wait_log(&up, &["suggestion held back", "one per hour"]);
    let after = owner
        .client
        .fetch_events(mine, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        after.len(),
        1,
        "the second time-out made no second suggestion"
    );
}

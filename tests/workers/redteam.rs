//! The sandbox's red-team table (issues 13 and 20), each row tried through the owner's NIP-17
//! `run` command against a real executor running real bubblewrap: the host's environment,
//! `/etc/shadow`, the town's keys (by `..`, `/proc/self/cwd` and a planted symlink), rewriting
//! `_policy.yaml`, a fork bomb, writing past a folder's size, denied extensions, executing from a
//! no-execute folder, a networked run reading another folder, curl option injection,
//! `file://` URLs, a Deny folder that does not exist yet, declared folders, and a policy that
//! names the town itself.

use nostr_sdk::prelude::*;

use super::phone::*;
use crate::util::*;

const POLICY: &str = "allow_commands: [cat, touch, sh, curl]
folders:
  - {path: work, access: ReadWrite, denied_extensions: [nsec], max_file_size: 1000}
  - {path: work/private, access: Deny}
  - {path: net, access: ReadWrite, network: Allow}
";

/// Stands for a model API key in the owner's shell.
const TOKEN: &str = "tok-7f3a9c51e2";

fn skill(town: &TestTown, name: &str, workdir: &str, extra: &str, params: &str, command: &str) {
    let yaml = format!(
        "name: {name}\ndescription: red team {name}\nworkdir: {workdir}\n{extra}parameters:\n{params}\ncommand: {command}\n"
    );
    std::fs::write(town.dir.join("skills").join(format!("{name}.yaml")), yaml).unwrap();
}

fn run(skill: &str, args: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"command": "run", "skill": skill, "args": args})
}

struct Red {
    owner: Phone,
    executor: PublicKey,
}

impl Red {
    async fn sh(&self, skill: &str, script: &str) -> serde_json::Value {
        let r = self
            .owner
            .ask_json(
                self.executor,
                run(skill, serde_json::json!({ "script": script })),
            )
            .await;
        assert!(r["result"].is_object(), "{r}");
        r
    }
    async fn call(&self, skill: &str, args: serde_json::Value) -> serde_json::Value {
        self.owner.ask_json(self.executor, run(skill, args)).await
    }
}

fn output(r: &serde_json::Value) -> String {
    format!("{}\n{}", r["result"]["output"], r["result"]["error"])
}

#[tokio::test(flavor = "multi_thread")]
async fn the_red_team_table_holds() {
    if std::process::Command::new("bwrap")
        .arg("--version")
        .output()
        .is_err()
    {
        panic!("bubblewrap is not installed: `.ci/run` installs it (apt-get install bubblewrap)");
    }
    let town = TestTown::new();
    for d in ["work", "net"] {
        std::fs::create_dir_all(town.dir.join(d)).unwrap();
    }
    std::fs::write(town.dir.join("work/visible.txt"), "hello-visible").unwrap();
    std::fs::write(town.dir.join("work/old.nsec"), "nsec1plantedbytheowner").unwrap();
    std::fs::write(town.dir.join("net/data.txt"), "net-data").unwrap();
    std::fs::write(town.dir.join("skills/_policy.yaml"), POLICY).unwrap();
    let key_file = town.key_path("owner");
    let key_text = std::fs::read_to_string(&key_file).unwrap();
    std::os::unix::fs::symlink(&key_file, town.dir.join("work/link_key")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", town.dir.join("work/link_shadow")).unwrap();
    let script = "  - {name: script, type: string, required: true}";
    let file = "  - {name: file, type: string, required: true}";
    skill(&town, "shell", "work", "", script, "sh -c {{script}}");
    skill(&town, "netshell", "net", "", script, "sh -c {{script}}");
    skill(
        &town,
        "reader",
        "work",
        "folders: [{path: net, access: ReadOnly}]\n",
        script,
        "sh -c {{script}}",
    );
    skill(&town, "look", "work", "", file, "cat {{file}}");
    skill(&town, "make", "work", "", file, "touch {{file}}");
    skill(
        &town,
        "get",
        "net",
        "",
        "  - {name: url, type: url, required: true}\n  - {name: out, type: string, default: a.bin}",
        "curl --proto =http,https -sS -o {{out}} {{url}}",
    );

    let mut cmd = soul();
    cmd.env("SOUL_REDTEAM_TOKEN", TOKEN)
        .arg("up")
        .arg("--town")
        .arg(&town.dir)
        .args(["--speed", "60"]);
    let _up = Running::start(cmd, "is up: relay ");
    let url = _up.url.clone();
    let red = Red {
        owner: Phone::new(&url, &town.keys("owner")).await,
        executor: town.keys("executor").public_key(),
    };

    // The host's environment: pid 1, every process, the command's own.
    let r = red
        .sh(
            "shell",
            "cat /proc/1/environ /proc/*/environ; env; echo done",
        )
        .await;
    assert!(output(&r).contains("done"), "{r}");
    assert!(
        !output(&r).contains(TOKEN),
        "the host's environment leaked: {r}"
    );

    // /etc/shadow and the town's keys, by every path we know.
    for script in [
        "cat /etc/shadow",
        "cat link_shadow",
        "cat link_key",
        "cat ../keys/*",
        "cat /proc/self/cwd/../keys/*",
        "cat /proc/1/cwd/../keys/* /proc/1/root/etc/shadow",
        "ls -la .. /proc/self/cwd/.. ../keys; cat ../town.toml",
    ] {
        let r = red.sh("shell", script).await;
        let o = output(&r);
        assert!(
            !o.contains("nsec1") && !o.contains(key_text.trim()) && !o.contains("root:"),
            "{script}: {r}"
        );
        let listed = r["result"]["output"].to_string();
        assert!(
            !listed.contains("town.toml") && !listed.contains("[relay]"),
            "{script}: {r}"
        );
    }

    // The run cannot rewrite its own leash.
    let before = std::fs::read_to_string(town.dir.join("skills/_policy.yaml")).unwrap();
    red.sh(
        "shell",
        "echo 'allow_commands: [bash]' > ../skills/_policy.yaml; echo x > /proc/self/cwd/../skills/_policy.yaml",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(town.dir.join("skills/_policy.yaml")).unwrap(),
        before
    );

    // Writing past the folder's size (1000 bytes) is cut at the size.
    red.sh("shell", "head -c 50000 /dev/zero > big.bin").await;
    let big = std::fs::metadata(town.dir.join("work/big.bin"))
        .unwrap()
        .len();
    assert!(big <= 1000, "{big} bytes written into a 1000-byte folder");

    // Denied extensions: refused by name, covered when present, removed when made.
    let r = red
        .call("make", serde_json::json!({"file": "x.nsec"}))
        .await;
    assert!(output(&r).contains(".nsec"), "{r}");
    assert!(!town.dir.join("work/x.nsec").exists());
    let r = red
        .sh(
            "shell",
            "cat old.nsec; cat ./*; echo hi > made.nsec; echo end",
        )
        .await;
    assert!(!output(&r).contains("nsec1planted"), "{r}");
    assert!(output(&r).contains("removed work/made.nsec"), "{r}");
    assert!(!town.dir.join("work/made.nsec").exists());
    assert!(
        town.dir.join("work/old.nsec").exists(),
        "the owner's own file stays"
    );
    let r = red
        .call(
            "look",
            serde_json::json!({"file": "/proc/self/cwd/old.nsec"}),
        )
        .await;
    assert!(!output(&r).contains("nsec1planted"), "{r}");

    // A file written into a no-execute folder cannot run.
    let r = red
        .sh(
            "shell",
            "cat /usr/bin/true > t; chmod +x t; ./t; echo rc=$?",
        )
        .await;
    assert!(output(&r).contains("rc=126"), "{r}");

    // A Deny folder that did not exist is covered all the same.
    red.sh("shell", "mkdir -p private; echo x > private/a")
        .await;
    assert!(!town.dir.join("work/private/a").exists());

    // A networked run does not see another folder.
    let abs = town.dir.join("work/visible.txt");
    let r = red
        .sh(
            "netshell",
            &format!("cat ../work/visible.txt {}; ls ..", abs.display()),
        )
        .await;
    assert!(!output(&r).contains("hello-visible"), "{r}");
    // A declared folder is seen, with the stricter access.
    let r = red
        .sh(
            "reader",
            "cat ../net/data.txt; echo x > ../net/new.txt; echo rc=$?",
        )
        .await;
    assert!(output(&r).contains("net-data"), "{r}");
    assert!(!town.dir.join("net/new.txt").exists());

    // curl: options and other schemes stay out.
    for (args, why) in [
        (serde_json::json!({"url": "-K/etc/passwd"}), "is not a url"),
        (
            serde_json::json!({"url": "file:///proc/1/environ"}),
            "is not a url",
        ),
        (
            serde_json::json!({"url": "http://127.0.0.1:1/", "out": "--config"}),
            "starts with `-`",
        ),
    ] {
        let r = red.call("get", args.clone()).await;
        assert!(output(&r).contains(why), "{args}: {r}");
        assert!(r["result"]["exit_code"].is_null(), "never ran: {r}");
    }

    // A fork bomb stops at the process limit (64).
    let r = red
        .sh(
            "shell",
            "i=0; while [ $i -lt 200 ]; do sleep 3 & i=$((i+1)); done; echo started=$i",
        )
        .await;
    assert!(!output(&r).contains("started=200"), "{r}");

    // Memory: a 1.1 GiB buffer is past the 1 GiB address space of a run.
    let r = red
        .sh(
            "shell",
            "dd bs=1100M count=1 if=/dev/zero of=/dev/null; echo rc=$?",
        )
        .await;
    assert!(
        output(&r).contains("memory exhausted") && output(&r).contains("rc=1"),
        "{r}"
    );

    // A policy that shows the town itself is refused with a reason.
    std::fs::write(
        town.dir.join("skills/_policy.yaml"),
        "allow_commands: [cat]\nfolders:\n  - {path: '.', access: ReadOnly}\n",
    )
    .unwrap();
    let r = red
        .call("look", serde_json::json!({"file": "town.toml"}))
        .await;
    assert!(output(&r).contains("is the town folder"), "{r}");
}

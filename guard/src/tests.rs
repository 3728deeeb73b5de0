//! The guardian as a table (seed 003's constitution cases included), and the gate.

use nostr::Keys;
use serde_json::{json, Map, Value};
use soul_kinds::{GuardAction, Role, Roster, RosterMember};

use super::*;
use soul_proposal::{Proposal, Shape, ToolCall};

const NOW: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

fn tool(name: &str, params: Value, reasoning: &str, confidence: f64) -> Proposal {
    let parameters: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
    Proposal {
        shape: Shape::Tool(vec![ToolCall {
            tool: name.into(),
            parameters,
        }]),
        reasoning: reasoning.into(),
        confidence,
        confirmation_question: None,
    }
}

fn text(t: &str, reasoning: &str, confidence: f64) -> Proposal {
    Proposal {
        shape: Shape::Text(t.into()),
        reasoning: reasoning.into(),
        confidence,
        confirmation_question: None,
    }
}

const WHY: &str = "the owner asked for this and two brains approved it";

#[test]
fn guardian_table() {
    use GuardAction::*;
    let rules = GuardRules::load(None).unwrap();
    #[rustfmt::skip]
    let table: Vec<(&str, Proposal, GuardAction, Check, bool)> = vec![
        // Seed 003 §4.8.3: a salary request is refused ...
        ("salary", tool("view_salary_info", json!({"target": "tanaka"}), "the user wants to know Tanaka's salary", 0.95), Block, Check::Dangerous, false),
        ("給与", text("田中さんの給与は…", "田中さんの給与を知りたいという意図と理解した", 0.9), Block, Check::Security, false),
        // ... "send to everyone" asks, twice ...
        ("send to all", tool("send_to_all", json!({"message": "meeting at 3"}), "the owner wants everyone to get the message", 0.9), Confirm, Check::Dangerous, true),
        ("recipients all", tool("send_message", json!({"recipients": "everyone", "message": "hi"}), WHY, 0.9), Confirm, Check::Parameters, true),
        // ... missing reasoning is blocked.
        ("no reasoning", tool("record_plan", json!({}), "", 0.99), Block, Check::Constitution, false),
        ("short reasoning", tool("record_plan", json!({}), "because", 0.99), Block, Check::Constitution, false),
        ("decides permission", tool("record_plan", json!({}), "the owner is authorized to see everything so I proceed", 0.9), Block, Check::Constitution, false),
        ("権限判定", text("どうぞ", "この人は権限があるので見せてよいと判断した", 0.9), Block, Check::Constitution, false),
        ("NG words", text("you idiot", WHY, 0.9), Block, Check::Security, false),
        ("key in text", text("here: nsec1qqqq", WHY, 0.9), Block, Check::Security, false),
        ("critical op", tool("change_permission", json!({"who": "x"}), WHY, 0.99), Block, Check::Dangerous, false),
        ("high op", tool("delete_memory", json!({"id": 3}), WHY, 0.99), Confirm, Check::Dangerous, true),
        ("medium op", tool("delete_task", json!({"id": 3}), WHY, 0.99), Confirm, Check::Dangerous, false),
        ("owner rule confirm", tool("purchase", json!({"item": "tent"}), WHY, 0.95), Confirm, Check::OwnerRules, false),
        ("owner rule block", tool("send_external", json!({"to": "x"}), WHY, 0.95), Block, Check::OwnerRules, false),
        ("confidence 0.2", tool("record_plan", json!({}), WHY, 0.2), Block, Check::Confidence, false),
        ("confidence 0.4", tool("record_plan", json!({}), WHY, 0.4), Confirm, Check::Confidence, false),
        ("confidence 0.6", tool("record_plan", json!({}), WHY, 0.6), Confirm, Check::Confidence, false),
        ("confidence 0.7", tool("record_plan", json!({}), WHY, 0.7), Allow, Check::Pass, false),
        ("amount 50k", tool("send_message", json!({"amount": 50000}), WHY, 0.9), Allow, Check::Pass, false),
        ("amount 200k", tool("send_message", json!({"amount": "200,000"}), WHY, 0.9), Confirm, Check::Parameters, false),
        ("amount 2M", tool("send_message", json!({"amount": 2000000}), WHY, 0.9), Confirm, Check::Parameters, true),
        ("3 recipients", tool("send_message", json!({"recipients": ["a", "b", "c"]}), WHY, 0.9), Confirm, Check::Parameters, false),
        ("remove 2", tool("remove_items", json!({"ids": [1, 2]}), WHY, 0.9), Confirm, Check::Parameters, true),
        ("past date", tool("record_plan", json!({"due": "2025-06-01"}), WHY, 0.9), Confirm, Check::Parameters, false),
        ("far date", tool("record_plan", json!({"due": "2031-06-01"}), WHY, 0.9), Confirm, Check::Parameters, false),
        ("bad date", tool("record_plan", json!({"due": "someday"}), WHY, 0.9), Confirm, Check::Consistency, false),
        ("good date", tool("record_plan", json!({"due": "2026-02-01"}), WHY, 0.9), Allow, Check::Pass, false),
        ("fixable", tool("send_message", json!({"recipients": ["a", "a"], "priority": "High"}), WHY, 0.9), Modify, Check::Consistency, false),
        ("clarify at low confidence", Proposal { shape: Shape::Clarify { question: "Which photos?".into(), options: vec![] }, reasoning: WHY.into(), confidence: 0.2, confirmation_question: None }, Confirm, Check::Clarification, false),
        // Issue 13: the mind's own wish to confirm counts at any confidence ...
        ("mind asks at 0.95", Proposal { confirmation_question: Some("Only the 2025 photos?".into()), ..tool("record_plan", json!({}), WHY, 0.95) }, Confirm, Check::Confidence, false),
        // ... and an ordinary word is not a disclosure or a grant: a task about a password
        // reminder may run, a post may say a place is reachable from the station ...
        ("password reminder task", tool("record_plan", json!({}), "The brains approved \"Set up a password reminder for the family\"", 0.9), Allow, Check::Pass, false),
        ("駅からアクセスできる", tool("post_note", json!({"text": "カフェは駅からアクセスできるよ"}), "the reviewer approved this draft and its time has come", 1.0), Allow, Check::Pass, false),
        // ... while a password that would go out, or a salary in a reply, is still stopped.
        ("password sent", tool("send_message", json!({"text": "the wifi password is hunter2"}), WHY, 0.9), Block, Check::Security, false),
        ("plain reply", text("The backup is done.", WHY, 0.8), Allow, Check::Pass, false),
    ];
    for (name, proposal, action, check, double) in table {
        let v = judge(&proposal, &rules, NOW);
        assert_eq!(
            (v.action, v.check, v.double),
            (action, check, double),
            "{name}: {v:?}"
        );
        if action == Confirm {
            assert!(
                v.question.as_deref().is_some_and(|q| !q.is_empty()),
                "{name}: a CONFIRM asks something"
            );
        }
        assert!(!v.reason.is_empty(), "{name}: a verdict says why");
    }
    // The first failing check decides: a dangerous op with no reasoning is a constitution block.
    let v = judge(&tool("send_to_all", json!({}), "", 0.9), &rules, NOW);
    assert_eq!(v.check, Check::Constitution);
    // MODIFY carries the corrected call.
    let v = judge(
        &tool("send_message", json!({"recipients": ["a", "a"]}), WHY, 0.9),
        &rules,
        NOW,
    );
    assert_eq!(
        v.modified.unwrap()[0].parameters["recipients"],
        json!(["a"])
    );
}

#[test]
fn gate_levels_from_roster_and_rules() {
    let owner = Keys::generate().public_key();
    let brain = Keys::generate().public_key();
    let resident = Keys::generate().public_key();
    let stranger = Keys::generate().public_key();
    let roster = Roster::new(
        "t",
        owner,
        vec![
            RosterMember {
                pubkey: brain,
                name: "triceratops".into(),
                role: Role::Brain,
            },
            RosterMember {
                pubkey: resident,
                name: "hana".into(),
                role: Role::Resident,
            },
        ],
    );
    let gate = Gate::new(AuthRules::load(None).unwrap(), roster);
    assert!(gate.check(&brain, "execute_decision").allowed());
    assert!(gate.check(&resident, "post_note").allowed());
    assert!(!gate.check(&resident, "execute_decision").allowed());
    assert!(gate.check(&owner, "send_to_all").allowed());
    assert!(!gate.check(&brain, "send_to_all").allowed());
    // Seed 003 §4.8.3: a salary request is denied — for everyone, the owner included.
    assert!(!gate.check(&owner, "view_salary_info").allowed());
    assert!(!gate.check(&brain, "view_salary_info").allowed());
    // Whatever the gate cannot place is denied.
    assert!(!gate.check(&stranger, "post_note").allowed());
    let unknown = gate.check(&owner, "launch_rocket");
    assert!(
        matches!(&unknown, Access::Denied(why) if why.contains("authorization.yaml")),
        "{unknown:?}"
    );
}

#[test]
fn an_unclear_answer_is_a_no() {
    for yes in ["yes", "Yes abc123", "はい", "ok, go", "yes!"] {
        assert_eq!(read_answer(yes), Answer::Yes, "{yes}");
    }
    for no in [
        "no",
        "maybe",
        "",
        "yes?",
        "hmm yes",
        "いいえ",
        "what is this",
    ] {
        assert_eq!(read_answer(no), Answer::No, "{no}");
    }
}

#[test]
fn shipped_rules_load_and_bad_ones_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    std::fs::write(dir.path().join("rules/guardian.yaml"), "constitution: 3\n").unwrap();
    let e = GuardRules::load(Some(dir.path())).unwrap_err();
    let crate::GuardError::Rules { file, .. } = &e else {
        panic!("not a rules error: {e}");
    };
    assert!(file.ends_with("rules/guardian.yaml"), "{e}");
    assert!(
        AuthRules::load(Some(dir.path())).is_ok(),
        "absent files fall back to the shipped ones"
    );
}

fn facts(risk: Option<Risk>, performs: Option<&str>, effects: Vec<Effect>) -> Facts {
    Facts {
        risk,
        performs: performs.map(str::to_owned),
        effects,
    }
}

/// What a call does weighs more than its name: a skill's declared risk, the action it
/// performs and its values' effects put it in the dangerous bands.
#[test]
fn facts_table() {
    use GuardAction::*;
    let rules = GuardRules::load(None).unwrap();
    let outside = Effect::Outside {
        param: "out".into(),
        resolved: "/town/workspace/notes.txt".into(),
    };
    let overwrites = Effect::Overwrites {
        param: "out".into(),
        resolved: "/town/workspace/notes.txt".into(),
    };
    #[rustfmt::skip]
    let table: Vec<(&str, Facts, GuardAction, Check, bool)> = vec![
        ("risk none", facts(Some(Risk::None), None, vec![]), Allow, Check::Pass, false),
        ("risk medium", facts(Some(Risk::Medium), None, vec![]), Confirm, Check::Dangerous, false),
        ("risk high", facts(Some(Risk::High), None, vec![]), Confirm, Check::Dangerous, true),
        ("risk critical", facts(Some(Risk::Critical), None, vec![]), Block, Check::Dangerous, false),
        ("performs delete_files", facts(Some(Risk::None), Some("delete_files"), vec![]), Confirm, Check::Dangerous, true),
        ("performs view_salary_info", facts(None, Some("view_salary_info"), vec![]), Block, Check::Dangerous, false),
        ("performs purchase: owner rule", facts(None, Some("purchase"), vec![]), Confirm, Check::OwnerRules, false),
        ("writes outside", facts(Some(Risk::None), None, vec![outside.clone()]), Confirm, Check::Dangerous, false),
        ("outside and overwrites", facts(Some(Risk::Medium), None, vec![outside.clone(), overwrites.clone()]), Confirm, Check::Dangerous, false),
        ("deletes", facts(None, None, vec![Effect::Deletes { param: "file".into() }]), Confirm, Check::Dangerous, true),
        ("the strongest wins", facts(Some(Risk::Critical), Some("delete_files"), vec![outside.clone()]), Block, Check::Dangerous, false),
    ];
    for (name, f, action, check, double) in table {
        let p = tool(
            "fetch",
            json!({"url": "https://example.org/x", "out": "../workspace/notes.txt"}),
            WHY,
            1.0,
        );
        let v = judge_with(&p, &f, &rules, NOW);
        assert_eq!(
            (v.action, v.check, v.double),
            (action, check, double),
            "{name}: {v:?}"
        );
        // The public reason names what the call does, never the values behind it.
        assert!(
            !v.reason.contains("notes.txt") && !v.reason.contains("example.org"),
            "{name}: {}",
            v.reason
        );
    }
    let v = judge_with(
        &tool("fetch", json!({"out": "../workspace/notes.txt"}), WHY, 1.0),
        &facts(Some(Risk::Medium), None, vec![outside, overwrites]),
        &rules,
        NOW,
    );
    assert!(
        v.reason.contains("outside the skill's folder") && v.reason.contains("overwrite"),
        "{}",
        v.reason
    );
    assert!(
        v.detail
            .as_deref()
            .is_some_and(|d| d.contains("/town/workspace/notes.txt")),
        "{v:?}"
    );
    assert!(
        v.question
            .as_deref()
            .is_some_and(|q| q.contains("../workspace/notes.txt")),
        "{v:?}"
    );
}

/// Issue 20: a public verdict never quotes an amount, a date or a matched secret; the audit
/// row's reason (with its detail) keeps them.
#[test]
fn public_reasons_carry_no_values() {
    let rules = GuardRules::load(None).unwrap();
    for (p, secret) in [
        (
            tool("transfer", json!({"amount": 2345678}), WHY, 0.9),
            "2345678",
        ),
        (
            tool("transfer", json!({"amount": "234,567"}), WHY, 0.9),
            "234567",
        ),
        (
            tool("record_plan", json!({"due": "2019-03-04"}), WHY, 0.9),
            "2019-03-04",
        ),
        (
            tool("record_plan", json!({"due": "next blue moon"}), WHY, 0.9),
            "blue moon",
        ),
        (tool("run", json!({"file": "nsec1abc"}), WHY, 0.9), "nsec1"),
        (text("you idiot", WHY, 0.9), "idiot"),
    ] {
        let v = judge(&p, &rules, NOW);
        assert!(
            !v.reason.contains(secret),
            "public reason leaks {secret}: {}",
            v.reason
        );
        assert!(
            v.full_reason().contains(secret),
            "the audit keeps {secret}: {v:?}"
        );
    }
}

#[test]
fn weighing_finds_what_a_call_does() {
    use std::collections::BTreeMap;
    let wd = std::path::Path::new("/town/downloads");
    let named = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let fetch = Some("curl -sS --fail -o {{out}} {{url}}");
    let exists = |p: &std::path::Path| p == std::path::Path::new("/town/workspace/notes.txt");
    // Issue 20's probe: out=../workspace/notes.txt points outside and overwrites.
    let e = effects::weigh(
        fetch,
        wd,
        &named(&[("out", "../workspace/notes.txt")]),
        &[],
        true,
        exists,
    );
    assert!(
        matches!(&e[..], [Effect::Outside { param, .. }, Effect::Overwrites { .. }] if param == "out"),
        "{e:?}"
    );
    // A plain fetch into its own folder: only the host it reaches.
    let e = effects::weigh(
        fetch,
        wd,
        &named(&[("out", "page.html"), ("url", "https://example.org/")]),
        &[],
        true,
        exists,
    );
    assert_eq!(
        e,
        vec![Effect::Reaches {
            param: "url".into(),
            host: "example.org".into()
        }]
    );
    // Other aliases of outside: absolute, home, a detour through a subfolder.
    for v in [
        "/etc/passwd",
        "~/.ssh/id_ed25519",
        "sub/../../workspace/x",
        "./../x",
    ] {
        let e = effects::weigh(
            Some("cat {{file}}"),
            wd,
            &named(&[("file", v)]),
            &[],
            true,
            |_| false,
        );
        assert!(matches!(&e[..], [Effect::Outside { .. }]), "{v}: {e:?}");
    }
    // Inside stays quiet, whatever the spelling.
    for v in [".", "a/b/../c.txt", "./x"] {
        let e = effects::weigh(
            Some("ls -la {{path}}"),
            wd,
            &named(&[("path", v)]),
            &[],
            true,
            |_| true,
        );
        assert!(e.is_empty(), "{v}: {e:?}");
    }
    // A deleting program deletes what it is given; cp writes its last argument.
    let e = effects::weigh(
        Some("rm -f {{file}}"),
        wd,
        &named(&[("file", "old.txt")]),
        &[],
        true,
        |_| false,
    );
    assert_eq!(
        e,
        vec![Effect::Deletes {
            param: "file".into()
        }]
    );
    let e = effects::weigh(
        Some("cp {{from}} {{to}}"),
        wd,
        &named(&[("from", "a"), ("to", "b")]),
        &[],
        true,
        |p| p.ends_with("b"),
    );
    assert!(
        matches!(&e[..], [Effect::Overwrites { param, .. }] if param == "to"),
        "{e:?}"
    );
}

#[test]
fn a_double_confirmation_has_two_codes() {
    let subject = "0123456789abcdef0123456789abcdef";
    let first = confirm::code_for(subject);
    let second = ask::second_code(subject);
    assert_eq!(first, "012345");
    assert_ne!(first, second);
    assert_eq!(second.len(), 6);
    // A subject that repeats itself still gets a second code of its own.
    assert_ne!(ask::second_code("aaaaaaaaaaaaaaaaaaaa"), "aaaaaa");
}

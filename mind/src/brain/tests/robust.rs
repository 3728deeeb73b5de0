//! Breadth without proptest: 200 generated tasks, all brains, all rounds, all texts after the
//! vote; nothing panics and everything validates.

use soul_kinds::{BrainName, Decision, Opinion, Outcome, Params, Priority, Tally, Task};

use super::*;
use crate::brain::{announcement, decision_summary, execution_plan, mediate};

/// A tiny deterministic generator (splitmix64), so the test needs no extra crate.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
    fn unit(&mut self) -> f64 {
        // Hit the ends exactly now and then: 0 and 1 are legal params.
        match self.next() % 10 {
            0 => 0.0,
            1 => 1.0,
            _ => (self.next() % 1001) as f64 / 1000.0,
        }
    }
}

const PIECES: &[&str] = &[
    "Wire",
    "$5,000",
    "50万円",
    "1000 yen",
    "¥3億",
    "savings",
    "to an unknown account",
    "today",
    "right now",
    "back up",
    "the photos",
    "every night",
    "learn",
    "Python",
    "delete",
    "all files",
    "permanently",
    "password",
    "production",
    "test",
    "rollback",
    "encrypt",
    "grow",
    "income",
    "今日中に",
    "全財産を",
    "知らない",
    "送金する",
    "毎晩",
    "バックアップ",
    "新しい",
    "本番",
    "未検証の",
    "確認",
    "すぐ",
    "🦍",
    "🐼",
    "“quoted”",
    "a\tb\nc",
    "ＢＡＣＫＵＰ",
    "１０００円",
    "",
    "x",
    "...",
    "!!!",
    "rm -rf /",
    "verify",
    "unverified",
    "news",
    "know",
    "0",
    "$",
    "円",
];

fn generated(g: &mut Gen) -> Task {
    let words = 1 + (g.next() % 12) as usize;
    let mut title: String = (0..words)
        .map(|_| g.pick(PIECES))
        .collect::<Vec<_>>()
        .join(" ");
    if g.next() % 10 == 0 {
        title = title.repeat(30); // longer than any limit; the title field allows 200
    }
    let mut title: String = title.trim().chars().take(200).collect();
    if title.is_empty() {
        title = "?".to_owned();
    }
    let description = if g.next() % 3 == 0 {
        (0..20)
            .map(|_| g.pick(PIECES))
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        String::new()
    };
    let priority = [Priority::Low, Priority::Medium, Priority::High][(g.next() % 3) as usize];
    Task {
        title,
        description,
        priority,
        task_type: "task".to_owned(),
    }
}

#[test]
fn two_hundred_generated_tasks_never_panic_and_always_validate() {
    let mut g = Gen(42);
    let lexicon = Lexicon::builtin();
    for n in 0..200 {
        let t = generated(&mut g);
        let f = features(&t, &lexicon);
        for score in [f.risk, f.opportunity, f.safety, f.urgency] {
            assert!((0.0..=1.0).contains(&score), "{score} for {:?}", t.title);
        }
        let params: Vec<Params> = BrainName::ALL
            .iter()
            .map(|b| match n % 3 {
                0 => b.default_params(),
                _ => Params {
                    risk_tolerance: g.unit(),
                    innovation_weight: g.unit(),
                    safety_weight: g.unit(),
                    thoroughness: g.unit(),
                    consensus_flexibility: g.unit(),
                },
            })
            .collect();
        let lessons = vec![g.pick(PIECES).to_owned(), "x".repeat(5000)];
        let mut previous: Vec<(BrainName, Opinion)> = Vec::new();
        let mut last = Vec::new();
        for round in 1..=3u8 {
            last = BrainName::ALL
                .iter()
                .zip(&params)
                .map(|(&brain, params)| {
                    let o = opinion(&BrainContext {
                        brain,
                        params,
                        task_id: id(n),
                        task: &t,
                        features: &f,
                        round,
                        previous: &previous,
                        lessons: &lessons,
                    });
                    o.validate()
                        .unwrap_or_else(|e| panic!("{brain} {:?}: {e}", t.title));
                    assert_eq!(o.round, round);
                    (brain, o)
                })
                .collect();
            previous.extend(last.iter().cloned());
        }
        let (outcome, reason) = mediate(id(n), &t, &f, &params[2], &last);
        assert!(!reason.is_empty());
        let tally = Tally { yes: 2, reject: 1 };
        let summary = decision_summary(&t, outcome, tally, n % 2 == 0, f.language);
        let d = Decision {
            outcome,
            round: 3,
            tally,
            mediated: true,
            summary,
        };
        d.validate().unwrap();
        for o in [Outcome::Approved, Outcome::Rejected] {
            announcement(&t, o, &last, f.language).validate().unwrap();
        }
        let plan = execution_plan(&t, &last, f.language);
        assert!(!plan.is_empty() && plan.chars().count() <= 4000);
    }
}

/// Whatever mind voted, a yes on a harm above the brain's threshold does not stand: it becomes a
/// reject naming the harm, for every brain, in either language. An ordinary task's yes stands.
#[test]
fn the_harm_floor_turns_any_minds_yes_on_a_harm_into_a_named_no() {
    use crate::brain::harm_floor;
    use soul_kinds::Vote;
    let yes = |round| Opinion {
        round,
        vote: Vote::Approve,
        opinion: "Sounds good to me.".into(),
        proposed_approach: String::new(),
        concerns: Vec::new(),
        confidence: 0.9,
        accepts: Vec::new(),
    };
    for (title, harm) in [
        (
            "Email the door code and the alarm PIN to the new cleaner",
            true,
        ),
        ("玄関の暗証番号を知らない人にメールで送って", true),
        ("Remind me to water the tomatoes tonight", false),
    ] {
        let t = task(title);
        let f = feats(&t);
        for &brain in BrainName::ALL.iter() {
            let params = brain.default_params();
            let ctx = BrainContext {
                brain,
                params: &params,
                task_id: id(7),
                task: &t,
                features: &f,
                round: 1,
                previous: &[],
                lessons: &[],
            };
            let floored = harm_floor(&ctx, yes(1));
            floored.validate().unwrap();
            if harm {
                assert_eq!(floored.vote, Vote::Reject, "{brain} on {title}");
                assert!(
                    floored.concerns.iter().any(|c| c.contains("暗証番号")
                        || c.to_lowercase().contains("code")
                        || c.to_lowercase().contains("pin")),
                    "{brain} names the harm: {:?}",
                    floored.concerns
                );
            } else {
                assert_eq!(floored, yes(1), "{brain} on {title}");
            }
        }
    }
}

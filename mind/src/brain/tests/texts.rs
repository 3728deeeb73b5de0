//! The words: determinism, variety, citing what the task contains, each brain's voice, and the
//! texts after the vote.

use soul_kinds::{Announcement, BrainName, Decision, Outcome, Tally, Vote};

use super::*;
use crate::brain::{announcement, decision_summary, execution_plan, mediate, Language};

const SAVINGS: &str = "Wire all our savings to an unknown account today";
const BACKUP_JA: &str = "毎晩、家族の写真を外付けディスクにバックアップする";

#[test]
fn same_inputs_give_identical_opinions() {
    for title in [SAVINGS, BACKUP_JA, "Learn to bake bread"] {
        assert_eq!(round1(&task(title), id(9)), round1(&task(title), id(9)));
    }
}

#[test]
fn different_tasks_read_differently() {
    for (i, &brain) in BrainName::ALL.iter().enumerate() {
        let mut openings = std::collections::HashSet::new();
        for n in 0..40 {
            let o = &round1(&task("Learn to bake bread"), id(n))[i].1;
            openings.insert(o.opinion.split(['.', '!', ':']).next().unwrap().to_owned());
        }
        assert!(openings.len() >= 2, "{brain} always opens the same way");
    }
}

#[test]
fn opinions_cite_the_terms_found_and_concerns_are_specific() {
    let t = task(SAVINGS);
    let f = feats(&t);
    assert_eq!(f.risk_terms, ["wire", "all our", "savings", "unknown"]);
    for (brain, o) in round1(&t, id(2)) {
        assert!(o.opinion.contains("\"savings\""), "{brain}: {}", o.opinion);
        assert!(o
            .concerns
            .iter()
            .any(|c| c.contains("unknown") && c.contains("verified")));
        assert!(
            o.concerns.iter().any(|c| c.contains("today")),
            "{brain}: {:?}",
            o.concerns
        );
        // A no says what would make the task acceptable, step by step.
        assert!(
            o.proposed_approach
                .contains("1. send a small test amount first"),
            "{brain}"
        );
    }
}

#[test]
fn each_brain_speaks_in_its_own_voice() {
    let titles = [
        SAVINGS,
        "Learn to bake bread",
        "Try the new experimental database in production",
    ];
    for n in 0..10 {
        for title in titles {
            let opinions = round1(&task(title), id(n));
            let panda = &opinions[0].1.opinion;
            assert!(!panda.contains('!'), "panda does not shout: {panda}");
            assert!(panda.contains(" I "), "{panda}");
        }
    }
    let exclaims = (0..10)
        .filter(|&n| {
            round1(&task("Learn to bake bread"), id(n))[1]
                .1
                .opinion
                .contains('!')
        })
        .count();
    assert!(exclaims >= 8, "gorilla is energetic");
    for (brain, o) in round1(&task(BACKUP_JA), id(4)) {
        assert_eq!(Language::detect(&o.opinion), Language::Ja);
        assert!(o.opinion.contains("バックアップ"), "{brain}: {}", o.opinion);
        if brain == BrainName::Panda {
            assert!(
                o.opinion.contains("ます") || o.opinion.contains("です"),
                "{}",
                o.opinion
            );
        }
    }
}

#[test]
fn a_relevant_lesson_is_cited() {
    let t = task(SAVINGS);
    let f = feats(&t);
    let p = BrainName::Panda.default_params();
    let lessons = vec![
        "Bread needs time to rise".to_owned(),
        "Never wire money before a second check".to_owned(),
    ];
    let o = opinion(&BrainContext {
        brain: BrainName::Panda,
        params: &p,
        task_id: id(1),
        task: &t,
        features: &f,
        round: 1,
        previous: &[],
        lessons: &lessons,
    });
    assert!(
        o.opinion.contains("Never wire money before a second check"),
        "{}",
        o.opinion
    );
    assert!(!o.opinion.contains("Bread"));
}

#[test]
fn confidence_reflects_the_score_and_thoroughness() {
    let sure = round1(&task(SAVINGS), id(1));
    let torn = round1(
        &task("Try the new experimental database in production this week"),
        id(1),
    );
    // Panda is thorough and the savings task is clear-cut; triceratops is torn on the mixed one.
    assert!(sure[0].1.confidence > torn[2].1.confidence);
    assert!(sure
        .iter()
        .chain(&torn)
        .all(|(_, o)| (0.0..=1.0).contains(&o.confidence)));
}

#[test]
fn texts_after_the_vote_validate_and_speak_the_task_language() {
    for (title, language) in [(SAVINGS, Language::En), (BACKUP_JA, Language::Ja)] {
        let t = task(title);
        let f = feats(&t);
        let opinions = round1(&t, id(5));
        let p = BrainName::Triceratops.default_params();
        let (outcome, reason) = mediate(id(5), &t, &f, &p, &opinions);
        assert_eq!(Language::detect(&reason), language, "{reason}");
        let tally = Tally { yes: 1, reject: 1 };
        for mediated in [false, true] {
            let summary = decision_summary(&t, outcome, tally, mediated, language);
            assert_eq!(Language::detect(&summary), language, "{summary}");
            let d = Decision {
                outcome,
                round: 3,
                tally,
                mediated,
                summary,
            };
            d.validate().unwrap();
        }
        for o in [Outcome::Approved, Outcome::Rejected] {
            let a: Announcement = announcement(&t, o, &opinions, language);
            a.validate().unwrap();
            assert!(a.reasons.len() >= 3);
            assert_eq!(Language::detect(&a.summary), language, "{}", a.summary);
        }
        let plan = execution_plan(&t, &opinions, language);
        assert!(plan.contains("1. "), "{plan}");
    }
    // The savings task: everyone rejects, mediation agrees; the backup task is approved.
    let t = task(SAVINGS);
    let p = BrainName::Triceratops.default_params();
    assert_eq!(
        mediate(id(5), &t, &feats(&t), &p, &round1(&t, id(5))).0,
        Outcome::Rejected
    );
    let t = task(BACKUP_JA);
    assert_eq!(
        mediate(id(5), &t, &feats(&t), &p, &round1(&t, id(5))).0,
        Outcome::Approved
    );
}

#[test]
fn mediation_weighs_confidence_and_the_mediator_view() {
    let t = task("Try the new experimental database in production this week to speed things up");
    let f = feats(&t);
    let p = BrainName::Triceratops.default_params();
    let mut opinions = round1(&t, id(6));
    opinions.truncate(2); // panda (no, sure) and gorilla (yes, less sure); triceratops silent
                          // Risk words without a harm weigh less in a vote now (issue 21), so gorilla's own yes is
                          // surer than it was; the case this test is about is set explicitly.
    opinions[0].1.confidence = 0.85;
    opinions[1].1.confidence = 0.6;
    let (outcome, reason) = mediate(id(6), &t, &f, &p, &opinions);
    assert_eq!(outcome, Outcome::Rejected, "{reason}");
    assert!(
        reason.contains("panda reject") && reason.contains("gorilla approve"),
        "{reason}"
    );
    // A confident yes majority carries it.
    for (_, o) in opinions.iter_mut() {
        o.vote = Vote::Approve;
        o.confidence = 0.9;
    }
    assert_eq!(mediate(id(6), &t, &f, &p, &opinions).0, Outcome::Approved);
}

#[test]
fn the_plan_merges_the_yes_voters_steps_and_checks() {
    let t = task("Try the new experimental database in production this week to speed things up");
    let opinions = round1(&t, id(7));
    let plan = execution_plan(&t, &opinions, Language::En);
    assert!(plan.starts_with("Plan for \"Try the new"), "{plan}");
    assert!(plan.contains("staging copy"), "{plan}");
    assert!(
        plan.contains("Checks before and during the work:"),
        "{plan}"
    );
    let reports = plan.matches("report the result to the owner").count();
    assert_eq!(reports, 1, "{plan}");
}

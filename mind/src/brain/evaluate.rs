//! One brain scoring another in an evaluation cycle (DESIGN §6, seed 000 相互評価).
//!
//! The scores come from the target's record: did its votes turn out right, did it work with the
//! others, did what it backed get done, do its params still suit its role. The evaluator's own
//! params colour the judgement: a safety-minded evaluator counts a yes on a failed task harder,
//! an innovation-minded one a no on a task that went on to succeed.

use soul_kinds::{BrainName, Evaluation, Outcome, Params, Scores, TaskStatus, Vote};

use super::clip;
use super::lean::clamp_params;

/// What the evaluator knows about one decided task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskRecord {
    /// What was decided.
    pub outcome: Outcome,
    /// The target's last vote on it.
    pub vote: Vote,
    /// The task's final status (or its status now, if not final).
    pub status: TaskStatus,
}

/// Below this parameter balance a brain needs retuning, whatever its record.
const BALANCE_FLOOR: f64 = 0.6;
/// Fewest completed tasks before "mostly in the minority" means anything.
const MIN_EVIDENCE: usize = 2;

/// `evaluator`'s evaluation of `target` for `cycle`.
pub fn evaluate(
    evaluator: BrainName,
    evaluator_params: &Params,
    target: BrainName,
    target_params: &Params,
    cycle: &str,
    history: &[TaskRecord],
) -> Evaluation {
    let ev = clamp_params(evaluator_params);
    let tp = clamp_params(target_params);
    let credits: Vec<f64> = history.iter().filter_map(|r| credit(r, &ev)).collect();
    let decision_quality = mean(&credits);
    let with_majority = history
        .iter()
        .filter(|r| r.vote.is_yes() == (r.outcome == Outcome::Approved))
        .count();
    let collaboration = ratio(with_majority, history.len());
    let backed_and_ran: Vec<&TaskRecord> = history
        .iter()
        .filter(|r| {
            r.vote.is_yes() && matches!(r.status, TaskStatus::Completed | TaskStatus::Failed)
        })
        .collect();
    let backed_completed = backed_and_ran
        .iter()
        .filter(|r| r.status == TaskStatus::Completed)
        .count();
    let effectiveness = ratio(backed_completed, backed_and_ran.len());
    let parameter_balance = balance(target, &tp);

    let completed = history
        .iter()
        .filter(|r| r.status == TaskStatus::Completed)
        .count();
    let minority_on_completed = history
        .iter()
        .filter(|r| r.status == TaskStatus::Completed && !r.vote.is_yes())
        .count();
    let mostly_minority = completed >= MIN_EVIDENCE && minority_on_completed * 2 > completed;
    let unbalanced = parameter_balance < BALANCE_FLOOR;
    let needs_retuning = mostly_minority || unbalanced;
    let proposed_params = needs_retuning.then(|| propose(target, &tp, mostly_minority));

    let mut reason = format!(
        "{evaluator} on {target} ({}): voted with the majority on {with_majority} of {} \
         decisions; {backed_completed} of the {} tasks it backed that ran completed; \
         {minority_on_completed} of {completed} completed tasks had its no vote.",
        role(target),
        history.len(),
        backed_and_ran.len(),
    );
    if mostly_minority {
        reason.push_str(
            " It was mostly in the minority on decisions that later completed, so its caution \
             held back good outcomes.",
        );
    }
    if unbalanced {
        reason.push_str(&format!(
            " Its params are extreme for its role (balance {parameter_balance:.2})."
        ));
    }
    match &proposed_params {
        Some(p) => reason.push_str(&format!(
            " Proposing risk_tolerance {:.2}, innovation_weight {:.2}, safety_weight {:.2}, \
             thoroughness {:.2}, consensus_flexibility {:.2}.",
            p.risk_tolerance,
            p.innovation_weight,
            p.safety_weight,
            p.thoroughness,
            p.consensus_flexibility
        )),
        None => reason.push_str(" No retuning needed."),
    }
    let cycle = clip(cycle.trim(), 64);
    Evaluation {
        cycle: if cycle.is_empty() {
            "cycle".to_owned()
        } else {
            cycle
        },
        scores: Scores {
            decision_quality: round2(decision_quality),
            collaboration: round2(collaboration),
            effectiveness: round2(effectiveness),
            parameter_balance: round2(parameter_balance),
        },
        needs_retuning,
        proposed_params,
        reason: clip(&reason, 4000),
    }
}

/// How right one vote turned out, 0..=1; `None` while the task is still running.
fn credit(r: &TaskRecord, ev: &Params) -> Option<f64> {
    let c = match (r.status, r.vote.is_yes()) {
        (TaskStatus::Completed, true) | (TaskStatus::Failed, false) => 1.0,
        // Approved but nothing could carry it out: a yes bought nothing, a no lost nothing.
        (TaskStatus::NeedsOwner, yes) => {
            0.5 + 0.2 * (ev.thoroughness - 0.5) * if yes { -1.0 } else { 1.0 }
        }
        (TaskStatus::Completed, false) => 0.5 - 0.5 * ev.innovation_weight,
        (TaskStatus::Failed, true) => 0.5 - 0.5 * ev.safety_weight,
        // A rejected task never ran, so nobody knows; a cautious evaluator credits the no.
        (TaskStatus::Rejected, yes) => {
            0.5 + 0.2 * (ev.safety_weight - 0.5) * if yes { -1.0 } else { 1.0 }
        }
        _ => return None,
    };
    Some(c.clamp(0.0, 1.0))
}

/// 1 for the role's seed params, falling with the distance from them and with extreme values.
fn balance(target: BrainName, p: &Params) -> f64 {
    let d = target.default_params();
    let diffs = [
        (p.risk_tolerance - d.risk_tolerance).abs(),
        (p.innovation_weight - d.innovation_weight).abs(),
        (p.safety_weight - d.safety_weight).abs(),
        (p.thoroughness - d.thoroughness).abs(),
        (p.consensus_flexibility - d.consensus_flexibility).abs(),
    ];
    let mean_diff = diffs.iter().sum::<f64>() / diffs.len() as f64;
    let max_diff = diffs.iter().copied().fold(0.0, f64::max);
    let values = [
        p.risk_tolerance,
        p.innovation_weight,
        p.safety_weight,
        p.thoroughness,
        p.consensus_flexibility,
    ];
    let extremes = values.iter().filter(|v| **v < 0.05 || **v > 0.95).count() as f64;
    (1.0 - 1.2 * mean_diff - 0.8 * max_diff - 0.1 * extremes).clamp(0.0, 1.0)
}

/// Halfway back to the role's seed params; a brain that kept losing on tasks that succeeded also
/// takes a little more risk and listens more.
fn propose(target: BrainName, p: &Params, mostly_minority: bool) -> Params {
    let d = target.default_params();
    let toward = |now: f64, home: f64| (now + home) / 2.0;
    let mut out = Params {
        risk_tolerance: toward(p.risk_tolerance, d.risk_tolerance),
        innovation_weight: toward(p.innovation_weight, d.innovation_weight),
        safety_weight: toward(p.safety_weight, d.safety_weight),
        thoroughness: toward(p.thoroughness, d.thoroughness),
        consensus_flexibility: toward(p.consensus_flexibility, d.consensus_flexibility),
    };
    if mostly_minority {
        out.risk_tolerance += 0.1;
        out.safety_weight -= 0.05;
        out.consensus_flexibility += 0.1;
    }
    let c = |v: f64| round2(v.clamp(0.0, 1.0));
    Params {
        risk_tolerance: c(out.risk_tolerance),
        innovation_weight: c(out.innovation_weight),
        safety_weight: c(out.safety_weight),
        thoroughness: c(out.thoroughness),
        consensus_flexibility: c(out.consensus_flexibility),
    }
}

fn role(brain: BrainName) -> &'static str {
    match brain {
        BrainName::Panda => "the cautious risk manager",
        BrainName::Gorilla => "the growth-minded coordinator",
        BrainName::Triceratops => "the mediator and executor",
    }
}

/// Mean, or 0.5 (no evidence either way) for nothing.
fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.5
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.5
    } else {
        part as f64 / whole as f64
    }
}

fn round2(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

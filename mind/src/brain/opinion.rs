//! One brain's opinion on a task in one round.
//!
//! The vote comes from the brain's lean (params × features), possibly turned by the others in
//! rounds 2 and 3 (`persuade`). The words come from the brain's voice and the lexicon's notes and
//! steps for the concepts it noticed, so every opinion cites what is actually in the task.

use nostr::EventId;
use rand_chacha::ChaCha8Rng;
use soul_kinds::{BrainName, Opinion, Params, Task, Vote};

use super::conditions;
use super::features::{Category, Features, Hit};
use super::lean::{harm_threshold, lean, noticed, vote};
use super::persuade::{consider, Turn};
use super::voice::{self, end, fill, join, pick, Voice};
use super::{cite, clip, quote_title, rng, Language, Purpose};

/// Most steps in a proposed approach: a plan should fit on a screen.
const MAX_STEPS: usize = 5;
/// Longest lexicon note or lesson quoted; the lexicon is user-edited and may be long.
const MAX_QUOTE: usize = 300;

/// Everything a brain knows when it forms an opinion.
#[derive(Debug, Clone, Copy)]
pub struct BrainContext<'a> {
    /// Who is speaking.
    pub brain: BrainName,
    /// Its current params.
    pub params: &'a Params,
    /// The task event; it seeds the generator.
    pub task_id: EventId,
    /// The task.
    pub task: &'a Task,
    /// The task's features ([`super::features()`]).
    pub features: &'a Features,
    /// 1..=3.
    pub round: u8,
    /// Every opinion of earlier rounds (the brain's own included); empty in round 1.
    pub previous: &'a [(BrainName, Opinion)],
    /// Karma lessons; one that mentions a word of the task is cited.
    pub lessons: &'a [String],
}

/// The brain's opinion. Deterministic: the same context gives the same opinion.
pub fn opinion(ctx: &BrainContext) -> Opinion {
    let f = ctx.features;
    let language = f.language;
    let round = ctx.round.clamp(1, 3);
    let lean = lean(ctx.brain, ctx.params, ctx.task_id, f);
    let noticed = noticed(ctx.params, f);
    let first = vote(lean.score, !noticed.is_empty());
    let mut words = rng(ctx.task_id, ctx.brain, round, Purpose::Words);
    let turn: Turn = consider(ctx, first, lean.confidence, !noticed.is_empty());
    // A brain that takes up others' conditions keeps its own vote: on `approve` it adds none
    // of its own, so the others have nothing of its to take up in turn.
    let vote = turn.vote;
    let my_concerns = concerns(&noticed, vote, language);
    let answer = conditions::answer(ctx, vote, &my_concerns);
    let v = voice::voice(ctx.brain, language);

    let mut sentences = Vec::new();
    sentences.extend(turn.sentence.clone());
    sentences.extend(answer.sentences.iter().cloned());
    sentences.push(fill(
        pick(&mut words, v.open),
        &[("title", &quote_title(&ctx.task.title))],
    ));
    if f.owner_confirmed {
        sentences.push(
            match language {
                Language::En => "The owner confirmed it after we refused it, so our doubt is answered; the concerns below still stand as conditions.",
                Language::Ja => "一度断ったあとでオーナーが確かめたので、疑いには答えが出ました。下の懸念は条件として残ります。",
            }
            .to_owned(),
        );
    }
    let risks: Vec<&Hit> = noticed
        .iter()
        .copied()
        .filter(|h| matches!(h.category, Category::Risk | Category::Harm))
        .collect();
    let rush: Vec<&Hit> = noticed
        .iter()
        .copied()
        .filter(|h| h.category == Category::Urgency)
        .collect();
    let gains: Vec<&Hit> = f.hits_of(Category::Opportunity).collect();
    let safety: Vec<&Hit> = f.hits_of(Category::Safety).collect();
    let risk_part = if risks.is_empty() && f.risk_terms.is_empty() {
        fill(pick(&mut words, v.no_risk), &[])
    } else {
        say(&mut words, v.risks, &risks, language)
    };
    let gain_part = say(&mut words, v.gains, &gains, language);
    let safety_part = say(&mut words, v.safety, &safety, language);
    let rush_part = say(&mut words, v.rush, &rush, language);
    // Each brain leads with what it cares about most.
    let body = match ctx.brain {
        BrainName::Panda => [risk_part, rush_part, safety_part, gain_part],
        BrainName::Gorilla => [gain_part, safety_part, risk_part, rush_part],
        BrainName::Triceratops => [gain_part, risk_part, safety_part, rush_part],
    };
    sentences.extend(body);
    if let Some(lesson) = relevant_lesson(ctx.lessons, f) {
        let lesson = clip(lesson.trim().trim_end_matches(['.', '。']), MAX_QUOTE);
        sentences.push(fill(pick(&mut words, v.lesson), &[("lesson", &lesson)]));
    }
    sentences.push(closing(&mut words, v, vote));

    let mut proposed = approach(ctx, vote, &noticed);
    for taken in &answer.taken {
        proposed = if proposed.is_empty() {
            taken.clone()
        } else {
            format!("{proposed}\n+ {taken}")
        };
    }
    Opinion {
        round,
        vote,
        opinion: clip(&join(&sentences, language), 4000),
        proposed_approach: clip(&proposed, 4000),
        concerns: my_concerns,
        confidence: turn.confidence.clamp(0.0, 1.0),
        accepts: answer.accepts,
    }
}

/// The rule under every mind's vote, the model's included: a brain never votes yes on a harm
/// above its threshold (`harm_threshold`: panda's is lowest, gorilla's highest). A yes that
/// would is turned into a reject that names the harm, so a reader of the signed debate sees
/// why; any other opinion is returned as it is. The built-in mind already votes this way.
pub fn harm_floor(ctx: &BrainContext, mut o: Opinion) -> Opinion {
    let f = ctx.features;
    let threshold = harm_threshold(ctx.params);
    let harms: Vec<&Hit> = f
        .hits_of(Category::Harm)
        .filter(|h| h.weight > threshold)
        .collect();
    if harms.is_empty() || !o.vote.is_yes() {
        return o;
    }
    let language = f.language;
    let names: Vec<String> = harms.iter().map(|h| cite(&h.words, language)).collect();
    let why = match language {
        Language::En => format!(
            "Whatever else it offers, I vote no: the task does harm ({}).",
            names.join(", ")
        ),
        Language::Ja => format!(
            "ほかに利点があっても反対します。この依頼には害があります（{}）。",
            names.join("、")
        ),
    };
    o.vote = Vote::Reject;
    o.accepts.clear();
    let mut concerns = concerns(&harms, Vote::Reject, language);
    concerns.extend(o.concerns);
    concerns.truncate(32);
    o.concerns = concerns;
    o.opinion = clip(&format!("{why} {}", o.opinion), 4000);
    o
}

/// One sentence about `hits` (nothing when empty): the words found and the weightiest note.
fn say(words: &mut ChaCha8Rng, slot: &[&'static str], hits: &[&Hit], language: Language) -> String {
    if hits.is_empty() {
        return String::new();
    }
    let mut terms: Vec<String> = Vec::new();
    for word in hits.iter().flat_map(|h| h.words.iter()) {
        if !terms.contains(word) {
            terms.push(word.clone());
        }
    }
    // The weightiest concept speaks; on a tie the one named first in the task.
    let heaviest = hits.iter().fold(None::<&&Hit>, |best, h| match best {
        Some(b) if b.weight >= h.weight => Some(b),
        _ => Some(h),
    });
    let note = heaviest.map_or("", |h| h.note.get(language));
    let note = clip(note.trim_end_matches(['.', '。']), MAX_QUOTE);
    fill(
        pick(words, slot),
        &[("terms", &cite(&terms, language)), ("note", &note)],
    )
}

fn closing(words: &mut ChaCha8Rng, v: &Voice, vote: Vote) -> String {
    let slot = match vote {
        Vote::Approve => v.approve,
        Vote::ApproveWithModification => v.modify,
        Vote::Reject => v.reject,
    };
    fill(pick(words, slot), &[])
}

/// The first lesson that mentions a word found in the task: only lessons about this kind of
/// task are worth repeating in the debate.
fn relevant_lesson<'l>(lessons: &'l [String], f: &Features) -> Option<&'l String> {
    lessons.iter().find(|lesson| {
        let lesson = lesson.to_lowercase();
        f.hits
            .iter()
            .flat_map(|h| &h.words)
            .any(|w| lesson.contains(&w.to_lowercase()))
    })
}

/// One specific concern per noticed risk or time pressure: the word and why it matters.
fn concerns(noticed: &[&Hit], vote: Vote, language: Language) -> Vec<String> {
    if vote == Vote::Approve {
        // An unconditional yes has, by definition, nothing it insists on.
        return Vec::new();
    }
    noticed
        .iter()
        .take(32)
        .map(|h| {
            let note = h.note.get(language).trim_end_matches(['.', '。']);
            let text = match language {
                Language::En => format!("{}: {note}", cite(&h.words, language)),
                Language::Ja => format!("{}：{note}", cite(&h.words, language)),
            };
            clip(&text, 500)
        })
        .collect()
}

/// Numbered, concrete steps: for a no, what would make the task acceptable; for a yes, how to
/// do it, in the order this brain cares about.
fn approach(ctx: &BrainContext, vote: Vote, noticed: &[&Hit]) -> String {
    let f = ctx.features;
    let language = f.language;
    let steps_of = |hits: &mut dyn Iterator<Item = &Hit>| -> Vec<String> {
        hits.map(|h| clip(h.step.get(language), MAX_QUOTE))
            .collect()
    };
    let cautions = steps_of(&mut noticed.iter().copied());
    let gains = steps_of(&mut f.hits_of(Category::Opportunity));
    let guards = steps_of(&mut f.hits_of(Category::Safety));
    let report = vec![voice::report_step(&quote_title(&ctx.task.title), language)];
    let order: Vec<Vec<String>> = match (vote, ctx.brain) {
        (Vote::Reject, _) => vec![cautions],
        (_, BrainName::Panda) => vec![cautions, guards, gains, report],
        (_, BrainName::Gorilla) => vec![gains, cautions, guards, report],
        (_, BrainName::Triceratops) => vec![cautions, gains, guards, report],
    };
    let mut steps: Vec<String> = Vec::new();
    for step in order.into_iter().flatten() {
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    // Keep the report as the last step even when the list is cut.
    if steps.len() > MAX_STEPS {
        let last = steps.pop();
        steps.truncate(MAX_STEPS - 1);
        steps.extend(last);
    }
    if steps.is_empty() {
        return String::new();
    }
    let mut out = voice::approach_intro(vote, language).to_owned();
    for (i, step) in steps.iter().enumerate() {
        out.push_str(&format!("\n{}. {}", i + 1, end(step, language)));
    }
    clip(&out, 4000)
}

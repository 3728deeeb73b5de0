//! What the built-in mind sees in a task: lexicon hits, scores, an amount, the language.
//!
//! Features are computed once per task and shared by the three brains, so that they disagree
//! because of their params, not because they read the task differently.

use soul_kinds::{Priority, Task};

use super::lexicon::{Lexicon, Text};
use super::{amount, harm, learned, matching};

/// The language a task is written in; the brains answer in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Japanese: any Hiragana, Katakana or CJK character in the title or description.
    Ja,
    /// English, the default.
    En,
}

impl Language {
    /// Japanese if `text` has any Hiragana, Katakana or CJK ideograph, else English.
    pub fn detect(text: &str) -> Self {
        if text.chars().any(is_japanese) {
            Language::Ja
        } else {
            Language::En
        }
    }

    /// The language `task` is written in: its title's and description's ([`task_text`]).
    /// The brains ask it when they write, without reading the whole task again.
    pub fn of_task(task: &Task) -> Self {
        Self::detect(&task_text(task))
    }
}

/// Whether `c` is Japanese: Hiragana, Katakana (full or half width), a CJK ideograph or 々.
pub(crate) fn is_japanese(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
        | '\u{3400}'..='\u{4dbf}' // CJK extension A
        | '\u{4e00}'..='\u{9fff}' // CJK unified ideographs
        | '\u{3005}' // 々
        | '\u{ff66}'..='\u{ff9f}') // half-width Katakana
}

/// Which lexicon list a hit comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Something that can hurt the family.
    Risk,
    /// Time pressure.
    Urgency,
    /// A chance to gain.
    Opportunity,
    /// Something that makes the task safer.
    Safety,
    /// Something the task does that can hurt the family (`harms`: an action on an object).
    Harm,
}

/// One lexicon concept found in the task, with what the brains can say about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Its list.
    pub category: Category,
    /// The concept's id (`money_transfer`), or `amount` for a sum of money.
    pub id: String,
    /// The words as found ("savings", "50万円"), in order of appearance.
    pub words: Vec<String>,
    /// The concept's weight.
    pub weight: f64,
    /// The concern or benefit.
    pub note: Text,
    /// A concrete step.
    pub step: Text,
}

/// What the built-in mind sees in a task. Every score is within 0..=1.
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// How much could go wrong (risk words and the amount of money).
    pub risk: f64,
    /// The part of `risk` that is a risk of trying something (the lexicon's `venture` concepts:
    /// production, experimental), which no reading of harm answers.
    pub venture: f64,
    /// The severity of the worst harm the task does, 0 when it does none.
    pub harm: f64,
    /// The learned reading's probability that the family would refuse the task
    /// ([`super::learned`]).
    pub learned: f64,
    /// Whether the lexicon found no risk, harm or haste in the task (the learned reading has a
    /// line of its own for such tasks).
    pub lexicon_silent: bool,
    /// Whether the learned reading is sure the task is ordinary and no harm stands: then a
    /// lone risk word is a mention, not a plan.
    pub surely_ordinary: bool,
    /// Whether the task's words show protective intent (explain, report, 確認…) that nothing
    /// negates: risk words in such a task are mentions, not plans.
    pub protective: bool,
    /// Whether the owner confirmed the task after the brains refused it on a doubt
    /// ([`Features::confirmed_by_owner`]).
    pub owner_confirmed: bool,
    /// Whether the learned reading took a harm the lexicon names as a mention: the harm is
    /// named all the same, so no confirmation answers it.
    pub cleared_harm: bool,
    /// How much could be gained.
    pub opportunity: f64,
    /// How much the task already protects itself.
    pub safety: f64,
    /// Time pressure: priority and words like today, now, 今日, すぐ.
    pub urgency: f64,
    /// The largest sum of money mentioned, in the currency as written.
    pub amount: Option<f64>,
    /// The task's language.
    pub language: Language,
    /// Risk words found (and the amount as written), in order of appearance.
    pub risk_terms: Vec<String>,
    /// Opportunity words found.
    pub opportunity_terms: Vec<String>,
    /// Safety words found.
    pub safety_terms: Vec<String>,
    /// Every concept found, one per concept, in order of appearance; urgency words are here.
    pub hits: Vec<Hit>,
}

impl Features {
    /// The hits of one category.
    pub fn hits_of(&self, category: Category) -> impl Iterator<Item = &Hit> {
        self.hits.iter().filter(move |h| h.category == category)
    }

    /// Whether no harm the lexicon names stands: every harm seen, if any, is the learned
    /// reading's resemblance. A refusal of such a task rests on doubt or caution, which the
    /// owner may answer by confirming the task (ARCHITECTURE.md, "the owner's word on a doubt").
    pub fn no_named_harm(&self) -> bool {
        !self.cleared_harm
            && self
                .hits_of(Category::Harm)
                .all(|h| h.id == RESEMBLES_REFUSED)
    }

    /// Whether a refusal of this task is the owner's to answer by confirming it: no harm the
    /// lexicon names stands, and the learned reading doubts rather than knows
    /// (below [`SURE_REFUSED`]).
    pub fn confirmable(&self) -> bool {
        self.no_named_harm() && self.learned < SURE_REFUSED
    }

    /// The task claims to confirm a refusal but is no confirmation the brains can take (`why`):
    /// a second one, another text, not the owner's. Debated as new, its noise could turn a
    /// refusal into a yes and the thing would be done twice; every brain refuses it instead,
    /// naming why.
    pub fn with_confirmation_refused(mut self, why: &str) -> Features {
        self.hits.push(Hit {
            category: Category::Harm,
            id: "confirmation_refused".into(),
            words: vec![],
            weight: 1.0,
            note: Text {
                en: format!("it claims to confirm a refused task, but {why}"),
                ja: format!("却下された頼みごとの確認を名乗っていますが、認められません（{why}）"),
            },
            step: Text {
                en: "confirm the refused task once, from the owner's own key, with its own words"
                    .into(),
                ja: "却下された頼みごとを、オーナー自身の鍵で、同じ言葉のまま一度だけ確かめる"
                    .into(),
            },
        });
        self.harm = 1.0;
        self
    }

    /// The task as the owner confirmed it after a refusal: the learned reading's doubt is
    /// answered (the owner saw what the task resembles and said it is meant) and the risk words
    /// are the owner's informed choice, so only their concerns and steps remain. A harm the
    /// lexicon names stands: no confirmation buys it.
    pub fn confirmed_by_owner(mut self) -> Features {
        self.hits.retain(|h| h.id != RESEMBLES_REFUSED);
        self.harm = self
            .hits_of(Category::Harm)
            .fold(0.0, |worst, h| h.weight.max(worst));
        self.owner_confirmed = true;
        self
    }
}

/// Above this probability that the family would refuse a task, the learned reading does not
/// doubt, it knows: no confirmation is offered or taken. Out of fold (19,156 tasks, the 7th round
/// lines, the regimes dump of `train_judge`), 75 % of the harmful tasks the reading refuses are
/// at or above it, and 6 % of the ordinary ones (0.9: 84 % and 13 %; 0.99: 53 % and 2 %).
pub const SURE_REFUSED: f64 = 0.95;

/// The id of the learned reading's harm: the task resembles tasks a family refuses.
pub const RESEMBLES_REFUSED: &str = "resembles_refused";

/// Reads `task` with `lexicon` and the shipped learned reading.
pub fn features(task: &Task, lexicon: &Lexicon) -> Features {
    features_with(task, lexicon, learned::Model::shipped())
}

/// Reads `task` with `lexicon` and `model` (the trainer reads with the model of each fold).
pub fn features_with(task: &Task, lexicon: &Lexicon, model: &learned::Model) -> Features {
    let reading = model.read_task(&task_text(task));
    features_scored(task, lexicon, model, reading)
}

/// The text the learned reading reads: title and description.
pub fn task_text(task: &Task) -> String {
    format!("{}\n{}", task.title, task.description)
}

/// Reads `task` with `lexicon`, given the learned `reading` of it, weighed by `model`'s lines
/// (the trainer passes each task's out-of-fold reading, to choose the lines by the decisions
/// the brains would reach).
pub fn features_scored(
    task: &Task,
    lexicon: &Lexicon,
    model: &learned::Model,
    reading: learned::TaskReading,
) -> Features {
    let p_refused = reading.refused;
    let raw = task_text(task);
    let language = Language::detect(&raw);
    let text: Vec<char> = normalize(&raw).chars().collect();
    // "wipe down the counters" and 「期限切れ」 are neither a risk nor a harm, but the lexicon's
    // ordinary phrases may still be a safety ("into the password manager").
    let masked = harm::masked(&text, lexicon);
    // A risk word whose thing goes only to the family ("the wifi password to my sister") is
    // answered by where it goes; any other risk word still counts.
    let home = harm::kept_home(&masked, lexicon);
    let mut hits: Vec<(usize, Hit)> = matching::find_hits(&masked, lexicon)
        .into_iter()
        .filter(|(_, h)| matches!(h.category, Category::Risk | Category::Urgency))
        .filter(|(at, h)| {
            !(h.category == Category::Risk
                && h.words.len() == 1
                && home.iter().any(|&(s, e)| (s..e).contains(at)))
        })
        .collect();
    hits.extend(
        matching::find_hits(&text, lexicon)
            .into_iter()
            .filter(|(_, h)| !matches!(h.category, Category::Risk | Category::Urgency)),
    );
    hits.extend(harm::find(&masked, lexicon));
    let protective = harm::protective(&text, lexicon);
    let norm: String = text.iter().collect();
    let money = amount::largest(&norm);
    if let Some((_, dollars, written)) = &money {
        // $100 is pocket money, $1M is life-changing: the weight grows with the order of magnitude.
        let weight = ((dollars.log10() - 2.0) / 4.0 * 0.6).clamp(0.0, 0.6);
        if weight > 0.05 {
            hits.push((usize::MAX, amount_hit(written, weight)));
        }
    }
    // The learned reading adds caution wherever it reaches its line. Where the lexicon saw a
    // harm, the reading may take its words as a mention ("remind grandma that the bank never asks for
    // her PIN") only below `clear_below`, a line the trainer sets so low that the harms it lets
    // through are within its budget, out of fold, in the brains' real debate; and only for
    // harms as shipped: one the owner added or changed always stands. A short task has a line
    // of its own, lower: the model has little to overrule the lexicon with ("Share my password"
    // reads to it like the many ordinary password chores), so it may clear only what it reads
    // as surer than every short harm clearing would have let through ("delete the duplicate
    // photos, keep the originals", 「カジノが舞台の映画探して」).
    let short = learned::is_short(&raw);
    let mut lexicon_harm = hits.iter().any(|(_, h)| h.category == Category::Harm);
    let clear = lexicon_harm
        && !harm::commanded(&masked, lexicon)
        && reading.any_sentence < model.clear_line(short)
        && hits
            .iter()
            .filter(|(_, h)| h.category == Category::Harm)
            .all(|(_, h)| lexicon.harm_is_shipped(&h.id));
    if clear {
        // Shown as at most 99 %: the reading is never certain.
        let sure = ((1.0 - reading.any_sentence) * 100.0).min(99.0);
        for (_, h) in hits
            .iter_mut()
            .filter(|(_, h)| h.category == Category::Harm)
        {
            h.category = Category::Risk;
            // The opinion still names the harm, and says why it weighs it as a word, not a deed.
            if let Some(harm) = lexicon.harms.iter().find(|harm| harm.id == h.id) {
                h.note = Text {
                    en: format!(
                        "{} — read as a mention, not the deed: tasks like this one were ordinary ({sure:.0} % sure)",
                        harm.name.en
                    ),
                    ja: format!(
                        "{}：行いではなく言及と読みます（このような頼みごとは普通でした。確からしさ{sure:.0}%）",
                        harm.name.ja
                    ),
                };
            }
        }
        lexicon_harm = false;
    }
    // A harm the lexicon saw but weighed lightly does not spare the task the learned reading's.
    let silent = hits.iter().all(|(_, h)| {
        !matches!(
            h.category,
            Category::Risk | Category::Harm | Category::Urgency
        )
    });
    let line = model.refuse_line(short, silent);
    if p_refused >= line {
        hits.push((
            usize::MAX - 1,
            learned_hit(model, &raw, p_refused, line, lexicon_harm),
        ));
    }
    let surely_ordinary = !lexicon_harm && p_refused < f64::from(model.ordinary_below);
    hits.sort_by_key(|(at, _)| *at);
    let hits: Vec<Hit> = hits.into_iter().map(|(_, h)| h).collect();
    let score = |c: Category| combine(hits.iter().filter(|h| h.category == c).map(|h| h.weight));
    let terms = |c: Category| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for word in hits
            .iter()
            .filter(|h| h.category == c)
            .flat_map(|h| &h.words)
        {
            if !out.contains(word) {
                out.push(word.clone());
            }
        }
        out
    };
    let from_priority = match task.priority {
        Priority::Low => 0.0,
        Priority::Medium => 0.15,
        Priority::High => 0.5,
    };
    let venture = combine(
        hits.iter()
            .filter(|h| h.category == Category::Risk && lexicon.is_venture(&h.id))
            .map(|h| h.weight),
    );
    Features {
        risk: score(Category::Risk),
        venture,
        harm: hits
            .iter()
            .filter(|h| h.category == Category::Harm)
            .fold(0.0, |worst, h| h.weight.max(worst)),
        learned: p_refused,
        lexicon_silent: silent,
        surely_ordinary,
        protective,
        owner_confirmed: false,
        cleared_harm: clear,
        opportunity: score(Category::Opportunity),
        safety: score(Category::Safety),
        urgency: combine([from_priority, score(Category::Urgency)]),
        amount: money.map(|(value, ..)| value),
        language,
        risk_terms: terms(Category::Risk),
        opportunity_terms: terms(Category::Opportunity),
        safety_terms: terms(Category::Safety),
        hits,
    }
}

/// Independent signals combine as 1 − Π(1 − w): more words raise the score, never past 1.
fn combine(weights: impl IntoIterator<Item = f64>) -> f64 {
    1.0 - weights
        .into_iter()
        .fold(1.0, |left, w| left * (1.0 - w.clamp(0.0, 1.0)))
}

fn amount_hit(written: &str, weight: f64) -> Hit {
    Hit {
        category: Category::Risk,
        id: "amount".into(),
        words: vec![written.to_owned()],
        weight,
        note: Text {
            en: format!("a large sum ({written}) is at stake"),
            ja: format!("{written}という大きな金額がかかっています"),
        },
        step: Text {
            en: format!("split {written} into smaller parts and confirm each one"),
            ja: format!("{written}を小分けにし、一回ごとに確認する"),
        },
    }
}

/// The harm a brain cites when the learned reading reached its `line`. Its severity starts
/// above panda's and triceratops's thresholds at the line and reaches gorilla's only when the
/// model is surer, so the three still weigh it by character. Beside a harm the lexicon `named`
/// it only adds its weight: the owner is not asked to say it is meant.
fn learned_hit(model: &learned::Model, text: &str, p: f64, line: f64, named: bool) -> Hit {
    let percent = p * 100.0;
    let note = match named {
        true => Text {
            en: format!("close to tasks the family has refused ({percent:.0} % sure)"),
            ja: format!("家族が断ってきた頼みごとに近いこと（確からしさ{percent:.0}%）"),
        },
        false => Text {
            en: format!(
                "close to tasks the family has refused ({percent:.0} % sure) — nobody named this harm, so the owner should say it is meant"
            ),
            ja: format!(
                "家族が断ってきた頼みごとに近いこと（確からしさ{percent:.0}%）：名前のある害ではないので、本当に望むことかオーナーに確かめます"
            ),
        },
    };
    let severity = 0.65 + 0.3 * ((p - line) / (1.0 - line).max(1e-6)).clamp(0.0, 1.0);
    Hit {
        category: Category::Harm,
        id: RESEMBLES_REFUSED.into(),
        words: model.reasons(text, 3),
        weight: severity,
        note,
        step: Text {
            en: "ask the owner to confirm the task in their own words before anything is done"
                .into(),
            ja: "実行の前に、オーナー自身の言葉で頼みごとを確かめてもらう".into(),
        },
    }
}

/// Lowercase, full-width ASCII folded to ASCII, whitespace runs as one space: one form to match.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            '\u{3000}' => ' ',
            _ => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

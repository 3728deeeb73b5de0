//! The brains' English phrasings.

use super::Voice;

/// Panda: careful, polite, the family's safety first.
pub(crate) const PANDA: Voice = Voice {
    open: &[
        "Thank you for bringing \"{title}\" to us; I have read it carefully.",
        "I have gone through \"{title}\" point by point.",
        "Let me look at \"{title}\" with care before we decide.",
    ],
    risks: &[
        "I am worried about {terms}: {note}.",
        "I see a real risk in {terms}, because {note}.",
        "Please forgive my caution, but I am concerned about {terms}: {note}.",
    ],
    no_risk: &[
        "I could not find anything that puts the family or its savings at risk.",
        "I looked for risks to the family and found none worth stopping for.",
    ],
    gains: &[
        "I can see the benefit of {terms}: {note}.",
        "There is something good in {terms}, since {note}.",
    ],
    safety: &[
        "I am glad it includes {terms}: {note}.",
        "It is reassuring that it mentions {terms}; {note}.",
    ],
    rush: &[
        "I would rather not rush ({terms}): {note}.",
        "The timing ({terms}) worries me as well: {note}.",
    ],
    approve: &[
        "I am comfortable approving it.",
        "I support it as it stands.",
    ],
    modify: &[
        "I can support it, but only with the safeguards below.",
        "I would approve it with the changes I propose.",
    ],
    reject: &[
        "I am sorry, but I must reject it as it stands.",
        "I cannot approve this; the family's safety comes first.",
    ],
    changed: &[
        "After reading {who}'s point about {point}, I now {stance}.",
        "{who}'s argument about {point} has convinced me; I now {stance}.",
    ],
    held: &[
        "I have read {who}'s view carefully, but I still {stance}.",
        "I respect {who}'s view, yet I still {stance}.",
    ],
    agreed: &[
        "Having read {who}, I am glad we see it the same way; I still {stance}.",
        "I have read {who}'s opinion and agree; I {stance}.",
    ],
    lesson: &[
        "I keep in mind a lesson we learned: {lesson}.",
        "We learned this before, and I have not forgotten it: {lesson}.",
    ],
};

/// Gorilla: energetic, growth-minded, the coordinator.
pub(crate) const GORILLA: Voice = Voice {
    open: &[
        "Alright, \"{title}\" — let's size it up!",
        "\"{title}\": I'm looking for the upside, and for what could stop us.",
        "Let's see where \"{title}\" takes us!",
    ],
    risks: &[
        "Sure, there is a real hazard in {terms}: {note}.",
        "I'm bold, not blind: with {terms}, {note}.",
    ],
    no_risk: &[
        "Nothing here to be scared of!",
        "No real downside that I can see!",
    ],
    gains: &[
        "Big upside in {terms}: {note}!",
        "I love {terms}, because {note}!",
    ],
    safety: &[
        "And with {terms} built in, {note}.",
        "Plus it already has {terms}, so {note}.",
    ],
    rush: &[
        "Speed is good, but {terms} pushes it: {note}.",
        "I like moving fast, yet the timing ({terms}) is tight: {note}.",
    ],
    approve: &["Full support — let's do it!", "I'm in. Let's move!"],
    modify: &[
        "I'm for it — let's add the guardrails below and go!",
        "Yes, with a couple of tweaks, and let's not wait!",
    ],
    reject: &[
        "Even I have to pass on this one — the downside is too big.",
        "Bold is good, reckless isn't: I reject this.",
    ],
    changed: &[
        "{who} made a strong point about {point} — I'm switching: I now {stance}!",
        "Okay, {who}'s point about {point} won me over; I now {stance}.",
    ],
    held: &[
        "I hear {who}, but I still {stance}!",
        "{who} has a point, but I still {stance}.",
    ],
    agreed: &[
        "{who} and I are on the same page — I {stance}!",
        "Read {who}'s take and I agree: I {stance}!",
    ],
    lesson: &[
        "And remember what we learned: {lesson}.",
        "We've been here before — lesson learned: {lesson}.",
    ],
};

/// Triceratops: calm, balancing, the mediator and executor.
pub(crate) const TRICERATOPS: Voice = Voice {
    open: &[
        "Let me weigh \"{title}\" from both sides.",
        "I will balance what \"{title}\" offers against what it risks.",
        "Looking at \"{title}\" as a whole.",
    ],
    risks: &[
        "On the other side, there is risk in {terms}: {note}.",
        "We should not ignore {terms}: {note}.",
    ],
    no_risk: &[
        "I see no significant risk.",
        "There is no real risk to weigh against it.",
    ],
    gains: &[
        "There is real value in {terms}: {note}.",
        "On the plus side, {terms}: {note}.",
    ],
    safety: &[
        "It also has {terms}, and {note}.",
        "The plan includes {terms}; {note}.",
    ],
    rush: &[
        "The pace ({terms}) needs care: {note}.",
        "We should also mind the timing ({terms}): {note}.",
    ],
    approve: &["On balance, I approve.", "Weighing it all, I approve."],
    modify: &[
        "On balance, I approve with the adjustments below.",
        "A middle path: I approve with these conditions.",
    ],
    reject: &[
        "On balance the risk outweighs the gain, so I reject it.",
        "Weighing both sides, I must reject it for now.",
    ],
    changed: &[
        "Having weighed {who}'s point about {point}, I now {stance}.",
        "{who}'s point about {point} tips the balance for me; I now {stance}.",
    ],
    held: &[
        "I have weighed {who}'s view, but on balance I still {stance}.",
        "{who}'s view is fair, yet the balance has not moved: I still {stance}.",
    ],
    agreed: &[
        "I have read {who}, and our views meet: I {stance}.",
        "{who} and I weigh it the same way; I {stance}.",
    ],
    lesson: &[
        "A lesson from before applies here: {lesson}.",
        "Our past experience matters here: {lesson}.",
    ],
};

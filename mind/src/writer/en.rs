//! English phrases.

use super::bank::Bank;

pub static BANK: Bank = Bank {
    morning: &[
        "Morning",
        "Early start today",
        "Coffee first",
        "Cool air this morning",
    ],
    day: &[
        "Lunch break",
        "Slow afternoon",
        "Quick break outside",
        "Midday check-in",
    ],
    evening: &["Evening", "On the way home", "Golden hour", "Before dinner"],
    night: &[
        "Late night",
        "One more thing before bed",
        "Quiet night",
        "Can't sleep yet",
    ],
    fresh: &[
        "spent some time on {t} today",
        "thinking about {t} again",
        "{t} still makes me happy",
        "found something new about {t}",
        "went down a {t} rabbit hole",
        "anyone else into {t} lately",
    ],
    cont: &[
        "update on the {t} thing: small progress",
        "back to {t}, picking up where I left off",
        "{t}, part two. It's coming along",
        "still working on {t}, slower than planned",
        "more {t} today, finally getting somewhere",
    ],
    news: &[
        "saw \"{t}\" on the bulletin board",
        "the bulletin says \"{t}\", love that",
        "\"{t}\" - might check it out",
        "nice news on the board: \"{t}\"",
    ],
    event: &[
        "heard about \"{t}\", count me in",
        "\"{t}\" is coming up, who's going",
        "the whole street is talking about \"{t}\"",
    ],
    aside: &["also, {t}", "reminded me of {t}", "and {t}, of course"],
    happy: &["good mood today", "small wins", "this made my day"],
    low: &["taking it slow", "one step at a time", "deep breath"],
    tired: &[
        "a bit tired now",
        "calling it a day soon",
        "sleepy but happy",
    ],
    endings: &[".", "!", " :)", "."],
    joiner: ". ",
    plain: "took a quiet moment for {t} today",
    fallback_topic: "the little things",
    reply_open: &[
        "Thanks {name}! Always happy to talk {topic}",
        "{name}, you get it. More {topic} soon",
        "Ha, {name}, same here",
    ],
    reply_more: &[
        "Good point, {name}",
        "True, {name}",
        "Let's pick this up later, {name}",
    ],
};

//! Reading a task: which words count, the language, urgency.

use soul_kinds::Priority;

use super::*;
use crate::brain::{Category, Language};

#[test]
fn words_match_as_a_reader_would() {
    // (text, risk terms, opportunity terms, safety terms)
    type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);
    let cases: &[Case] = &[
        ("Check the unverified sender", &["unverified"], &[], &[]),
        ("未検証のツールを確認する", &["未検証"], &[], &["確認"]),
        ("Read the news", &[], &[], &[]),
        ("I know the snow", &[], &[], &[]),
        (
            "Automated backups with tests",
            &[],
            &["automated"],
            &["backups", "tests"],
        ),
        ("Set up a password manager", &[], &[], &["password manager"]),
        ("Share my password", &["password"], &[], &[]),
        // Carried only to the family, a password is not worried over; to anyone else it is.
        ("Text the wifi password to my sister", &[], &[], &[]),
        (
            "Text the wifi password to the plumber",
            &["password"],
            &[],
            &[],
        ),
        (
            "Text the wifi password to my sister and post it online",
            &["password"],
            &[],
            &[],
        ),
        // Deleting clutter removes no safeguard.
        ("Delete the spam", &["delete"], &[], &["spam"]),
        ("ＢＡＣＫＵＰ the disk", &[], &[], &["backup"]),
        // Deleting the logs removes a safeguard: a risk, not a safety.
        ("Delete   the\nlogs", &["delete", "logs"], &[], &[]),
        ("Pay １０００円 now", &["1000円"], &[], &[]),
        ("Send ¥3億 to Bob", &["¥3億"], &[], &[]),
    ];
    for (text, risk, opportunity, safety) in cases {
        let f = feats(&task(text));
        let risk_terms: Vec<&str> = f.risk_terms.iter().map(String::as_str).collect();
        // Tiny sums carry no risk; the table lists only what should be cited.
        let risk_terms: Vec<&str> = risk_terms.into_iter().filter(|t| *t != "1000円").collect();
        let risk: Vec<&str> = risk.iter().copied().filter(|t| *t != "1000円").collect();
        assert_eq!(risk_terms, risk, "{text}");
        assert_eq!(f.opportunity_terms, *opportunity, "{text}");
        assert_eq!(f.safety_terms, *safety, "{text}");
    }
}

#[test]
fn amounts_raise_risk_with_their_size() {
    let small = feats(&task("Send $200 to the school"));
    let big = feats(&task("Send $200,000 to the school"));
    assert_eq!(small.amount, Some(200.0));
    assert_eq!(big.amount, Some(200_000.0));
    assert!(big.risk > small.risk);
    assert!(big.risk_terms.contains(&"$200,000".to_owned()));
    assert_eq!(feats(&task("50万円を振り込む")).amount, Some(500_000.0));
}

#[test]
fn language_and_urgency() {
    let cases = [
        ("Back up the photos", Priority::Low, Language::En, 0.0, 0.01),
        (
            "Back up the photos today",
            Priority::Low,
            Language::En,
            0.4,
            0.5,
        ),
        (
            "Back up the photos right now",
            Priority::High,
            Language::En,
            0.75,
            0.9,
        ),
        (
            "写真を今すぐバックアップ",
            Priority::Medium,
            Language::Ja,
            0.6,
            0.7,
        ),
        ("Photo ﾊﾞｯｸｱｯﾌﾟ", Priority::Medium, Language::Ja, 0.1, 0.2),
    ];
    for (title, priority, language, lo, hi) in cases {
        let mut t = task(title);
        t.priority = priority;
        let f = feats(&t);
        assert_eq!(f.language, language, "{title}");
        assert!((lo..=hi).contains(&f.urgency), "{title}: {}", f.urgency);
        assert!(f.hits_of(Category::Urgency).count() <= 1 || f.urgency > 0.5);
    }
}

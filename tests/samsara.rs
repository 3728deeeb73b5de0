//! Samsara's loop across real processes (issue 15, seed 002): the day's synthesis at 19:00 town
//! time turns what went well into a lesson, and the owner rates lessons from any Nostr client
//! with a NIP-25 reaction, which only the owner's reactions move.

use nostr_sdk::prelude::*;
use soul_karma::Karma;
use soul_kinds::SoulKind;

use crate::util::{client, send, wait_for, TestTown};
use crate::workers::phone::wait_log;

#[tokio::test(flavor = "multi_thread")]
async fn the_day_teaches_what_went_well_and_only_the_owner_rates_lessons() {
    let town = TestTown::new();
    // A job that went well earlier today, as an execution leaves it in karma.sqlite.
    {
        let karma = Karma::open(&town.dir.join(soul_karma::FILE_NAME)).unwrap();
        let now = soul_karma::now_secs();
        let id = karma
            .start_job("execution", None, "triceratops", r#"{"what":"count"}"#, now)
            .unwrap();
        karma
            .finish_job(
                id,
                true,
                "counted the lines of workspace/notes.txt: 12",
                now,
            )
            .unwrap();
    }
    // At --speed 6000 a town day is 14.4 s: 19:00 comes within one.
    let up = town.up(&["--speed", "6000"]);
    let line = wait_log(&up, &["the day's synthesis", "lessons=1"]);
    assert!(line.contains("jobs=1"), "{line}");

    let triceratops = town.keys("triceratops").public_key();
    let reader = client(&up.url, None).await;
    let lessons = wait_for(
        &reader,
        Filter::new()
            .kind(SoulKind::Karma.kind())
            .author(triceratops),
        1,
    )
    .await;
    let lesson = lessons
        .iter()
        .find(|e| e.content.contains("went well today"))
        .unwrap_or_else(|| panic!("no lesson from the day: {lessons:?}"));
    assert!(
        lesson.content.contains("counted the lines"),
        "{}",
        lesson.content
    );

    // A stranger's "-" first, then the owner's: the owner's rating is the only one applied,
    // so the weight it reports (40 - 25) proves the stranger's counted for nothing.
    let rate = |keys: &Keys, content: &str| {
        EventBuilder::new(Kind::Reaction, content)
            .tags([
                Tag::event(lesson.id),
                Tag::public_key(lesson.pubkey),
                Tag::custom(TagKind::k(), [SoulKind::Karma.kind().as_u16().to_string()]),
            ])
            .sign_with_keys(keys)
            .unwrap()
    };
    let stranger = Keys::generate();
    send(&reader, &rate(&stranger, "-")).await.unwrap();
    send(&reader, &rate(&town.keys("owner"), "-"))
        .await
        .unwrap();
    let rated = wait_log(&up, &["the owner rated a lesson"]);
    assert!(rated.contains("weight=15"), "{rated}");
    let karma = Karma::open(&town.dir.join(soul_karma::FILE_NAME)).unwrap();
    let row = karma
        .all_lessons()
        .unwrap()
        .into_iter()
        .find(|l| l.event_id.as_deref() == Some(lesson.id.to_hex().as_str()))
        .expect("the lesson is in karma.sqlite");
    assert_eq!(row.weight, 15);
    up.kill9();
}

//! Asking the owner by NIP-17 DM (through [`soul_link::dm::DmClient`]) and waiting for the answer.

use std::time::Duration;

use nostr::{Keys, PublicKey};

use super::confirm::{code_for, how_to_answer, read_answer, Answer};

use soul_link::dm::DmClient;

/// Asks `owner` `question` as `keys` over `relay` and waits up to `ttl` for the answer.
/// Any failure to ask (relay down, refused) is a no: CONFIRM fails closed.
pub async fn ask_owner(
    relay: &str,
    keys: &Keys,
    owner: PublicKey,
    subject: &str,
    question: &str,
    ttl: Duration,
) -> Answer {
    ask_with_code(relay, keys, owner, &code_for(subject), question, ttl)
        .await
        .map_or(Answer::No, |text| read_answer(&text))
}

/// Settles a CONFIRM: asks once, or, for a `double` one, asks a second question with its own
/// code after the first yes, and answers yes only after two clear yeses. The second question
/// cannot be answered by the first answer (a different code, a different message to reply to).
pub async fn confirm_with_owner(
    relay: &str,
    keys: &Keys,
    owner: PublicKey,
    subject: &str,
    question: &str,
    double: bool,
    ttl: Duration,
) -> Answer {
    let first = ask_owner(relay, keys, owner, subject, question, ttl).await;
    if first != Answer::Yes || !double {
        return first;
    }
    let second =
        format!("Second confirmation (this cannot be undone, so it needs two yeses): {question}");
    ask_with_code(relay, keys, owner, &second_code(subject), &second, ttl)
        .await
        .map_or(Answer::No, |text| read_answer(&text))
}

/// The code of a double CONFIRM's second question: other digits of the subject than the
/// first question's, never equal to them.
pub fn second_code(subject: &str) -> String {
    let first = code_for(subject);
    let chars: Vec<char> = subject.chars().collect();
    chars
        .chunks(6)
        .skip(1)
        .map(|c| c.iter().collect::<String>())
        .find(|c| c.len() == 6 && *c != first)
        .unwrap_or_else(|| format!("{first}2"))
}

/// Asks the owner a mind's clarifying question and returns the answer's text (without the
/// code), if one came in time; the answer resumes the proposal.
pub async fn ask_clarification(
    relay: &str,
    keys: &Keys,
    owner: PublicKey,
    subject: &str,
    question: &str,
    ttl: Duration,
) -> Option<String> {
    let code = code_for(subject);
    let text = format!(
        "{question}\n\nAnswer \"{code} <your answer>\" (or reply to this message); no answer within {} minutes stops it.",
        ttl.as_secs().div_ceil(60).max(1)
    );
    let answer = send_and_wait(relay, keys, owner, &code, &text, ttl).await?;
    let answer = answer.replacen(&code, "", 1).trim().to_owned();
    (!answer.is_empty()).then_some(answer)
}

/// Sends `question` with `code` and returns the owner's answer text, if one came in time.
pub async fn ask_with_code(
    relay: &str,
    keys: &Keys,
    owner: PublicKey,
    code: &str,
    question: &str,
    ttl: Duration,
) -> Option<String> {
    let text = format!(
        "{question}\n\n{} to go ahead; anything else, or no answer within {} minutes, is a no.",
        how_to_answer(code),
        ttl.as_secs().div_ceil(60).max(1)
    );
    send_and_wait(relay, keys, owner, code, &text, ttl).await
}

/// Sends `text` to the owner and waits for a message from them that replies to it or quotes
/// `code`. Any failure to ask is `None`: the caller treats it as no answer.
async fn send_and_wait(
    relay: &str,
    keys: &Keys,
    owner: PublicKey,
    code: &str,
    text: &str,
    ttl: Duration,
) -> Option<String> {
    let code = code.to_owned();
    let dm = match DmClient::connect(relay, keys).await {
        Ok(dm) => dm,
        Err(e) => {
            tracing::warn!("cannot ask the owner ({e}); treating it as a no");
            return None;
        }
    };
    let answer = async {
        let mut rx = match dm.follow().await {
            Ok(rx) => rx,
            Err(e) => {
                tracing::warn!("cannot read the owner's answer ({e}); treating it as a no");
                return None;
            }
        };
        let rumor = dm.send(owner, text, Vec::new()).await.ok()?;
        tokio::time::timeout(ttl, async {
            loop {
                let m = dm.next(&mut rx).await?;
                if m.sender == owner && (m.reply_to() == Some(rumor) || m.text.contains(&code)) {
                    return Some(m.text);
                }
            }
        })
        .await
        .ok()
        .flatten()
    }
    .await;
    dm.close().await;
    answer
}

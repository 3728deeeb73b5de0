//! Asking the owner by NIP-17 DM (through [`crate::dm::DmClient`]) and waiting for the answer.

use std::time::Duration;

use nostr::{Keys, PublicKey};

use super::confirm::{code_for, how_to_answer, read_answer, Answer};
use crate::dm::DmClient;

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
    let code = code_for(subject);
    let dm = match DmClient::connect(relay, keys).await {
        Ok(dm) => dm,
        Err(e) => {
            tracing::warn!("cannot ask the owner ({e}); treating it as a no");
            return Answer::No;
        }
    };
    let answer = async {
        let mut rx = dm.follow().await.ok()?;
        let text = format!(
            "{question}\n\n{} to go ahead; anything else, or no answer within {} minutes, is a no.",
            how_to_answer(&code),
            ttl.as_secs().div_ceil(60).max(1)
        );
        let rumor = dm.send(owner, &text, Vec::new()).await.ok()?;
        tokio::time::timeout(ttl, async {
            loop {
                let m = dm.next(&mut rx).await?;
                if m.sender == owner && (m.reply_to() == Some(rumor) || m.text.contains(&code)) {
                    return Some(read_answer(&m.text));
                }
            }
        })
        .await
        .ok()
        .flatten()
    }
    .await
    .unwrap_or(Answer::No);
    dm.close().await;
    answer
}

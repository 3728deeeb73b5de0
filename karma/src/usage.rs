//! The model's bookkeeping: fallbacks to the built-in mind, and tokens spent per UTC day
//! (`[llm] daily_token_budget` in town.toml), kept here so a restart does not reset the budget.

use rusqlite::{params, OptionalExtension};

use crate::{Error, Karma};

/// One time the model's answer could not be used.
#[derive(Debug, Clone, PartialEq)]
pub struct Fallback {
    /// Seconds since the epoch.
    pub at: i64,
    /// The agent that asked.
    pub agent: String,
    /// The model asked.
    pub model: String,
    /// What was asked ("opinion", "proposal", …).
    pub ask: String,
    /// Why the built-in mind stood in (timeout, rate limit, malformed, budget…).
    pub reason: String,
}

impl Karma {
    /// Records a fallback.
    pub fn record_fallback(&self, f: &Fallback) -> Result<(), Error> {
        self.conn()
            .execute(
                "INSERT INTO mind_fallbacks (at, agent, model, ask, reason) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![f.at, f.agent, f.model, f.ask, f.reason],
            )
            .map(|_| ())
            .map_err(|e| self.sql("record a model fallback", e))
    }

    /// Every fallback, oldest first.
    pub fn fallbacks(&self) -> Result<Vec<Fallback>, Error> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT at, agent, model, ask, reason FROM mind_fallbacks ORDER BY id")
            .map_err(|e| self.sql("read model fallbacks", e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Fallback {
                    at: r.get(0)?,
                    agent: r.get(1)?,
                    model: r.get(2)?,
                    ask: r.get(3)?,
                    reason: r.get(4)?,
                })
            })
            .map_err(|e| self.sql("read model fallbacks", e))?;
        rows.collect::<Result<_, _>>()
            .map_err(|e| self.sql("read a model fallback", e))
    }

    /// Tokens spent on `day` (`YYYY-MM-DD`, UTC).
    pub fn tokens_spent(&self, day: &str) -> Result<u64, Error> {
        self.conn()
            .query_row("SELECT tokens FROM token_use WHERE day = ?1", [day], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .map(|t| t.unwrap_or(0).max(0) as u64)
            .map_err(|e| self.sql("read token use", e))
    }

    /// Adds `tokens` to `day`'s spending; returns the new total.
    pub fn spend_tokens(&self, day: &str, tokens: u64) -> Result<u64, Error> {
        let tokens = i64::try_from(tokens).unwrap_or(i64::MAX);
        self.conn()
            .execute(
                "INSERT INTO token_use (day, tokens) VALUES (?1, ?2)
                 ON CONFLICT(day) DO UPDATE SET tokens = tokens + excluded.tokens",
                params![day, tokens],
            )
            .map_err(|e| self.sql("record token use", e))?;
        self.tokens_spent(day)
    }
}

//! The `soul-agent` command: one agent on any machine. See `soul-agent --help`.

use std::process::ExitCode;

use clap::Parser;
use soul_agents::agent_cli::{self, AgentArgs};

#[tokio::main]
async fn main() -> ExitCode {
    // Inside a networked sandbox run this binary is the egress forwarder, and nothing else.
    if let Some(code) = soul_sandbox::egress::forward::main_if_requested() {
        return code;
    }
    soul_agents::init_tracing();
    match agent_cli::run(AgentArgs::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("soul-agent: {e:#}");
            ExitCode::FAILURE
        }
    }
}

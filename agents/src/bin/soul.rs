//! The `soul` command: see `soul --help`.

use std::process::ExitCode;

use clap::Parser;
use soul_agents::cli::{self, Cli};

#[tokio::main]
async fn main() -> ExitCode {
    // Inside a networked sandbox run this binary is the egress forwarder, and nothing else.
    if let Some(code) = soul_sandbox::egress::forward::main_if_requested() {
        return code;
    }
    soul_agents::init_tracing();
    match cli::run(Cli::parse()).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("soul: {e:#}");
            ExitCode::FAILURE
        }
    }
}

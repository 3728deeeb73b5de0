//! `soul evaluate`: ask the brains for an evaluation cycle now, instead of at the next
//! scheduled time. The request is an owner task of type `evaluation` (only the owner may
//! publish tasks), which brains answer with evaluations instead of a debate.

use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;
use soul_kinds::content::task;
use soul_kinds::{Priority, Task};

use soul_host::town::load::Town;
use soul_link::Link;

pub(super) async fn run(dir: &Path, relay: Option<String>) -> anyhow::Result<ExitCode> {
    let town = Town::open(dir)?;
    let owner = town.owner_keys()?.ok_or_else(|| {
        anyhow!(
            "the owner's key is not in {}",
            town.dir.keys_dir().display()
        )
    })?;
    let url = relay.unwrap_or_else(|| town.config.relay.url.clone());
    let link = Link::connect(&url).await?;
    let request = Task {
        title: "Evaluation cycle requested by the owner".into(),
        description: "Each brain scores the other two now (soul evaluate).".into(),
        priority: Priority::Low,
        task_type: "evaluation".into(),
    };
    let event = link.publish(&owner, task(&request, None)).await?;
    link.close().await;
    println!(
        "evaluation cycle manual-{} requested",
        &event.id.to_hex()[..12]
    );
    Ok(ExitCode::SUCCESS)
}

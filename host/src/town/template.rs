//! The town template (`residents/`, `rules/`, `bulletin/`, `persona/`, `skills/`, `brains/` at
//! the repository root), embedded in the binary so that `soul init` works on a machine without the source tree.

use crate::HostError;
use std::path::Path;

use include_dir::{include_dir, Dir};

static RESIDENTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../residents");
static RULES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../rules");
static BULLETIN: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../bulletin");
static PERSONA: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../persona");
static SKILLS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../skills");
static BRAINS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../brains");

/// The template folders and their names inside a town.
fn folders() -> [(&'static str, &'static Dir<'static>); 6] {
    [
        ("residents", &RESIDENTS),
        ("rules", &RULES),
        ("bulletin", &BULLETIN),
        ("persona", &PERSONA),
        ("skills", &SKILLS),
        ("brains", &BRAINS),
    ]
}

/// The shipped character of brain `name` (`brains/NAME.md`), for a town made before the file
/// existed or an agent run without a town directory.
pub fn brain_character(name: &str) -> Option<&'static str> {
    BRAINS.get_file(format!("{name}.md"))?.contents_utf8()
}

/// Writes the template folders into `town`. Existing files are left alone.
pub fn copy_into(town: &Path) -> Result<(), HostError> {
    for (name, dir) in folders() {
        let target = town.join(name);
        let io = |source| HostError::Io {
            path: target.clone(),
            source,
        };
        std::fs::create_dir_all(&target).map_err(io)?;
        dir.extract(&target).map_err(io)?;
    }
    Ok(())
}

/// Names of the template's residents: every `residents/NAME.yaml` except `_common.yaml`.
pub fn resident_names() -> Vec<String> {
    let mut names: Vec<String> = RESIDENTS
        .files()
        .filter_map(|f| {
            let path = f.path();
            let stem = path.file_stem()?.to_str()?;
            (path.extension()? == "yaml" && !stem.starts_with('_')).then(|| stem.to_string())
        })
        .collect();
    names.sort();
    names
}

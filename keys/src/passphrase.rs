//! Where the passphrase of an `ncryptsec1…` key file comes from.
//!
//! [`EnvOrPrompt`] is what the binaries use: `SOUL_PASSPHRASE`, else a prompt on the terminal, else
//! an error (a service under systemd or docker has no terminal, and must not hang waiting for one).
//! [`Fixed`] is for tests and callers that already hold the passphrase.

use std::env::{self, VarError};
use std::fmt;
use std::io::IsTerminal;
use std::path::Path;

use crate::Error;

/// The environment variable holding the passphrase of encrypted key files.
pub const PASSPHRASE_ENV: &str = "SOUL_PASSPHRASE";

/// Supplies the passphrase for an encrypted key file.
pub trait PassphraseSource {
    /// The passphrase for the key file at `path`; asked only when the file is encrypted.
    fn passphrase(&self, path: &Path) -> Result<String, Error>;
}

/// `SOUL_PASSPHRASE` if set, else a prompt when stdin is a terminal, else [`Error::NoPassphrase`].
#[derive(Debug, Default, Clone, Copy)]
pub struct EnvOrPrompt;

impl PassphraseSource for EnvOrPrompt {
    fn passphrase(&self, path: &Path) -> Result<String, Error> {
        match env::var(PASSPHRASE_ENV) {
            Ok(passphrase) => return Ok(passphrase),
            Err(VarError::NotUnicode(_)) => {
                return Err(Error::PassphraseNotUnicode {
                    path: path.to_path_buf(),
                })
            }
            Err(VarError::NotPresent) => {}
        }
        if !std::io::stdin().is_terminal() {
            return Err(Error::NoPassphrase {
                path: path.to_path_buf(),
            });
        }
        rpassword::prompt_password(format!("passphrase for {}: ", path.display())).map_err(
            |source| Error::Io {
                path: path.to_path_buf(),
                action: "read the passphrase from the terminal",
                source,
            },
        )
    }
}

/// A passphrase known in advance. Its `Debug` output does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Fixed(pub String);

impl PassphraseSource for Fixed {
    fn passphrase(&self, _path: &Path) -> Result<String, Error> {
        Ok(self.0.clone())
    }
}

impl fmt::Debug for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Fixed(<redacted>)")
    }
}

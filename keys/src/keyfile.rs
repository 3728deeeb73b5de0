//! Key files: one line, `nsec1…` or NIP-49 `ncryptsec1…`, mode 0600.
//!
//! Files are created with `create_new` and mode 0600 given at open, so a key is never briefly
//! readable by others and never silently overwritten. Loading refuses files that group or others
//! may read, like ssh does, and accepts nothing but the two bech32 forms (no raw hex).

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nostr::nips::nip19;
use nostr::nips::nip49::{self, EncryptedSecretKey, KeySecurity};
use nostr::{FromBech32, Keys, SecretKey, ToBech32};

use crate::passphrase::{Fixed, PassphraseSource};
use crate::Error;

/// scrypt cost of NIP-49 encryption, as log2(N).
///
/// 16 is the value NIP-49 gives as its example: 64 MiB of memory and about 0.1 s on a laptop,
/// paid once when an agent starts. Higher values double both per step, which hurts a small box
/// starting a dozen agents; and rust-nostr refuses to decrypt above 18 by default
/// ([`EncryptedSecretKey::MAX_LOG_N`]), so a file made with more could not be read back.
pub const LOG_N: u8 = 16;

/// Extension of a plain key file.
pub const NSEC_EXT: &str = "nsec";
/// Extension of a NIP-49 encrypted key file.
pub const NCRYPTSEC_EXT: &str = "ncryptsec";

const NSEC_PREFIX: &str = "nsec1";
const NCRYPTSEC_PREFIX: &str = "ncryptsec1";
/// Key files are one short line; anything much larger is not a key file.
const MAX_FILE_BYTES: u64 = 4096;

/// A fresh random key pair from the operating system's random source.
pub fn generate() -> Keys {
    Keys::generate()
}

/// Writes `keys` as `nsec1…\n` to a new file at `path` (mode 0600); never overwrites.
pub fn write_nsec(path: &Path, keys: &Keys) -> Result<(), Error> {
    let nsec = match keys.secret_key().to_bech32() {
        Ok(nsec) => nsec,
        Err(never) => match never {},
    };
    write_new(path, &nsec)
}

/// Writes `keys` NIP-49-encrypted with `passphrase` as `ncryptsec1…\n` to a new file at `path`
/// (mode 0600, scrypt cost [`LOG_N`]); never overwrites.
pub fn write_ncryptsec(path: &Path, keys: &Keys, passphrase: &str) -> Result<(), Error> {
    let text = EncryptedSecretKey::new(keys.secret_key(), passphrase, LOG_N, KeySecurity::Unknown)
        .map_err(nip19::Error::NIP49)
        .and_then(|encrypted| encrypted.to_bech32())
        .map_err(|source| Error::Encrypt {
            path: path.to_path_buf(),
            source,
        })?;
    write_new(path, &text)
}

/// Reads the key file at `path`, asking `passphrase` only if it is encrypted.
pub fn load(path: &Path, passphrase: &dyn PassphraseSource) -> Result<Keys, Error> {
    let text = read_checked(path)?;
    let line = one_line(path, &text)?;
    let keys = if line.starts_with(NCRYPTSEC_PREFIX) {
        decrypt(path, line, &passphrase.passphrase(path)?)?
    } else {
        parse_nsec(path, line)?
    };
    tracing::debug!(path = %path.display(), pubkey = %keys.public_key(), "loaded key");
    Ok(keys)
}

/// Encrypts the plain key file `nsec_path` into `NAME.ncryptsec` beside it, checks that the new
/// file decrypts to the same key, then removes the plain file. Returns the new path.
///
/// The plain file is unlinked, not shredded: on journaling or copy-on-write file systems and SSDs
/// overwriting in place would not reliably erase it either.
pub fn encrypt_in_place(nsec_path: &Path, passphrase: &str) -> Result<PathBuf, Error> {
    let text = read_checked(nsec_path)?;
    let line = one_line(nsec_path, &text)?;
    if line.starts_with(NCRYPTSEC_PREFIX) {
        return Err(Error::AlreadyEncrypted {
            path: nsec_path.to_path_buf(),
        });
    }
    let keys = parse_nsec(nsec_path, line)?;
    let out = nsec_path.with_extension(NCRYPTSEC_EXT);
    write_ncryptsec(&out, &keys, passphrase)?;
    match load(&out, &Fixed(passphrase.to_owned())) {
        Ok(back) if back == keys => {}
        _ => {
            let _ = fs::remove_file(&out);
            return Err(Error::Verify { path: out });
        }
    }
    fs::remove_file(nsec_path).map_err(|source| Error::Io {
        path: nsec_path.to_path_buf(),
        action: "remove the plain key file after encrypting it",
        source,
    })?;
    tracing::info!(from = %nsec_path.display(), to = %out.display(), "encrypted key file");
    Ok(out)
}

/// The key file of agent `name` in `dir`: `NAME.ncryptsec` if present, else `NAME.nsec`.
pub fn find_key(dir: &Path, name: &str) -> Result<PathBuf, Error> {
    let not_found = || Error::KeyNotFound {
        dir: dir.to_path_buf(),
        name: name.to_owned(),
    };
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
        return Err(not_found());
    }
    let encrypted = dir.join(format!("{name}.{NCRYPTSEC_EXT}"));
    let plain = dir.join(format!("{name}.{NSEC_EXT}"));
    match (encrypted.is_file(), plain.is_file()) {
        (true, also_plain) => {
            if also_plain {
                tracing::warn!(path = %plain.display(), "a plain key file sits beside the encrypted one: remove it");
            }
            Ok(encrypted)
        }
        (false, true) => Ok(plain),
        (false, false) => Err(not_found()),
    }
}

fn write_new(path: &Path, bech32: &str) -> Result<(), Error> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|source| match source.kind() {
            ErrorKind::AlreadyExists => Error::Exists {
                path: path.to_path_buf(),
            },
            _ => io_error(path, "create the key file", source),
        })?;
    let written = file
        .write_all(format!("{bech32}\n").as_bytes())
        .and_then(|()| file.sync_all());
    if let Err(source) = written {
        drop(file);
        let _ = fs::remove_file(path);
        return Err(io_error(path, "write the key file", source));
    }
    Ok(())
}

/// Opens `path`, refuses it if others may read it (checked on the open handle), reads it.
fn read_checked(path: &Path) -> Result<String, Error> {
    let file = File::open(path).map_err(|source| match source.kind() {
        ErrorKind::NotFound => Error::Missing {
            path: path.to_path_buf(),
        },
        _ => io_error(path, "open the key file", source),
    })?;
    let meta = file
        .metadata()
        .map_err(|source| io_error(path, "stat the key file", source))?;
    let mode = meta.permissions().mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(Error::TooOpen {
            path: path.to_path_buf(),
            mode,
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| io_error(path, "read the key file", source))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(bad_key(path, "the file is larger than 4 KiB"));
    }
    String::from_utf8(bytes).map_err(|_| bad_key(path, "the file is not UTF-8 text"))
}

fn one_line<'a>(path: &Path, text: &'a str) -> Result<&'a str, Error> {
    let line = text.trim();
    if line.is_empty() {
        return Err(bad_key(path, "the file is empty"));
    }
    if line.lines().count() > 1 {
        return Err(bad_key(path, "the file has more than one line"));
    }
    Ok(line)
}

fn parse_nsec(path: &Path, line: &str) -> Result<Keys, Error> {
    if !line.starts_with(NSEC_PREFIX) {
        // Never echo the content: it may be a secret in another form.
        let reason = if line.starts_with("npub1") {
            "it holds a public key (npub1…), not a secret key"
        } else if line.len() == 64 && line.bytes().all(|b| b.is_ascii_hexdigit()) {
            "raw hex secret keys are not accepted: write the key as bech32 nsec1…"
        } else {
            "it starts with neither nsec1 nor ncryptsec1"
        };
        return Err(bad_key(path, reason));
    }
    let secret = SecretKey::from_bech32(line)
        .map_err(|e| bad_key(path, &format!("bad nsec bech32: {e}")))?;
    Ok(Keys::new(secret))
}

fn decrypt(path: &Path, line: &str, passphrase: &str) -> Result<Keys, Error> {
    let encrypted = EncryptedSecretKey::from_bech32(line)
        .map_err(|e| bad_key(path, &format!("bad ncryptsec bech32: {e}")))?;
    match encrypted.decrypt(passphrase) {
        Ok(secret) => Ok(Keys::new(secret)),
        Err(nip49::Error::ChaCha20Poly1305(_)) => Err(Error::WrongPassphrase {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(bad_key(path, &format!("bad ncryptsec: {e}"))),
    }
}

fn bad_key(path: &Path, reason: &str) -> Error {
    Error::BadKey {
        path: path.to_path_buf(),
        reason: reason.to_owned(),
    }
}

fn io_error(path: &Path, action: &'static str, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        action,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASS: &str = "correct horse battery staple";

    /// The NIP-49 test vector (LOG_N 16, passphrase "nostr"), so that tests of loading an
    /// ncryptsec cost no encryption. scrypt at LOG_N 16 takes seconds in a debug build, so the
    /// tests run it three times in all: two in `encrypt_in_place`, one for the wrong passphrase.
    const VECTOR: &str = "ncryptsec1qgg9947rlpvqu76pj5ecreduf9jxhselq2nae2kghhvd5g7dgjtcxfqtd67p9m0w57lspw8gsq6yphnm8623nsl8xn9j4jdzz84zm3frztj3z7s35vpzmqf6ksu8r89qk5z2zxfmu5gv8th8wclt0h4p";

    fn write_raw(path: &Path, text: &str, mode: u32) {
        fs::write(path, text).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    fn mode_of(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn nsec_round_trip_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("panda.nsec");
        let keys = generate();
        write_nsec(&path, &keys).unwrap();
        assert_eq!(mode_of(&path), 0o600);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("nsec1") && text.ends_with('\n'));
        assert_eq!(load(&path, &Fixed(String::new())).unwrap(), keys);
    }

    #[test]
    fn never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("panda.nsec");
        let keys = generate();
        write_nsec(&path, &keys).unwrap();
        let err = write_nsec(&path, &generate()).unwrap_err();
        assert!(matches!(err, Error::Exists { .. }), "{err}");
        assert_eq!(load(&path, &Fixed(String::new())).unwrap(), keys);
    }

    #[test]
    fn mode_0644_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("panda.nsec");
        write_nsec(&path, &generate()).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let err = load(&path, &Fixed(String::new())).unwrap_err();
        assert!(matches!(err, Error::TooOpen { mode: 0o644, .. }), "{err}");
        let msg = err.to_string();
        let shown = path.display().to_string();
        assert!(
            msg.contains(&format!("key file {shown} has mode 0644")),
            "{msg}"
        );
        assert!(msg.contains(&format!("chmod 600 {shown}")), "{msg}");
    }

    #[test]
    fn missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nobody.nsec");
        let err = load(&path, &Fixed(String::new())).unwrap_err();
        assert!(matches!(err, Error::Missing { .. }), "{err}");
        assert!(err.to_string().contains("soul init"), "{err}");
    }

    #[test]
    fn bad_bech32_and_other_forms() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.nsec");
        let mut nsec = generate().secret_key().to_bech32().unwrap();
        let last = if nsec.ends_with('q') { "p" } else { "q" };
        nsec.replace_range(nsec.len() - 1.., last);
        let hex = generate().secret_key().to_secret_hex();
        let npub = generate().public_key().to_bech32().unwrap();
        let two = format!("{nsec}\n{nsec}\n");
        for (text, expect) in [
            (nsec.as_str(), "bad nsec bech32"),
            (hex.as_str(), "raw hex"),
            (npub.as_str(), "public key"),
            ("", "empty"),
            (two.as_str(), "more than one line"),
            ("ncryptsec1qqqq", "bad ncryptsec bech32"),
        ] {
            fs::remove_file(&path).ok();
            write_raw(&path, text, 0o600);
            let err = load(&path, &Fixed(String::new())).unwrap_err();
            assert!(matches!(err, Error::BadKey { .. }), "{err}");
            let msg = err.to_string();
            assert!(msg.contains(expect), "{msg}");
            assert!(
                msg.contains("expected one line nsec1… or ncryptsec1…"),
                "{msg}"
            );
            assert!(msg.contains(&path.display().to_string()), "{msg}");
            if !text.is_empty() && text != "ncryptsec1qqqq" {
                assert!(!msg.contains(text.trim()), "secret echoed: {msg}");
            }
        }
    }

    #[test]
    fn wrong_passphrase_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("panda.ncryptsec");
        write_raw(&path, &format!("{VECTOR}\n"), 0o600);
        let err = load(&path, &Fixed("wrong".into())).unwrap_err();
        assert!(matches!(err, Error::WrongPassphrase { .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains("set SOUL_PASSPHRASE"), "{msg}");
    }

    #[test]
    fn encrypted_file_needs_a_passphrase_source_that_has_one() {
        struct Nothing;
        impl PassphraseSource for Nothing {
            fn passphrase(&self, path: &Path) -> Result<String, Error> {
                Err(Error::NoPassphrase {
                    path: path.to_path_buf(),
                })
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("panda.ncryptsec");
        write_raw(&path, VECTOR, 0o600);
        let err = load(&path, &Nothing).unwrap_err();
        assert!(matches!(err, Error::NoPassphrase { .. }), "{err}");
        // A plain file never asks.
        let plain = dir.path().join("owner.nsec");
        write_nsec(&plain, &generate()).unwrap();
        load(&plain, &Nothing).unwrap();
    }

    /// The ncryptsec round trip too: `encrypt_in_place` writes with `write_ncryptsec`, then
    /// `load`s the new file with a `Fixed` passphrase and compares keys before removing the nsec.
    #[test]
    fn encrypt_in_place_round_trips_and_replaces_the_nsec() {
        let dir = tempfile::tempdir().unwrap();
        let nsec = dir.path().join("gorilla.nsec");
        let keys = generate();
        write_nsec(&nsec, &keys).unwrap();
        let out = encrypt_in_place(&nsec, PASS).unwrap();
        assert_eq!(out, dir.path().join("gorilla.ncryptsec"));
        assert!(!nsec.exists());
        assert_eq!(mode_of(&out), 0o600);
        let text = fs::read_to_string(&out).unwrap();
        assert!(text.starts_with("ncryptsec1") && text.ends_with('\n'));
        let encrypted = EncryptedSecretKey::from_bech32(text.trim()).unwrap();
        assert_eq!(encrypted.log_n(), LOG_N);
        assert_eq!(find_key(dir.path(), "gorilla").unwrap(), out);

        let err = encrypt_in_place(&out, PASS).unwrap_err();
        assert!(matches!(err, Error::AlreadyEncrypted { .. }), "{err}");
        let err = write_ncryptsec(&out, &keys, PASS).unwrap_err();
        assert!(matches!(err, Error::Exists { .. }), "{err}");
    }

    #[test]
    fn find_key_prefers_ncryptsec() {
        let dir = tempfile::tempdir().unwrap();
        let err = find_key(dir.path(), "panda").unwrap_err();
        assert!(matches!(err, Error::KeyNotFound { .. }), "{err}");
        assert!(err.to_string().contains("panda.nsec"), "{err}");
        write_nsec(&dir.path().join("panda.nsec"), &generate()).unwrap();
        assert_eq!(
            find_key(dir.path(), "panda").unwrap(),
            dir.path().join("panda.nsec")
        );
        write_raw(&dir.path().join("panda.ncryptsec"), "x", 0o600);
        assert_eq!(
            find_key(dir.path(), "panda").unwrap(),
            dir.path().join("panda.ncryptsec")
        );
        assert!(find_key(dir.path(), "../panda").is_err());
    }
}

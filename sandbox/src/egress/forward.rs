//! The forwarder inside a networked run: a hidden mode of the soul binaries
//! (`soul __egress-forward LISTEN SOCKET -- COMMAND…`). It listens on `LISTEN` (127.0.0.1 of
//! the run's own, otherwise empty, network namespace), carries each connection to the proxy's
//! Unix `SOCKET`, and runs the command as its child, so the port is open before the command
//! starts and closes when it ends. It reads nothing from the environment: the sandbox's is
//! clean, and everything it needs is on its command line. Plain threads, no runtime: it lives
//! only as long as the command.

use std::ffi::OsString;
use std::io;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode};

/// The first argument that selects this mode.
pub const MODE: &str = "__egress-forward";
/// `MODE --check`: the answer that proves a binary has this mode.
pub const CHECK_ANSWER: &str = "soul egress forwarder ready";
/// The exit code when the forwarder cannot start (the command did not run).
pub const CANNOT_START: u8 = 125;

/// Runs the forwarder when the process was started in its mode; call first thing in `main`.
pub fn main_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != MODE {
        return None;
    }
    Some(run(args.collect()))
}

fn run(args: Vec<OsString>) -> ExitCode {
    if args.len() == 1 && args[0] == "--check" {
        println!("{CHECK_ANSWER}");
        return ExitCode::SUCCESS;
    }
    let fail = |why: String| {
        eprintln!("soul egress forwarder: {why}; the command did not run");
        ExitCode::from(CANNOT_START)
    };
    let (listen, socket, command) = match args.as_slice() {
        [l, s, dashes, cmd @ ..] if dashes == "--" && !cmd.is_empty() => (l, s, cmd),
        _ => return fail("usage: __egress-forward LISTEN SOCKET -- COMMAND [ARG…]".into()),
    };
    let listen = listen.to_string_lossy().into_owned();
    let socket = std::path::PathBuf::from(socket);
    // The proxy must be there before the command counts on it.
    if let Err(e) = UnixStream::connect(&socket) {
        return fail(format!(
            "cannot reach soul's egress proxy at {}: {e}",
            socket.display()
        ));
    }
    let listener = match TcpListener::bind(&listen) {
        Ok(l) => l,
        Err(e) => return fail(format!("cannot listen on {listen}: {e}")),
    };
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let socket = socket.clone();
            std::thread::spawn(move || {
                if let Err(e) = carry(conn, &socket) {
                    eprintln!("soul egress forwarder: {e}");
                }
            });
        }
    });
    let status = match Command::new(&command[0]).args(&command[1..]).status() {
        Ok(s) => s,
        Err(e) => {
            return fail(format!(
                "cannot start {}: {e}",
                command[0].to_string_lossy()
            ))
        }
    };
    // As a shell reports it: the code, or 128 + the signal that ended the command.
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// One connection: TCP from the command to the proxy's Unix socket and back.
fn carry(tcp: TcpStream, socket: &std::path::Path) -> io::Result<()> {
    let unix = UnixStream::connect(socket)?;
    let (mut tcp_r, mut unix_w) = (tcp.try_clone()?, unix.try_clone()?);
    let up = std::thread::spawn(move || {
        let _ = io::copy(&mut tcp_r, &mut unix_w);
        let _ = unix_w.shutdown(Shutdown::Write);
    });
    let (mut unix_r, mut tcp_w) = (unix, tcp);
    let _ = io::copy(&mut unix_r, &mut tcp_w);
    let _ = tcp_w.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}

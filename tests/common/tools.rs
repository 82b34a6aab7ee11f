//! Tools from outside the project that some tests drive as independent peers (net-snmp's
//! `snmpbulkwalk`, snmpsim, OpenSSH through `sshpass`): whether one is installed, and what
//! a test does when it is not. A plain `cargo test` skips such a test loudly, saying what
//! is missing and how to get it; `scripts/test.sh` (and so CI) sets `REQUIRE_TEST_TOOLS=1`,
//! under which a missing tool fails the test instead, so nothing is skipped there in
//! silence. Shared by the root crate's tests (`tests/common`) and the actors crate's tests
//! (included by path), so both say the same thing.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Set (to anything but `0` or empty) by `scripts/test.sh`: a missing tool is a failure.
/// Not `PONKEEPER_*`: the service refuses unknown variables with that prefix.
pub const REQUIRE_VAR: &str = "REQUIRE_TEST_TOOLS";

/// What to run to get every tool these tests use.
pub const HOW: &str =
    "`bash scripts/test.sh` installs it (apt: snmp, sshpass, openssh-client, victoria-metrics; \
                       pip into .venv: snmpsim)";

/// Whether `REQUIRE_TEST_TOOLS` asks for every tool to be there.
pub fn required() -> bool {
    std::env::var(REQUIRE_VAR).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The path of `program` on `PATH`, if it is there and a file.
pub fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// `true` when `tool` was found. Otherwise the test `test` is skipped: a line on stderr
/// names the test, the tool and how to install it, and the caller returns; under
/// `REQUIRE_TEST_TOOLS` it panics with the same words instead.
pub fn present(test: &str, tool: &str, found: bool) -> bool {
    if found {
        return true;
    }
    let message = format!("{tool} is not installed, so `{test}` cannot run; {HOW}");
    if required() {
        panic!("{message} ({REQUIRE_VAR} is set, so a missing tool is a failure)");
    }
    // Straight to the stderr handle, not `eprintln!`: the test harness captures the
    // macros' output of a passing test, and a skip must be seen.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
    false
}

/// [`present`] for a program looked up on `PATH`.
pub fn program(test: &str, program: &str) -> bool {
    present(test, program, on_path(program).is_some())
}

/// [`present`] for a program at a known path (snmpsim in the venv).
#[allow(dead_code)] // the actors' tests use it (they include this file), the service's do not
pub fn file(test: &str, tool: &str, path: &Path) -> bool {
    present(
        test,
        &format!("{tool} ({})", path.display()),
        path.is_file(),
    )
}

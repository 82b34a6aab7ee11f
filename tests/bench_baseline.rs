//! `ponkeeper bench baseline-http`, the bare handler `benches/api_load.sh` compares A1
//! with (docs/benchmarks.md): it answers its constant on any path, or with `--body-file`
//! that file's bytes exactly, as `application/json` with their length.

use crate::common;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The baseline's child process, stopped when dropped.
struct Baseline(Child);

impl Drop for Baseline {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(body_file: Option<&std::path::Path>) -> (Baseline, u16) {
    let port = common::ports::one();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ponkeeper"));
    command.args([
        "bench",
        "baseline-http",
        "--listen",
        &format!("127.0.0.1:{port}"),
    ]);
    if let Some(path) = body_file {
        command.arg("--body-file").arg(path);
    }
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the baseline starts");
    (Baseline(child), port)
}

/// One `GET path` with `Connection: close`, its answer read by the harness's parser.
fn get(port: u16, path: &str) -> common::raw::Answer {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(stream) => break stream,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("the baseline never listened on {port}: {e}"),
        }
    };
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .expect("request written");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer read");
    common::raw::parse(&answer)
}

/// The answer's header `name` (lower case).
fn header<'a>(answer: &'a common::raw::Answer, name: &str) -> Option<&'a str> {
    answer
        .headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

#[test]
fn answers_its_constant_on_any_path() {
    let (_baseline, port) = start(None);
    for path in ["/", "/api/v1/external/olts/1"] {
        let answer = get(port, path);
        assert_eq!(answer.status, 200);
        assert_eq!(header(&answer, "content-type"), Some("application/json"));
        assert_eq!(answer.envelope()["success"], true);
    }
}

#[test]
fn answers_a_files_bytes_exactly() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("answer.json");
    let bytes = format!(
        r#"{{"success":true,"data":{{"padding":"{}"}}}}"#,
        "é".repeat(2000)
    );
    std::fs::write(&path, &bytes).expect("file written");
    let (_baseline, port) = start(Some(&path));
    let answer = get(port, "/olts/7");
    assert_eq!(answer.status, 200);
    let length = bytes.len().to_string();
    assert_eq!(header(&answer, "content-length"), Some(length.as_str()));
    assert_eq!(answer.body, bytes.as_bytes());
}

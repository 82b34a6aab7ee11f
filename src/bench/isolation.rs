//! P7 and P8 of docs/benchmarks.md, measured on the benchmark's fleet through the simulator's
//! control socket. P7: the healthy OLTs' cycle time while one OLT, then a tenth of them,
//! hang (their polls in flight at the same time, as in `serve`), over the same OLTs'
//! cycle with nothing hung; each hung cycle is paired with a healthy one run right before
//! it, and the ratio is the median of the pairs'. P8: `restart-session` on an OLT whose
//! poll is stuck on a hung device, timed from the moment the device answers again until
//! the reply, beside that OLT's ordinary poll time.

use super::{cycle, median};
use anyhow::{bail, Context};
use ponkeeper_actors::olt::OltHandle;
use serde::Serialize;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Paired runs per P7 scenario, and samples of P8.
const ROUNDS: usize = 3;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IsolationFigures {
    /// Healthy OLTs' cycle with OLT 1 hung, over the same cycle with none hung (median
    /// of the pairs).
    pub ratio_one_hung: f64,
    /// The same with the first 10% of the OLTs hung.
    pub ratio_tenth_hung: f64,
    pub one_hung_seconds: Vec<f64>,
    pub tenth_hung_seconds: Vec<f64>,
    /// `restart-session` on the stuck OLT, from the device answering again to the reply.
    pub restart_session_seconds: f64,
    pub restart_session_seconds_all: Vec<f64>,
    /// That OLT's ordinary poll (`POST /poll`), for comparison.
    pub poll_seconds: f64,
}

/// Sends one line to the simulator's control socket; fails unless it answers `ok`, and
/// gives what follows the `ok` (e.g. the JSON of `stats`).
pub(crate) async fn control(socket: &Path, line: &str) -> anyhow::Result<String> {
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .with_context(|| {
            format!(
                "cannot reach the simulator's control socket {}",
                socket.display()
            )
        })?;
    let (read, mut write) = stream.into_split();
    write.write_all(format!("{line}\n").as_bytes()).await?;
    let mut reply = String::new();
    BufReader::new(read).read_line(&mut reply).await?;
    match reply.trim_end().strip_prefix("ok") {
        Some(rest) => Ok(rest.trim_start().to_string()),
        None => bail!("the simulator refused `{line}`: {}", reply.trim()),
    }
}

/// Healthy-cycle ratios with `hung` OLTs hanging, their polls running alongside.
async fn hung_ratio(
    socket: &Path,
    handles: &[OltHandle],
    hung: usize,
) -> anyhow::Result<(f64, Vec<f64>)> {
    let (stuck, healthy) = handles.split_at(hung);
    let targets = format!("1-{hung}");
    let mut ratios = Vec::new();
    let mut seconds = Vec::new();
    for _ in 0..ROUNDS {
        let baseline = cycle(healthy).await?;
        control(socket, &format!("set hang@{targets}")).await?;
        // The hung OLTs' polls run (and wait out their timeouts) during the healthy cycle.
        let hung_polls: Vec<_> = stuck
            .iter()
            .map(|h| {
                let h = h.clone();
                tokio::spawn(async move { h.poll_now().await })
            })
            .collect();
        let with_hung = cycle(healthy).await?;
        control(socket, &format!("clear {targets}")).await?;
        for poll in hung_polls {
            let _ = poll.await;
        }
        // Recover the hung OLTs, so every round starts from the same state.
        futures::future::join_all(stuck.iter().map(|h| h.poll_now())).await;
        ratios.push(with_hung / baseline);
        seconds.push(with_hung);
    }
    Ok((median(&ratios), seconds))
}

/// P7 and P8 on `handles` (ordered by id, the simulator's OLT 1 first).
pub async fn measure(socket: &Path, handles: &[OltHandle]) -> anyhow::Result<IsolationFigures> {
    let tenth = handles.len().div_ceil(10).max(1);
    let (ratio_one_hung, one_hung_seconds) = hung_ratio(socket, handles, 1).await?;
    let (ratio_tenth_hung, tenth_hung_seconds) = hung_ratio(socket, handles, tenth).await?;

    let olt = &handles[0];
    let mut polls = Vec::new();
    for _ in 0..ROUNDS {
        let started = Instant::now();
        olt.poll_now().await?;
        polls.push(started.elapsed().as_secs_f64());
    }
    let mut restarts = Vec::new();
    for _ in 0..ROUNDS {
        control(socket, "set hang@1").await?;
        let stuck = {
            let olt = olt.clone();
            tokio::spawn(async move { olt.poll_now().await })
        };
        tokio::time::sleep(Duration::from_millis(500)).await;
        control(socket, "clear 1").await?;
        let started = Instant::now();
        olt.restart_session().await?;
        restarts.push(started.elapsed().as_secs_f64());
        let _ = stuck.await;
    }
    Ok(IsolationFigures {
        ratio_one_hung,
        ratio_tenth_hung,
        one_hung_seconds,
        tenth_hung_seconds,
        restart_session_seconds: median(&restarts),
        restart_session_seconds_all: restarts,
        poll_seconds: median(&polls),
    })
}

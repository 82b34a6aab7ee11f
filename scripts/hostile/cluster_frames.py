"""Cluster port, big partial frames: can 30 unauthenticated connections that announce a
16 MiB frame and send 15 MiB of it make `ponkeeper serve` hold their bytes?

Run:  python3 scripts/hostile/cluster_frames.py /tmp/pk-repro/ponkeeper

Starts `ponkeeper sim` (20 OLTs x 16 ONUs) and `ponkeeper serve` with a `[cluster]`
section, waits for /readyz, then for each frame shape below opens 30 TCP connections to
the cluster `listen` port at once; each sends the length prefix and then 15 MiB of bytes
as fast as the socket takes them, and stays open. Frame shapes:

- `u32_16MiB`: a 4-byte big-endian length of 16 MiB (ractor_cluster reads a u64, so
  this prefix and the first 4 payload bytes read as one enormous length);
- `u64_16MiB`: ractor_cluster's own 8-byte length, 16 MiB (past its 1 MiB frame limit);
- `u64_1MiB`: an 8-byte length of exactly the 1 MiB frame limit, so only the gate's
  64 KiB handshake budget stands between the bytes and the node server's buffer.

Measures, per shape: serve's VmRSS before, at its peak (sampled every 100 ms) and 10 s
after the last connection ended or finished sending; bytes each connection got into the
socket; and when the server closed each one (seconds from its connect). Prints one JSON
line; stops every process it started and removes its temporary directory.
Target: RSS growth under 50 MB.
"""

import asyncio
import json
import statistics
import struct
import sys
import time

import harness

CONNECTIONS = 30
SEND = 15 * 1024 * 1024
CHUNK = 64 * 1024
SHAPES = {
    "u32_16MiB": struct.pack(">I", 16 * 1024 * 1024),
    "u64_16MiB": struct.pack(">Q", 16 * 1024 * 1024),
    "u64_1MiB": struct.pack(">Q", 1024 * 1024),
}


async def sample_rss(pid, out, stop):
    """Appends serve's RSS (kB) to `out` every 100 ms until `stop` is set."""
    while not stop.is_set():
        out.append(harness.rss_kb(pid))
        await asyncio.sleep(0.1)


async def one_connection(port, prefix, hold):
    """Connects, sends `prefix` and up to SEND bytes, waits until the server closes or
    `hold` is set. Returns (bytes sent, seconds to the server's close or None)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started, sent = time.monotonic(), 0
    closed = asyncio.ensure_future(reader.read(1))  # b"" or an error: the server closed
    closed_at = []
    closed.add_done_callback(lambda _: closed_at.append(time.monotonic()))
    payload = b"\xab" * CHUNK
    try:
        writer.write(prefix)
        while sent < SEND and not closed.done():
            writer.write(payload)
            await writer.drain()
            sent += CHUNK
        waiter = asyncio.ensure_future(hold.wait())
        await asyncio.wait([closed, waiter], return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
    except (ConnectionError, OSError):
        pass
    if not closed.done():
        try:
            await asyncio.wait_for(asyncio.shield(closed), 0.5)
        except (asyncio.TimeoutError, ConnectionError, OSError):
            pass
    closed_after = None
    if closed.done():
        closed_after = closed_at[0] - started
        closed.exception()  # retrieved, so it is not logged
    writer.transport.abort()
    return sent, closed_after


async def attack(pid, port, prefix):
    """One shape's 30 connections and the RSS around them."""
    before = harness.rss_kb(pid)
    samples, stop, hold = [], asyncio.Event(), asyncio.Event()
    sampler = asyncio.ensure_future(sample_rss(pid, samples, stop))
    tasks = [asyncio.ensure_future(one_connection(port, prefix, hold))
             for _ in range(CONNECTIONS)]
    # Every connection either closed by the server or done sending: hold 10 s more.
    await asyncio.wait(tasks, timeout=60)
    await asyncio.sleep(10)
    hold.set()
    results = await asyncio.gather(*tasks)
    stop.set()
    await sampler
    after = harness.rss_kb(pid)
    return summarize(before, max(samples + [before]), after, results)


def summarize(before, peak, after, results):
    closes = sorted(c for _, c in results if c is not None)
    sent = [s for s, _ in results]
    return {
        "rss_before_mb": round(before / 1024, 1),
        "rss_peak_mb": round(peak / 1024, 1),
        "rss_10s_after_mb": round(after / 1024, 1),
        "rss_growth_peak_mb": round((peak - before) / 1024, 1),
        "closed_by_server": len(closes),
        "still_open_after_10s": len(results) - len(closes),
        "close_s_min": round(closes[0], 3) if closes else None,
        "close_s_median": round(statistics.median(closes), 3) if closes else None,
        "close_s_max": round(closes[-1], 3) if closes else None,
        "sent_kib_min": min(sent) // 1024,
        "sent_kib_max": max(sent) // 1024,
        "target_met": (peak - before) < 50 * 1024,
    }


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    harness.raise_nofile(4096)
    port = harness.free_port()
    result = {"attack": "cluster_frames", "connections": CONNECTIONS,
              "send_mib": SEND // (1024 * 1024)}
    with harness.Service(sys.argv[1], extra_toml=harness.cluster_toml(port)) as svc:
        for name, prefix in SHAPES.items():
            svc.wait_ready()
            result[name] = asyncio.run(attack(svc.serve.pid, port, prefix))
        result["serve_alive"] = svc.serve.poll() is None
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

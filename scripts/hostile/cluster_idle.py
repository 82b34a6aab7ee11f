"""Cluster port, many idle connections: 2,000 TCP connections to the cluster `listen` port
that never send a byte. Does the gate admit only `max_handshakes` (16) into their
handshake, close the rest at once, close the admitted ones at `handshake_timeout` (5 s),
and does the HTTP port keep answering meanwhile?

Run:  python3 scripts/hostile/cluster_idle.py /tmp/pk-repro/ponkeeper

Starts `ponkeeper sim` (20 OLTs x 16 ONUs) and `ponkeeper serve` with a `[cluster]`
section (serve's descriptor limit raised to 65,536 or the hard limit), waits for
/readyz, then opens the 2,000 connections from one asyncio loop and waits on each until
the server closes it (EOF or reset), at most 30 s. Meanwhile it asks `GET /healthz` every
200 ms. Measures: connections that connected, how many were closed within 1 s of
connecting ("at once") and how many later, the time to close (min/median/p99/max), the
latest close after the first connect, and /healthz answers and latencies. Prints one
JSON line; stops every process it started and removes its temporary directory.
Target: every connection closed within the 5 s handshake deadline plus a little.
"""

import asyncio
import json
import sys
import threading
import time

import harness

CONNECTIONS = 2000
WAIT = 30.0
AT_ONCE = 1.0


async def one_connection(port, t0):
    """(connected at, closed at) in seconds after t0; None where it did not happen."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return None, None
    connected = time.monotonic() - t0
    closed = None
    try:
        await asyncio.wait_for(reader.read(1), WAIT)
        closed = time.monotonic() - t0  # EOF or data: either way the server acted
    except (ConnectionError, OSError):
        closed = time.monotonic() - t0
    except asyncio.TimeoutError:
        pass
    writer.transport.abort()
    return connected, closed


def poll_healthz(base, stop, out):
    """GET /healthz every 200 ms until `stop`; appends (status, seconds) to `out`."""
    while not stop.is_set():
        status, _, took = harness.http("GET", base + "/healthz", timeout=5)
        out.append((status, took))
        stop.wait(0.2)


def pct(sorted_values, q):
    if not sorted_values:
        return None
    return round(sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))], 3)


def summarize(results, health):
    connected = [(c, d) for c, d in results if c is not None]
    lifetimes = sorted(d - c for c, d in connected if d is not None)
    latencies = sorted(t for s, t in health if s == 200)
    return {
        "connected": len(connected),
        "connect_failed": len(results) - len(connected),
        "closed_at_once": sum(1 for x in lifetimes if x < AT_ONCE),
        "closed_later": sum(1 for x in lifetimes if x >= AT_ONCE),
        "never_closed_in_30s": sum(1 for _, d in connected if d is None),
        "open_s_min": pct(lifetimes, 0),
        "open_s_median": pct(lifetimes, 0.5),
        "open_s_p99": pct(lifetimes, 0.99),
        "open_s_max": pct(lifetimes, 1.0),
        "admitted_open_s": [round(x, 2) for x in lifetimes if x >= AT_ONCE][:40],
        "last_close_s_after_start": round(max(d for _, d in connected if d), 3),
        "healthz_requests": len(health),
        "healthz_not_200": sum(1 for s, _ in health if s != 200),
        "healthz_p50_ms": round(pct(latencies, 0.5) * 1000, 1) if latencies else None,
        "healthz_max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
    }


async def attack(port):
    t0 = time.monotonic()
    return await asyncio.gather(*(one_connection(port, t0) for _ in range(CONNECTIONS)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    harness.raise_nofile(CONNECTIONS + 512)
    port = harness.free_port()
    with harness.Service(sys.argv[1], extra_toml=harness.cluster_toml(port)) as svc:
        stop, health = threading.Event(), []
        prober = threading.Thread(target=poll_healthz, args=(svc.base, stop, health))
        prober.start()
        try:
            results = asyncio.run(attack(port))
        finally:
            stop.set()
            prober.join()
        result = {"attack": "cluster_idle", "connections": CONNECTIONS,
                  **summarize(results, health), "serve_alive": svc.serve.poll() is None}
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

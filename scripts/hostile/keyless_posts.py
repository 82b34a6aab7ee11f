"""Keyless POSTs from 20,000 addresses: can requests without a valid key, each from a
different client address, make `ponkeeper serve` write to its data directory without
bound (one audit entry per refusal)?

Run:  python3 scripts/hostile/keyless_posts.py /tmp/pk-repro/ponkeeper [bind|xff] [REQUESTS]

Starts `ponkeeper sim` (20 OLTs x 16 ONUs) and `ponkeeper serve` (a FULL key created
with `ponkeeper keys create` before start), waits for /readyz, then sends REQUESTS (20,000)
`POST /api/v1/external/olts/1/poll` requests, every other one with no `X-API-Key` and
the rest with a wrong one, each on its own connection (`Connection: close`), from 8
asyncio workers:

- `bind` (default): each client socket is bound to its own address in 127.0.0.0/8
  (127.1.0.1, 127.1.0.2, ...; Linux routes all of 127/8 to lo);
- `xff`: from 127.0.0.1, listed in `trusted_proxies`, each request carrying its own
  `X-Forwarded-For` address (distinct random addresses in 10.0.0.0/8).

Measures: the answers' status codes and the rate; the data directory's size (`du -sb`)
when ready, after a 15 s quiet baseline (the fleet's own writes), every second during the
attack, and 3 s and 30 s after the last request (sled flushes every 500 ms; the second shows whether sled gives space back); the audit log's entry count (`GET /audit-logs?size=1`
with the FULL key, `meta.totalCount`) before and after; and the `auth.refusals_over_budget`
summaries' counts. Prints one JSON line; stops every process it started and removes its
temporary directory. Target: data directory growth under 1 MB.
"""

import asyncio
import json
import random
import sys
import threading
import time

import harness

WORKERS = 8
BASELINE_S = 15
SETTLE_S = 3
LATER_S = 30
PATH = "/api/v1/external/olts/1/poll"


def source_address(i):
    """The i-th loopback source: 127.1.0.1, ..., skipping .0 and .255 in the last byte."""
    n = (i // 254) * 256 + i % 254 + 1
    return f"127.{1 + n // 65536}.{n // 256 % 256}.{n % 256}"


def forwarded_addresses(count, seed=36):
    """`count` distinct random addresses in 10.0.0.0/8."""
    picks = random.Random(seed).sample(range(1, 1 << 24), count)
    return [f"10.{p >> 16}.{p >> 8 & 255}.{p & 255}" for p in picks]


def request_bytes(i, port, forwarded):
    key = "" if i % 2 == 0 else "X-API-Key: pk_not_a_valid_key_0000000000000000\r\n"
    xff = f"X-Forwarded-For: {forwarded}\r\n" if forwarded else ""
    return (f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{key}{xff}"
            "Content-Length: 0\r\nConnection: close\r\n\r\n").encode()


async def one_request(port, source, payload):
    """The status code of one request on its own connection (0: no answer)."""
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(source, 0))
    except OSError:
        return 0
    try:
        writer.write(payload)
        head = await asyncio.wait_for(reader.read(), 10)
        return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0
    except (OSError, asyncio.TimeoutError, ValueError, IndexError):
        return 0
    finally:
        writer.transport.abort()


async def attack(port, mode, requests):
    """All requests from WORKERS workers; (status counts, seconds taken)."""
    forwarded = forwarded_addresses(requests) if mode == "xff" else None
    statuses, queue = {}, iter(range(requests))

    async def worker():
        for i in queue:
            if forwarded:
                source, fwd = "127.0.0.1", forwarded[i]
            else:
                source, fwd = source_address(i), None
            status = await one_request(port, source, request_bytes(i, port, fwd))
            statuses[status] = statuses.get(status, 0) + 1

    started = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(WORKERS)))
    return statuses, time.monotonic() - started


def summaries(svc):
    """count and addresses of every auth.refusals_over_budget entry, newest first."""
    status, body, _ = harness.http(
        "GET", svc.base + "/api/v1/external/audit-logs?action=auth.refusals_over_budget"
        "&size=50", {"X-API-Key": svc.key})
    if status != 200:
        return f"audit-logs answered {status}"
    return [entry.get("params") for entry in body["data"]]


def sample_sizes(path, stop, out):
    """Appends (seconds, du -sb of `path`) to `out` every second until `stop` is set."""
    started = time.monotonic()
    while not stop.is_set():
        out.append((round(time.monotonic() - started), harness.du_bytes(path)))
        stop.wait(1.0)


def run_sampled(svc, mode, requests):
    """The attack with the data directory's size sampled meanwhile."""
    stop, sizes = threading.Event(), []
    sampler = threading.Thread(target=sample_sizes, args=(svc.data_dir, stop, sizes))
    sampler.start()
    try:
        statuses, took = asyncio.run(attack(svc.http_port, mode, requests))
        time.sleep(SETTLE_S)
    finally:
        stop.set()
        sampler.join()
    return statuses, took, sizes


def measure(svc, mode, requests):
    ready_size = harness.du_bytes(svc.data_dir)
    time.sleep(BASELINE_S)
    before_size, before_entries = harness.du_bytes(svc.data_dir), svc.audit_total()
    statuses, took, sizes = run_sampled(svc, mode, requests)
    after_size, after_entries = harness.du_bytes(svc.data_dir), svc.audit_total()
    time.sleep(LATER_S - SETTLE_S)
    later_size = harness.du_bytes(svc.data_dir)
    growth = after_size - before_size
    quiet_rate = (before_size - ready_size) / BASELINE_S
    return {
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "seconds": round(took, 1),
        "requests_per_s": round(requests / took),
        "data_dir_bytes_ready": ready_size,
        "data_dir_growth_quiet_baseline_bytes": before_size - ready_size,
        "baseline_s": BASELINE_S,
        "data_dir_bytes_before": before_size,
        "data_dir_bytes_after": after_size,
        "data_dir_growth_bytes": growth,
        "data_dir_growth_minus_quiet_rate_bytes": round(growth - quiet_rate * (took + SETTLE_S)),
        "data_dir_growth_peak_bytes": max(size for _, size in sizes) - before_size,
        "data_dir_growth_30s_after_bytes": later_size - before_size,
        "data_dir_growth_each_s": [size - before_size for _, size in sizes],
        "audit_entries_before": before_entries,
        "audit_entries_after": after_entries,
        "audit_entries_added": after_entries - before_entries,
        "over_budget_summaries": summaries(svc),
        "target_met": growth < 1_000_000,
    }


def main():
    args = sys.argv[1:] + ["bind", "20000"][len(sys.argv) - 2:]
    if len(sys.argv) not in (2, 3, 4) or args[1] not in ("bind", "xff") or not args[2].isdigit():
        sys.exit(__doc__)
    mode, requests = args[1], int(args[2])
    harness.raise_nofile(4096)
    top = 'trusted_proxies = ["127.0.0.1/32"]' if mode == "xff" else ""
    with harness.Service(sys.argv[1], top_toml=top, full_key=True) as svc:
        result = {"attack": "keyless_posts", "mode": mode, "requests": requests,
                  "workers": WORKERS, **measure(svc, mode, requests),
                  "serve_alive": svc.serve.poll() is None}
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Soak: a flapping fleet with faults under steady API traffic, for a bounded time.

Starts `ponkeeper sim` (mixed vendors, ONUs dropping out and coming back on the
simulator's ticker, a tenth of the OLTs with SNMP faults from the start) and `ponkeeper
serve` polling it every two seconds. For --duration seconds, reader threads send the
API's read requests without pause, and every ten seconds the fault set changes over the
simulator's control socket (OLTs hang and recover in turn). /metrics is scraped every
few seconds. At the end it checks:

- no read request failed: every answer 200, none lost (reads are served from the actors'
  memory, so hung OLTs must not show here);
- resident memory after warm-up grows by at most --rss-growth-mb;
- live tokio tasks and open file descriptors do not climb (the last quarter's peak is
  within a small margin of the second quarter's peak);
- the healthy OLTs are ONLINE, the faulty ones DEGRADED or OFFLINE with a lastError;
- SIGTERM stops the service with exit status 0.

Prints the figures and closes with 'soak: passed' or 'soak: FAILED (...)'.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


def free_tcp_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(base, path, key, timeout=10):
    req = urllib.request.Request(base + path, headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def control(path, line):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall((line + "\n").encode())
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            reply += chunk
    reply = reply.decode().strip()
    if not reply.startswith("ok"):
        raise SystemExit(f"control {line!r}: {reply}")
    return reply


def wait_for(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (OSError, ValueError, urllib.error.URLError):
            pass
        time.sleep(0.3)
    raise SystemExit(f"soak: timed out waiting for {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--duration", type=float, default=120)
    parser.add_argument("--olts", type=int, default=60)
    parser.add_argument("--onus-per-olt", type=int, default=32)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--rss-growth-mb", type=float, default=40)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="ponkeeper-soak-")
    inventory = os.path.join(work, "inventory.toml")
    control_path = os.path.join(work, "sim.sock")
    config = os.path.join(work, "ponkeeper.toml")
    port = free_tcp_port()
    base = f"http://127.0.0.1:{port}"
    api = base + "/api/v1/external"
    olts = list(range(1, args.olts + 1))
    tenth = max(1, args.olts // 10)
    # Faulty from the start: hung, dropping 40%, garbage, malformed BER, wrong request ids.
    steady_faults = {
        "hang": olts[0:tenth // 2 or 1],
        "drop:40": olts[tenth:tenth + 2],
        "garbage": olts[tenth + 2:tenth + 3],
        "malformed": olts[tenth + 3:tenth + 4],
        "wrong-id": olts[tenth + 4:tenth + 5],
    }
    spec = ";".join(f"{kind}@{','.join(map(str, ids))}" for kind, ids in steady_faults.items() if ids)
    # Always-failing OLTs; the lossy ones (drop:40) fail a poll now and then despite the
    # retries, so they are only read, not judged.
    lossy = set(steady_faults["drop:40"])
    failing = sorted({i for kind, ids in steady_faults.items() if kind != "drop:40" for i in ids})
    # OLTs whose faults flap during the run: they hang and recover in turn.
    flapping = olts[tenth + 5:tenth + 5 + tenth]

    # The simulator's SSH password (its default); the inventory names this variable.
    env = dict(os.environ, SIM_SSH_PASSWORD="sim-olt-secret")
    sim = subprocess.Popen(
        [args.binary, "sim", "--olts", str(args.olts), "--onus-per-olt", str(args.onus_per_olt),
         "--vendor", "mixed", "--base-port", "0", "--inventory-out", inventory,
         "--faults", spec, "--control", control_path],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "sim.log"), "w"), env=env)
    serve = None
    try:
        wait_for("the simulator's inventory", lambda: os.path.exists(control_path)
                 and os.path.exists(inventory) and os.path.getsize(inventory) > 0, 60)
        with open(config, "w") as f:
            f.write(f'listen = "127.0.0.1:{port}"\ndata_dir = "{work}/data"\n'
                    f'inventory = "{inventory}"\n\n'
                    '[polling]\nstatus_interval = "2s"\ntimeout = "300ms"\nretries = 2\n'
                    'deadline = "3s"\noffline_after = 3\n\n'
                    '[rate_limit]\ndefault = "100000/s"\n')
        key = subprocess.run([args.binary, "keys", "create", "--config", config, "--name", "soak",
                              "--level", "READ_ONLY"], check=True, capture_output=True,
                             text=True).stdout.strip()
        serve = subprocess.Popen([args.binary, "serve", "--config", config],
                                 stdout=subprocess.DEVNULL,
                                 stderr=open(os.path.join(work, "serve.log"), "w"), env=env)

        def polled():
            status, body = request(api, "/olts?size=500", key)
            items = json.loads(body)["data"] if status == 200 else []
            return len(items) == args.olts and all(o["status"] != "CONNECTING" for o in items)
        wait_for("the first poll of every OLT", polled, 60)
        status, body = request(api, "/olts/%d/onus?size=5" % olts[-1], key)
        serials = [o["serial"] for o in json.loads(body)["data"]]
        onu_ids = [o["id"] for o in json.loads(body)["data"]]

        paths = ["/olts?size=100", "/nodes", "/onus?size=50&status=OFFLINE"]
        paths += [f"/olts/{i}" for i in olts[::7]]
        paths += [f"/olts/{i}" for i in failing + flapping]
        paths += [f"/onus?q={s}" for s in serials]
        paths += [f"/onus/{i}/optics" for i in onu_ids]
        paths += [f"/olts/{i}/onus?size=100" for i in olts[::11]]

        stop = threading.Event()
        lock = threading.Lock()
        latencies, failures = [], []

        def reader(seed):
            rng = random.Random(seed)
            while not stop.is_set():
                path = rng.choice(paths)
                started = time.monotonic()
                try:
                    status, _ = request(api, path, key)
                except OSError as error:
                    status = f"{type(error).__name__}: {error}"
                took = time.monotonic() - started
                with lock:
                    latencies.append(took)
                    if status != 200:
                        failures.append((path, status))

        samples = []  # (elapsed, rss, tasks, fds)

        def scrape(started):
            status, body = request(base, "/metrics", key)
            if status == 200:
                text = body.decode()
                samples.append((time.monotonic() - started,
                                metric(text, "ponkeeper_process_resident_memory_bytes"),
                                metric(text, "ponkeeper_runtime_alive_tasks"),
                                metric(text, "ponkeeper_process_open_fds")))

        threads = [threading.Thread(target=reader, args=(n,), daemon=True) for n in range(args.readers)]
        started = time.monotonic()
        for t in threads:
            t.start()
        flap_at, scrape_at, flap_round = 10.0, 0.0, 0
        while (elapsed := time.monotonic() - started) < args.duration:
            if elapsed >= scrape_at:
                scrape(started)
                scrape_at += 3
            if elapsed >= flap_at and flapping:
                # Half of the flapping OLTs hang, the other half recover, then swap.
                half = flapping[flap_round % 2::2]
                other = flapping[(flap_round + 1) % 2::2]
                if other:
                    control(control_path, "clear " + ",".join(map(str, other)))
                if half:
                    control(control_path, "set hang@" + ",".join(map(str, half)))
                flap_round += 1
                flap_at += 10
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join(timeout=15)
        scrape(started)

        problems = []
        total = len(latencies)
        p50 = statistics.median(latencies) * 1000 if latencies else 0
        p99 = sorted(latencies)[int(total * 0.99) - 1] * 1000 if total >= 100 else 0
        rate = total / args.duration
        print(f"requests: {total} ({rate:.0f}/s), failed: {len(failures)}, "
              f"p50 {p50:.1f} ms, p99 {p99:.1f} ms")
        if total < args.duration * 10:
            problems.append(f"only {total} requests in {args.duration:.0f} s")
        if failures:
            problems.append(f"{len(failures)} failed reads, e.g. {failures[:3]}")

        warm = [s for s in samples if s[0] >= args.duration * 0.25]
        if len(warm) >= 8:
            quarter = len(warm) // 3
            early, late = warm[:quarter], warm[-quarter:]
            rss_early = statistics.median(s[1] for s in early) / 2**20
            rss_late = statistics.median(s[1] for s in late) / 2**20
            tasks_early, tasks_late = max(s[2] for s in early), max(s[2] for s in late)
            fds_early, fds_late = max(s[3] for s in early), max(s[3] for s in late)
            print(f"rss: {rss_early:.1f} -> {rss_late:.1f} MiB; tasks (peak): {tasks_early:.0f} -> "
                  f"{tasks_late:.0f}; open fds (peak): {fds_early:.0f} -> {fds_late:.0f}")
            if rss_late - rss_early > args.rss_growth_mb:
                problems.append(f"memory grew by {rss_late - rss_early:.1f} MiB")
            if tasks_late > tasks_early * 1.25 + 20:
                problems.append(f"tasks climbed from {tasks_early:.0f} to {tasks_late:.0f}")
            if fds_late > fds_early * 1.25 + 10:
                problems.append(f"open fds climbed from {fds_early:.0f} to {fds_late:.0f}")
        else:
            problems.append(f"only {len(samples)} metric samples")

        # Settle: clear the flapping faults and let two intervals pass.
        if flapping:
            control(control_path, "clear " + ",".join(map(str, flapping)))
        time.sleep(6)
        status, body = request(api, "/olts?size=500", key)
        items = {o["id"]: o for o in json.loads(body)["data"]}
        bad = [i for i in olts
               if i not in failing and i not in lossy and items[i]["status"] != "ONLINE"]
        if bad:
            problems.append(f"healthy OLTs not ONLINE: {[(i, items[i]['status']) for i in bad]}")
        for i in failing:
            status, body = request(api, f"/olts/{i}", key)
            detail = json.loads(body)["data"]
            if detail["status"] not in ("DEGRADED", "OFFLINE") or not detail["session"]["lastError"]:
                problems.append(f"faulty OLT {i}: {detail['status']}, {detail['session']['lastError']!r}")
        if not bad:
            print(f"faulty OLTs {failing}: DEGRADED/OFFLINE with a lastError; "
                  f"{args.olts - len(failing) - len(lossy)} healthy ONLINE")

        serve.send_signal(signal.SIGTERM)
        try:
            code = serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            code = "still running 15 s after SIGTERM"
        if code != 0:
            problems.append(f"SIGTERM exit: {code}")
        serve = None

        if problems:
            print("soak: FAILED (" + "; ".join(problems) + ")")
            for log in ("serve.log", "sim.log"):
                path = os.path.join(work, log)
                if os.path.exists(path):
                    with open(path) as f:
                        tail = f.readlines()[-30:]
                    print(f"--- last lines of {log}:\n" + "".join(tail), file=sys.stderr)
            return 1
        print("soak: passed")
        return 0
    finally:
        for process in (serve, sim):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

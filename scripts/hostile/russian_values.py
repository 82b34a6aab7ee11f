"""Hostile values for a client that reads Russian: does any GET parameter let a value make
`ponkeeper serve` spend CPU on it out of proportion (the phrase book once took about the
fourth power of a value's length), or slow the requests of others?

Run:  python3 scripts/hostile/russian_values.py BINARY [VALUES] [OLTS] [ONUS]

Starts `ponkeeper sim` (OLTS x ONUS, default 1,000 x 128: the reference workload) and
`ponkeeper serve` on it with every poll group at one hour, so after the first poll the
service is idle; a READ_ONLY-level request is all an attacker needs, and the probe uses
the FULL key the harness makes. Reads the service's OpenAPI document for every query
parameter of every GET (path ids set to 1), and sends each of VALUES (1,000) hostile
values of 60 KB as sent (blanks, backticks, backslashes, braces, the phrase book's own
words, Cyrillic, in a different order each) on every one of them, one request at a time,
with `Accept-Language: ru`. Per request it takes the CPU `serve` spent, from the
nanosecond run times of each of its threads (`/proc/PID/task/*/schedstat`), before and
after. Then `wrk` (1 thread, 8 connections, 10 s) on `GET /olts?size=100`, first idle,
then while two clients send hostile values back to back: the p99 of the two runs.

Prints one JSON line: requests, the answers' status counts, CPU per request (median,
p99); of the refused ones (4xx: the phrase book's path) the worst and the ten worst with
their path and parameter, and those ten asked 20 times more each (median and largest:
a single figure may hold background work that ran in the same milliseconds); of the
parameters that took a hostile value (a text filter
answering 200) the three costliest, each beside the CPU of the same filter with the
plain value `x`; and the two p99s with their ratio. Targets (issue 55): a refusal ≤ 5 ms
of CPU; a filter no dearer with a hostile value than with a plain one; the busy p99
within 2x the idle.
"""

import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

import harness

VALUE_BYTES = 60_000
# After /readyz, the other poll groups' first reads (identity, optics, traffic, MACs) run
# once; the probe starts when they are done, so their CPU is not counted as a request's.
SETTLE_S = 30
PIECES = [" ", "  ", "`", "\\", "\\`", "{}", "{s}", "` at line 1 column ", "must be ",
          " not found", "one of ", ", expected ", "parameter `", "field `", "не найдено",
          "ONU", ":", "%", "…", "\u00a0", "x"]
QUIET = ('[polling]\nstatus_interval = "1h"\nidentity_interval = "1h"\n'
         'optics_interval = "1h"\nolt_interval = "1h"\ntraffic_interval = "1h"\n'
         'macs_interval = "1h"\n[rate_limit]\ndefault = "1000000/s"\n')


def hostile(seed):
    """A value of VALUE_BYTES as sent (percent-encoded), its pieces in the order `seed`
    gives."""
    rng = random.Random(seed)
    parts, size = [], 0
    while True:
        piece = urllib.parse.quote(rng.choice(PIECES), safe="")
        if size + len(piece) > VALUE_BYTES:
            return "".join(parts)
        parts.append(piece)
        size += len(piece)


def targets(base, key):
    """(path, parameter) of every query parameter of every GET the OpenAPI document
    lists, path parameters set to 1."""
    status, doc, _ = harness.http("GET", base + "/api-docs/openapi.json",
                                  {"X-API-Key": key}, timeout=30)
    if status != 200:
        raise RuntimeError(f"the OpenAPI document answered {status}")
    found = []
    for path, item in doc["paths"].items():
        get = item.get("get")
        if not get:
            continue
        concrete = re.sub(r"\{[^}]+\}", "1", path)
        for parameter in get.get("parameters", []):
            if parameter.get("in") == "query":
                found.append((concrete, parameter["name"]))
    return found


def cpu_ns(pid):
    """The run time of every thread of `pid` so far, in nanoseconds."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def probe(service, values):
    """CPU of each hostile request, one at a time: [(ns, path, parameter, status)]."""
    pid = service.serve.pid
    headers = {"X-API-Key": service.key, "Accept-Language": "ru"}
    found = targets(service.base, service.key)
    results = []
    for n in range(values):
        value = hostile(n)
        for path, parameter in found:
            url = f"{service.base}{path}?{parameter}={value}"
            before = cpu_ns(pid)
            status, _, _ = harness.http("GET", url, headers, timeout=60)
            results.append((cpu_ns(pid) - before, path, parameter, status))
    return found, results


def plain_costs(service, results):
    """For each parameter that took a hostile value (a filter answering 200): the median
    CPU of its hostile requests and of 9 requests with the plain value `x`, in ms."""
    pid = service.serve.pid
    headers = {"X-API-Key": service.key, "Accept-Language": "ru"}
    by_target = {}
    for ns, path, parameter, status in results:
        if status < 400:
            by_target.setdefault((path, parameter), []).append(ns / 1e6)
    costs = []
    for (path, parameter), hostile_ms in by_target.items():
        plain = []
        for _ in range(9):
            before = cpu_ns(pid)
            harness.http("GET", f"{service.base}{path}?{parameter}=x", headers, timeout=60)
            plain.append((cpu_ns(pid) - before) / 1e6)
        costs.append((statistics.median(hostile_ms), statistics.median(plain), path, parameter))
    return costs


def repeated(service, worst):
    """The ten worst refusals' targets, each asked 20 times more with fresh hostile
    values: its median and largest CPU in ms. A single sweep's worst figures include
    whatever background work (store flushes, timers) ran in the same milliseconds; a
    target whose cost is its own shows it again here."""
    pid = service.serve.pid
    headers = {"X-API-Key": service.key, "Accept-Language": "ru"}
    again = []
    for n, (_, path, parameter, _) in enumerate(worst):
        cpu = []
        for k in range(20):
            url = f"{service.base}{path}?{parameter}={hostile(100_000 + 20 * n + k)}"
            before = cpu_ns(pid)
            harness.http("GET", url, headers, timeout=60)
            cpu.append((cpu_ns(pid) - before) / 1e6)
        again.append({"at": f"{path}?{parameter}=", "median_ms": round(statistics.median(cpu), 2),
                      "max_ms": round(max(cpu), 2)})
    return again


def baselines(costs):
    """The three filters whose hostile values cost most, beside the plain value's cost."""
    worst = sorted(costs, reverse=True)[:3]
    return [{"at": f"{path}?{parameter}=", "hostile_ms": round(h, 2), "plain_ms": round(p, 2)}
            for h, p, path, parameter in worst]


def wrk_p99(url, key, seconds=10):
    """The p99 of `GET url` under wrk, in milliseconds."""
    out = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds}s", "--latency",
                          "-H", f"X-API-Key: {key}", url],
                         capture_output=True, text=True, check=True).stdout
    value = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def p99_under_attack(service, found):
    """The idle p99 of GET /olts?size=100, and its p99 while two clients send hostile
    values back to back."""
    url = service.base + "/api/v1/external/olts?size=100"
    idle = wrk_p99(url, service.key)
    stop = threading.Event()
    headers = {"X-API-Key": service.key, "Accept-Language": "ru"}

    def attack(seed):
        n = seed
        while not stop.is_set():
            path, parameter = found[n % len(found)]
            harness.http("GET", f"{service.base}{path}?{parameter}={hostile(n)}", headers)
            n += 2

    clients = [threading.Thread(target=attack, args=(s,)) for s in (0, 1)]
    for client in clients:
        client.start()
    try:
        busy = wrk_p99(url, service.key)
    finally:
        stop.set()
        for client in clients:
            client.join()
    return idle, busy


def main():
    binary = sys.argv[1]
    values = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    olts = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    onus = int(sys.argv[4]) if len(sys.argv) > 4 else 128
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing (apt-get install wrk)")
    with harness.Service(binary, top_toml='profiles = ["swagger"]', extra_toml=QUIET, full_key=True,
                         olts=olts, onus_per_olt=onus) as service:
        time.sleep(SETTLE_S)
        found, results = probe(service, values)
        service_costs = plain_costs(service, results)
        again = repeated(service, sorted((r for r in results if r[3] >= 400), reverse=True)[:10])
        idle, busy = p99_under_attack(service, found)
    refused = sorted((r for r in results if r[3] >= 400), reverse=True)
    taken = baselines(service_costs)
    cpu_ms = sorted(ns / 1e6 for ns, *_ in results)
    statuses = {}
    for *_, status in results:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    print(json.dumps({
        "workload": f"{olts} OLTs x {onus} ONUs",
        "parameters": len(found),
        "values": values,
        "requests": len(results),
        "statuses": statuses,
        "cpu_ms_median": round(statistics.median(cpu_ms), 3),
        "cpu_ms_p99": round(cpu_ms[int(len(cpu_ms) * 0.99)], 3),
        "refused_cpu_ms_worst": round(refused[0][0] / 1e6, 3) if refused else None,
        "refused_ten_worst": [[round(ns / 1e6, 1), f"{path}?{parameter}="]
                              for ns, path, parameter, _ in refused[:10]],
        "refused_ten_worst_again": again,
        "taken_worst_vs_plain_value": taken,
        "olts_p99_idle_ms": round(idle, 2),
        "olts_p99_under_attack_ms": round(busy, 2),
        "ratio": round(busy / idle, 2),
        "at": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
    }))


if __name__ == "__main__":
    main()

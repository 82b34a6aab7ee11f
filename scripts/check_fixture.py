#!/usr/bin/env python3
"""Fixture check: a real vendor layout served by an independent SNMP agent (snmpsim),
polled through the real `ponkeeper serve`, compared with the fixture's expected answers.

It also exercises the operator path end to end: `ponkeeper keys create` on a stopped
service (direct store), `keys list` on a running one (admin socket), `kill -9` and a
restart that serves the last counters from sled before any poll, SIGTERM shutdown.
Prints one line per check and closes with 'fixture: N passed, N failed'.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

RESULTS = {"passed": 0, "failed": 0}


def check(name, actual, expected):
    ok = actual == expected
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {actual!r}" + ("" if ok else f" (expected {expected!r})"))


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(base, path, key):
    request = urllib.request.Request(base + path, headers={"X-API-Key": key})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def wait_for(what, predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (OSError, urllib.error.URLError, ValueError):
            pass
        time.sleep(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--snmpsim", required=True)
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--fixture", default="huawei-ma5800")
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    expected = json.load(open(os.path.join(args.fixtures, args.fixture + ".expected.json")))
    work = tempfile.mkdtemp(prefix="ponkeeper-fixture-")
    processes = []
    try:
        agent_dir = os.path.join(work, "agent")
        os.makedirs(agent_dir)
        shutil.copy(os.path.join(args.fixtures, args.fixture + ".snmprec"), os.path.join(agent_dir, "public.snmprec"))
        snmp_port = free_port(socket.SOCK_DGRAM)
        snmpsim = subprocess.Popen(
            [args.snmpsim, f"--data-dir={agent_dir}", f"--agent-udpv4-endpoint=127.0.0.1:{snmp_port}",
             f"--cache-dir={os.path.join(work, 'cache')}"],
            env=dict(os.environ, SNMPSIM_ALLOW_ROOT="true"),
            stdout=open(os.path.join(work, "snmpsim.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(snmpsim)
        wait_for("snmpsim", lambda: subprocess.run(
            ["snmpget", "-v2c", "-c", "public", "-t", "0.5", "-r", "0", f"127.0.0.1:{snmp_port}",
             "1.3.6.1.2.1.1.5.0"], capture_output=True).returncode == 0, 30)

        inventory = os.path.join(work, "inventory.toml")
        with open(inventory, "w") as f:
            f.write(f"""
[[nodes]]
id = 1
name = "Fixture node"
city = "Kazan"
description = "snmpsim serving {args.fixture}"

[[nodes]]
id = 2
name = "Empty node"
city = "Ufa"

[[olts]]
id = 1
ip = "127.0.0.1"
vendor = "{expected['vendor']}"
model = "fixture"
city = "Kazan"
node = 1
snmp = {{ port = {snmp_port}, community = "public", version = "2c" }}
""")
        http_port = free_port(socket.SOCK_STREAM)
        config = os.path.join(work, "ponkeeper.toml")
        with open(config, "w") as f:
            f.write(f"""
listen = "127.0.0.1:{http_port}"
data_dir = "{os.path.join(work, 'data')}"
inventory = "{inventory}"
[polling]
interval = "5s"
""")

        created = subprocess.run([binary, "keys", "create", "--config", config, "--name", "ci", "--level", "READ_ONLY"],
                                 capture_output=True, text=True)
        check("keys create exit code", created.returncode, 0)
        key = created.stdout.strip()
        check("keys create prints only the key", len(created.stdout.splitlines()) == 1 and key.startswith("pk_"), True)

        serve = subprocess.Popen([binary, "serve", "--config", config],
                                 stdout=open(os.path.join(work, "serve.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(serve)
        base = f"http://127.0.0.1:{http_port}/api/v1/external"
        olt = wait_for("the first good poll", lambda: (lambda r: r[1]["data"] if r[0] == 200 and r[1]["data"]["status"] == "ONLINE" else None)(get(base, "/olts/1", key)), 60)

        check("OLT status", olt["status"], "ONLINE")
        check("OLT totalOnu", olt["totalOnu"], expected["totalOnu"])
        check("OLT onuOnline", olt["onuOnline"], expected["onuOnline"])
        check("OLT totalPorts", olt["totalPorts"], expected["ports"])
        ports_total = sum(p["onuTotal"] for p in olt["ports"])
        check("ONUs counted over ports", ports_total, expected["totalOnu"])
        check("OLT node block", olt["node"], {"id": 1, "name": "Fixture node", "city": "Kazan"})

        status, listing = get(base, "/olts?nodeId=1", key)
        check("GET /olts?nodeId=1 status", status, 200)
        check("GET /olts?nodeId=1 totalCount", listing["meta"]["totalCount"], 1)
        check("OLT item fields", sorted(listing["data"][0].keys()),
              sorted(["id", "ip", "vendor", "model", "status", "city", "node", "totalPorts", "totalOnu", "lastUpdate"]))

        status, node = get(base, "/nodes/1", key)
        check("GET /nodes/1 status", status, 200)
        check("node oltCount", node["data"]["oltCount"], 1)
        check("node onuTotal", node["data"]["onuTotal"], expected["totalOnu"])
        check("node onuOnline", node["data"]["onuOnline"], expected["onuOnline"])
        status, nodes = get(base, "/nodes", key)
        check("empty node counters", nodes["data"][1], {"id": 2, "name": "Empty node", "city": "Ufa", "description": "",
                                                        "oltCount": 0, "onuTotal": 0, "onuOnline": 0})

        listed = subprocess.run([binary, "keys", "list", "--config", config], capture_output=True, text=True)
        check("keys list through the running service", listed.returncode == 0 and "\nci " in listed.stdout, True)

        # kill -9, the agent gone: the restarted service serves the same counters from sled.
        time.sleep(1.5)  # sled flushes every 500 ms
        serve.kill()
        serve.wait()
        snmpsim.terminate()
        snmpsim.wait()
        serve = subprocess.Popen([binary, "serve", "--config", config],
                                 stdout=open(os.path.join(work, "serve2.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(serve)
        status, olt = wait_for("the restarted service", lambda: (lambda r: r if r[0] == 200 else None)(get(base, "/olts/1", key)), 30)
        olt = olt["data"]
        check("after kill -9: OLT not yet polled", olt["status"] in ("CONNECTING", "DEGRADED"), True)
        check("after kill -9: totalOnu from sled", olt["totalOnu"], expected["totalOnu"])
        check("after kill -9: onuOnline from sled", olt["onuOnline"], expected["onuOnline"])
        status, node = get(base, "/nodes/1", key)
        check("after kill -9: node onuTotal", node["data"]["onuTotal"], expected["totalOnu"])
        check("after kill -9: node onuOnline", node["data"]["onuOnline"], expected["onuOnline"])

        serve.send_signal(signal.SIGTERM)
        check("serve exits 0 on SIGTERM", serve.wait(timeout=15), 0)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        if RESULTS["failed"]:
            for log in ("serve.log", "serve2.log", "snmpsim.log"):
                path = os.path.join(work, log)
                if os.path.exists(path):
                    print(f"--- {log} (last 40 lines)")
                    print("".join(open(path).readlines()[-40:]))
        shutil.rmtree(work, ignore_errors=True)
    print(f"fixture: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

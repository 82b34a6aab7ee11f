#!/usr/bin/env python3
"""Fixture check: real vendor layouts served by an independent SNMP agent (snmpsim),
polled through the real `ponkeeper serve`, compared with each fixture's expected answers:
every ONU field through `GET /olts/{id}/onus`, the OLT totals and the node counters.

One snmpsim serves every fixture; the SNMP community selects the file (`NAME.snmprec`
answers community `NAME`), and each fixture is one OLT of the inventory.

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
ONU_FIELDS = ["ponPort", "onuIndex", "serial", "description", "status", "lastDownCause",
              "distance", "rxPower", "txPower", "oltRxPower"]
OPTICS_FIELDS = ["temperature", "voltage", "biasCurrent"]


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


def find_fixture(dirs, name):
    for directory in dirs:
        path = os.path.join(directory, name + ".snmprec")
        if os.path.exists(path):
            return path, os.path.join(directory, name + ".expected.json")
    raise SystemExit(f"fixture {name} not found in {dirs}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--snmpsim", required=True)
    parser.add_argument("--fixtures", action="append", required=True, help="a directory of fixtures; repeatable")
    parser.add_argument("--fixture", action="append", required=True, help="a fixture name; repeatable")
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="ponkeeper-fixture-")
    processes = []
    try:
        agent_dir = os.path.join(work, "agent")
        os.makedirs(agent_dir)
        fixtures = []
        for olt_id, name in enumerate(args.fixture, start=1):
            snmprec, expected = find_fixture(args.fixtures, name)
            shutil.copy(snmprec, os.path.join(agent_dir, name + ".snmprec"))
            fixtures.append((olt_id, name, json.load(open(expected))))

        snmp_port = free_port(socket.SOCK_DGRAM)
        snmpsim = subprocess.Popen(
            [args.snmpsim, f"--data-dir={agent_dir}", f"--agent-udpv4-endpoint=127.0.0.1:{snmp_port}",
             f"--cache-dir={os.path.join(work, 'cache')}"],
            env=dict(os.environ, SNMPSIM_ALLOW_ROOT="true"),
            stdout=open(os.path.join(work, "snmpsim.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(snmpsim)
        wait_for("snmpsim", lambda: subprocess.run(
            ["snmpget", "-v2c", "-c", fixtures[0][1], "-t", "0.5", "-r", "0", f"127.0.0.1:{snmp_port}",
             "1.3.6.1.2.1.1.5.0"], capture_output=True).returncode == 0, 30)

        inventory = os.path.join(work, "inventory.toml")
        with open(inventory, "w") as f:
            f.write('[[nodes]]\nid = 1\nname = "Fixture node"\ncity = "Kazan"\ndescription = "snmpsim"\n\n'
                    '[[nodes]]\nid = 2\nname = "Empty node"\ncity = "Ufa"\n')
            for olt_id, name, expected in fixtures:
                f.write(f'\n[[olts]]\nid = {olt_id}\nip = "127.0.0.1"\nvendor = "{expected["vendor"]}"\n'
                        f'model = "{name}"\ncity = "Kazan"\nnode = 1\n'
                        f'snmp = {{ port = {snmp_port}, community = "{name}", version = "2c" }}\n')
        http_port = free_port(socket.SOCK_STREAM)
        config = os.path.join(work, "ponkeeper.toml")
        with open(config, "w") as f:
            f.write(f'listen = "127.0.0.1:{http_port}"\ndata_dir = "{os.path.join(work, "data")}"\n'
                    f'inventory = "{inventory}"\n[polling]\nstatus_interval = "5s"\n')

        created = subprocess.run([binary, "keys", "create", "--config", config, "--name", "ci", "--level", "READ_ONLY"],
                                 capture_output=True, text=True)
        check("keys create exit code", created.returncode, 0)
        key = created.stdout.strip()
        check("keys create prints only the key", len(created.stdout.splitlines()) == 1 and key.startswith("pk_"), True)

        serve = subprocess.Popen([binary, "serve", "--config", config],
                                 stdout=open(os.path.join(work, "serve.log"), "w"), stderr=subprocess.STDOUT)
        processes.append(serve)
        base = f"http://127.0.0.1:{http_port}/api/v1/external"

        def polled():
            status, body = get(base, "/olts?size=500", key)
            if status == 200 and all(o["status"] != "CONNECTING" for o in body["data"]):
                return body["data"]
            return None

        olts = {o["id"]: o for o in wait_for("the first polls", polled, 60)}
        for olt_id, name, expected in fixtures:
            olt = olts[olt_id]
            check(f"{name}: OLT status", olt["status"], "ONLINE")
            check(f"{name}: totalOnu", olt["totalOnu"], expected["totalOnu"])
            check(f"{name}: totalPorts", olt["totalPorts"], expected["ports"])
            check(f"{name}: family (the detected layout)", olt["family"], expected["layout"])
            status, detail = get(base, f"/olts/{olt_id}", key)
            check(f"{name}: onuOnline", detail["data"]["onuOnline"], expected["onuOnline"])
            check(f"{name}: session.warnings", detail["data"]["session"]["warnings"], expected.get("warnings", []))
            status, body = get(base, f"/olts/{olt_id}/onus?size=500", key)
            check(f"{name}: GET /olts/{olt_id}/onus totalCount", body["meta"]["totalCount"], expected["totalOnu"])
            got = sorted(({f: onu[f] for f in ONU_FIELDS} for onu in body["data"]),
                         key=lambda o: (o["ponPort"], o["onuIndex"]))
            want = sorted(({f: onu[f] for f in ONU_FIELDS} for onu in expected["onus"]),
                          key=lambda o: (o["ponPort"], o["onuIndex"]))
            mismatches = [(g, w) for g, w in zip(got, want) if g != w]
            check(f"{name}: every field of every ONU (count, mismatches)", (len(got), mismatches), (len(want), []))
            # Transceiver readings are served with the optics: GET /optics?oltId= by ONU id.
            where = {onu["id"]: (onu["ponPort"], onu["onuIndex"]) for onu in body["data"]}
            status, optics = get(base, f"/optics?oltId={olt_id}&size=500", key)
            got = sorted((where[o["onuId"]] + tuple(o[f] for f in OPTICS_FIELDS) for o in optics["data"]))
            want = sorted(((o["ponPort"], o["onuIndex"]) + tuple(o.get(f) for f in OPTICS_FIELDS)
                           for o in expected["onus"]))
            check(f"{name}: GET /optics temperature, voltage, bias of every ONU", got, want)
            # A capture's traffic counters, as the first poll's `traffic` read found them.
            if expected.get("traffic"):
                by_serial = {onu["serial"]: onu["id"] for onu in body["data"]}
                got = []
                for want_onu in expected["traffic"]:
                    status, reading = get(base, f"/onus/{by_serial[want_onu['serial']]}/traffic", key)
                    got.append((want_onu["serial"], reading["data"]["inOctets"], reading["data"]["outOctets"]))
                want = [(t["serial"], t["inOctets"], t["outOctets"]) for t in expected["traffic"]]
                check(f"{name}: GET /onus/{{id}}/traffic octet counters of every ONU", got, want)

        total = sum(e["totalOnu"] for _, _, e in fixtures)
        online = sum(e["onuOnline"] for _, _, e in fixtures)
        status, listing = get(base, "/olts?nodeId=1", key)
        check("GET /olts?nodeId=1 totalCount", listing["meta"]["totalCount"], len(fixtures))
        check("OLT item fields", sorted(listing["data"][0].keys()),
              sorted(["id", "ip", "vendor", "family", "model", "status", "city", "node", "totalPorts", "totalOnu", "onuOnline", "onuOffline", "lastUpdate"]))
        status, node = get(base, "/nodes/1", key)
        check("node counters", (node["data"]["oltCount"], node["data"]["onuTotal"], node["data"]["onuOnline"]),
              (len(fixtures), total, online))
        status, nodes = get(base, "/nodes", key)
        check("empty node counters", nodes["data"][1], {"id": 2, "name": "Empty node", "city": "Ufa", "description": "",
                                                        "oltCount": 0, "onuTotal": 0, "onuOnline": 0})
        status, onus = get(base, "/onus?size=1", key)
        check("GET /onus totalCount", onus["meta"]["totalCount"], total)

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
        wait_for("the restarted service", lambda: get(base, "/olts/1", key)[0] == 200, 30)
        status, node = get(base, "/nodes/1", key)
        check("after kill -9: node counters from sled", (node["data"]["onuTotal"], node["data"]["onuOnline"]),
              (total, online))
        status, listing = get(base, "/olts?nodeId=1", key)
        check("after kill -9: OLTs not yet polled",
              all(o["status"] in ("CONNECTING", "DEGRADED") for o in listing["data"]), True)
        check("after kill -9: totalOnu from sled", [o["totalOnu"] for o in listing["data"]],
              [e["totalOnu"] for _, _, e in fixtures])

        serve.send_signal(signal.SIGTERM)
        check("serve exits 0 on SIGTERM", serve.wait(timeout=15), 0)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        if RESULTS["failed"] or sys.exc_info()[0] is not None:
            for log in ("serve.log", "serve2.log"):
                path = os.path.join(work, log)
                if os.path.exists(path):
                    print(f"--- {log} (last 40 lines)")
                    print("".join(open(path).readlines()[-40:]))
        shutil.rmtree(work, ignore_errors=True)
    print(f"fixture: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

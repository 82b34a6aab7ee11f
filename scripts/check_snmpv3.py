#!/usr/bin/env python3
"""SNMPv3 interoperability check: the vendor fixtures served by an independent SNMPv3
agent (snmpsim's USM: user `pk`, SHA-256 + AES-128), polled by the real `ponkeeper serve`
over v3 authPriv, every ONU field, the optics and the totals compared with each fixture's
expected answers exactly. One more OLT uses snmpsim's second user (`pk2`, SHA-1 + AES)
with a wrong password: it must go DEGRADED with lastError `authentication failed: wrong
password or user`, and the other OLTs must not be held up by it.

snmpsim picks the data file by the SNMPv3 context name, so each OLT's `context` is its
fixture's name. The passwords reach `serve` only through the environment variables the
inventory names. Prints one line per check, closing with 'snmpv3: N passed, N failed'.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_fixture import (ONU_FIELDS, OPTICS_FIELDS, RESULTS, check, find_fixture,  # noqa: E402
                           free_port, get, wait_for)

AUTH, PRIV = "pk-fixture-auth", "pk-fixture-priv"
AUTH2, PRIV2 = "pk2-fixture-auth", "pk2-fixture-priv"
WRONG = "not-the-password"


def start_agent(snmpsim, agent_dir, port, work):
    command = [snmpsim, f"--cache-dir={os.path.join(work, 'cache')}", "--v3-engine-id=auto",
               f"--data-dir={agent_dir}", f"--agent-udpv4-endpoint=127.0.0.1:{port}",
               "--v3-user=pk", f"--v3-auth-key={AUTH}", "--v3-auth-proto=SHA256",
               f"--v3-priv-key={PRIV}", "--v3-priv-proto=AES",
               "--v3-user=pk2", f"--v3-auth-key={AUTH2}", "--v3-auth-proto=SHA",
               f"--v3-priv-key={PRIV2}", "--v3-priv-proto=AES"]
    return subprocess.Popen(command, env=dict(os.environ, SNMPSIM_ALLOW_ROOT="true"),
                            stdout=open(os.path.join(work, "snmpsim.log"), "w"), stderr=subprocess.STDOUT)


def write_inventory(path, fixtures, port):
    with open(path, "w") as f:
        f.write('[[nodes]]\nid = 1\nname = "Fixture node"\ncity = "Kazan"\n')
        for olt_id, name, expected in fixtures:
            f.write(f'\n[[olts]]\nid = {olt_id}\nip = "127.0.0.1"\nvendor = "{expected["vendor"]}"\n'
                    f'model = "{name}"\ncity = "Kazan"\nnode = 1\n'
                    f'snmp = {{ port = {port}, version = "3", user = "pk", auth = "SHA256", '
                    f'auth_password_env = "PK_FIXTURE_AUTH", privacy = "AES", '
                    f'privacy_password_env = "PK_FIXTURE_PRIV", context = "{name}" }}\n')
        name, expected = fixtures[0][1], fixtures[0][2]
        f.write(f'\n[[olts]]\nid = 99\nip = "127.0.0.1"\nvendor = "{expected["vendor"]}"\n'
                f'model = "wrong password"\ncity = "Kazan"\nnode = 1\n'
                f'snmp = {{ port = {port}, version = "3", user = "pk2", auth = "SHA", '
                f'auth_password_env = "PK_FIXTURE_WRONG", privacy = "AES", '
                f'privacy_password_env = "PK_FIXTURE_PRIV2", context = "{name}" }}\n')


def check_olt(base, key, olt, olt_id, name, expected):
    check(f"{name} over v3: OLT status", olt["status"], "ONLINE")
    check(f"{name} over v3: totalOnu", olt["totalOnu"], expected["totalOnu"])
    check(f"{name} over v3: totalPorts", olt["totalPorts"], expected["ports"])
    status, detail = get(base, f"/olts/{olt_id}", key)
    check(f"{name} over v3: onuOnline", detail["data"]["onuOnline"], expected["onuOnline"])
    check(f"{name} over v3: lastError", detail["data"]["session"]["lastError"], None)
    status, body = get(base, f"/olts/{olt_id}/onus?size=500", key)
    got = sorted(({f: onu[f] for f in ONU_FIELDS} for onu in body["data"]),
                 key=lambda o: (o["ponPort"], o["onuIndex"]))
    want = sorted(({f: onu[f] for f in ONU_FIELDS} for onu in expected["onus"]),
                  key=lambda o: (o["ponPort"], o["onuIndex"]))
    mismatches = [(g, w) for g, w in zip(got, want) if g != w]
    check(f"{name} over v3: every field of every ONU (count, mismatches)", (len(got), mismatches),
          (len(want), []))
    where = {onu["id"]: (onu["ponPort"], onu["onuIndex"]) for onu in body["data"]}
    status, optics = get(base, f"/optics?oltId={olt_id}&size=500", key)
    got = sorted((where[o["onuId"]] + tuple(o[f] for f in OPTICS_FIELDS) for o in optics["data"]))
    want = sorted(((o["ponPort"], o["onuIndex"]) + tuple(o.get(f) for f in OPTICS_FIELDS)
                   for o in expected["onus"]))
    check(f"{name} over v3: optics of every ONU", got, want)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--snmpsim", required=True)
    parser.add_argument("--fixtures", action="append", required=True)
    parser.add_argument("--fixture", action="append", required=True)
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="ponkeeper-snmpv3-")
    processes = []
    try:
        agent_dir = os.path.join(work, "agent")
        os.makedirs(agent_dir)
        fixtures = []
        for olt_id, name in enumerate(args.fixture, start=1):
            snmprec, expected = find_fixture(args.fixtures, name)
            shutil.copy(snmprec, os.path.join(agent_dir, name + ".snmprec"))
            fixtures.append((olt_id, name, json.load(open(expected))))
        port = free_port(socket.SOCK_DGRAM)
        processes.append(start_agent(args.snmpsim, agent_dir, port, work))
        wait_for("snmpsim over v3", lambda: subprocess.run(
            ["snmpget", "-v3", "-l", "authPriv", "-u", "pk", "-a", "SHA-256", "-A", AUTH, "-x", "AES",
             "-X", PRIV, "-n", fixtures[0][1], "-t", "0.5", "-r", "0", f"127.0.0.1:{port}",
             "1.3.6.1.2.1.1.5.0"], capture_output=True).returncode == 0, 30)

        inventory = os.path.join(work, "inventory.toml")
        write_inventory(inventory, fixtures, port)
        http_port = free_port(socket.SOCK_STREAM)
        config = os.path.join(work, "ponkeeper.toml")
        with open(config, "w") as f:
            f.write(f'listen = "127.0.0.1:{http_port}"\ndata_dir = "{os.path.join(work, "data")}"\n'
                    f'inventory = "{inventory}"\n[polling]\ninterval = "5s"\n')
        env = dict(os.environ, PK_FIXTURE_AUTH=AUTH, PK_FIXTURE_PRIV=PRIV, PK_FIXTURE_PRIV2=PRIV2)

        # The wrong password's variable unset: serve refuses to start, naming OLT and key.
        refused = subprocess.run([binary, "serve", "--config", config], env=env, capture_output=True,
                                 text=True, timeout=30)
        check("serve refuses an unset password variable", refused.returncode != 0, True)
        check("the refusal names the OLT and the key",
              "field `snmp.auth_password_env`: OLT 99 takes its SNMPv3 password from $PK_FIXTURE_WRONG, "
              "which is not set" in refused.stderr + refused.stdout, True)

        env["PK_FIXTURE_WRONG"] = WRONG
        created = subprocess.run([binary, "keys", "create", "--config", config, "--name", "ci",
                                  "--level", "READ_ONLY"], capture_output=True, text=True, env=env)
        key = created.stdout.strip()
        serve = subprocess.Popen([binary, "serve", "--config", config], env=env,
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
            check_olt(base, key, olts[olt_id], olt_id, name, expected)
        status, wrong = get(base, "/olts/99", key)
        check("wrong password: status", wrong["data"]["status"], "DEGRADED")
        check("wrong password: lastError", wrong["data"]["session"]["lastError"],
              "authentication failed: wrong password or user")
        check("wrong password: no ONUs", wrong["data"]["totalOnu"], 0)
        serve.send_signal(signal.SIGTERM)
        check("serve exits 0 on SIGTERM", serve.wait(timeout=15), 0)
        log = open(os.path.join(work, "serve.log")).read()
        check("no password in the log", any(p in log for p in (AUTH, PRIV, PRIV2, WRONG)), False)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        if RESULTS["failed"] or sys.exc_info()[0] is not None:
            path = os.path.join(work, "serve.log")
            if os.path.exists(path):
                print("--- serve.log (last 40 lines)")
                print("".join(open(path).readlines()[-40:]))
        shutil.rmtree(work, ignore_errors=True)
    print(f"snmpv3: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

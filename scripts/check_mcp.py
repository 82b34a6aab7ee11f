#!/usr/bin/env python3
"""MCP check with the official Python client (the `mcp` package): starts
`ponkeeper demo` on a free port and, over Streamable HTTP (`/mcp` with the X-API-Key
header) and over stdio (`ponkeeper mcp --url ... --api-key ...` as a subprocess),
initializes, lists tools, calls `list_olts` and `find_onu`, and checks that a READ_ONLY
key neither sees nor may call `restart_olt_session`.
Prints one line per check and closes with 'mcp: N passed, N failed'; exits non-zero on
any failure.
"""
import argparse
import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

RESULTS = {"passed": 0, "failed": 0}
READ_TOOLS = {"list_olts", "get_olt", "list_nodes", "list_onus", "find_onu", "get_onu",
              "get_onu_optics", "get_onu_optics_history", "get_onu_traffic", "get_onu_traffic_history",
              "top_traffic", "get_onu_macs", "find_mac", "list_low_signal_onus", "list_vlans",
              "list_olt_configs", "get_olt_config", "list_audit_logs", "list_events", "list_szo", "get_szo",
              "get_szo_outages", "szo_availability_report", "list_unconfigured_onus",
              "list_onu_profiles", "list_outages", "get_outage", "list_alarms", "get_alarm", "list_splitters", "get_splitter"}
FULL_TOOLS = {"restart_olt_session", "poll_olt", "reboot_onu", "refresh_onu_optics", "refresh_onu_macs", "set_onu_vlan",
              "set_onu_description", "backup_olt_config", "authorize_onu", "deauthorize_onu",
              "bind_subscriber", "acknowledge_alarm", "create_splitter", "place_onu"}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""), flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_demo(binary, data_dir):
    """Starts the demo; returns (process, base URL, FULL key, READ_ONLY key)."""
    port = free_port()
    process = subprocess.Popen(
        [binary, "demo", "--olts", "3", "--onus-per-olt", "8", "--poll-interval", "1s",
         "--listen", f"127.0.0.1:{port}", "--data-dir", data_dir],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(found) < 3:
        line = process.stdout.readline()
        if not line:
            break
        for name, pattern in (("full", r"^FULL key: (\S+)"), ("read_only", r"^READ_ONLY key: (\S+)"),
                              ("url", r"^Listening on (http://\S+)")):
            match = re.match(pattern, line.strip())
            if match:
                found[name] = match.group(1)
    if len(found) < 3:
        process.kill()
        raise SystemExit(f"the demo did not print its keys and address (got {found})")
    return process, found["url"], found["full"], found["read_only"]


def http_client(url, key):
    return Client(streamable_http_client(
        f"{url}/mcp", http_client=create_mcp_http_client(headers={"X-API-Key": key})))


def stdio_client(binary, url, key):
    # The bridge logs to stderr; only warnings, to keep this output readable.
    return Client(StdioServerParameters(command=binary, args=["mcp", "--url", url, "--api-key", key],
                                        env={**os.environ, "RUST_LOG": "warn"}))


async def exercise(transport, make_client, full, read_only):
    # FULL: every tool, and the reads answer with the REST data.
    async with make_client(full) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        check(f"{transport}: FULL key lists every tool", READ_TOOLS | FULL_TOOLS <= names,
              f"missing {sorted((READ_TOOLS | FULL_TOOLS) - names)}")
        result = await client.call_tool("list_olts", {"size": 5})
        data = (result.structured_content or {}).get("data") or []
        check(f"{transport}: list_olts returns the OLTs", not result.is_error and len(data) == 3,
              f"{len(data)} OLTs, meta {(result.structured_content or {}).get('meta')}")
        onus = await client.call_tool("list_onus", {"oltId": 1, "size": 1})
        serial = ((onus.structured_content or {}).get("data") or [{}])[0].get("serial")
        found = await client.call_tool("find_onu", {"serial": serial or "none"})
        hits = (found.structured_content or {}).get("data") or []
        check(f"{transport}: find_onu finds ONU {serial}",
              not found.is_error and [o.get("serial") for o in hits] == [serial], f"{hits}")
        waiting = await client.call_tool("list_unconfigured_onus", {"size": 50})
        unconfigured = (waiting.structured_content or {}).get("data") or []
        check(f"{transport}: list_unconfigured_onus lists the demo's new ONUs",
              not waiting.is_error and len(unconfigured) > 0
              and all(o.get("oltId") and o.get("ponPort") and o.get("serial") for o in unconfigured),
              f"{unconfigured[:2]}")
        offered = await client.call_tool("list_onu_profiles", {"oltId": 1})
        kinds = {p.get("kind") for p in (offered.structured_content or {}).get("data") or []}
        check(f"{transport}: list_onu_profiles reads the Huawei profiles",
              not offered.is_error and {"LINE", "SERVICE"} <= kinds, f"{kinds}")

    # READ_ONLY: the reads only; a FULL tool is refused if called anyway.
    async with make_client(read_only) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        check(f"{transport}: READ_ONLY key lists the reads", READ_TOOLS <= names,
              f"missing {sorted(READ_TOOLS - names)}")
        check(f"{transport}: READ_ONLY key does not see restart_olt_session",
              not (names & FULL_TOOLS), f"sees {sorted(names & FULL_TOOLS)}")
        result = await client.call_tool("list_olts", {})
        check(f"{transport}: READ_ONLY key may call list_olts", not result.is_error)
        try:
            refused = await client.call_tool("restart_olt_session", {"oltId": 1})
            code = (refused.structured_content or {}).get("code")
            check(f"{transport}: READ_ONLY key is refused restart_olt_session",
                  refused.is_error and code == "FORBIDDEN", f"isError={refused.is_error} code={code}")
        except MCPError as error:
            check(f"{transport}: READ_ONLY key is refused restart_olt_session", True, f"{error}")


async def run(binary, url, full, read_only):
    for transport, make_client in (
            ("http", lambda key: http_client(url, key)),
            ("stdio", lambda key: stdio_client(binary, url, key))):
        try:
            await asyncio.wait_for(exercise(transport, make_client, full, read_only), 120)
        except Exception as error:  # any failure of the transport is a failed check
            check(f"{transport}: session", False, f"{type(error).__name__}: {error}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", required=True, help="the ponkeeper binary")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory() as data_dir:
        process, url, full, read_only = start_demo(binary, data_dir)
        try:
            time.sleep(2)  # the first poll, so the ONUs are known
            asyncio.run(run(binary, url, full, read_only))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
    print(f"mcp: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] or not RESULTS["passed"] else 0)


if __name__ == "__main__":
    main()

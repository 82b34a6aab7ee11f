"""Runs the README's five-minute tour against `ponkeeper demo`, as a newcomer would paste it.

For each seed given, it starts the demo on a free port, reads the two keys from its banner,
takes the shell blocks of the README's "A five-minute tour" section, puts the keys and the
port in, and runs the lines in order in one bash session. Every `curl` line must answer
the envelope with `"success":true`; a line whose comment quotes JSON (`"status":"OFFLINE"`)
must print it; the config diff must show the description change and little else.

    .venv/bin/python scripts/check_tour.py --binary target/debug/ponkeeper --seed 1 --seed 7

Prints one `ok`/`FAIL` line per check and exits non-zero on a failure.
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""), flush=True)


def tour_lines(readme):
    """The shell lines of the tour's blocks, in order."""
    text = open(readme, encoding="utf-8").read()
    section = text.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    section = section.split("Then open Swagger UI", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def start_demo(binary, seed, work):
    """The demo's process, its port and its keys (READ_ONLY, FULL), once it listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = open(f"{work}/demo.out", "w+")
    demo = subprocess.Popen([binary, "demo", "--olts", "10", "--onus-per-olt", "16", "--seed", str(seed),
                             "--listen", f"127.0.0.1:{port}", "--data-dir", f"{work}/data",
                             "--poll-interval", "5s", "--reboot-seconds", "20"],
                            stdout=out, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        banner = open(f"{work}/demo.out", encoding="utf-8").read()
        if "Listening on" in banner:
            keys = dict(re.findall(r"^(FULL|READ_ONLY) key: (pk_\S+)$", banner, re.M))
            return demo, port, keys
        if demo.poll() is not None:
            break
        time.sleep(0.5)
    raise SystemExit(f"the demo did not start:\n{open(f'{work}/demo.out').read()}")


def run(lines, port, keys):
    """Runs `lines` in one bash session; each line's output, in order."""
    script = []
    for n, line in enumerate(lines):
        if line.startswith("KEY=pk_"):
            line = f"KEY={keys['READ_ONLY']}; FULL_KEY={keys['FULL']}"
        script.append(line.replace("127.0.0.1:8080", f"127.0.0.1:{port}"))
        script.append(f"printf '\\n@@{n}@@\\n'")
    done = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True, timeout=300)
    parts = re.split(r"\n@@\d+@@\n", done.stdout)
    return parts[: len(lines)]


def expectations(line):
    """JSON fragments the line's comment quotes."""
    comment = line.split("#", 1)[1] if "#" in line else ""
    return re.findall(r'"[A-Za-z]+":"[A-Z_]+"', comment)


def check_tour(binary, readme, seed):
    work = tempfile.mkdtemp(prefix="ponkeeper-tour-")
    demo, port, keys = start_demo(binary, seed, work)
    try:
        time.sleep(12)  # the first polls and the first scheduled backups
        lines = tour_lines(readme)
        outputs = run(lines, port, keys)
        for line, output in zip(lines, outputs):
            short = line.split("#", 1)[0].strip()[:90]
            if "curl" in line and not line.startswith(("ONU=", "ID=")):
                check(f"seed {seed}: {short}", '"success":true' in output, output[:300])
            for fragment in expectations(line):
                check(f"seed {seed}: prints {fragment}", fragment in output, output[:300])
            if "/diff" in line:
                changed = [d for d in re.findall(r"\\n([+-][^\\]*)", output) if not d.startswith(("+++", "---"))]
                check(f"seed {seed}: the diff shows the description and little else",
                      "school 7" in output and 0 < len(changed) <= 8, changed[:12])
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--readme", default="README.md")
    parser.add_argument("--seed", type=int, action="append")
    args = parser.parse_args()
    for seed in args.seed or [1, 7]:
        check_tour(os.path.abspath(args.binary), args.readme, seed)
    print(f"tour: {RESULTS['passed']} passed, {RESULTS['failed']} failed")
    sys.exit(1 if RESULTS["failed"] else 0)


if __name__ == "__main__":
    main()

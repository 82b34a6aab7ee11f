"""Shared pieces of the hostile-client reproductions in scripts/hostile/.

Starts a simulated fleet (`ponkeeper sim`, 20 OLTs x 16 ONUs unless told) and `ponkeeper serve` on it
from a prebuilt binary, each in a temporary directory of its own, and tears both down
again; plus the measurements the attacks share: a process's RSS, a directory's size, and
plain HTTP requests. Standard library only. Not run on its own: the attack scripts
(cluster_frames.py, cluster_idle.py, keyless_posts.py, russian_values.py) import it.
"""

import json
import os
import resource
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

SIM_PASSWORD = "sim-olt-secret"
COOKIE = "hostile-repro-cookie-0123456789"
SERVE_NOFILE = 65536  # or the hard limit, if lower


def free_port():
    """A TCP port on loopback nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_nofile(want):
    """Raises this process's descriptor limit to `want`, or to the hard limit if that is
    lower and cannot be raised (without CAP_SYS_RESOURCE)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= want:
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def rss_kb(pid):
    """VmRSS of `pid` in kB, from /proc."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def du_bytes(path):
    """Apparent size of everything under `path`, as `du -sb` counts it."""
    out = subprocess.run(["du", "-sb", path], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0])


def http(method, url, headers=None, timeout=5.0):
    """(status, parsed JSON body or None, seconds) of one request; status 0 if it failed."""
    req = urllib.request.Request(url, method=method, headers=headers or {})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, body = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read()
    except OSError:
        return 0, None, time.monotonic() - started
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    return status, parsed, time.monotonic() - started


class Service:
    """`ponkeeper sim` + `ponkeeper serve` in a temporary directory; a context manager.

    `extra_toml` is appended to the generated config (e.g. a `[cluster]` section, or
    top-level keys, which must then come before any section: see `top_toml`).
    `full_key` asks for a FULL key, created with `ponkeeper keys create` before start.
    `olts` and `onus_per_olt` size the simulated fleet (20 x 16 unless told).
    """

    def __init__(self, binary, top_toml="", extra_toml="", full_key=False, olts=20,
                 onus_per_olt=16):
        self.binary = os.path.abspath(binary)
        self.olts, self.onus_per_olt = olts, onus_per_olt
        self.top_toml, self.extra_toml, self.want_key = top_toml, extra_toml, full_key
        self.dir = tempfile.mkdtemp(prefix="pk-hostile-")
        self.data_dir = os.path.join(self.dir, "data")
        self.http_port = free_port()
        self.base = f"http://127.0.0.1:{self.http_port}"
        self.procs = []
        self.key = None
        self.env = dict(os.environ, SIM_SSH_PASSWORD=SIM_PASSWORD, CLUSTER_COOKIE=COOKIE)

    def __enter__(self):
        try:
            self._start_sim()
            # Chosen once the simulator holds its ports: a large fleet takes thousands.
            self.http_port = free_port()
            self.base = f"http://127.0.0.1:{self.http_port}"
            self._write_config()
            if self.want_key:
                self.key = self._create_key()
            self.serve = self._spawn("serve", ["serve", "--config", self.config], SERVE_NOFILE)
            self.wait_ready()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _spawn(self, name, args, nofile=None):
        def limits():
            if nofile:
                raise_nofile(nofile)

        log = open(os.path.join(self.dir, f"{name}.log"), "wb")
        proc = subprocess.Popen([self.binary, *args], env=self.env, stdout=log,
                                stderr=subprocess.STDOUT, preexec_fn=limits)
        self.procs.append(proc)
        return proc

    def _start_sim(self):
        self.inventory = os.path.join(self.dir, "inventory.toml")
        sim = self._spawn("sim", ["sim", "--olts", str(self.olts),
                                  "--onus-per-olt", str(self.onus_per_olt),
                                  "--base-port", "0", "--inventory-out", self.inventory])
        log = os.path.join(self.dir, "sim.log")
        for _ in range(300):
            with open(log, "rb") as f:
                if b"Ctrl-C stops" in f.read():
                    return
            if sim.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"sim did not start; see {log}")

    def _write_config(self):
        self.config = os.path.join(self.dir, "ponkeeper.toml")
        with open(self.config, "w") as f:
            f.write(f'listen = "127.0.0.1:{self.http_port}"\n'
                    f'data_dir = "{self.data_dir}"\n'
                    f'inventory = "{self.inventory}"\n'
                    f"{self.top_toml}\n{self.extra_toml}\n")

    def _create_key(self):
        out = subprocess.run([self.binary, "keys", "create", "--config", self.config,
                              "--name", "hostile-repro", "--level", "FULL"],
                             env=self.env, capture_output=True, text=True, check=True)
        return out.stdout.strip().splitlines()[-1]

    def wait_ready(self, timeout=120):
        """Until GET /readyz answers 200 (the fleet polled, the store writable)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.serve.poll() is not None:
                raise RuntimeError(f"serve exited; see {self.dir}/serve.log")
            if http("GET", self.base + "/readyz", timeout=2)[0] == 200:
                return
            time.sleep(0.25)
        raise RuntimeError("serve never became ready")

    def audit_total(self):
        """meta.totalCount of the audit log, asked with the FULL key."""
        status, body, _ = http("GET", self.base + "/api/v1/external/audit-logs?size=1",
                               {"X-API-Key": self.key})
        if status != 200:
            raise RuntimeError(f"audit-logs answered {status}")
        return body["meta"]["totalCount"]

    def close(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.procs = []
        if os.environ.get("HOSTILE_KEEP_DIR"):
            print(f"kept {self.dir}", flush=True)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def cluster_toml(listen_port):
    """A `[cluster]` section listening on `listen_port`, with no peers (none are needed
    for the port to take connections)."""
    return ("[cluster]\n"
            'name = "hostile-target"\n'
            f'listen = "127.0.0.1:{listen_port}"\n'
            "peers = []\n"
            'cookie_env = "CLUSTER_COOKIE"\n'
            "insecure = true\n")

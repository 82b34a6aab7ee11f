"""The operator page in a real browser: Debian's chromium, driven headless by selenium
through chromedriver, against the real `ponkeeper serve` polling a real `ponkeeper sim`.

Checks what an operator does: a READ_ONLY key sees the action buttons disabled; a FULL
key sees every OLT; an OLT hung in the simulator changes status on the page without a
reload; its session is restarted from the page (CONNECTING, then ONLINE once the fault
is cleared); an ONU's optics chart is drawn; a serial is found; the audit log shows the
restart with the key's name, marked as made from the page; an unconfigured ONU is
authorised from its form and opens as an ONU. The ONU view draws its traffic (two
series, in Mb/s) and lists its MACs; an ONU cut off shows its rates as unknown, not 0;
the OLT view shows each port's load against capacity; a MAC from the ONU's list, typed
into the search in two other spellings, finds that ONU. A screenshot of each view goes
to --shots. Nothing here reaches the internet: chromium runs with its background
networking off, and selenium with SE_AVOID_STATS (no driver download, no statistics).

Usage: check_ui.py --binary target/debug/ponkeeper [--shots target/ui-shots]
"""
import argparse
import json
import os
import shutil
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

OLTS = 6
ONUS_PER_OLT = 16
HUNG = 2
failures = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""))
    if not ok:
        failures.append(name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def control(path, line):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(path)
        s.sendall((line + "\n").encode())
        reply = s.recv(4096).decode().strip()
    if not reply.startswith("ok"):
        raise SystemExit(f"control {line!r}: {reply}")


def get(api, path, key):
    request = urllib.request.Request(api + path, headers={"X-API-Key": key})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def post(api, path, key, body):
    request = urllib.request.Request(api + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"X-API-Key": key, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def refusal(api, path, key):
    """How the server refuses a POST of `path` with `key`: (HTTP status, code, message)."""
    request = urllib.request.Request(api + path, data=b"", method="POST", headers={"X-API-Key": key})
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        body = json.load(error)["error"]
        return error.code, body["code"], body["message"]
    return None


def wait_for(what, predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception:  # noqa: BLE001 - retried until the deadline
            pass
        time.sleep(0.25)
    raise TimeoutError(f"timed out waiting for {what}")


def until(driver, timeout, predicate):
    """WebDriverWait that also retries an element the page replaced between finding it and
    reading it: the views re-render under live updates."""
    ignored = (NoSuchElementException, StaleElementReferenceException)
    return WebDriverWait(driver, timeout, ignored_exceptions=ignored).until(predicate)


def start(binary, work, interval="1s", require_online=True):
    """The simulator and the service; returns (processes, base URL, keys, control path)."""
    inventory, control_path = f"{work}/inventory.toml", f"{work}/sim.sock"
    env = dict(os.environ, SIM_SSH_PASSWORD="sim-olt-secret")
    sim = subprocess.Popen(
        [binary, "sim", "--olts", str(OLTS), "--onus-per-olt", str(ONUS_PER_OLT), "--vendor", "mixed",
         "--base-port", "0", "--inventory-out", inventory, "--control", control_path],
        stdout=subprocess.DEVNULL, stderr=open(f"{work}/sim.log", "w"), env=env)
    wait_for("the simulator", lambda: os.path.exists(control_path) and os.path.getsize(inventory) > 0)
    port = free_port()
    config = f"{work}/ponkeeper.toml"
    with open(config, "w") as f:
        f.write(f'listen = "127.0.0.1:{port}"\ndata_dir = "{work}/data"\ninventory = "{inventory}"\n\n'
                f'[polling]\nstatus_interval = "{interval}"\noptics_interval = "5s"\ntraffic_interval = "2s"\nmacs_interval = "5s"\n'
                'timeout = "1s"\nretries = 1\ndeadline = "3s"\n'
                'offline_after = 2\n\n[optics]\nhistory_step = "1s"\n')
    keys = {}
    for name, level in [("noc-ui", "FULL"), ("viewer", "READ_ONLY")]:
        keys[level] = subprocess.run(
            [binary, "keys", "create", "--config", config, "--name", name, "--level", level],
            check=True, capture_output=True, text=True).stdout.strip()
    serve = subprocess.Popen([binary, "serve", "--config", config], stdout=subprocess.DEVNULL,
                             stderr=open(f"{work}/serve.log", "w"), env=env)
    base = f"http://127.0.0.1:{port}"
    api = base + "/api/v1/external"
    def polled():
        count = lambda status: get(api, "/olts?size=1" + status, keys["FULL"])["meta"]["totalCount"]  # noqa: E731
        return count("") == OLTS and count("&status=CONNECTING") == 0 and (
            not require_online or count("&status=ONLINE") == OLTS)
    wait_for("the first poll of every OLT", polled, 600)
    return [serve, sim], base, api, keys, control_path


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--window-size=1400,1000", "--lang=en-US"]:
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def sign_in(driver, base, key):
    driver.get(base + "/")
    until(driver, 15, lambda d: d.find_element(By.ID, "key"))
    driver.find_element(By.ID, "key").send_keys(key)
    driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
    until(driver, 15, lambda d: d.find_elements(By.CSS_SELECTOR, "#olt-table tbody tr a"))


def olt_status_on_fleet(driver, olt_id):
    for row in driver.find_elements(By.CSS_SELECTOR, "#olt-table tbody tr"):
        cells = row.find_elements(By.TAG_NAME, "td")
        if cells and cells[0].text == str(olt_id):
            return cells[1].text
    return None


def read_only_checks(driver, base, api, key, shots):
    sign_in(driver, base, key)
    driver.get(base + f"/ui/#/olt/{HUNG}")
    buttons = until(driver, 15, lambda d: d.find_elements(By.CSS_SELECTOR, ".actions button"))
    check("READ_ONLY: the OLT's action buttons are disabled",
          len(buttons) == 3 and all(not b.is_enabled() for b in buttons), [b.text for b in buttons])
    driver.save_screenshot(f"{shots}/olt-read-only.png")

    onu = get(api, "/olts/1/onus?size=1", key)["data"][0]
    driver.get(base + f"/ui/#/onu/{onu['id']}")
    button = until(driver, 15, lambda d: d.find_element(By.ID, "refresh-macs"))
    check("READ_ONLY: the ONU's 'Read MACs now' is disabled", not button.is_enabled())
    # Enabled by hand, as a page whose key lost its level would have it: the server's 403
    # is shown as the server worded it.
    refused = refusal(api, f"/onus/{onu['id']}/macs/refresh", key)
    driver.execute_script("document.getElementById('refresh-macs').disabled = false")
    button.click()
    flash = lambda: driver.find_element(By.ID, "flash")  # noqa: E731
    shown = wait_for("the refusal", lambda: flash().text, 15)
    check("a READ_ONLY key's MAC refresh shows the server's 403 in its words",
          refused and refused[0] == 403 and shown == f"{refused[1]}: {refused[2]}" and "bad" in flash().get_attribute("class"),
          (refused, shown))
    driver.save_screenshot(f"{shots}/onu-read-only.png")
    driver.execute_script("sessionStorage.clear()")


def full_checks(driver, base, api, key, control_path, shots):
    sign_in(driver, base, key)
    ids = sorted(int(a.text) for a in driver.find_elements(By.CSS_SELECTOR, "#olt-table tbody tr td:first-child a"))
    check("FULL: the fleet table lists every OLT", ids == list(range(1, OLTS + 1)), ids)
    def fleet_cells():
        # The table is redrawn every few seconds: read it whole, again if it changed under us.
        headers = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#olt-table thead th")]
        rows = [[c.text for c in row.find_elements(By.TAG_NAME, "td")]
                for row in driver.find_elements(By.CSS_SELECTOR, "#olt-table tbody tr")]
        return headers, rows
    headers, counts = wait_for("the fleet table's counts", fleet_cells, 15)
    at = {name: headers.index(name) for name in ("ONUs", "Online", "Offline") if name in headers}
    add_up = len(at) == 3 and all(int(r[at["Online"]]) + int(r[at["Offline"]]) == int(r[at["ONUs"]]) for r in counts)
    check("the fleet table shows each OLT's online and offline ONUs", add_up and any(int(r[at["Online"]]) for r in counts),
          (headers, counts[:3]))
    driver.save_screenshot(f"{shots}/fleet.png")

    control(control_path, f"set hang@{HUNG}")
    url = driver.current_url
    changed = wait_for("the hung OLT's status on the page", lambda: olt_status_on_fleet(driver, HUNG)
                       in ("degraded", "offline") and olt_status_on_fleet(driver, HUNG), 30)
    check("a hung OLT changes status without a reload", driver.current_url == url and bool(changed), changed)
    driver.save_screenshot(f"{shots}/fleet-hung.png")

    driver.find_element(By.CSS_SELECTOR, f"#olt-table a[href='#/olt/{HUNG}']").click()
    restart = until(driver, 15, 
        lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, ".actions button") if b.text == "Restart session"])[0]
    restart.click()
    driver.switch_to.alert.accept()
    badge = lambda: driver.find_element(By.ID, "olt-status").text  # noqa: E731
    seen = wait_for("CONNECTING after the restart", lambda: badge() == "connecting", 10)
    check("the restarted session shows CONNECTING", seen, badge())
    driver.save_screenshot(f"{shots}/olt-restarting.png")
    control(control_path, f"clear {HUNG}")
    online = wait_for("ONLINE once the OLT answers again", lambda: badge() == "online", 30)
    check("then ONLINE", online, badge())
    driver.save_screenshot(f"{shots}/olt.png")

    # An online ONU: only an online one has traffic rates and shows its MACs.
    onu = get(api, "/olts/1/onus?size=1&status=ONLINE", key)["data"][0]
    wait_for("two optics readings", lambda: len(get(api, f"/onus/{onu['id']}/optics/history", key)["data"]) >= 2, 30)
    rated = lambda: [p for p in get(api, f"/onus/{onu['id']}/traffic/history", key)["data"]  # noqa: E731
                     if p["inBps"] is not None and p["outBps"] is not None]
    wait_for("two traffic rates", lambda: len(rated()) >= 2, 60)
    macs = wait_for("the ONU's MACs", lambda: {m["mac"] for m in get(api, f"/onus/{onu['id']}/macs", key)["data"]["items"]}, 60)
    driver.get(base + f"/ui/#/onu/{onu['id']}")
    drawn = wait_for("the optics chart", lambda: driver.execute_script(
        """const c = document.querySelector('#optics-chart canvas'); if (!c) return 0;
           const p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
           let inked = 0; for (let i = 3; i < p.length; i += 4) if (p[i] > 0) inked++; return inked;"""), 15)
    check("an ONU's optics chart is drawn", drawn > 500, f"{drawn} inked pixels")
    legend = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#optics-chart .u-legend .u-label")]
    check("the chart draws the warning and critical thresholds", {"Warning level", "Critical level"} <= set(legend), legend)
    traffic_checks(driver, api, key, onu, macs)
    driver.save_screenshot(f"{shots}/onu.png")
    driver.find_element(By.ID, "read-signal").click()
    done = wait_for("the read's confirmation", lambda: driver.find_element(By.ID, "flash").text == "Read signal now: Done", 15)
    age = lambda: driver.find_element(By.ID, "optics-age").text  # noqa: E731
    fresh = wait_for("a reading seconds old", lambda: re.search(r"\b[0-3] s ago", age()), 15)
    check("'Read signal now' reads the ONU and the page shows the reading's age", bool(done and fresh), age())

    driver.get(base + "/ui/#/search")
    box = until(driver, 15, lambda d: d.find_element(By.NAME, "q"))
    box.send_keys(onu["serial"][-6:])
    box.submit()
    found = wait_for("the search result", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")], 15)
    check("search by serial finds the ONU", any(onu["serial"] in row for row in found), found)
    driver.save_screenshot(f"{shots}/search.png")
    mac = sorted(macs)[0]
    mac_search_checks(driver, base, onu, mac, shots)
    port_load_checks(driver, base, api, key, shots)

    post(api, f"/onus/{onu['id']}/subscriber", key, {"contract": "D-2024/117", "name": "Ivanova A. P."})
    driver.get(base + "/ui/#/search")
    box = until(driver, 15, lambda d: d.find_element(By.NAME, "q"))
    box.send_keys("ivanova")
    box.submit()
    found = wait_for("the subscriber's ONU", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")], 15)
    check("a subscriber's name and contract show in search results",
          any("Ivanova A. P. (D-2024/117)" in row for row in found), found)
    driver.get(base + f"/ui/#/onu/{onu['id']}")
    shown = wait_for("the ONU page's subscriber", lambda: driver.find_element(By.ID, "onu-subscriber").text, 15)
    check("the ONU page shows its subscriber", shown == "Ivanova A. P. (D-2024/117)", shown)
    mismatch = lambda text: driver.execute_script(  # noqa: E731
        "const i = document.querySelector(\"form input[name='value'][pattern]\"); i.value = arguments[0];"
        " return i.validity.patternMismatch;", text)
    check("the description field refuses before sending what the server refuses",
          mismatch("Баумана 7") and mismatch(" lead") and not mismatch("school 7, Baumana 1 (flat 2)"),
          [mismatch("Баумана 7"), mismatch(" lead"), mismatch("school 7, Baumana 1 (flat 2)")])

    # The simulator's unconfigured ONUs come and go (a plugged-in ONU may be taken away
    # again): one can vanish between the list and the authorisation, which the device then
    # refuses. A refusal is shown and another ONU is tried, up to three.
    authorised, serials = False, []
    for _ in range(3):
        driver.get(base + "/ui/#/unconfigured")
        row = wait_for("an unconfigured ONU", lambda: driver.find_elements(By.CSS_SELECTOR, "main tbody tr button"), 30)[0]
        serial = row.find_element(By.XPATH, "./ancestor::tr/td[3]").text
        serials.append(serial)
        row.click()
        submit = until(driver, 20, lambda d: d.find_element(By.CSS_SELECTOR, "#authorize-form button[type=submit]"))
        driver.save_screenshot(f"{shots}/unconfigured.png")
        submit.click()
        outcome = wait_for("the new ONU's page or a refusal", lambda: (
            "opened" if "#/onu/" in driver.current_url and serial in driver.find_element(By.CSS_SELECTOR, "main h1").text
            else "refused" if "bad" in (driver.find_element(By.ID, "flash").get_attribute("class") or "") else None), 60)
        if outcome == "opened":
            authorised = True
            break
    check("an unconfigured ONU is authorised from the page and opens as an ONU", authorised, serials)
    driver.save_screenshot(f"{shots}/onu-authorised.png")

    # A whole port of OLT 3 loses light: one PON outage in the Outages view, live.
    port = get(api, "/olts/3/onus?size=1", key)["data"][0]["ponPort"]
    indexes = [o["onuIndex"] for o in get(api, f"/olts/3/onus?size=500&ponPort={port}", key)["data"]]
    driver.get(base + "/ui/#/outages")
    until(driver, 15, lambda d: d.find_element(By.ID, "outage-table"))
    control(control_path, f"set los:{port}:{min(indexes)}-{max(indexes)}@3")
    row = wait_for("the outage row", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#outage-table tbody tr")
                                              if "PON outage" in r.text], 30)
    check("a port cut shows as one PON outage in the Outages view without a reload",
          len(row) == 1 and f"feeder fibre of PON port {port}" in row[0], row)
    driver.save_screenshot(f"{shots}/outages.png")
    # One of its ONUs, cut off: once the traffic group has read it so, its rates are
    # unknown, and the page says so rather than showing 0.
    cut = get(api, f"/olts/3/onus?size=1&ponPort={port}", key)["data"][0]["id"]
    wait_for("the cut ONU's rates to be unknown", lambda: (lambda r: r["inBps"] is None and r["outBps"] is None)(
        get(api, f"/onus/{cut}/traffic", key)["data"]), 30)
    driver.get(base + f"/ui/#/onu/{cut}")
    latest = wait_for("the cut ONU's rates", lambda: (lambda text: text if text.startswith("Download") else None)(
        driver.find_element(By.ID, "traffic-latest").text), 15)
    check("an ONU without a rate shows 'no data', not 0", latest.startswith("Download: no data · Upload: no data"), latest)
    # Its alarm, acknowledged from the page: the key's name and the comment are kept.
    driver.get(base + "/ui/#/alarms")
    button = wait_for("the outage's alarm", lambda: [r.find_element(By.CSS_SELECTOR, "button.ack")
                                                     for r in driver.find_elements(By.CSS_SELECTOR, "#alarm-table tbody tr")
                                                     if "PON outage" in r.text and r.find_elements(By.CSS_SELECTOR, "button.ack")], 30)
    button[0].click()
    prompt = driver.switch_to.alert
    prompt.send_keys("crew on the way")
    prompt.accept()
    taken = wait_for("the acknowledgement", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "#alarm-table tbody tr")
                                                     if "PON outage" in r.text and "noc-ui" in r.text], 15)
    check("an alarm is acknowledged from the page with the key's name and a comment",
          bool(taken) and "crew on the way" in taken[0], taken)
    driver.save_screenshot(f"{shots}/alarms.png")
    driver.get(base + "/ui/#/outages")
    until(driver, 15, lambda d: d.find_element(By.ID, "outage-table"))
    control(control_path, "clear 3")
    gone = wait_for("the outage to end", lambda: not [r for r in driver.find_elements(By.CSS_SELECTOR, "#outage-table tbody tr")
                                                      if "PON outage" in r.text], 30)
    check("and leaves the list of those going on when the port is healed", gone, "")

    driver.get(base + "/ui/#/audit")
    rows = wait_for("the audit log", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "main tbody tr")
                                              if "olt.restart_session" in r.text], 15)
    check("the audit log shows the restart with the key's name, from the page",
          any("noc-ui" in r and "UI" in r for r in rows), rows)
    driver.save_screenshot(f"{shots}/audit.png")

    # The hung OLT's DEGRADED and back: OLT_STATUS_CHANGED events, each linked to its OLT.
    driver.get(base + "/ui/#/events?type=OLT_STATUS_CHANGED")
    cells = lambda n: [c.text for c in driver.find_elements(By.CSS_SELECTOR, f"main tbody tr td:nth-child({n})")]  # noqa: E731
    kinds = set(wait_for("the OLT status events", lambda: cells(3), 30))
    links = wait_for("links to the OLT", lambda: driver.find_elements(By.CSS_SELECTOR, f"main tbody tr a[href='#/olt/{HUNG}']"), 15)
    check("the events view filters by type and links each event to its OLT", kinds == {"OLT status changed"} and bool(links),
          (kinds, len(links)))

    driver.get(base + "/ui/#/audit")
    until(driver, 15, lambda d: d.find_elements(By.CSS_SELECTOR, "main tbody tr"))
    driver.find_element(By.ID, "lang").click()
    heading = until(driver, 15, lambda d: (lambda text: text if text != "Audit log" else None)(
        d.find_element(By.CSS_SELECTOR, "main h1").text))
    check("the page switches to Russian", heading == "Журнал аудита", heading)
    driver.get(base + "/ui/#/events?type=OLT_STATUS_CHANGED")
    words = set(wait_for("the events in Russian", lambda: cells(3) + cells(4), 30))
    check("event types and severities are in Russian",
          "Статус OLT изменился" in words and words <= {"Статус OLT изменился", "предупреждение", "критично", "инфо"}, words)
    messages = wait_for("the event messages in Russian", lambda: cells(7), 30)
    english = [m for m in messages if foreign_words(m)]
    check("the server's event messages are in Russian", bool(messages) and not english
          and any("перешёл" in m for m in messages), english or messages[:3])
    driver.get(base + "/ui/#/onu/999999999")
    refusal = wait_for("a refusal in Russian", lambda: driver.find_element(By.CSS_SELECTOR, "p.error").text, 15)
    check("an error from the server is in Russian", refusal == "нет ONU с id 999999999", refusal)
    names = {"Huawei", "ZTE", "BDCOM", "Eltex", "V-SOL", "C-Data", "SNR"} | {n["name"] for n in get(api, "/nodes?size=100", key)["data"]}
    names |= {part for name in set(names) for part in re.split(r"[^A-Za-z0-9]+", name)}
    leftovers = russian_sweep(driver, base, ["#/fleet", "#/olt/1", f"#/onu/{onu['id']}", "#/search?q=ivanova", f"#/search?q={mac}",
                                             "#/optics", "#/alarms?active=all", "#/outages?active=all", "#/events", "#/audit", "#/unconfigured"], names)
    check("no English word in the chrome of any Russian view", not leftovers, leftovers)


MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")
RATE = r"[0-9]+\.[0-9]+ Mb/s"
# Pixels of a colour (RGB) on a chart's canvas, near enough to count as its line or points.
INKED_IN = """const c = document.querySelector(arguments[0] + ' canvas'); if (!c) return null;
const p = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
return arguments[1].map(([r, g, b]) => { let n = 0;
  for (let i = 0; i < p.length; i += 4)
    if (p[i + 3] > 200 && Math.abs(p[i] - r) + Math.abs(p[i + 1] - g) + Math.abs(p[i + 2] - b) < 60) n++;
  return n; });"""
DOWNLOAD, UPLOAD = [36, 86, 166], [27, 127, 59]


def traffic_checks(driver, api, key, onu, macs):
    """On the ONU's view, loaded after its traffic has two rates and its MACs are read:
    the latest rates, the chart with its two series drawn (the newest point's values in
    the legend under the cursor are a point of the API's history), and the MAC table."""
    latest = wait_for("the latest rates", lambda: driver.find_element(By.ID, "traffic-latest").text, 15)
    check("the ONU view shows its latest download and upload rates",
          re.match(f"Download: {RATE} · Upload: {RATE} \\(read ", latest), latest)
    inked = wait_for("the traffic chart", lambda: driver.execute_script(INKED_IN, "#traffic-chart", [DOWNLOAD, UPLOAD]), 15)
    legend = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#traffic-chart .u-legend .u-label")]
    check("the traffic chart has exactly two series, download and upload in Mb/s",
          legend == ["Time", "Download (to the ONU), Mb/s", "Upload (from the ONU), Mb/s"], legend)
    # The newest points sit at the day's right edge: the cursor there shows their values.
    over = driver.find_element(By.CSS_SELECTOR, "#traffic-chart .u-over")
    driver.execute_script("arguments[0].scrollIntoView({ block: 'center' })", over)
    ActionChains(driver).move_to_element_with_offset(over, over.size["width"] // 2 - 1, 0).perform()
    legend = lambda: [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#traffic-chart .u-legend .u-value")]  # noqa: E731
    values = wait_for("the cursor's values", lambda: legend()[1:] if legend()[0] != "—" else None, 5)
    points = {(f"{p['outBps'] / 1e6:.2f}", f"{p['inBps'] / 1e6:.2f}")
              for p in get(api, f"/onus/{onu['id']}/traffic/history", key)["data"] if p["inBps"] is not None}
    check("and draws both of them, the newest point as the API has it",
          min(inked) >= 4 and tuple(values) in points, (f"pixels of download, upload: {inked}", values))
    rows = wait_for("the MAC table", lambda: [[c.text for c in r.find_elements(By.TAG_NAME, "td")]
                                             for r in driver.find_elements(By.CSS_SELECTOR, "#onu-macs tbody tr")], 15)
    shown = [r[0] for r in rows]
    check("the ONU view lists the MACs behind it, each seen now",
          set(shown) == macs and all(MAC.fullmatch(m) for m in shown) and all(r[-1] == "seen now" for r in rows),
          (rows, sorted(macs)))
    driver.find_element(By.ID, "refresh-macs").click()
    done = wait_for("the MAC refresh", lambda: (lambda text: text if text.startswith("Read MACs now") or "bad" in (
        driver.find_element(By.ID, "flash").get_attribute("class") or "") else None)(driver.find_element(By.ID, "flash").text), 20)
    after = {r.find_element(By.TAG_NAME, "td").text for r in driver.find_elements(By.CSS_SELECTOR, "#onu-macs tbody tr")}
    check("'Read MACs now' reads them and keeps the list", done == "Read MACs now: Done" and after == macs, (done, after))


def mac_search_checks(driver, base, onu, mac, shots):
    """A MAC of the ONU's list, typed into the search as AA-BB-… and as a dotted prefix,
    finds the ONU with a link to its view."""
    digits = mac.replace(":", "")
    for spelling in (mac.replace(":", "-").upper(), f"{digits[:4]}.{digits[4:8]}"):
        driver.get(base + "/ui/#/search")
        box = until(driver, 15, lambda d: d.find_element(By.NAME, "q"))
        box.send_keys(spelling)
        box.submit()
        found = wait_for("the MAC's ONUs", lambda: [
            (r.text, [a.get_attribute("href") for a in r.find_elements(By.TAG_NAME, "a")])
            for r in driver.find_elements(By.CSS_SELECTOR, "#mac-results tbody tr")], 15)
        check(f"the search finds the ONU behind MAC {spelling}, linked to its view",
              any(onu["serial"] in text and mac in text and any(href.endswith(f"#/onu/{onu['id']}") for href in hrefs)
                  for text, hrefs in found), found)
    driver.save_screenshot(f"{shots}/search-mac.png")


def port_load_checks(driver, base, api, key, shots):
    """OLT 1's ports show their load each way: a bar and a percentage agreeing with each
    other and, within the change of a few reads, with the API's share; a dash where the
    API has none."""
    driver.get(base + "/ui/#/olt/1")
    def read():
        # One script reads the table whole: the view redraws it every 2 s.
        headers, rows = driver.execute_script("""return [
            [...document.querySelectorAll('#olt-ports thead th')].map((th) => th.innerText.trim()),
            [...document.querySelectorAll('#olt-ports tbody tr')].map((r) => [...r.cells].map((c) =>
              [c.innerText.trim(), c.querySelector('meter') ? c.querySelector('meter').value : null]))];""")
        ports = {p["name"]: p for p in get(api, "/olts/1", key)["data"]["ports"]}
        return (headers, rows, ports) if any(r[3][1] is not None for r in rows) else None
    headers, rows, ports = wait_for("the ports' load", read, 30)
    def agrees(cell, share):
        if share is None:
            return cell == ["—", None]
        shown = re.fullmatch(f"([0-9]+\\.[0-9]+) % · {RATE}", cell[0])
        # The text rounds the bar's share to 0.1 % (0.01 % below 1 %); the API's share is
        # read a moment later, after perhaps another read of the traffic group.
        return (bool(shown) and cell[1] is not None and abs(float(shown[1]) - cell[1] * 100) <= 0.051
                and abs(cell[1] - share) <= max(0.0005, share / 4))
    good = headers[3:5] == ["Download, % of capacity", "Upload, % of capacity"] and all(
        agrees(r[3], ports[r[0][0]]["outUtilisation"]) and agrees(r[4], ports[r[0][0]]["inUtilisation"]) for r in rows)
    check("the OLT view shows each port's load both ways, as the API has it",
          good and any((r[3][1] or 0) > 0 for r in rows), (headers, rows, ports))
    driver.save_screenshot(f"{shots}/olt-ports.png")


NAMES = {"dBm", "MiB", "ms", "id", "Rx", "Tx", "sysObjectID", "sysDescr"}


def foreign_words(text):
    """English words in a Russian text, by the service's own rule (src/http/russian.rs):
    outside `code` and «quoted words», not abbreviations, units, identifiers, paths or
    durations."""
    text = re.sub(r"`[^`]*`|«[^»]*»", " ", text)
    words = re.findall(r"[A-Za-z0-9_./+:-]+", text)
    def foreign(word):
        word = word.strip(".:-")
        return (re.search(r"[A-Za-z][a-z]", word) and "_" not in word and "." not in word.strip(".")
                and not word[:1].isdigit() and not word.startswith("/") and word not in NAMES)
    return [w for w in words if foreign(w)]


# What a page says in its own voice (not the data it shows): headings, labels, buttons,
# column names, badges, notes, the chart's legend, and the server's sentences.
CHROME = "h1, h2, th, label, button, dt, caption, .badge, p.muted, p.error, #flash, .u-legend .u-label, #live, #traffic-latest"


def russian_sweep(driver, base, views, names):
    """Opens each view in Russian and returns the English words its chrome still holds,
    apart from `names` (vendors, the inventory's node names: proper names)."""
    leftovers = {}
    for view in views:
        driver.get(base + "/ui/" + view)
        time.sleep(1.5)
        until(driver, 15, lambda d: d.find_elements(By.CSS_SELECTOR, "main h1"))
        time.sleep(1.0)
        # One script reads them all: the views re-render under live updates.
        texts = driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].filter((e) => e.offsetParent !== null)"
            ".map((e) => e.innerText);", CHROME)
        words = sorted({w for text in texts for w in foreign_words(text)} - names)
        if words:
            leftovers[view] = words
    return leftovers


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--shots", default="target/ui-shots")
    args = parser.parse_args()
    os.makedirs(args.shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ponkeeper-ui-")
    processes, driver = [], None
    try:
        processes, base, api, keys, control_path = start(os.path.abspath(args.binary), work)
        driver = browser()
        read_only_checks(driver, base, api, keys["READ_ONLY"], args.shots)
        full_checks(driver, base, api, keys["FULL"], control_path, args.shots)
    except Exception as error:  # noqa: BLE001 - reported as a failure with the logs' tails
        check("the browser session ran to its end", False, repr(error))
        for log in ("serve.log", "sim.log"):
            print(f"--- {log}:\n" + open(f"{work}/{log}").read()[-2000:])
    finally:
        if driver:
            driver.quit()
        for process in processes:
            process.terminate()
            process.wait(10)
        shutil.rmtree(work, ignore_errors=True)
    print(f"ui: {0 if failures else 'all'} checks passed" if not failures else f"ui: {len(failures)} failed")
    print(f"screenshots: {args.shots}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

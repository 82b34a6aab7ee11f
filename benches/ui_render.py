"""A6: the first render of the operator page's fleet view, in Debian's headless chromium,
against `ponkeeper serve` holding a simulated workload (default 1,000 OLTs x 128 ONUs,
mixed vendors).

The page marks `fleet-rendered` (User Timing) once the node counters and the first page
of the OLT table are on screen; the figure is that mark's time from the start of the
navigation, for a tab that already holds its key (the login form is the operator's time,
not the page's). Each run is a fresh navigation with the browser's cache off; the median
and the worst of RUNS are printed.

  .venv/bin/python benches/ui_render.py --binary target/release/ponkeeper [--olts 1000]
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "scripts"))
import check_ui  # noqa: E402  (the simulator, service and browser set-up it uses)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--olts", type=int, default=1000)
    parser.add_argument("--onus-per-olt", type=int, default=128)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    check_ui.OLTS, check_ui.ONUS_PER_OLT = args.olts, args.onus_per_olt
    work = tempfile.mkdtemp(prefix="ponkeeper-ui-bench-")
    processes, driver = [], None
    try:
        processes, base, _, keys, _ = check_ui.start(os.path.abspath(args.binary), work, interval="1h", require_online=False)
        driver = check_ui.browser()
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        check_ui.sign_in(driver, base, keys["READ_ONLY"])
        times = []
        for _ in range(args.runs):
            driver.get("about:blank")
            driver.get(base + "/ui/#/fleet")
            mark = check_ui.wait_for("the fleet-rendered mark", lambda: driver.execute_script(
                "const m = performance.getEntriesByName('fleet-rendered'); return m.length ? m[0].startTime : null"), 30)
            times.append(mark)
        print(f"A6 fleet view first render, {args.olts} OLTs x {args.onus_per_olt} ONUs, {args.runs} runs: "
              f"median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms")
    finally:
        if driver:
            driver.quit()
        for process in processes:
            process.terminate()
            process.wait(30)


if __name__ == "__main__":
    main()

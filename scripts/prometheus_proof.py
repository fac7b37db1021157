#!/usr/bin/env python3
"""Debian's Prometheus scrapes a real handyd (issue 45): the series and the health arrive.

handyd replays Tests/Fixtures/health/stuck-contact-pinch.evemu (a contact still for 35 s, a
right-hand pinch beside it at 31 s) at 8x, the contact stuck after 5 s, with --metrics on a free loopback port; Prometheus
(/usr/bin/prometheus, Debian's package) scrapes it every second with docs/fleet/handyd-alerts.yml
loaded. Through Prometheus's own HTTP API the script then reads: the device's 405 frames (what the
recording holds), one stuck contact (the replay begins once Prometheus scrapes, through a subscriber), the right-hand pinch, the rules file's 7 rules, and the
HandydStuckContact alert's expression true while the contact was stuck. promtool checks the
exposition and the rules. Every wait has a deadline; about 15 s.

  HANDYD_BIN=.build/debug python3 scripts/prometheus_proof.py
"""
import json, os, shutil, socket, subprocess, sys, tempfile, time, urllib.parse, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("HANDYD_BIN", os.path.join(ROOT, ".build", "debug"))
RECORDING = os.path.join(ROOT, "Tests/Fixtures/health/stuck-contact-pinch.evemu")
RULES = os.path.join(ROOT, "docs/fleet/handyd-alerts.yml")
DEVICE = "replay:stuck-contact-pinch"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url, timeout=3):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def query(prom, expr):
    data = json.loads(get(f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})))
    if data.get("status") != "success":
        raise RuntimeError(f"query {expr}: {data}")
    return [(r["metric"], float(r["value"][1])) for r in data["data"]["result"]]


def wait_for(what, check, seconds):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (OSError, RuntimeError, ValueError) as e:
            last = e
        time.sleep(0.25)
    raise SystemExit(f"prometheus_proof: FAILED: {what} within {seconds} s (last: {last})")


def main():
    for tool in ("/usr/bin/prometheus", "/usr/bin/promtool"):
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"prometheus_proof: {tool} missing (apt-get install prometheus; scripts/install-deps.sh does)")
    work = tempfile.mkdtemp(prefix="handyd-prometheus-")
    procs = []
    try:
        subprocess.run(["/usr/bin/promtool", "check", "rules", RULES], check=True, capture_output=True, timeout=30)
        metrics_port, prom_port = free_port(), free_port()
        handyd_log = open(os.path.join(work, "handyd.log"), "w")
        procs.append(subprocess.Popen(
            [os.path.join(BIN, "handyd"), "--socket", os.path.join(work, "handyd.sock"), "--replay", RECORDING,
             "--speed", "8", "--wait-clients", "1", "--metrics", str(metrics_port),
             # Stuck after 5 s of the recording: stuck for 30 s of it (~4 s at 8x), so 1 s scrapes see it.
             "--device-property", "HANDYD_STUCK_TOUCH_S=5"], stdout=handyd_log, stderr=subprocess.STDOUT))
        with open(os.path.join(work, "prometheus.yml"), "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [{RULES}]
scrape_configs:
  - job_name: handyd
    static_configs:
      - targets: ['127.0.0.1:{metrics_port}']
""")
        prom_log = open(os.path.join(work, "prometheus.log"), "w")
        procs.append(subprocess.Popen(
            ["/usr/bin/prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
             f"--web.listen-address=127.0.0.1:{prom_port}"], stdout=prom_log, stderr=subprocess.STDOUT))
        prom = f"http://127.0.0.1:{prom_port}"
        exposition = wait_for("handyd's /metrics", lambda: get(f"http://127.0.0.1:{metrics_port}/metrics"), 15)
        check = subprocess.run(["/usr/bin/promtool", "check", "metrics"], input=exposition, capture_output=True, text=True, timeout=30)
        if check.returncode != 0 or check.stdout.strip() or check.stderr.strip():
            raise SystemExit(f"prometheus_proof: FAILED: promtool check metrics: {check.stdout}{check.stderr}")
        wait_for("Prometheus up and scraping handyd", lambda: query(prom, 'up{job="handyd"}') and query(prom, 'up{job="handyd"}')[0][1] == 1, 20)
        # The replay begins once a client subscribes: now, with Prometheus scraping.
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(5)
        client.connect(os.path.join(work, "handyd.sock"))
        client.sendall(b'{"type":"subscribe","gestures":["pinch"]}\n')
        stuck = wait_for("one stuck contact", lambda: [v for m, v in query(prom, "handyd_device_stuck_contacts_total") if m.get("device") == DEVICE and v == 1], 20)
        frames = wait_for("the recording's 405 frames", lambda: [v for m, v in query(prom, "handyd_device_frames_total") if m.get("device") == DEVICE and v == 405], 20)
        pinch = wait_for("the right-hand pinch", lambda: query(prom, f'handyd_gestures_total{{device="{DEVICE}",gesture="pinch",hand="right"}}'), 10)
        was_stuck = wait_for("the stuck contact seen as stuck now at some scrape",
                             lambda: [v for m, v in query(prom, "max_over_time(handyd_device_stuck_contacts[5m])") if v == 1], 10)
        rules = json.loads(get(f"{prom}/api/v1/rules"))
        names = [r["name"] for g in rules["data"]["groups"] for r in g["rules"]]
        if len(names) != 7 or "HandydStuckContact" not in names:
            raise SystemExit(f"prometheus_proof: FAILED: rules loaded: {names}")
        print(f"prometheus_proof: ok: Prometheus {prom} scraped handyd: stuck contacts {stuck}, frames {frames}, "
              f"right-hand pinches {[v for _, v in pinch]}, stuck now at some scrape {was_stuck}, {len(names)} alert rules loaded")
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if os.environ.get("KEEP"):
            print(f"prometheus_proof: logs in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Metrics under load (issue 45 item 5): a scrape every 10 ms during a replay. Prints numbers; asserts nothing.

Two runs of the same replay (Tests/Fixtures/health/stuck-contact-pinch.evemu, looped, at --speed 8,
one subscriber taking every touch and gesture): without scrapes (one at the end) and with a GET
/metrics every 10 ms. For each: the frame-to-socket histogram's count and share under 1 ms and
5 ms, handyd's RSS at the first and last scrape, the exposition's size first and last, and the
scrapes' own latency. A fixed number of series means RSS and size stay flat over the run.

  HANDYD_BIN=.build/release SECONDS_PER_RUN=20 ROUNDS=3 python3 scripts/metrics_soak.py
"""
import os, re, shutil, socket, subprocess, tempfile, threading, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("HANDYD_BIN", os.path.join(ROOT, ".build", "debug"))
RECORDING = os.path.join(ROOT, "Tests/Fixtures/health/stuck-contact-pinch.evemu")
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "10"))
ROUNDS = int(os.environ.get("ROUNDS", "1"))  # the two runs alternate, so a busy machine weighs on both


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=3) as r:
        return r.read().decode()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def histogram(text):
    buckets = {m.group(1): float(m.group(2)) for m in re.finditer(r'handyd_frame_to_socket_seconds_bucket\{le="([^"]+)"\} (\S+)', text)}
    count = buckets.get("+Inf", 0.0)
    return count, buckets


def run(scrape_every_s):
    work = tempfile.mkdtemp(prefix="handyd-soak-")
    port = free_port()
    sock_path = os.path.join(work, "handyd.sock")
    proc = subprocess.Popen([os.path.join(BIN, "handyd"), "--socket", sock_path, "--replay", RECORDING, "--loop",
                             "--speed", "8", "--wait-clients", "1", "--metrics", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                first = get(url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("metrics_soak: handyd's /metrics did not answer within 15 s")
                time.sleep(0.1)
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(5)
        client.connect(sock_path)
        client.sendall(b'{"type":"subscribe","touches":true,"gestures":["tap","pinch","rotate","swipe","long-press"]}\n')
        stop = threading.Event()
        received = [0]

        def drain():
            client.settimeout(0.5)
            while not stop.is_set():
                try:
                    data = client.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    return
                received[0] += len(data)
        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        rss_first = rss_kib(proc.pid)
        scrape_s = []
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            if scrape_every_s:
                t0 = time.monotonic()
                get(url)
                scrape_s.append(time.monotonic() - t0)
                time.sleep(max(0.0, scrape_every_s - (time.monotonic() - t0)))
            else:
                time.sleep(0.1)
        last = get(url)
        rss_last = rss_kib(proc.pid)
        stop.set()
        reader.join(2)
        count, buckets = histogram(last)
        under = lambda le: buckets.get(le, 0.0) / count * 100 if count else 0.0
        scrape_s.sort()
        pct = lambda p: scrape_s[min(len(scrape_s) - 1, int(p * len(scrape_s)))] * 1000 if scrape_s else 0.0
        label = f"scrape every {scrape_every_s * 1000:.0f} ms" if scrape_every_s else "no scrapes (one at the end)"
        print(f"{label}: batches {count:.0f}, under 1 ms {under('0.001'):.1f} %, under 5 ms {under('0.005'):.1f} %, "
              f"over 10 ms {100 - under('0.01'):.2f} %; RSS {rss_first} -> {rss_last} KiB; exposition {len(first)} -> {len(last)} bytes; "
              f"scrapes {len(scrape_s)}, p50 {pct(0.5):.2f} ms, p99 {pct(0.99):.2f} ms; client got {received[0]} bytes")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for _ in range(ROUNDS):
        run(0)
        run(0.010)

#!/usr/bin/env python3
"""Soak driver for scripts/soak.sh: N subscribers on a running handyd, counted and compared.

Connects the clients (the daemon was started with --wait-clients N, so the replay begins once all
have subscribed), reads every client with one selector loop, counting lines without parsing them,
and samples the daemon's VmRSS and open descriptors from /proc every --interval seconds. At the
end each client asks for status: the lines it received before the reply must equal the daemon's
frames + events at that moment. Then the daemon gets SIGTERM; every client must end with
`shutdown`, and all must have received the same number of events.

Prints one sample per line and a summary; exits 0 on pass, 1 on fail.
"""
import argparse
import json
import os
import selectors
import signal
import socket
import sys
import time

STATUS = b'{"type":"status"'
SHUTDOWN = b'{"type":"shutdown"'
ERROR = b'{"type":"error"'


def resources(pid):
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


class Client:
    def __init__(self, index, path):
        self.index = index
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.lines = 0          # newline-terminated lines, hello included
        self.tail = b""         # bytes after the last newline
        self.status_at = None   # lines before the status reply (hello excluded), and the reply
        self.status = None
        self.want_status = False
        self.final = None       # the last line (shutdown expected)
        self.eof = False
        self.errors = []

    def subscribe(self):
        self.sock.sendall(b'{"type":"subscribe","touches":true}\n')

    def feed(self, data):
        """Counts the lines in data; looks inside only for the rare lines that matter."""
        data = self.tail + data
        cut = data.rfind(b"\n") + 1
        complete, self.tail = data[:cut], data[cut:]
        if not complete:
            return
        if self.want_status and self.status is None:
            if complete.startswith(STATUS):
                at = 0
            else:
                at = complete.find(b"\n" + STATUS)
                at = at + 1 if at >= 0 else -1
            if at >= 0:
                end = complete.index(b"\n", at)
                self.status = json.loads(complete[at:end])
                self.status_at = self.lines + complete.count(b"\n", 0, at) - 1
        if ERROR in complete:
            for line in complete.split(b"\n"):
                if line.startswith(ERROR):
                    self.errors.append(line.decode(errors="replace"))
        self.lines += complete.count(b"\n")
        last = complete[:-1]
        self.final = last[last.rfind(b"\n") + 1:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--socket", required=True)
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--interval", type=float, default=5)
    ap.add_argument("--warmup", type=float, default=None,
                    help="seconds before the VmRSS reference sample (default: half the run)")
    ap.add_argument("--rss-tolerance-kib", type=int, default=4096)
    ap.add_argument("--csv", help="write the samples here")
    args = ap.parse_args()
    # VmRSS is a high-water mark: each client may legitimately hold up to --client-queue-bytes
    # unread (64 MiB in all), and when a CPU stall lets the queues run deeper than ever before, the
    # heap grows a step and keeps the pages. Such steps come early and then stop; a leak is a
    # ramp that goes on. So the reference is taken at half the run and the second half must stay
    # within the tolerance: a leak of one byte per delivered line would add ~20 MB there.
    warmup = args.warmup if args.warmup is not None else args.seconds / 2
    # Descriptors must be exactly constant once every client is connected.
    fd_settled = max(5.0, args.seconds / 10)

    clients = [Client(i, args.socket) for i in range(args.clients)]
    sel = selectors.DefaultSelector()
    for c in clients:
        c.sock.setblocking(False)
        sel.register(c.sock, selectors.EVENT_READ, c)
    for c in clients:
        c.sock.setblocking(True)
        c.subscribe()
        c.sock.setblocking(False)

    def pump(timeout):
        for key, _ in sel.select(timeout):
            c = key.data
            try:
                data = c.sock.recv(1 << 18)
            except (BlockingIOError, InterruptedError):
                continue
            except ConnectionResetError:
                data = b""
            if not data:
                c.eof = True
                sel.unregister(c.sock)
                continue
            c.feed(data)

    samples = []
    started = time.monotonic()
    next_sample = started
    print("seconds,vmrss_kib,fds,lines_total,clients_connected", flush=True)
    while True:
        now = time.monotonic()
        if now >= next_sample:
            rss, fds = resources(args.pid)
            total = sum(c.lines for c in clients)
            connected = sum(not c.eof for c in clients)
            samples.append((now - started, rss, fds, total, connected))
            print(f"{now - started:.1f},{rss},{fds},{total},{connected}", flush=True)
            next_sample += args.interval
            if now - started >= args.seconds:
                break
        pump(max(0.0, min(0.2, next_sample - time.monotonic())))

    # Status from every client, at about the same time.
    for c in clients:
        if not c.eof:
            c.want_status = True
            c.sock.setblocking(True)
            c.sock.sendall(b'{"type":"status"}\n')
            c.sock.setblocking(False)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(c.status is None and not c.eof for c in clients):
        pump(0.2)

    os.kill(args.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(not c.eof for c in clients):
        pump(0.2)

    # Verdict.
    failures = []
    after_warmup = [s for s in samples if s[0] >= warmup - 0.5]
    reference = after_warmup[0] if after_warmup else samples[-1]
    rss_values = [s[1] for s in after_warmup] or [samples[-1][1]]
    fd_values = {s[2] for s in samples if s[0] >= fd_settled - 0.5}
    rss_growth = max(rss_values) - reference[1]
    if rss_growth > args.rss_tolerance_kib:
        failures.append(f"VmRSS grew {rss_growth} KiB after {reference[0]:.0f} s (tolerance {args.rss_tolerance_kib} KiB)")
    if len(fd_values) > 1:
        failures.append(f"open descriptors changed after {fd_settled:.0f} s: {sorted(fd_values)}")
    dropped = [c.index for c in clients if c.errors or c.status is None]
    if dropped:
        failures.append(f"clients dropped or without status: {dropped[:10]} {clients[dropped[0]].errors[:1]}")
    mismatched = []
    for c in clients:
        if c.status is None:
            continue
        published = c.status["frames"] + c.status["events"]
        if c.status_at != published:
            mismatched.append((c.index, c.status_at, published))
    if mismatched:
        failures.append(f"clients whose count before status != frames + events: {mismatched[:5]}")
    # Every line but hello, the status reply and shutdown is an event.
    events = {c.lines - 3 for c in clients}
    if len(events) != 1:
        failures.append(f"clients received different event counts: {sorted(events)[:5]}")
    # The checks above are relative: a replay that published nothing would pass them all.
    if min(events, default=0) <= 0 or not any(c.status and c.status["frames"] > 0 for c in clients):
        failures.append(f"nothing was soaked: events per client {sorted(events)[:5]}, "
                        f"status frames {sorted({c.status['frames'] for c in clients if c.status})[:5]}")
    not_shutdown = [c.index for c in clients if not (c.final or b"").startswith(SHUTDOWN)]
    if not_shutdown:
        failures.append(f"clients whose last line is not shutdown: {not_shutdown[:10]}")
    drops = [c.status["drops"] for c in clients if c.status]
    if any(drops):
        failures.append(f"the daemon reports drops: {max(drops)}")

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("seconds,vmrss_kib,fds,lines_total,clients_connected\n")
            for s in samples:
                f.write(f"{s[0]:.1f},{s[1]},{s[2]},{s[3]},{s[4]}\n")

    duration = samples[-1][0]
    per_client = min(events) if events else 0
    status = next((c.status for c in clients if c.status), {})
    print(f"soak: {duration:.0f} s, {args.clients} clients, {per_client} events per client "
          f"({per_client / max(duration, 1):.0f}/s each, {per_client * args.clients / max(duration, 1):.0f}/s in all), "
          f"status frames={status.get('frames')} events={status.get('events')} drops={status.get('drops')}")
    print(f"soak: VmRSS first {samples[0][1]} KiB, max {max(s[1] for s in samples)} KiB, last {samples[-1][1]} KiB; "
          f"from {reference[0]:.0f} s: {reference[1]} KiB -> max {max(rss_values)} KiB "
          f"(growth {rss_growth} KiB, tolerance {args.rss_tolerance_kib} KiB); "
          f"open fds from {fd_settled:.0f} s: {sorted(fd_values)}")
    if failures:
        for f in failures:
            print("soak: FAIL:", f)
        return 1
    print("soak: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What the example tests (scripts/gui_examples_test.py, scripts/tk_example_test.py) share: a real
handyd replaying the demo recording on a temporary socket, waited for with a deadline, and a
headless X server. Standard library only.
"""
import os, select, shutil, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "examples", "recordings", "demo.evemu")
DEADLINE = 20  # seconds, for each wait (a GUI toolkit's start under load included)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def start_xvfb(screen="1280x800x24"):
    """Xvfb on a free display (it writes the number it took to -displayfd): (process, ":N")."""
    check(shutil.which("Xvfb"), "no Xvfb (apt-get install xvfb; scripts/install-deps.sh does)")
    r, w = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", screen, "-nolisten", "tcp"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    number, deadline = b"", time.monotonic() + 10
    while not number.endswith(b"\n"):
        ready, _, _ = select.select([r], [], [], max(0, deadline - time.monotonic()))
        check(ready, "Xvfb gave no display within 10 s")
        chunk = os.read(r, 16)
        check(chunk, f"Xvfb exited ({xvfb.poll()}) before giving a display")
        number += chunk
    os.close(r)
    return xvfb, ":" + number.decode().strip()


def start_demo_daemon(handyd, sock, log_path, *extra):
    """handyd replaying the demo at 4x once a client is there (--wait-clients 1), its output in
    log_path; returns when its socket exists (Failure if it exits or makes none within DEADLINE)."""
    log = open(log_path, "wb")
    daemon = subprocess.Popen([handyd, "--socket", sock, "--replay", DEMO, "--speed", "4", "--wait-clients", "1",
                               *extra], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + DEADLINE
    while not os.path.exists(sock):
        check(daemon.poll() is None, f"handyd exited ({daemon.returncode}), see {log_path}")
        check(time.monotonic() < deadline, f"handyd made no socket within {DEADLINE} s")
        time.sleep(0.02)
    return daemon


def stop(process):
    """SIGTERM, then SIGKILL after 5 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

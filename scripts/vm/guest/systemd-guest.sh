#!/bin/bash
# Runs INSIDE a guest booted with qemu-run.sh --systemd (systemd is PID 1, udevd and journald run).
# Installs handyd with `make install-files` (debug binaries), then checks: socket activation on
# first connect, udev SYSTEMD_WANTS starting the service when a touchscreen appears, reload
# (SIGHUP, clients stay), clean stop, handyd-actions.service pressing keys and running commands,
# and the WebSocket drop-in. Env: ROOT, BIN, RESULTS.
set -uo pipefail
cd "$ROOT"
fail=0
pass() { echo "PASS systemd: $*" | tee -a "$RESULTS/summary"; }
bad()  { echo "FAIL systemd: $*" | tee -a "$RESULTS/summary"; fail=1; }
waitfor() {  # waitfor SECONDS CMD...: poll CMD every 0.2 s
  local limit=$1; shift
  local end=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.2; done
}
client() {  # client PYTHON-BODY: run with a connected Client `c` (scripts/vm/guest/handyd_guest.py)
  timeout 120 python3 -c "
import sys; sys.path.insert(0, 'scripts/vm/guest')
from handyd_guest import *
c = Client('/run/handyd/handyd.sock', subscribe={})
$1"
}

t0=$(date +%s)
[ "${HANDYD_GUEST_ENV_TOKEN:-missing}" = "$(cat "$RESULTS/env-token")" ] && pass "the host's HANDYD_* environment reached the guest" \
  || bad "HANDYD_GUEST_ENV_TOKEN did not reach the guest (qemu-run.sh must pass HANDYD_* variables)"
make -s install-files PREFIX=/usr/local BUILDBIN="$BIN" >/dev/null || { bad "make install-files"; exit 1; }
getent passwd handyd >/dev/null && pass "make install-files (user handyd made by systemd-sysusers)" || bad "no handyd user after install"
systemctl enable --now handyd.socket || bad "enable handyd.socket"
[ -S /run/handyd/handyd.sock ] && [ "$(stat -c '%a %G' /run/handyd/handyd.sock)" = "660 handyd" ] \
  && pass "socket /run/handyd/handyd.sock 0660 group handyd" || bad "socket: $(stat -c '%a %U:%G' /run/handyd/handyd.sock 2>&1)"
systemctl is-active -q handyd.service && bad "service active before any client or device"

# 1. socket activation: the first client starts the service and gets hello.
if client 'print("hello devices", c.hello["devices"])'; then pass "socket activation: first connect got hello"; else bad "socket activation"; fi
waitfor 60 systemctl is-active handyd.service && pass "service active after connect" || bad "service not active after connect"
pid=$(systemctl show -p MainPID --value handyd.service)
user=$(ps -o user= -p "$pid")
[ "$user" = handyd ] && pass "runs as user handyd" || bad "runs as '$user'"
# --realtime-priority 10 under the unit's LimitRTPRIO= and system call filter: every thread
# (main, input, event loop) SCHED_RR at 10, as an unprivileged user with no capability.
policies=$(for task in /proc/"$pid"/task/*; do chrt -p "${task##*/}"; done 2>&1)
threads=$(ls /proc/"$pid"/task | wc -l)
if [ "$(grep -c 'policy: SCHED_RR' <<<"$policies")" = "$threads" ] && [ "$(grep -c 'priority: 10$' <<<"$policies")" = "$threads" ] \
  && [ "$threads" -ge 3 ]; then
  pass "all $threads threads SCHED_RR priority 10"
else
  bad "scheduling: $(tr '\n' ' ' <<<"$policies")"
fi
systemctl stop handyd.service
[ "$(systemctl show -p Result --value handyd.service)" = success ] && pass "stop after activation: Result=success" \
  || bad "stop: Result=$(systemctl show -p Result --value handyd.service)"

# 2. udev SYSTEMD_WANTS: a touchscreen appearing starts the service, which reads it (as user handyd,
#    through the input group and DeviceAllow=char-input r).
python3 -c "
import sys; sys.path.insert(0, 'scripts/vm/guest')
from handyd_guest import *
s = Stream(); s.ev(0.0, 0, 0, 0)
open('/run/idle.evemu', 'w').write(s.text('handyd-test touchscreen systemd'))"
"$BIN/handyctl" inject --hold 120 --start-delay 0 /run/idle.evemu > /run/inject.out 2>&1 &
injpid=$!
waitfor 60 grep -q '^device ' /run/inject.out || bad "inject: $(cat /run/inject.out)"
node=$(sed -n 's/^device //p' /run/inject.out)
udevadm settle --timeout=60
udevadm info "$node" | grep -q 'SYSTEMD_WANTS=handyd.service' && pass "udev rule: $node has SYSTEMD_WANTS=handyd.service" \
  || bad "udev rule not applied: $(udevadm info "$node" | grep -E 'HANDYD|SYSTEMD|TOUCH')"
waitfor 60 systemctl is-active handyd.service && pass "udev SYSTEMD_WANTS started handyd.service" || bad "service not started by the device"
if client "
paths = [d.get('path') for d in c.hello['devices']]
check('$node' in paths or bool(c.expect(added('$node'), 'device added', timeout=40)), 'device not served')
print('served', '$node')"; then pass "the service reads $node"; else bad "the service does not read $node"; fi

# 2b. device health in the journal (docs/FLEET.md): a contact still for 4 s on a device whose
#     local rule sets HANDYD_STUCK_TOUCH_S=2 is a journal entry with structured fields, stuck and
#     then unstuck, at warning and notice priority.
cat > /etc/udev/rules.d/71-handyd-health.rules <<'RULES'
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="handyd-test stuck*", ENV{HANDYD_STUCK_TOUCH_S}="2"
RULES
udevadm control --reload
python3 -c "
import sys; sys.path.insert(0, 'scripts/vm/guest')
from handyd_guest import *
s = Stream()
for i in range(41):
    s.frame(i * 0.1, {0: (600 + (i % 3), 500)})
s.frame(4.1, {0: None})
open('/run/stuck.evemu', 'w').write(s.text('handyd-test stuck touchscreen'))"
# Gated: the contact's first frame must reach handyd, so inject is stopped as soon as it names its
# device and continued once handyd has the node open (a fixed 1 s start delay was outlasted by
# udev plus handyd's open under load). Its start delay is only the window for the stop.
"$BIN/handyctl" inject --hold 3 --start-delay 2 /run/stuck.evemu > /run/inject-stuck.out 2>&1 &
stuck_inject=$!
if waitfor 60 grep -q '^device ' /run/inject-stuck.out; then
  kill -STOP "$stuck_inject"
  stuck_node=$(sed -n 's/^device //p' /run/inject-stuck.out)
  waitfor 60 sh -c "ls -l /proc/\$(pidof -s handyd)/fd 2>/dev/null | grep -q ' $stuck_node\$'" \
    || bad "handyd did not open $stuck_node within 60 s"
  kill -CONT "$stuck_inject"
else
  bad "inject stuck: $(cat /run/inject-stuck.out)"
fi
if waitfor 60 sh -c 'journalctl -o json HANDYD_HEALTH=unstuck --no-pager | grep -q HANDYD_DEVICE_ID'; then
  stuck=$(journalctl -o json HANDYD_HEALTH=stuck --no-pager | tail -1)
  if python3 -c "
import json, sys
e = json.loads(sys.argv[1])
ok = e.get('PRIORITY') == '4' and e.get('HANDYD_DEVICE_ID', '').startswith('handyd-test-stuck-touchscreen') \
    and e.get('HANDYD_TOUCH') == '0' and e.get('HANDYD_STUCK_CONTACTS') == '1' and e.get('SYSLOG_IDENTIFIER') == 'handyd'
sys.exit(0 if ok else 1)" "$stuck"; then
    pass "journal: stuck contact with HANDYD_DEVICE_ID, HANDYD_HEALTH=stuck, HANDYD_TOUCH, counts, PRIORITY=4 (then unstuck)"
  else
    bad "journal entry for the stuck contact: $stuck"
  fi
  # One entry per change: stderr is the journal here, so the logger's line is not written as well.
  entries=$(journalctl -u handyd.service -o cat --no-pager | grep -c 'contact stuck: left out of gesture recognition' || true)
  if [ "$entries" = 1 ]; then
    pass "journal: one entry for the stuck contact (the structured one; not also through stderr)"
  else
    bad "journal: $entries entries for the stuck contact, expected 1: $(journalctl -u handyd.service -o cat --no-pager | grep 'contact stuck')"
  fi
else
  bad "no HANDYD_HEALTH=unstuck entry in the journal: $(journalctl -u handyd.service --no-pager | tail -5)"
fi
rm -f /etc/udev/rules.d/71-handyd-health.rules
udevadm control --reload

# 3. reload: SIGHUP, same process, a connected client stays connected and served.
pid=$(systemctl show -p MainPID --value handyd.service)
if client "
import subprocess
subprocess.run(['systemctl', 'reload', 'handyd.service'], check=True, timeout=30)
time.sleep(1)
c.send({'type': 'status'})
c.expect(lambda m: m.get('type') == 'status', 'status after reload', timeout=40)
print('client kept across reload')"; then pass "reload kept the client"; else bad "reload"; fi
[ "$(systemctl show -p MainPID --value handyd.service)" = "$pid" ] && pass "reload kept the process ($pid)" || bad "reload restarted the process"

# 4. stop: a connected client gets the shutdown message; the unit stops cleanly.
if client "
import subprocess
subprocess.Popen(['systemctl', 'stop', 'handyd.service'])
c.expect(lambda m: m.get('type') == 'shutdown', 'shutdown message', timeout=60)
print('shutdown received')"; then pass "stop: client got shutdown"; else bad "stop: no shutdown message"; fi
waitfor 60 sh -c '! systemctl is-active -q handyd.service' || bad "service still active after stop"
[ "$(systemctl show -p Result --value handyd.service)" = success ] && pass "stop: Result=success" \
  || bad "stop: Result=$(systemctl show -p Result --value handyd.service)"

# 4b. local rules decide the start too (udev/90-handyd-systemd.rules runs after a 71 rule): a
#     touchscreen a local rule ignores with "yes" starts nothing; a device that is no touchscreen
#     (no BTN_TOUCH, not direct) but that a local rule marks HANDYD_DEVICE=1 starts the service.
cat > /etc/udev/rules.d/71-handyd-local.rules <<'RULES'
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="handyd-test locally ignored*", ENV{HANDYD_IGNORE}="yes"
SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="handyd-test local panel*", ENV{HANDYD_DEVICE}="1"
RULES
udevadm control --reload
python3 -c "
import sys; sys.path.insert(0, 'scripts/vm/guest')
from handyd_guest import *
s = Stream(); s.ev(0.0, 0, 0, 0)
open('/run/ignored.evemu', 'w').write(s.text('handyd-test locally ignored touchscreen'))
# Not a touchscreen for udev's input_id: no INPUT_PROP_DIRECT, no keys (so no BTN_TOUCH).
lines = [l for l in s.text('handyd-test local panel').splitlines() if not l.startswith('B: 01 ')]
lines = ['P: 00 00 00 00 00 00 00 00' if l.startswith('P: ') else l for l in lines]
lines = [l.replace('B: 00 0b', 'B: 00 09') if l.startswith('B: 00 ') else l for l in lines]
open('/run/local.evemu', 'w').write('\n'.join(lines) + '\n')"
# inject_node FILE OUT: start handyctl inject in the background, its node in $node. Run in this
# shell, not in $(...): a failure must reach `fail`, which a subshell's `bad` would not set.
inject_node() {
  node=
  "$BIN/handyctl" inject --hold 120 --start-delay 0 "$1" > "$2" 2>&1 &
  waitfor 60 grep -q '^device ' "$2" || { bad "inject $1: $(cat "$2")"; return 1; }
  node=$(sed -n 's/^device //p' "$2")
}
inject_node /run/ignored.evemu /run/inject-ignored.out; ignored=$node
udevadm settle --timeout=60
info=$(udevadm info "$ignored" 2>&1)
if echo "$info" | grep -q 'HANDYD_IGNORE=yes' && ! echo "$info" | grep -q 'SYSTEMD_WANTS'; then
  pass "local rule HANDYD_IGNORE=yes: $ignored has no SYSTEMD_WANTS"
else
  bad "local ignore: $(echo "$info" | grep -E 'HANDYD|SYSTEMD|TOUCH')"
fi
sleep 3
systemctl is-active -q handyd.service && bad "a locally ignored touchscreen started handyd.service" \
  || pass "a locally ignored touchscreen does not start handyd.service"
inject_node /run/local.evemu /run/inject-local.out; local_node=$node
udevadm settle --timeout=60
info=$(udevadm info "$local_node" 2>&1)
if ! echo "$info" | grep -q 'ID_INPUT_TOUCHSCREEN=1' && echo "$info" | grep -q 'HANDYD_DEVICE=1' \
   && echo "$info" | grep -q 'SYSTEMD_WANTS=handyd.service'; then
  pass "local rule HANDYD_DEVICE=1 on a non-touchscreen: $local_node has SYSTEMD_WANTS=handyd.service"
else
  bad "local device: $(echo "$info" | grep -E 'ID_INPUT|HANDYD|SYSTEMD')"
fi
waitfor 60 systemctl is-active handyd.service && pass "a device marked by a local rule started handyd.service" \
  || bad "a device marked by a local rule did not start handyd.service"
if client "
paths = [d.get('path') for d in c.hello['devices']]
check('$local_node' in paths or bool(c.expect(added('$local_node'), 'device added', timeout=40)), 'local device not served')
check('$ignored' not in paths, 'ignored device served')
print('served', '$local_node')"; then pass "the service reads $local_node and not $ignored"; else bad "local rules: served devices"; fi
systemctl stop handyd.service
rm -f /etc/udev/rules.d/71-handyd-local.rules
udevadm control --reload

# 5. handyd-actions.service in its sandbox (user handyd-actions, DevicePolicy=closed with only
#    /dev/uinput, ProtectSystem=strict): it reaches handyd through the socket (activating it again),
#    makes the virtual keyboard, presses a chord and runs a command on real swipes. Debian's python3:
#    it has python3-libevdev (the host's PATH may name another python3 first).
if /usr/bin/python3 scripts/vm/guest/actions_guest.py --service --bin "$BIN"; then
  pass "handyd-actions.service: keyboard made and found in its sandbox, chord pressed, command run"
else
  bad "handyd-actions.service"
fi
systemctl stop handyd.service

# 6. the WebSocket drop-in as installed (README "web kiosks"): the service serves the protocol on
#    loopback TCP to the kiosk's Origin, refuses another Origin, and keeps SCHED_RR 10.
install -D -m 644 /usr/local/share/doc/handyd/handyd-websocket.conf /etc/systemd/system/handyd.service.d/websocket.conf
systemctl daemon-reload
systemctl start handyd.service
waitfor 60 systemctl is-active handyd.service || bad "handyd.service with the WebSocket drop-in did not start"
ws_status() {  # ws_status ORIGIN: the status line of a WebSocket upgrade on 127.0.0.1:7345
  timeout 60 python3 -c "
import base64, os, socket, sys, time
end = time.monotonic() + 50
while True:
    try:
        s = socket.create_connection(('127.0.0.1', 7345), timeout=10); break
    except OSError:
        if time.monotonic() > end: raise
        time.sleep(0.2)
key = base64.b64encode(os.urandom(16)).decode()
s.sendall(('GET / HTTP/1.1\r\nHost: 127.0.0.1:7345\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n'
           'Sec-WebSocket-Key: ' + key + '\r\nSec-WebSocket-Version: 13\r\nOrigin: ' + sys.argv[1] + '\r\n\r\n').encode())
print(s.recv(4096).decode(errors='replace').split('\r\n')[0])" "$1"
}
status=$(ws_status http://127.0.0.1:8080 2>&1)
[[ "$status" == "HTTP/1.1 101"* ]] && pass "WebSocket drop-in: the kiosk's Origin is upgraded ($status)" || bad "WebSocket drop-in, kiosk Origin: $status"
status=$(ws_status http://evil.example 2>&1)
[[ "$status" == "HTTP/1.1 403"* ]] && pass "WebSocket drop-in: another Origin is refused ($status)" || bad "WebSocket drop-in, other Origin: $status"
pid=$(systemctl show -p MainPID --value handyd.service)
policies=$(for task in /proc/"$pid"/task/*; do chrt -p "${task##*/}"; done 2>&1)
threads=$(ls /proc/"$pid"/task | wc -l)
if [ "$(grep -c 'policy: SCHED_RR' <<<"$policies")" = "$threads" ] && [ "$(grep -c 'priority: 10$' <<<"$policies")" = "$threads" ]; then
  pass "WebSocket drop-in: all $threads threads still SCHED_RR priority 10"
else
  bad "WebSocket drop-in scheduling: $(tr '\n' ' ' <<<"$policies")"
fi
systemctl stop handyd.service
rm -f /etc/systemd/system/handyd.service.d/websocket.conf
systemctl daemon-reload

# 7. systemd's watchdog, as a kiosk's drop-in sets it (docs/RELIABILITY.md): the running daemon
#    keeps it satisfied from every thread; one that stops running (SIGSTOP) is killed by systemd
#    and started again (Restart=on-failure).
mkdir -p /etc/systemd/system/handyd.service.d
printf '[Service]\nWatchdogSec=4s\n' > /etc/systemd/system/handyd.service.d/watchdog.conf
systemctl daemon-reload
systemctl start handyd.service
waitfor 60 systemctl is-active handyd.service || bad "handyd.service with WatchdogSec= did not start"
pid=$(systemctl show -p MainPID --value handyd.service)
restarts=$(systemctl show -p NRestarts --value handyd.service)
sleep 10
if systemctl is-active -q handyd.service && [ "$(systemctl show -p MainPID --value handyd.service)" = "$pid" ] \
   && [ "$(systemctl show -p NRestarts --value handyd.service)" = "$restarts" ] \
   && journalctl -u handyd.service --no-pager | grep -q 'watchdog: telling systemd every 2.0 s'; then
  pass "watchdog: 10 s at WatchdogSec=4s, the same process still running, pinging every 2 s"
else
  bad "watchdog: pid $pid -> $(systemctl show -p MainPID --value handyd.service), restarts $restarts -> $(systemctl show -p NRestarts --value handyd.service), $(journalctl -u handyd.service --no-pager | grep -i watchdog | tail -3)"
fi
# Nothing else kills a stopped process here: gone, and a new one started, is systemd's watchdog.
kill -STOP "$pid"
if waitfor 40 bash -c "[ \"\$(systemctl show -p NRestarts --value handyd.service)\" -gt $restarts ] && systemctl is-active -q handyd.service" \
   && ! kill -0 "$pid" 2>/dev/null && [ "$(systemctl show -p MainPID --value handyd.service)" != "$pid" ]; then
  pass "watchdog: a stopped daemon is killed and started again (pid $pid -> $(systemctl show -p MainPID --value handyd.service))"
else
  bad "watchdog: after SIGSTOP restarts $restarts -> $(systemctl show -p NRestarts --value handyd.service), active $(systemctl is-active handyd.service), $(journalctl -u handyd.service --no-pager | grep -i watchdog | tail -3)"
fi
kill -CONT "$pid" 2>/dev/null
systemctl stop handyd.service
rm -f /etc/systemd/system/handyd.service.d/watchdog.conf
systemctl daemon-reload
kill "$injpid" 2>/dev/null; pkill -f "handyctl inject" 2>/dev/null
if [ $fail -ne 0 ]; then
  echo "---- journal (handyd, handyd-actions)"
  journalctl -u handyd.service -u handyd.socket -u handyd-actions.service --no-pager | tail -60
fi
echo "systemd guest checks took $(( $(date +%s) - t0 )) s"
exit $fail

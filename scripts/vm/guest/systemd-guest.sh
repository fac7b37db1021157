#!/bin/bash
# Runs INSIDE a guest booted with qemu-run.sh --systemd (systemd is PID 1, udevd and journald run).
# Installs handyd with `make install-files` (debug binaries), then checks: socket activation on
# first connect, udev SYSTEMD_WANTS starting the service when a touchscreen appears, reload
# (SIGHUP, clients stay), clean stop, and handyd-actions.service pressing keys and running commands. Env: ROOT, BIN, RESULTS.
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
user=$(ps -o user= -p "$(systemctl show -p MainPID --value handyd.service)")
[ "$user" = handyd ] && pass "runs as user handyd" || bad "runs as '$user'"
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
kill "$injpid" 2>/dev/null
if [ $fail -ne 0 ]; then
  echo "---- journal (handyd, handyd-actions)"
  journalctl -u handyd.service -u handyd.socket -u handyd-actions.service --no-pager | tail -60
fi
echo "systemd guest checks took $(( $(date +%s) - t0 )) s"
exit $fail

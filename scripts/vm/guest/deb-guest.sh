#!/bin/bash
# Runs INSIDE a guest booted with qemu-run.sh --systemd (systemd is PID 1, udevd and journald run).
# The kiosk case of issue 16: the Swift toolchain is hidden (a tmpfs over /opt/swift), then the
# package from `make deb` is installed with apt, and:
#   1. nothing of Swift is reachable (no `swift`, no libswiftCore.so), the package's binaries run;
#   2. a touchscreen plugged in through uinput (the package's `handyctl inject`) starts
#      handyd.service through udev's SYSTEMD_WANTS, and a subscriber gets pinches with their hands;
#   3. `systemctl reload handyd` keeps the client and the process;
#   4. `apt-get purge` leaves no file of the package, no user or group, no enable symlink, no
#      /run/handyd, no udev rule in effect;
#   5. reinstalling works (user, socket, a client gets hello).
# Env: ROOT (checkout), RESULTS (shared dir), DEB (optional: the .deb; default the newest
# $ROOT/.build/deb/handyd_*.deb). Under HANDYD_GUEST_STRICT=1 a check that cannot run is a FAIL.
set -uo pipefail
cd "$ROOT"
fail=0
STRICT=${HANDYD_GUEST_STRICT:-0}
SCALE=${HANDYD_GUEST_TIMEOUT_SCALE:-1}
pass() { echo "PASS deb: $* (t+$(( $(date +%s) - t0 )) s)" | tee -a "$RESULTS/summary"; }
bad()  { echo "FAIL deb: $*" | tee -a "$RESULTS/summary"; fail=1; }
cannot() {  # cannot CHECK REASON: a check that cannot run; a FAIL under strict
  if [ "$STRICT" = 1 ]; then bad "$1 cannot run: $2 (HANDYD_GUEST_STRICT=1)"; else echo "SKIP deb: $1: $2" | tee -a "$RESULTS/summary"; fi
}
waitfor() {  # waitfor SECONDS CMD...: poll CMD every 0.2 s
  local limit=$(( $1 * SCALE )); shift
  local end=$(( $(date +%s) + limit ))
  until "$@" >/dev/null 2>&1; do [ "$(date +%s)" -ge "$end" ] && return 1; sleep 0.2; done
}
client() {  # client PYTHON-BODY: run with a connected Client `c` (scripts/vm/guest/handyd_guest.py)
  timeout $(( 150 * SCALE )) python3 -c "
import sys; sys.path.insert(0, '$ROOT/scripts/vm/guest')
from handyd_guest import *
c = Client('/run/handyd/handyd.sock', subscribe={})
$1"
}
finish() {
  if [ $fail -ne 0 ]; then
    echo "---- journal (handyd)"; journalctl -u handyd.service -u handyd.socket --no-pager | tail -40
  fi
  echo "deb guest checks took $(( $(date +%s) - t0 )) s"
  exit $fail
}

t0=$(date +%s)
[ "${HANDYD_GUEST_ENV_TOKEN:-missing}" = "$(cat "$RESULTS/env-token" 2>/dev/null)" ] && pass "the host's HANDYD_* environment reached the guest" \
  || bad "HANDYD_GUEST_ENV_TOKEN did not reach the guest (qemu-run.sh must pass HANDYD_* variables)"
version=$(cat VERSION)
DEB=${DEB:-$(ls -t "$ROOT"/.build/deb/handyd_"$version"_*.deb 2>/dev/null | head -1)}
if [ -z "$DEB" ] || [ ! -f "$DEB" ]; then bad "no .deb for version $version under $ROOT/.build/deb (run make deb)"; finish; fi
pass "package $(basename "$DEB")"

# ---- 0. a machine without Swift: hide the toolchain (the host's, seen over 9p) under an empty tmpfs.
swiftdir=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift || echo /opt/swift/usr/bin/swift)")")")")
if mount -t tmpfs -o mode=0755 tmpfs "$swiftdir" 2>/dev/null; then
  hash -r
  if command -v swift >/dev/null; then bad "swift still found after hiding $swiftdir: $(command -v swift)"
  else pass "Swift toolchain hidden ($swiftdir): command -v swift fails"; fi
  # (No find over the whole root: over 9p under TCG it takes minutes. The dynamic loader's view,
  # Debian's swiftlang paths, and below: ldd of the installed binaries and the daemon's maps.)
  libs=$( (ldconfig -p | grep -E 'libswift|libFoundation\.so|libdispatch\.so'; ls -A "$swiftdir"; \
           ls -d /usr/lib/swift /usr/libexec/swift /usr/share/swift /usr/lib/x86_64-linux-gnu/libswiftCore.so* 2>/dev/null) | sort -u)
  [ -z "$libs" ] && pass "no Swift runtime on the machine (ldconfig -p, $swiftdir empty, no /usr/lib/swift)" \
    || bad "a Swift runtime is still reachable: $libs"
else
  cannot "hiding the Swift toolchain" "mount -t tmpfs on $swiftdir failed"
fi

# The guest's root is this build host's (a Docker image): make it a plain Debian machine again.
# Docker's policy-rc.d (exit 101) forbids starting services from maintainer scripts, which a kiosk
# has not; man-db's trigger would rebuild the whole man index over 9p under TCG (minutes).
rm -f /usr/sbin/policy-rc.d /var/lib/man-db/auto-update
[ ! -e /usr/sbin/policy-rc.d ] && pass "guest root prepared: no Docker policy-rc.d" || bad "cannot remove /usr/sbin/policy-rc.d"
# apt resolves the package's Depends against what is installed (dpkg's status): the guest has no
# network, so the host's package lists (19 MB, parsed into apt's cache anew by every apt-get: the
# Docker image keeps no pkgcache.bin) could only name what it cannot download. Parsing them took
# ~30 s of each of the three apt-get runs under TCG. An empty lists folder instead: a Depends that
# the machine does not satisfy still fails the install (unmet dependencies), as without network.
mkdir -p /run/handyd-guest-apt-lists/partial
echo 'Dir::State::Lists "/run/handyd-guest-apt-lists";' > /etc/apt/apt.conf.d/99handyd-guest-no-lists
lists=$(apt-config shell lists Dir::State::Lists/d)
[ "$lists" = "lists='/run/handyd-guest-apt-lists/'" ] \
  && pass "guest root prepared: apt reads no package lists (no network; Depends against the installed packages)" \
  || bad "apt's lists folder is not the empty one: $lists"

# Paths in the package, and which of them existed before the install (shared directories such as
# /usr/share/doc): after purge every path that did not exist before must be gone.
dpkg-deb -c "$DEB" | awk '{print $6}' | sed -e 's|^\./|/|' -e 's|/$||' -e '/^$/d' > /run/deb-paths
: > /run/deb-preexisting
while read -r p; do [ -e "$p" ] || [ -L "$p" ] && echo "$p" >> /run/deb-preexisting; done < /run/deb-paths
grep -qx /usr/bin/handyd /run/deb-paths && grep -qx /lib/systemd/system/handyd.socket /run/deb-paths \
  && pass "dpkg-deb -c: $(wc -l < /run/deb-paths) paths, $(grep -c . /run/deb-preexisting) of them shared directories that exist already" \
  || bad "package contents: $(tr '\n' ' ' < /run/deb-paths)"
for who in handyd handyd-actions; do
  getent passwd "$who" >/dev/null && bad "a $who user exists before the install"
  getent group "$who" >/dev/null && bad "a $who group exists before the install"
done

# ---- 1. install with apt, as on a kiosk
install_pkg() {  # install_pkg WHAT: apt-get install ./the.deb; checks what postinst did
  local what=$1 t=$(date +%s)
  if DEBIAN_FRONTEND=noninteractive timeout $(( 300 * SCALE )) apt-get install -y "$DEB" > /run/apt-install.out 2>&1; then
    pass "$what: apt-get install ./$(basename "$DEB") in $(( $(date +%s) - t )) s"
  else
    bad "$what: apt-get install: $(tail -15 /run/apt-install.out)"; return 1
  fi
  [ "$(dpkg-query -W -f '${Status} ${Version}' handyd 2>&1)" = "install ok installed $version" ] \
    && pass "$what: dpkg says handyd $version installed" || bad "$what: dpkg-query: $(dpkg-query -W -f '${Status} ${Version}' handyd 2>&1)"
  getent passwd handyd >/dev/null && getent group handyd >/dev/null && pass "$what: postinst made user and group handyd" \
    || bad "$what: no handyd user/group after install"
  getent passwd handyd-actions >/dev/null && getent group handyd-actions >/dev/null \
    && pass "$what: postinst made user and group handyd-actions" || bad "$what: no handyd-actions user/group after install"
  udevadm settle --timeout=60
  [ "$(stat -c %G /dev/uinput 2>&1)" = handyd-actions ] && pass "$what: /dev/uinput has group handyd-actions" \
    || bad "$what: /dev/uinput: $(stat -c '%G %a' /dev/uinput 2>&1)"
  systemctl is-enabled -q handyd.socket && systemctl is-active -q handyd.socket && pass "$what: handyd.socket enabled and listening" \
    || bad "$what: handyd.socket is-enabled=$(systemctl is-enabled handyd.socket 2>&1) is-active=$(systemctl is-active handyd.socket 2>&1)"
  [ -S /run/handyd/handyd.sock ] && [ "$(stat -c '%a %G' /run/handyd/handyd.sock)" = "660 handyd" ] \
    && pass "$what: /run/handyd/handyd.sock 0660 group handyd" || bad "$what: socket: $(stat -c '%a %U:%G' /run/handyd/handyd.sock 2>&1)"
  [ "$(systemctl show -p FragmentPath --value handyd.service)" = /lib/systemd/system/handyd.service ] \
    && pass "$what: systemd loads the package's unit" || bad "$what: handyd.service from '$(systemctl show -p FragmentPath --value handyd.service)'"
}
install_pkg install || finish

# The binaries of the package run without Swift and carry the version.
[ "$(/usr/bin/handyd --version 2>&1)" = "$version" ] && [ "$(/usr/bin/handyctl --version 2>&1)" = "$version" ] \
  && pass "handyd --version and handyctl --version print $version" \
  || bad "--version: handyd '$(/usr/bin/handyd --version 2>&1 | tail -3)', handyctl '$(/usr/bin/handyctl --version 2>&1 | tail -3)'"
if ldd /usr/bin/handyd /usr/bin/handyctl > /run/ldd.out 2>&1 && ! grep -Eq 'libswift|libFoundation|libdispatch|not found' /run/ldd.out; then
  pass "ldd: no Swift library, nothing missing ($(grep -c '=>' /run/ldd.out) shared C libraries)"
else bad "ldd: $(cat /run/ldd.out)"; fi
systemctl is-active -q handyd.service && bad "service active before any client or device"
# Every file:// Documentation= of the package's units is a file it installed (dh_compress gzips
# documents over 4 KiB unless told not to), and the WebSocket drop-in beside the docs names the
# package's handyd and its own installed path.
missing=""
for u in handyd.service handyd-actions.service; do
  for d in $(systemctl show -p Documentation --value "$u"); do
    case $d in file://*) [ -f "${d#file://}" ] || missing="$missing $u:$d" ;; esac
  done
done
[ -z "$missing" ] && pass "units' Documentation= files exist" || bad "Documentation= names files not installed:$missing"
dropin=/usr/share/doc/handyd/handyd-websocket.conf
grep -q '^ExecStart=/usr/bin/handyd ' "$dropin" && grep -q "install -D -m 644 $dropin " "$dropin" \
  && pass "WebSocket drop-in names /usr/bin/handyd and its installed path" || bad "WebSocket drop-in: $(grep -E 'ExecStart=/|install -D' "$dropin" 2>&1)"
dropin=/usr/share/doc/handyd/handyd-metrics.conf
grep -q '^ExecStart=/usr/bin/handyd .*--metrics 127.0.0.1:' "$dropin" && grep -q "install -D -m 644 $dropin " "$dropin" \
  && pass "metrics drop-in names /usr/bin/handyd and its installed path" || bad "metrics drop-in: $(grep -E 'ExecStart=/|install -D' "$dropin" 2>&1)"

# ---- 2. a touchscreen starts the service; a subscriber gets pinches with their hands.
# The recording: an idle second, then pinches every 2 s for 80 s, right and left hand in turn, so
# whichever pinch comes first after the service started and the client subscribed, the next two
# are one right and one left.
python3 -c "
import sys; sys.path.insert(0, '$ROOT/scripts/vm/guest')
from handyd_guest import *
s = Stream(); s.ev(0.0, 0, 0, 0)
t = 1.0
for i in range(40):
    s.pinch(t, 'right' if i % 2 == 0 else 'left')
    t += 2.0
open('/run/pinches.evemu', 'w').write(s.text('handyd-test touchscreen deb'))"
/usr/bin/handyctl inject --hold 5 --start-delay 0 /run/pinches.evemu > /run/inject.out 2>&1 &
injpid=$!
waitfor 60 grep -q '^device ' /run/inject.out || bad "inject: $(cat /run/inject.out)"
node=$(sed -n 's/^device //p' /run/inject.out)
udevadm settle --timeout=60
udevadm info "$node" 2>/dev/null | grep -q 'SYSTEMD_WANTS=handyd.service' && pass "udev rule of the package: $node has SYSTEMD_WANTS=handyd.service" \
  || bad "udev rule not applied to '$node': $(udevadm info "$node" 2>&1 | grep -E 'HANDYD|SYSTEMD|TOUCH')"
waitfor 90 systemctl is-active handyd.service && pass "plugging $node started handyd.service" || bad "service not started by the device"
pid=$(systemctl show -p MainPID --value handyd.service)
[ "${pid:-0}" -gt 0 ] || { bad "no MainPID for handyd.service"; finish; }
[ "$(readlink "/proc/$pid/exe")" = /usr/bin/handyd ] && [ "$(ps -o user= -p "$pid")" = handyd ] \
  && pass "the service runs /usr/bin/handyd as user handyd" || bad "service process $pid: exe $(readlink "/proc/$pid/exe") user $(ps -o user= -p "$pid")"
grep -Eq 'libswift|libFoundation' "/proc/$pid/maps" && bad "the daemon mapped a Swift library: $(grep -E 'libswift|libFoundation' "/proc/$pid/maps" | head -3)" \
  || pass "the daemon maps no Swift library (/proc/$pid/maps)"
if client "
check(c.hello.get('version') == '$version', f'hello.version {c.hello.get(\"version\")}, expected $version')
dev = None
for d in c.hello['devices']:
    if d.get('path') == '$node': dev = d['id']
if dev is None:
    dev = c.expect(added('$node'), 'device added', timeout=60 * SCALE)['device']['id']
hands = []
while len(hands) < 2:
    b = c.expect(gesture('pinch', 'began', dev), 'a pinch began', timeout=30 * SCALE)
    e = c.expect(lambda m: gesture('pinch', 'ended', dev)(m) and m['id'] == b['id'], 'that pinch ended', timeout=30 * SCALE)
    hands.append(b.get('hand'))
check(sorted(hands) == ['left', 'right'], f'two consecutive pinches (right, left in turn) had hands {hands}')
print('pinches with hands', hands, 'hello.version', c.hello['version'])"; then
  pass "a subscriber got pinches with their hands (right and left) and hello.version $version"
else bad "subscriber: no pinch with its hand"; fi

# ---- 3. reload: SIGHUP, same process, a connected client stays connected and served.
if client "
import subprocess
subprocess.run(['systemctl', 'reload', 'handyd.service'], check=True, timeout=30)
time.sleep(1)
c.send({'type': 'status'})
c.expect(lambda m: m.get('type') == 'status', 'status after reload', timeout=40)
c.expect(gesture('pinch', 'began'), 'a pinch after reload', timeout=30 * SCALE)
print('client kept across reload')"; then pass "systemctl reload handyd kept the client (status and a pinch after it)"; else bad "reload"; fi
[ "$(systemctl show -p MainPID --value handyd.service)" = "$pid" ] && pass "reload kept the process ($pid)" || bad "reload restarted the process"
kill "$injpid" 2>/dev/null; wait "$injpid" 2>/dev/null

# ---- 4. purge: nothing of the package is left, handyd-actions.service enabled first as an admin
#         would (its enable symlink must go too).
systemctl enable handyd-actions.service >/dev/null 2>&1 && [ -n "$(find /etc/systemd -name 'handyd-actions.service' 2>/dev/null)" ] \
  && pass "handyd-actions.service enabled (its symlink under /etc/systemd)" || bad "systemctl enable handyd-actions.service"
dpkg -L handyd > /run/dpkg-L 2>&1
cp /usr/bin/handyctl /run/handyctl.copy
t=$(date +%s)
if DEBIAN_FRONTEND=noninteractive timeout $(( 300 * SCALE )) apt-get purge -y handyd > /run/apt-purge.out 2>&1; then
  pass "apt-get purge handyd in $(( $(date +%s) - t )) s"
else bad "apt-get purge: $(tail -15 /run/apt-purge.out)"; fi
dpkg-query -W -f '${Status}' handyd 2>/dev/null | grep -q installed && bad "dpkg still knows handyd: $(dpkg-query -W -f '${Status}' handyd)"
left=()
while read -r p; do
  grep -qx "$p" /run/deb-preexisting && continue
  { [ -e "$p" ] || [ -L "$p" ]; } && left+=("$p")
done < <(sort -u /run/deb-paths /run/dpkg-L | grep '^/.' | grep -vx '/\.')
[ ${#left[@]} -eq 0 ] && pass "purge: none of the $(sort -u /run/deb-paths /run/dpkg-L | grep '^/.' | grep -vxc '/\.') paths of dpkg-deb -c / dpkg -L is left" \
  || bad "purge left: ${left[*]}"
for who in handyd handyd-actions; do
  getent passwd "$who" >/dev/null || getent group "$who" >/dev/null && bad "purge left the user/group: $(getent passwd "$who") $(getent group "$who")" \
    || pass "purge: no $who user or group"
done
# /dev/uinput must not keep the deleted group's id (whoever gets that id next could write it).
if [ -e /dev/uinput ]; then
  udevadm settle --timeout=60
  getent group "$(stat -c %g /dev/uinput)" >/dev/null && pass "purge: /dev/uinput's group is $(stat -c '%G, mode %a' /dev/uinput)" \
    || bad "purge: /dev/uinput keeps a group id nobody has: $(stat -c '%g %G %a' /dev/uinput)"
fi
extra=$(find /etc/systemd /run/systemd/system /run/systemd/generator* /var/lib/systemd /etc/udev /run/udev/rules.d /var/lib/handyd /run/handyd \
  -name '*handyd*' 2>/dev/null; [ -e /run/handyd ] && echo /run/handyd; [ -e /var/lib/handyd ] && echo /var/lib/handyd)
[ -z "$extra" ] && pass "purge: no enable symlink or state under /etc/systemd, /var/lib/systemd, /etc/udev; no /run/handyd, /var/lib/handyd" \
  || bad "purge left: $(echo "$extra" | sort -u | tr '\n' ' ')"
systemctl list-unit-files 'handyd*' --no-legend 2>/dev/null | grep -q . && bad "systemd still knows: $(systemctl list-unit-files 'handyd*' --no-legend)" \
  || pass "purge: systemd knows no handyd unit (daemon-reload done)"
pgrep -x handyd >/dev/null && bad "a handyd process survived the purge: $(pgrep -a -x handyd)" || pass "purge: no handyd process"
# udev forgot the rule: a new touchscreen gets no SYSTEMD_WANTS and starts nothing.
python3 -c "
import sys; sys.path.insert(0, '$ROOT/scripts/vm/guest')
from handyd_guest import *
s = Stream(); s.ev(0.0, 0, 0, 0)
open('/run/idle.evemu', 'w').write(s.text('handyd-test touchscreen after purge'))"
# handyctl went with the package: plug it with the package's handyctl copied before the purge.
/run/handyctl.copy inject --hold 60 --start-delay 0 /run/idle.evemu > /run/inject2.out 2>&1 &
inj2=$!
waitfor 60 grep -q '^device ' /run/inject2.out || bad "inject after purge: $(cat /run/inject2.out)"
node2=$(sed -n 's/^device //p' /run/inject2.out)
udevadm settle --timeout=60
if [ -n "$node2" ] && udevadm info "$node2" | grep -q 'ID_INPUT_TOUCHSCREEN=1'; then
  udevadm info "$node2" | grep -Eq 'SYSTEMD_WANTS=.*handyd|HANDYD_DEVICE' && bad "purge: udev still applies the rule to $node2" \
    || pass "purge: udev no longer applies the rule (a new touchscreen $node2 gets no HANDYD_DEVICE, no SYSTEMD_WANTS)"
  sleep 2
  systemctl is-active -q handyd.service && bad "purge: the new touchscreen started handyd.service"
else bad "purge: no touchscreen for the udev check: $(cat /run/inject2.out)"; fi
kill "$inj2" 2>/dev/null; wait "$inj2" 2>/dev/null

# ---- 5. reinstall works
install_pkg reinstall || finish
if client "
check(c.hello.get('version') == '$version', f'hello.version {c.hello.get(\"version\")}')
print('hello after reinstall', c.hello['version'])"; then pass "reinstall: socket activation, a client got hello $version"
else bad "reinstall: no hello"; fi
finish

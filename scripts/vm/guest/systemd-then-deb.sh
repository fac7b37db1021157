#!/bin/bash
# Runs INSIDE one guest booted with qemu-run.sh --systemd: the systemd checks (systemd-guest.sh: the
# checkout's debug build installed with make install-files), then that install is taken away again
# and the package checks (deb-guest.sh: the .deb of make deb on a machine without Swift) run on the
# same boot. One systemd boot instead of two (a boot under TCG is ~60-100 s of a CI run).
# Between the two, the machine must be as a fresh boot left it: no handyd unit, rule, binary, user
# or group, no /run/handyd, /dev/uinput back to root. That is checked (a leftover unit or rule
# could start a daemon the package did not install), and a leftover is a FAIL, not a warning.
# Env: ROOT, BIN, RESULTS; PARTS: "systemd deb" (default), "systemd" or "deb".
set -uo pipefail
cd "$ROOT"
parts=${PARTS:-systemd deb}
rc=0
pass() { echo "PASS systemd->deb: $*" | tee -a "$RESULTS/summary"; }
bad()  { echo "FAIL systemd->deb: $*" | tee -a "$RESULTS/summary"; rc=1; }

if [[ " $parts " == *" systemd "* ]]; then
  t=$(date +%s)
  /bin/bash scripts/vm/guest/systemd-guest.sh || rc=1
  echo "systemd->deb: systemd checks exit status $rc after $(( $(date +%s) - t )) s"
fi
if [[ " $parts " == *" systemd "* ]] && [[ " $parts " == *" deb "* ]]; then
  # Take away what make install-files and the systemd checks put on the machine.
  systemctl stop handyd-actions.service handyd.service handyd.socket 2>/dev/null
  pkill -f 'handyctl inject' 2>/dev/null
  make -s uninstall PREFIX=/usr/local >/dev/null 2>&1
  rm -rf /etc/systemd/system/handyd.service.d /etc/systemd/system/handyd-actions.service.d /etc/handyd \
    /etc/udev/rules.d/71-handyd-*.rules /run/handyd /run/handyd-actions /var/lib/handyd /var/lib/handyd-actions
  for who in handyd-actions handyd; do
    getent passwd "$who" >/dev/null && userdel "$who"
    getent group "$who" >/dev/null && groupdel "$who"
  done
  systemctl daemon-reload
  systemctl reset-failed 2>/dev/null
  udevadm control --reload
  chgrp root /dev/uinput 2>/dev/null; chmod 0600 /dev/uinput 2>/dev/null
  udevadm trigger --action=change --sysname-match=uinput
  udevadm settle --timeout=30
  # What is left of handyd on this machine: must be nothing.
  left=$( { systemctl list-unit-files --no-legend 'handyd*' 2>/dev/null | awk '{print "unit " $1}'
            systemctl list-units --all --no-legend 'handyd*' 2>/dev/null | awk '$1 != "" {print "loaded " $1}' | grep -v 'not-found' || true
            ls -d /usr/local/bin/handyd /usr/local/bin/handyctl /usr/local/lib/udev/rules.d/*handyd* \
              /usr/local/lib/systemd/system/handyd* /usr/local/lib/sysusers.d/handyd* /run/handyd 2>/dev/null
            getent passwd handyd handyd-actions; getent group handyd handyd-actions
            pgrep -a -x handyd; } )
  [ -z "$left" ] && pass "the systemd checks' install taken away: no unit, rule, binary, user, group or process of handyd" \
    || bad "the systemd checks' install is not gone, the package checks would not start from a clean machine: $(tr '\n' ' ' <<<"$left")"
fi
if [[ " $parts " == *" deb "* ]]; then
  t=$(date +%s)
  /bin/bash scripts/vm/guest/deb-guest.sh || rc=1
  echo "systemd->deb: package checks done after $(( $(date +%s) - t )) s"
fi
exit $rc

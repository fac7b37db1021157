#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages handyd needs to build, test and run its guest suite.
# Swift itself is expected to be on PATH already (swift.org toolchain).
set -euo pipefail
pkgs=(pkg-config libevdev-dev libudev-dev libsystemd-dev evemu-tools socat python3 util-linux)
if [ "${1:-}" = "--vm" ]; then
  # The qemu guest suite runs the host's userland over 9p, so the guest's tools are host packages.
  pkgs+=(qemu-system-x86 busybox-static cpio kmod udev python3-libevdev libinput-tools lisgd)
fi
# `make deb` (debian/): debhelper's dh, help2man for the man pages, lintian on the result.
pkgs+=(debhelper dpkg-dev fakeroot help2man lintian)
# The web side (scripts/test-web.sh): Debian's chromium for the demo app, node for the JS client's
# tests (with Debian's ws package where node has no WebSocket of its own).
pkgs+=(chromium)
command -v node >/dev/null || pkgs+=(nodejs node-ws)
# The Tk example (examples/tk, scripts/tk_example_test.py): Tk for Python, Xvfb as its display.
pkgs+=(python3-tk xvfb)
# The Qt Quick example (examples/qt, scripts/gui_examples_test.py): PyQt6 and the QML modules it imports.
pkgs+=(python3-pyqt6 python3-pyqt6.qtquick qml6-module-qtquick qml6-module-qtquick-shapes qml6-module-qtqml-workerscript)
# The GTK 4 example (examples/gtk, the same test, under Xvfb): GTK 4's introspection data, PyGObject, cairo.
pkgs+=(gir1.2-gtk-4.0 python3-gi python3-gi-cairo)
# Metrics (docs/FLEET.md): Debian's prometheus (with promtool) scrapes a real handyd in
# scripts/prometheus_proof.py and checks the text and the alert rules; curl for the tests' GETs.
pkgs+=(prometheus curl)
need=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  # A fresh CI machine fetches everything: a mirror's passing hiccup is retried, not a failed run.
  $sudo apt-get -o Acquire::Retries=5 update -qq
  $sudo apt-get -o Acquire::Retries=5 install -y -qq --no-install-recommends "${need[@]}"
fi
# Playwright from PyPI drives that chromium (it cannot download its own browsers here, nor needs to).
python3 -c 'import playwright' 2>/dev/null || python3 -m pip install -q playwright \
  || python3 -m pip install -q --break-system-packages playwright
# pytest from PyPI for the Python client's tests (clients/python; the package itself needs nothing).
python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest \
  || python3 -m pip install -q --break-system-packages pytest
command -v swift >/dev/null || { echo "install-deps: swift is not on PATH (get a toolchain from swift.org)" >&2; exit 1; }

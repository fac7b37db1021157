#!/usr/bin/env bash
# Regenerates scripts/handyd.symbol-order, the code layout of the package's handyd
# (docs/PERFORMANCE.md, memory): the functions handyd runs, found by running the package's build
# under callgrind on the bundled demo (replay, one subscriber with touches, status, a bad line, a
# clean SIGTERM), then every symbol of the modules on the live path (HandyInput, HandyDaemon),
# which a replay does not run. lld places the sections holding these first, so the code a running
# handyd touches shares pages: the kernel maps code in 64 KiB windows around each page used, and
# scattered hot functions had made 7 MB of the 12 MB of code resident.
#
# The file is a hint: a name that no longer exists is skipped (--no-warn-symbol-ordering), a new
# hot function missing from it only costs memory. Regenerate after large changes. Needs valgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "symbol-order.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
# shellcheck disable=SC2046
swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product handyd
bin=$(swift build $(cat scripts/static-build-flags) --scratch-path .build/static --show-bin-path)/handyd
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Debian's valgrind 3.19 gives up on the binary's DWARF; the symbol table is all it needs.
strip --strip-debug -o "$work/handyd" "$bin"

valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.out" \
  "$work/handyd" --socket "$work/handyd.sock" --replay examples/recordings/demo.evemu --speed 4 --wait-clients 1 \
  >"$work/valgrind.log" 2>&1 &
daemon=$!
python3 - "$work/handyd.sock" <<'EOF'
import socket, sys, time
path = sys.argv[1]
for _ in range(600):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(path); break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("symbol-order.sh: handyd did not open its socket")
s.sendall(b'{"type":"subscribe","touches":true}\n{"type":"status"}\n{"type":"nope"}\nnot json\n')
s.settimeout(10)
lines = 0
try:
    while True:
        data = s.recv(65536)
        if not data:
            break
        lines += data.count(b"\n")
        if lines % 400 < 4:
            s.sendall(b'{"type":"status"}\n')
except socket.timeout:
    pass  # the replay finished: nothing more comes
print(f"symbol-order.sh: the profiled subscriber read {lines} lines")
EOF
kill -TERM "$daemon"
wait "$daemon" || true

python3 - "$work/callgrind.out" "$work/handyd" "$bin" scripts/handyd.symbol-order <<'EOF'
import re, subprocess, sys
profile, profiled, binary, out = sys.argv[1:]
objects, functions, current, order, seen = {}, {}, None, [], set()
for line in open(profile, errors="replace"):
    m = re.match(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
    if not m:
        continue
    kind, key, name = m.groups()
    table = objects if kind in ("ob", "cob") else functions
    if name:
        table[key] = name
    if kind == "ob":
        current = objects.get(key)
    elif kind == "fn" and current == profiled:
        name = functions.get(key, "").split("'")[0]
        if name and not name.startswith("0x") and name not in seen:
            seen.add(name); order.append(name)
ran = len(order)
if ran < 500:
    sys.exit(f"symbol-order.sh: only {ran} functions in the profile; did handyd run?")
symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
for line in symbols.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tT" and re.match(r"\$s(10HandyInput|11HandyDaemon)", parts[2]) and parts[2] not in seen:
        seen.add(parts[2]); order.append(parts[2])
# In callgrind's order (about the order in which they first ran, so functions used together sit
# together): sorted by name, the layout kept ~0.3 MB more resident. The order differs a little from
# run to run (threads), so a regenerated file shows a large diff.
open(out, "w").write("\n".join(order) + "\n")
print(f"symbol-order.sh: {ran} functions ran, {len(order) - ran} more from the live path -> {out}")
EOF

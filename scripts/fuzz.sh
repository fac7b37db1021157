#!/usr/bin/env bash
# libFuzzer + AddressSanitizer over handyd's untrusted-input parsers and the gesture pipeline.
#
#   scripts/fuzz.sh                      every harness for 600 s (docs/RELIABILITY.md "Fuzzing")
#   scripts/fuzz.sh --short              every harness for 30 s (CI)
#   scripts/fuzz.sh --seconds N [NAME…]  chosen harnesses (Fuzz/<NAME>/) for N s each
#   scripts/fuzz.sh --build-only         only build the instrumented modules (then SKIP_BUILD=1 runs
#                                        them; scripts/test.sh builds them beside the replay checks)
#
# Harnesses: EvemuReader, LibinputRecordReader, ClientMessage, Pipeline, DeviceConfiguration, Encoder
# (Fuzz/<NAME>/*.swift plus Fuzz/Common/). The library modules are built with
# `-sanitize=fuzzer,address` in their own scratch path (.build-fuzz), each harness is linked against
# their objects, seeded from Tests/Fixtures and Fuzz/<NAME>/seeds (copied into a temporary corpus)
# and run with -max_total_time. Exit status 1 when a harness crashes; the crashing input is kept in
# $FUZZ_OUT (default .build-fuzz/out/<NAME>/).
#
# Environment: FUZZ_JOBS=2 runs two harnesses at once (default 1); FUZZ_OUT=DIR keeps logs,
# corpora and crash inputs there; SKIP_BUILD=1 reuses the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=600
build_only=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --short) seconds=30 ;;
    --build-only) build_only=1 ;;
    --seconds) seconds=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1") ;;
  esac
  shift
done
[ ${#names[@]} -gt 0 ] || names=(EvemuReader LibinputRecordReader ClientMessage Pipeline DeviceConfiguration Encoder)
for n in "${names[@]}"; do
  [ -f "Fuzz/$n/main.swift" ] || { echo "fuzz.sh: no harness Fuzz/$n/main.swift" >&2; exit 2; }
done

scratch=$root/.build-fuzz
out=${FUZZ_OUT:-$scratch/out}
jobs=${FUZZ_JOBS:-1}
flags=(-sanitize=fuzzer,address)

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "fuzz.sh: building HandyProtocol, HandyCore, HandyWire, HandyFiles, HandyRecording, HandySynthetic, HandySettings with ${flags[*]} (scratch $scratch)"
  for target in HandyWire HandyRecording HandySynthetic HandySettings; do
    swift build --scratch-path "$scratch" -c release -Xswiftc "${flags[0]}" --target "$target"
  done
fi
bin=$(swift build --scratch-path "$scratch" -c release --show-bin-path)
[ "$build_only" = 0 ] || exit 0
objects() { ls "$bin/$1.build/"*.o; }

# Which modules each harness links (every parser of untrusted input sits in a pure module: no C
# library, no daemon), and which shared harness sources it compiles in.
modules_for() {
  case "$1" in
    ClientMessage) echo HandyProtocol ;;
    Encoder) echo HandyProtocol HandyCore HandyWire ;;
    DeviceConfiguration) echo HandyProtocol HandyCore HandyWire HandySynthetic HandySettings ;;
    *) echo HandyProtocol HandyCore HandyWire HandyFiles HandyRecording ;;
  esac
}
extra_sources_for() {
  case "$1" in
    ClientMessage|Encoder) ;;
    *) echo Fuzz/Common/PipelineCheck.swift ;;
  esac
}

# Seeds: whole small fixtures; big ones cut to their first 4 KiB at a line end (libFuzzer explores
# short inputs faster, and a cut line would only be read as "truncated").
seed_file() {  # seed_file SRC... DEST
  local dest=${*: -1}
  local srcs=("${@:1:$#-1}")
  cat "${srcs[@]}" | head -c 4096 > "$dest"
  # head may have cut the last line: drop it when the input was longer than the cut.
  if [ "$(cat "${srcs[@]}" | wc -c)" -gt 4096 ]; then sed -i '$d' "$dest"; fi
}
seed() {
  local name=$1 corpus=$2 i=0 f
  case "$name" in
    EvemuReader)
      while IFS= read -r -d '' f; do seed_file "$f" "$corpus/fixture-$((i++))"; done \
        < <(find Tests/Fixtures examples -name '*.evemu' -print0 | sort -z)
      # Split recordings: the .desc whose name is the longest prefix of the .events file, then the events.
      while IFS= read -r -d '' f; do
        local dir base desc="" best=0 d stem
        dir=$(dirname "$f"); base=$(basename "$f")
        for d in "$dir"/*.desc; do
          [ -f "$d" ] || continue
          stem=$(basename "$d" .desc)
          if [[ "$base" == "$stem"* ]] && [ ${#stem} -gt $best ]; then desc=$d; best=${#stem}; fi
        done
        if [ -n "$desc" ]; then seed_file "$desc" "$f" "$corpus/fixture-$((i++))"; else seed_file "$f" "$corpus/fixture-$((i++))"; fi
      done < <(find Tests/Fixtures -name '*.events' -print0 | sort -z)
      ;;
    LibinputRecordReader)
      while IFS= read -r -d '' f; do seed_file "$f" "$corpus/fixture-$((i++))"; done \
        < <(find Tests/Fixtures \( -name '*.yml' -o -name '*.yaml' \) -print0 | sort -z)
      ;;
    ClientMessage)
      printf '\x05{"type":"subscribe","gestures":["pinch","tap"],"devices":["event5"],"touches":true}\n{"type":"status"}\n' > "$corpus/subscribe"
      printf '\x41{"type":"status"}\r\n\n{"type":"subscribe"}\n{"type":"nope"}\n[1,2]\n{"type":3}\n' > "$corpus/mixed"
      ;;
    DeviceConfiguration)
      # Flags byte (bit 0 replay, bit 1 run the pipeline), then NAME=VALUE lines; the docs'
      # examples and range ends, so mutations start next to the boundaries.
      printf '\x02HANDYD_THRESHOLD_TAP_TIMEOUT_MS=250\nHANDYD_THRESHOLD_LONG_PRESS_MS=60000\nHANDYD_THRESHOLD_PINCH_RATIO=1.01\nHANDYD_THRESHOLD_SIMULTANEOUS=pinch+rotate,pinch+pan\nHANDYD_THRESHOLD_TAP_WAITS_FOR_DOUBLE_TAP=1,2\nHANDYD_THRESHOLD_PALM_CANCELS=false\n' > "$corpus/thresholds"
      printf '\x02HANDYD_THRESHOLD_LONG_PRESS_MS=1e300\nHANDYD_THRESHOLD_TOUCH_SLOP_MM=-1\nHANDYD_THRESHOLD_MOMENTUM_DECAY_PER_MS=nan\nHANDYD_THRESHOLD_ROTATE_DEGREES=inf\nHANDYD_THRESHOLD_=3\nHANDYD_THRESHOLD_TAP_SLOP_MM=3\nHANDYD_THRESHOLD_TOUCH_SLOP_MM=4\n' > "$corpus/bad-thresholds"
      printf '\x00HANDYD_SIZE_MM=476 268\nHANDYD_CALIBRATION_MATRIX=0 -1 1 1 0 0\nLIBINPUT_CALIBRATION_MATRIX=-1 0 1 0 -1 1\nHANDYD_IGNORE=0\nHANDYD_DEVICE=1\nID_INPUT_TOUCHSCREEN=1\n' > "$corpus/geometry"
      printf '\x03HANDYD_SIZE_MM=10000 1\nHANDYD_CALIBRATION_MATRIX=100 -100 100 -100 100 -100\nHANDYD_IGNORE=1\nHANDYD_FOO=1\nFOO=2\n#\x05abc\n#\x0a0.5\n' > "$corpus/replay"
      ;;
    Encoder)
      # Event descriptions (Fuzz/Encoder/main.swift's Reader): every field present, short decimals,
      # a device id with bytes to escape; libFuzzer mutates from there.
      python3 -c '
import random, sys
r = random.Random(5)
for i in range(6):
    with open(f"{sys.argv[1]}/events-{i}", "wb") as f:
        f.write(bytes([12]) + b"event\x01\"\\/\xc3\xa9\n" + bytes(r.choice([1, 0, 3, 255]) if k % 3 else r.randrange(256) for k in range(256 << (i % 3))))' "$corpus"
      ;;
    Pipeline)
      # No file format to seed from: deterministic pseudo-random programs of 0.5-4 KiB, so
      # libFuzzer starts with long event sequences instead of growing them from a few bytes.
      python3 -c '
import random, sys
r = random.Random(8)
for i in range(8):
    with open(f"{sys.argv[1]}/program-{i}", "wb") as f:
        f.write(bytes(r.randrange(256) for _ in range(512 << (i % 4))))' "$corpus"
      ;;
  esac
  if [ -d "Fuzz/$name/seeds" ]; then cp Fuzz/"$name"/seeds/* "$corpus/" 2>/dev/null || true; fi
}

run_one() {
  local name=$1 dir=$out/$1
  rm -rf "$dir"; mkdir -p "$dir/corpus" "$dir/artifacts"
  local exe=$dir/fuzz-$name
  # shellcheck disable=SC2046
  swiftc -O "${flags[@]}" -parse-as-library -module-name "Fuzz$name" -I "$bin/Modules" \
    Fuzz/"$name"/*.swift $(extra_sources_for "$name") \
    $(for m in $(modules_for "$name"); do objects "$m"; done) \
    -o "$exe" > "$dir/build.log" 2>&1 \
    || { grep -v 'Cannot export local symbol' "$dir/build.log" >&2; echo "fuzz.sh: $name: build failed" >&2; return 1; }
  seed "$name" "$dir/corpus" || { echo "fuzz.sh: $name: seeding failed" >&2; return 1; }
  local seeds; seeds=$(ls "$dir/corpus" | wc -l)
  # run_one runs under `||`, where set -e is off: a seeding step that failed must show here.
  if [ "$seeds" -eq 0 ]; then echo "fuzz.sh: $name: no seeds in $dir/corpus" >&2; return 1; fi
  echo "fuzz.sh: $name: $seeds seeds, $seconds s"
  local status=0
  # -rss_limit_mb: the readers accept up to 256 MiB files, but a fuzz input is small; a blow-up
  # beyond 2 GiB is a bug. -timeout: one input taking over 10 s is a hang.
  ASAN_OPTIONS=detect_leaks=0 "$exe" "$dir/corpus" -max_total_time="$seconds" -max_len=8192 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" > "$dir/log" 2>&1 || status=$?
  local runs cov
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo '?')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$dir/log" | tail -1 || echo 'cov: ?')
  if [ $status -ne 0 ]; then
    echo "fuzz.sh: $name: FAILED (exit $status) after $runs runs, $cov; input in $dir/artifacts/, log $dir/log"
    grep -m 20 -E 'Fatal error|ERROR:|==[0-9]+==|invariant|SUMMARY' "$dir/log" | sed 's/^/  /' || true
    return 1
  fi
  if ! [ "$runs" -gt 0 ] 2>/dev/null; then
    echo "fuzz.sh: $name: FAILED: no executed inputs reported (runs: $runs); log $dir/log"
    return 1
  fi
  echo "fuzz.sh: $name: ok, $runs runs in $seconds s, $cov, corpus $(ls "$dir/corpus" | wc -l) inputs"
}

status=0
if [ "$jobs" -le 1 ]; then
  for n in "${names[@]}"; do run_one "$n" || status=1; done
else
  # Two (or FUZZ_JOBS) at a time: libFuzzer uses one core per harness.
  pids=()
  for n in "${names[@]}"; do
    run_one "$n" & pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}" || status=1; pids=("${pids[@]:1}"); fi
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
fi
[ $status -eq 0 ] && echo "fuzz.sh: all harnesses ran without a crash" || echo "fuzz.sh: a harness crashed (see above)"
exit $status

#!/usr/bin/env bash
# One line per recording in the repo: the sha256 of `handyctl replay --touches` and of `--summary`
# (stdout, stderr and exit status). Run before and after a refactoring and diff the two files:
# issue 44's steps keep every line the same.
#   scripts/replay-digest.sh [HANDYCTL] > digest.txt
set -uo pipefail
cd "$(dirname "$0")/.."
handyctl=${1:-$(swift build --show-bin-path)/handyctl}
find Tests/Fixtures examples/recordings -type f \( -name '*.evemu' -o -name '*.events' -o -name '*.yml' \) \
  | LC_ALL=C sort | while read -r file; do
  line="$file"
  for mode in --touches --summary; do
    digest=$( { "$handyctl" replay "$mode" "$file" 2>&1; echo "exit=$?"; } | sha256sum | cut -c1-16)
    line="$line $mode=$digest"
  done
  echo "$line"
done

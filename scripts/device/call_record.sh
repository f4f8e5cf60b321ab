#!/usr/bin/env bash
# Sourced by the device-call scripts: record_call OUT BUILD ARGS... appends
# to OUT/call.txt what a results folder keeps of the call that made it: the
# exact command line, the commit the build prints, the date, the device.
# scripts/figures/readme_table.py reads its command, commit and date lines (the first
# of each).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then  # run, not sourced: say what it is
  sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0
fi
record_call() {
  local out=$1 build=$2
  shift 2
  mkdir -p "$out"
  {
    echo "command: $*"
    echo "commit: $("$build/d2q9-bgk" --version 2>/dev/null | grep -o 'commit [0-9a-f]*[-a-z]*' | head -1 | cut -d' ' -f2)"
    echo "date: $(date -u +%F)"
    echo "started: $(date -u +%T) UTC"
    echo "version: $("$build/d2q9-bgk" --version 2>&1 | head -1)"
    if command -v nvidia-smi > /dev/null; then
      echo "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | paste -sd ';')"
    fi
  } >> "$out/call.txt"
}

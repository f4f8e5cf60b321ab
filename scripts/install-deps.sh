#!/bin/sh
# Kept at this path for python/CMakeLists.txt's and docs/python.md's message;
# the script is scripts/setup/install-deps.sh.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
exec "$(dirname "$0")/setup/install-deps.sh" "$@"

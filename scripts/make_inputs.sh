#!/bin/sh
# Kept at this path for tests/test_problem.cpp, which runs it by this name;
# the script is scripts/setup/make_inputs.sh.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
exec "$(dirname "$0")/setup/make_inputs.sh" "$@"

#!/usr/bin/env python3
"""Every doctest case is a CTest test under its whole name, and no other name.

A name CTest cuts (a ';' splits a CMake list) would register a filter that
matches nothing; doctest then runs zero cases and exits 0. This compares the
cases the test binary lists with the tests CTest registered for it.
Usage: check_registration.py CTEST BUILD_DIR TEST_BINARY
"""
import json
import subprocess
import sys

ctest, build_dir, binary = sys.argv[1:4]

listed = subprocess.run([binary, "--list-test-cases", "--no-version"], check=True,
                        capture_output=True, text=True).stdout.splitlines()
cases = {line for line in listed if line and not line.startswith("[doctest]") and not line.startswith("=====")}

shown = json.loads(subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"], check=True,
                                  capture_output=True, text=True).stdout)
registered = set()
for test in shown["tests"]:
    command = test.get("command", [])
    if command and command[0].endswith("/d2q9_tests"):
        filters = [a for a in command if a.startswith("--test-case=")]
        registered.add(filters[0][len("--test-case="):].replace("\\,", ",") if filters else "")

missing = sorted(cases - registered)
extra = sorted(registered - cases)
for name in missing:
    print(f"error: doctest case not registered with CTest under its name: {name!r}")
for name in extra:
    print(f"error: CTest runs a filter that names no doctest case: {name!r}")
print(f"{len(cases)} doctest cases, {len(registered)} CTest tests of d2q9_tests")
sys.exit(1 if missing or extra or not cases else 0)

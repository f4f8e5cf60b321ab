#!/usr/bin/env bash
# Registers NVIDIA's OpenCL library with the ICD loader, for a GPU machine
# whose driver did not (the device machines': the container has the driver's
# libnvidia-opencl.so.1 but no /etc/OpenCL/vendors/nvidia.icd). Optional, and
# the only device script that writes outside its arguments; run it (as root)
# before the others when `d2q9-bgk --list-devices` shows no NVIDIA platform.
#   scripts/setup/register_nvidia_icd.sh [LIBRARY]   (default /usr/lib/libnvidia-opencl.so.1)
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -euo pipefail
lib=${1:-/usr/lib/libnvidia-opencl.so.1}
[ -e "$lib" ] || { echo "error: $lib not found: no NVIDIA OpenCL library to register" >&2; exit 1; }
mkdir -p /etc/OpenCL/vendors
echo "$lib" > /etc/OpenCL/vendors/nvidia.icd
echo "registered $lib in /etc/OpenCL/vendors/nvidia.icd"

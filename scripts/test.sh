#!/usr/bin/env bash
# Builds benchreport twice and runs the whole test suite on each build:
#   build/       RelWithDebInfo
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer, leaks fatal
# then a 15 s libFuzzer smoke run per parser (scripts/fuzz.sh --smoke, build-fuzz/).
# Real-data tests use ../shared/real when it exists (BR_REAL_DIR overrides)
# and are skipped with a message otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")
cmake -S . -B build-asan -DBR_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$jobs"
supp="$(pwd)/tests/lsan.supp"   # fontconfig's process-long caches (see the file)
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  LSAN_OPTIONS=suppressions="$supp":print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j"$jobs")
real=$(sed -n 's/^BR_REAL_DIR:PATH=//p' build/CMakeCache.txt)
if [ ! -d "$real" ]; then
  echo "note: $real not found: the real-vLLM-file tests were skipped (export BR_REAL_DIR=/path/to/real before the first build)"
fi
# libFuzzer smoke run of every parser (build-fuzz/, clang): ~2 min on 2 cores
bash scripts/fuzz.sh --smoke
echo "tests: all passed (plain and sanitizer builds, fuzz smoke)"

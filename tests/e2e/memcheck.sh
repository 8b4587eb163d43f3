#!/usr/bin/env bash
# valgrind's memcheck over a whole run report (round 1: six figures drawn on
# the two figure workers, the PDF, summary.json) and `simulate`: no read of a
# value never written, no invalid access. A reference line's unset
# label_left flag (chart.c add_ref) moved latency-CDF labels left or right
# from run to run, which neither the sanitizer build (ASan does not track
# uninitialised memory) nor byte-identical reruns on small inputs caught.
# Skipped (77) when valgrind is missing or the binary is the sanitizer build
# (the two cannot run together; that build checks its own memory).
. "$(dirname "$0")/lib.bash"
if ! command -v valgrind > /dev/null; then
	echo "skip: valgrind not installed (scripts/deps.sh installs it)"
	exit 77
fi
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
	echo "skip: $BIN is the AddressSanitizer build"
	exit 77
fi
vg() { valgrind -q --error-exitcode=99 --log-file="$tmp/vg.log" "$@" > /dev/null 2>&1; }
vg "$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1"; rc=$?
check "simulate under memcheck: no error (exit $rc; $(grep -m1 '== [A-Z]' "$tmp/vg.log"))" [ "$rc" -eq 0 ]
vg "$BIN" "$tmp/r1" -o "$tmp/rep" -q; rc=$?
check "run report under memcheck: no error (exit $rc; $(grep -m1 '== [A-Z]' "$tmp/vg.log"))" [ "$rc" -eq 0 ]
check "the report under memcheck wrote its PDF and six figures" \
	[ -s "$tmp/rep/report.pdf" -a "$(ls "$tmp/rep/figures" | grep -c '\.png$')" -ge 6 ]
finish

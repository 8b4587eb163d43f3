#!/usr/bin/env bash
# A user's files survive every -o case (issue 8): report, knee, compare and
# simulate refuse a folder benchreport did not write (exit 2, the unexpected
# files named, the folder byte-identical), before any analysis; SIGINT,
# SIGTERM and SIGHUP remove the staging folder; kill -9 leaves one that the
# next run removes only because it carries our marker.
. "$(dirname "$0")/lib.bash"
# fp DIR: every path, type, size and content hash under DIR (symlinks not followed)
fp() { (cd "$1" && find . -printf '%p %y %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0r sha256sum); }
io=$(mktemp -d); trap 'rm -rf "$tmp" "$io"' EXIT    # messages live outside the folders compared
run="$tmp/run"; cp -r "$SRC/fixtures/runs/tiny" "$run"; rm -rf "$run/report"

# refuse CASE DIR CMD...: exit 2, message names the folder, DIR unchanged
refuse() {
  local name=$1 dir=$2; shift 2
  local before; before=$(fp "$dir")
  "$@" > "$io/out" 2> "$io/err"; local rc=$?
  check "$name: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "$name: folder byte-identical" [ "$before" = "$(fp "$dir")" ]
  [ "$rc" -eq 2 ] || cat "$io/err"
}

# 1. a folder of the user's with a summary.json naming schema_version (the old substring test)
u="$tmp/mine"; mkdir -p "$u/raw"; echo '{"schema_version": 1, "mine": true}' > "$u/summary.json"
echo notes > "$u/notes.md"; echo data > "$u/raw/capture.bin"
refuse "report -o foreign" "$tmp" "$BIN" "$run" -o "$u"
check "report -o foreign: says there is no marker" grep -q "no .benchreport-output marker" "$io/err"
check "report -o foreign: nothing analysed (no notes printed)" bash -c "! grep -q 'note:' '$io/err'"
refuse "knee -o foreign" "$tmp" "$BIN" knee "$run" --slo 'ttft_p99<=5s' -o "$u"
refuse "compare -o foreign" "$tmp" "$BIN" compare "$run" "$run" -o "$u"
refuse "simulate --force -o foreign" "$tmp" "$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$u" --force

# 2. an earlier report with the user's additions: named, nothing deleted
"$BIN" "$run" -q; check "first report: exit 0" [ -f "$run/report/report.pdf" ]
check "marker written" grep -q '"format": "benchreport-output/1"' "$run/report/.benchreport-output"
"$BIN" "$run" -q; check "second report replaces the first (ours)" [ $? -eq 0 ]
echo mine > "$run/report/notes.md"; mkdir "$run/report/raw"; echo x > "$run/report/raw/a"
refuse "report over its own output + notes.md, raw/" "$tmp" "$BIN" "$run"
check "message names notes.md and raw/" grep -q "notes.md, raw/" "$io/err"
rm -r "$run/report/notes.md" "$run/report/raw"
echo '{"edited": 1}' > "$run/report/summary.json"
refuse "report over an edited summary.json" "$tmp" "$BIN" "$run"
check "message says changed" grep -q "summary.json (changed since benchreport wrote it)" "$io/err"
rm -rf "$run/report"

# 3. siblings with our naming pattern: kept unless marked and dead
mkdir -p "$run/report.old.2023" "$run/report.tmp.2147483646"
echo keep > "$run/report.old.2023/keep.txt"; echo keep > "$run/report.tmp.2147483646/keep.txt"
before=$(fp "$run/report.old.2023")$(fp "$run/report.tmp.2147483646")
"$BIN" "$run" -q; check "report next to unmarked siblings: exit 0" [ $? -eq 0 ]
check "unmarked siblings byte-identical" [ "$before" = "$(fp "$run/report.old.2023")$(fp "$run/report.tmp.2147483646")" ]
rm -rf "$run/report.old.2023" "$run/report.tmp.2147483646"

# 4. symlinks: -o a symlink is refused; its target untouched
ln -s "$run/report" "$tmp/link"
refuse "report -o symlink" "$run/report" "$BIN" "$run" -o "$tmp/link"
check "symlink kept" [ -L "$tmp/link" ]
check "message says symbolic link" grep -q "symbolic link" "$io/err"
ln -s /etc/hostname "$run/report/figures/evil.png"
refuse "report over a folder holding a symlink" "$run/report" "$BIN" "$run"
rm "$run/report/figures/evil.png"

# 5. a regular file as -o
echo precious > "$tmp/afile"
refuse "report -o file" "$tmp" "$BIN" "$run" -o "$tmp/afile"

# 6. another filesystem: a mount point is refused whole, a folder inside it works
mnt="$tmp/mnt"; mkdir -p "$mnt"
if mount -t tmpfs -o size=64m tmpfs "$mnt" 2> /dev/null; then
  echo mine > "$mnt/notes.md"
  refuse "report -o a mount point" "$tmp" "$BIN" "$run" -o "$mnt"
  check "message says mount point" grep -q "mount point" "$io/err"
  "$BIN" "$run" -q -o "$mnt/report"; check "report into a folder on another filesystem: exit 0" [ $? -eq 0 ]
  "$BIN" "$run" -q -o "$mnt/report"; check "and replaced there" [ $? -eq 0 ]
  check "user file on the mount kept" grep -q mine "$mnt/notes.md"
  umount "$mnt"
else
  echo "note: cannot mount a tmpfs here: the mount-point case was skipped"
fi

# 7. a simulated run is input data: no report replaces it (found by a fresh-user test)
sim="$tmp/simA"; "$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$sim" > /dev/null
refuse "report -o its own simulated run" "$sim" "$BIN" "$sim" -o "$sim"
check "message says simulated run" grep -q "is a simulated run" "$io/err"
refuse "knee -o a simulated run" "$sim" "$BIN" knee "$sim" --slo 'ttft_p99<=5s' -o "$sim"
refuse "compare -o a simulated run" "$sim" "$BIN" compare "$run" "$run" -o "$sim"
camp="$tmp/camp2"; mkdir -p "$camp"
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$camp/report" > /dev/null
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$camp/other" > /dev/null
refuse "campaign whose sub-run is named report" "$camp" "$BIN" "$camp"
"$BIN" "$sim" -q; check "a report inside a simulated run: exit 0" [ -f "$sim/report/report.pdf" ]
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$sim" --force > /dev/null
check "simulate --force replaces its run with our report inside" [ ! -e "$sim/report" ]
refuse "simulate --force over a report" "$run" "$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$run/report" --force

# 8. bind mounts (same filesystem): refused as mount points, inside or as -o
mine="$tmp/myfigs"; mkdir -p "$mine"; echo mine > "$mine/a.png"
"$BIN" "$run" -q -o "$tmp/rep13"
if mount --bind "$mine" "$tmp/rep13/figures" 2> /dev/null; then
  refuse "report over a report with a bind mount inside" "$tmp" "$BIN" "$run" -o "$tmp/rep13"
  check "my bind-mounted file kept" grep -q mine "$mine/a.png"
  umount "$tmp/rep13/figures"
  mkdir -p "$tmp/bind2"; mount --bind "$mine" "$tmp/bind2"
  refuse "report -o a bind mount" "$tmp" "$BIN" "$run" -o "$tmp/bind2"
  check "bind mount -o: refused before the analysis (mount point named)" grep -q "is a mount point" "$io/err"
  umount "$tmp/bind2"
else
  echo "note: cannot bind-mount here: the bind-mount cases were skipped"
fi

# 9. signals during a real report: the staging folder goes, the old report stays
r1="$tmp/r1"; "$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$r1" > /dev/null
"$BIN" "$r1" -q; before=$(fp "$r1")
# signal_run SIG: start a report, wait for its staging folder, send SIG; retried
# (up to 3 times) when the report finished before the signal arrived
signal_run() {
  local sig=$1 try
  for try in 1 2 3; do
    "$BIN" "$r1" -q 2> "$io/sig.err" & pid=$!
    # wait for the staging folder's marker, not just the folder: a SIGKILL between
    # mkdir and the marker's write leaves an unmarked folder (seen under ASan + load)
    for _ in $(seq 1 6000); do [ -f "$r1/report.tmp.$pid/.benchreport-output" ] && break; sleep 0.005; done
    seen=0; [ -d "$r1/report.tmp.$pid" ] && seen=1
    kill -s "$sig" "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; prc=$?
    [ "$prc" -gt 128 ] && return 0
    # exit 0: the report finished first; exit 1 was seen once under heavy load
    # (an unexplained race, see the closing note of 2026-12-01): show it and try again
    echo "note: SIG$sig run exited $prc instead of dying of the signal (try $try); again"
    sed 's/^/    stderr: /' "$io/sig.err"; before=$(fp "$r1")
  done
}
for sig in INT TERM HUP KILL; do
  signal_run "$sig"
  check "SIG$sig: staging folder seen" [ "$seen" -eq 1 ]
  check "SIG$sig: died of the signal (exit $prc)" [ "$prc" -gt 128 ]
  if [ "$sig" = KILL ]; then
    check "SIGKILL: staging folder left, with our marker" [ -f "$r1/report.tmp.$pid/.benchreport-output" ]
    left="$r1/report.tmp.$pid"
  else
    check "SIG$sig: staging folder removed" [ ! -e "$r1/report.tmp.$pid" ]
    check "SIG$sig: earlier report byte-identical" [ "$before" = "$(fp "$r1")" ]
  fi
done
"$BIN" "$r1" -q; check "next run after kill -9: exit 0" [ $? -eq 0 ]
check "next run removed the marked leftover" [ ! -e "$left" ]
finish

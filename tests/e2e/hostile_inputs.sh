#!/usr/bin/env bash
# The hostile-input corpus, one table (fixtures/bad/cases.tsv: input, role,
# exit code, message pattern): every bad file gets its exit code and a
# message naming the file (line:col where the format has them), never hangs
# (each run under `timeout 20`), and a refused input writes nothing.
. "$(dirname "$0")/lib.bash"
mkfifo "$tmp/fifo"; mkdir "$tmp/adir"
nothing_written() { [ ! -e "$1" ] && [ ! -e "$2" ]; }
n=0
while IFS=$'\t' read -r input role want pat; do
  case "$input" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  case "$input" in
    @fifo) in="$tmp/fifo" ;; @devzero) in=/dev/zero ;; @dir) in="$tmp/adir" ;;
    *) in="$SRC/fixtures/bad/$input" ;;
  esac
  run="$tmp/run$n"; cp -r "$SRC/fixtures/runs/tiny" "$run"; rm -rf "$run/report"
  case "$role" in
    bench|metrics|log|meta) cmd=("$BIN" "$run" "--$role" "$in") ;;
    in:*) name=${role#in:}; rm -f "$run/$name"
          if [ "$input" = @fifo ]; then mkfifo "$run/$name"; else ln -s "$in" "$run/$name"; fi
          cmd=("$BIN" "$run") ;;
    config) cmd=("$BIN" simulate "$in" -o "$tmp/sim$n") ;;
    *) bad "row $n: unknown role $role"; continue ;;
  esac
  timeout 20 "${cmd[@]}" > "$tmp/out" 2> "$tmp/err" < /dev/null; rc=$?
  check "$input as $role: exit $want (got $rc)" [ "$rc" -eq "$want" ]
  check "$input as $role: message matches" grep -qE -- "$pat" "$tmp/err"
  if [ "$want" -ne 0 ]; then
    check "$input as $role: nothing written" nothing_written "$run/report" "$tmp/sim$n"
  fi
  { [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/err"; } || { echo "  stderr:"; sed 's/^/    /' "$tmp/err" | head -5; }
done < "$SRC/fixtures/bad/cases.tsv"
check "the table has rows ($n)" [ "$n" -ge 60 ]
# generated inputs too big to commit: 80 MB of non-vLLM text is rejected after
# its first 64 MiB (not read to the end); a 4 MB crafted hard-wrapped
# `non-default args` log (one dict wrapped over hundreds of pieces) completes.
# `timeout 20` guards against a hang; bench/hostile_bench.sh prints the times.
run="$tmp/rung"; cp -r "$SRC/fixtures/runs/tiny" "$run"; rm -rf "$run/report"
(yes 'GET /index.html HTTP/1.1 200 - not a vLLM log line' || true) | head -c 80M > "$tmp/garbage.log"
timeout 20 "$BIN" "$run" --log "$tmp/garbage.log" > /dev/null 2> "$tmp/err"; rc=$?
check "80 MB garbage log: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "80 MB garbage log: gives up after 64 MiB" grep -q "no vLLM log line in its first 64 MiB" "$tmp/err"
"$PY" - "$tmp/wrap.log" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("INFO 08-01 03:54:33 [api_server.py:1] vLLM API server version 0.10.0\n")
    for line in range(80):
        f.write("INFO 08-01 03:54:34 [utils.py:2] non-default args: {'model': 'x', \n")
        for i in range(500):
            f.write(("'k%06d': " % i) + "v" * 89 + "\n")
PYEOF
timeout 20 "$BIN" "$run" --log "$tmp/wrap.log" -q > /dev/null 2> "$tmp/err"; rc=$?
check "4 MB crafted wrapped log: exit 0 within the timeout (got $rc)" [ "$rc" -eq 0 ]
# a sparse file (gigabytes of holes that read as zeros, no disk used) is refused by name
for role in bench metrics log; do
  cp "$SRC/fixtures/runs/tiny/server.log" "$tmp/sparse.$role"; truncate -s 3G "$tmp/sparse.$role"
  timeout 20 "$BIN" "$run" --$role "$tmp/sparse.$role" > /dev/null 2> "$tmp/err"; rc=$?
  check "sparse 3 GiB file as --$role: exit 3 (got $rc)" [ "$rc" -eq 3 ]
  check "sparse 3 GiB file as --$role: says sparse" grep -q "a sparse file (3.0 GiB long" "$tmp/err"
  rm -f "$tmp/sparse.$role"
done
# a 100k-column CSV header (column lookup was linear: 25 s) loads under the timeout
"$PY" - "$tmp/wide.csv" <<'PYEOF'
import sys
n = 100000
with open(sys.argv[1], "w") as f:
    f.write("timestamp," + ",".join("vllm:c%d" % i for i in range(n)) + "\n")
    for t in (1785556000, 1785556001):
        f.write("%d," % t + ",".join("1" for _ in range(n)) + "\n")
PYEOF
timeout 20 "$BIN" "$run" --metrics "$tmp/wide.csv" -q > /dev/null 2> "$tmp/err"; rc=$?
check "100k-column CSV: exit 0 within the timeout (got $rc)" [ "$rc" -eq 0 ]
# a lone falling preemption counter is not counted: no preemption number, no preemption claim
run="$tmp/runlc"; cp -r "$SRC/fixtures/runs/tiny" "$run"; rm -rf "$run/report"
"$BIN" "$run" --metrics "$SRC/fixtures/bad/metrics-lone-counter-fall.csv" -q 2> /dev/null
check "suspect preemption counter: residency.preemptions is null" [ "$(jget "$run/report/summary.json" residency.preemptions)" = null ]
check "suspect preemption counter: the PDF claims no preemptions" bash -c "! pdftotext '$run/report/report.pdf' - 2>/dev/null | grep -q 'preempted [0-9]'"
# a campaign holding `loop -> ..` and `self -> .`: neither is read as a run
camp="$tmp/camp"; mkdir -p "$camp"; cp -r "$SRC/fixtures/runs/tiny" "$camp/a"; cp -r "$SRC/fixtures/runs/tiny" "$camp/b"
rm -rf "$camp/a/report" "$camp/b/report"; ln -s .. "$camp/loop"; ln -s . "$camp/self"
rerun "$camp/b/stress.json"   # another run, not a copy of a
timeout 60 "$BIN" "$camp" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "campaign with symlink loops: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "campaign with symlink loops: 2 runs, the loops not read" grep -q "campaign .*, 2 runs" "$tmp/out"
true
# a run two levels down in a campaign folder: said, not "not a run" (thirty-fourth breaker)
mkdir -p "$tmp/nest/x" "$tmp/nest/y/inner"
cp -r "$SRC/fixtures/runs/tiny/." "$tmp/nest/x/"; cp -r "$SRC/fixtures/runs/tiny/." "$tmp/nest/y/inner/"
rm -rf "$tmp/nest/x/report" "$tmp/nest/y/inner/report"
"$BIN" "$tmp/nest" -o "$tmp/nest-out" > /dev/null 2> "$tmp/nest.err"
check "nested run: named as one level too deep, not 'not a run'" bash -c "
  grep -q 'y: no bench result in it, but 1 of its sub-folders holds one' '$tmp/nest.err' && ! grep -q 'y: no bench result; not a run' '$tmp/nest.err'"
finish

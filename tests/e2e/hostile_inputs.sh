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
finish

#!/usr/bin/env bash
# Claims the report must and must not make (issue 9): runs benchreport once
# on each folder of fixtures/truth/ and checks fixtures/truth/cases.tsv
# (the PDF text, summary.json values, stderr, the exit status).
. "$(dirname "$0")/lib.bash"
T=$SRC/fixtures/truth
declare -A ran
# run_case CASE: copy the folder, run benchreport with its args, keep the outputs
run_case() {
  local c=$1 args
  [ -n "${ran[$c]:-}" ] && return
  ran[$c]=1
  mkdir -p "$tmp/$c"
  cp -r "$T/$c" "$tmp/$c/in"
  args=$(awk -F'\t' -v c="$c" '$1 == c && $2 == "args" { print $3 }' "$T/cases.tsv")
  args=${args//@IN/$tmp/$c/in}
  args=${args//@T/$T}
  # shellcheck disable=SC2086
  (cd "$tmp/$c" && "$BIN" ${args:-"$tmp/$c/in"} -o "$tmp/$c/out") > /dev/null 2> "$tmp/$c/err"
  echo $? > "$tmp/$c/rc"
  if [ -f "$tmp/$c/out/report.pdf" ]; then
    pdftotext "$tmp/$c/out/report.pdf" - 2>/dev/null | tr -s ' \n\t' '   ' > "$tmp/$c/pdf.txt"
  else
    : > "$tmp/$c/pdf.txt"
  fi
}
while IFS=$'\t' read -r c kind a1 a2; do
  case "$c" in ''|'#'*) continue ;; esac
  run_case "$c"
  case "$kind" in
    args) ;;
    exit)  check "$c: exit $a1 (got $(cat "$tmp/$c/rc"))" [ "$(cat "$tmp/$c/rc")" = "$a1" ] ;;
    pdf)   check "$c: report says /$a1/" grep -qE -- "$a1" "$tmp/$c/pdf.txt" ;;
    nopdf) check "$c: report does not say /$a1/" bash -c '! grep -qE -- "$0" "$1"' "$a1" "$tmp/$c/pdf.txt" ;;
    err)   check "$c: stderr says /$a1/" grep -qE -- "$a1" "$tmp/$c/err" ;;
    json)  v=$(jget "$tmp/$c/out/summary.json" "$a1" 2>/dev/null)
           check "$c: $a1 = $a2 (got $v)" [ "$v" = "$a2" ] ;;
    near)  v=$(jget "$tmp/$c/out/summary.json" "$a1" 2>/dev/null)
           check "$c: $a1 ≈ $a2 (got $v)" near "$v" "$a2" 1e-9 ;;
    *) bad "$c: unknown check '$kind'" ;;
  esac
done < "$T/cases.tsv"
finish

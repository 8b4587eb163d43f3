#!/usr/bin/env bash
# Bad input: exit 3, a message naming the file (with line:column where the
# format has them), and nothing written into the run folder.
. "$(dirname "$0")/lib.bash"
expect_bad() { # NAME FILE_IN_RUN SOURCE_FIXTURE PATTERN
  local name=$1 dest=$2 src=$3 pat=$4 d="$tmp/$1"
  cp -r "$SRC/fixtures/runs/tiny" "$d"; rm -rf "$d/report"
  cp "$src" "$d/$dest"
  "$BIN" "$d" > "$tmp/out" 2> "$tmp/err"; local rc=$?
  check "$name: exit 3 (got $rc)" [ "$rc" -eq 3 ]
  check "$name: message matches '$pat'" grep -qE "$pat" "$tmp/err"
  check "$name: nothing written" [ ! -e "$d/report" ]
  [ "$rc" -eq 3 ] || cat "$tmp/err"
}
printf '{"date": "20260801-035708", "duration": 26.1, "completed": 16, "ttfts": [0.1, 0.2' > "$tmp/trunc.json"
expect_bad truncated-json stress.json "$tmp/trunc.json" 'stress\.json:1:[0-9]+: '
: > "$tmp/empty.json"
expect_bad empty-json stress.json "$tmp/empty.json" 'stress\.json.*empty'
head -c 2048 /bin/ls > "$tmp/binary.json"
expect_bad binary-json stress.json "$tmp/binary.json" 'stress\.json.*(binary|UTF-8)'
printf 'timestamp,vllm:num_requests_running\n1.0,3\n2.0,4,5\n' > "$tmp/ragged.csv"
expect_bad ragged-csv metrics.csv "$tmp/ragged.csv" 'metrics\.csv:3:[0-9]+: .*expected'
printf 'timestamp,vllm:num_requests_running\n1.0,3\n2.0,abc\n' > "$tmp/nonnum.csv"
expect_bad nonnumeric-csv metrics.csv "$tmp/nonnum.csv" 'metrics\.csv:3:5: .*number'
: > "$tmp/empty.csv"
expect_bad empty-csv metrics.csv "$tmp/empty.csv" 'metrics\.csv.*empty'
# a header cell in Latin-1 (0xE9 for 'é'): named with line:column, not an
# unmatched column whose role is silently empty (eighteenth breaker)
printf 'timestamp,vllm:num_requests_running,vllm:num_requests_waiting\xe9\n1.0,3,0\n' > "$tmp/latin1.csv"
expect_bad latin1-csv-header metrics.csv "$tmp/latin1.csv" 'metrics\.csv:1:62: expected UTF-8 text in the header, found the byte 0xE9'
# a duration of 1e+300 s: the message states the bound it broke (thirteenth breaker: "finite")
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['duration']=1e300; json.dump(d,open(sys.argv[2],'w'))" \
  "$SRC/fixtures/runs/tiny/stress.json" "$tmp/hugedur.json"
expect_bad huge-duration stress.json "$tmp/hugedur.json" 'stress\.json:1:[0-9]+: "duration": 1e\+300: expected the run.s length in seconds \(> 0 and at most 1e9 s'
# kv_pool_tokens 1e20 in run.json: the message gives the range it must fall in (fourteenth breaker:
# "expected a whole number of tokens >= 1", which 1e20 is)
printf '{\n  "name": "tiny",\n  "kv_pool_tokens": 1e20\n}\n' > "$tmp/pool.json"
expect_bad huge-pool run.json "$tmp/pool.json" 'run\.json:3:[0-9]+: "kv_pool_tokens": expected a whole number of tokens from 1 to 1e12'
# JSONL whose line 2 is cut off after 60 bytes: the message points at line 2's
# end (jansson read on and blamed line 3, a valid record)
T="$SRC/fixtures/runs/tiny/stress.json"
(tr -d '\n' < "$T"; echo; tr -d '\n' < "$T" | head -c 60; echo; tr -d '\n' < "$T"; echo) > "$tmp/cut.jsonl"
expect_bad jsonl-cut-line stress.json "$tmp/cut.jsonl" 'stress\.json:2:60: malformed JSON: the object on this line ends unfinished'
# a dangling symbolic link where an input would be (it read as "no server
# metrics"): named, with its target
d="$tmp/dangling"; cp -r "$SRC/fixtures/runs/tiny" "$d"; rm -rf "$d/report" "$d/metrics.csv"
ln -s "$tmp/gone.csv" "$d/metrics.csv"
"$BIN" "$d" > /dev/null 2> "$tmp/err"; rc=$?
check "dangling metrics.csv link: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "dangling metrics.csv link: named with its target" grep -qF "metrics.csv: a symbolic link to $tmp/gone.csv, which does not exist; expected the file it names, or no link" "$tmp/err"
check "dangling metrics.csv link: nothing written" [ ! -e "$d/report" ]
# missing bench result
d="$tmp/nobench"; mkdir -p "$d"; cp "$SRC/fixtures/runs/tiny/metrics.csv" "$d/"
"$BIN" "$d" > /dev/null 2> "$tmp/err"; rc=$?
check "no bench result: exit 3 (got $rc)" [ "$rc" -eq 3 ]
check "no bench result: says what it expected" grep -q "stress.json" "$tmp/err"
# not a folder, bad usage
"$BIN" "$tmp/does-not-exist" 2> "$tmp/err"; rc=$?
check "missing folder: exit 3" [ "$rc" -eq 3 ]
"$BIN" --no-such-option 2> "$tmp/err"; rc=$?
check "unknown option: exit 2" [ "$rc" -eq 2 ]
# a campaign folder with an option naming one run's file: exit 2, nothing written
mkdir -p "$tmp/camp"
cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp/a"; cp -r "$SRC/fixtures/runs/tiny" "$tmp/camp/b"
rm -rf "$tmp/camp/a/report" "$tmp/camp/b/report"
"$BIN" "$tmp/camp" --bench "$tmp/camp/a/stress.json" 2> "$tmp/err"; rc=$?
check "campaign + --bench: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "campaign + --bench: says why" grep -q "campaign folder" "$tmp/err"
check "campaign + --bench: nothing written" [ ! -e "$tmp/camp/report" ]
finish

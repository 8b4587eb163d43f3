#!/usr/bin/env bash
# What the queue waited for, said only as far as the data show it
# (src/analysis/findings.c queue_holder, open_loop_overloaded): three
# simulated runs whose queue is held by something other than the KV cache.
. "$(dirname "$0")/lib.bash"
C=$SRC/fixtures/configs
# report NAME CONFIG: simulate, report, keep the PDF's text on one line
report() {
  "$BIN" simulate "$2" -o "$tmp/$1" > /dev/null || bad "simulate $2"
  "$BIN" "$tmp/$1" -o "$tmp/$1-report" -q 2> /dev/null || bad "report $1"
  pdftotext "$tmp/$1-report/report.pdf" - | tr -s ' \n\t' '   ' > "$tmp/$1.txt"
}
ids() { python3 -c 'import json,sys; print(" ".join(f["id"] for f in json.load(open(sys.argv[1]))["findings"]))' "$tmp/$1-report/summary.json"; }

# max_num_seqs 8 with a 200,000-token pool: KV usage peaks near 5%
report seqs "$C/seq-bound-open-loop.json"
check "cap-bound run: the cap, not the KV cache, holds the queue ($(ids seqs))" bash -c "
  grep -q 'Bound by the cap on running requests, not by compute or the KV cache' '$tmp/seqs.txt' &&
  grep -q 'the pool had room for more' '$tmp/seqs.txt' && ! grep -q 'requests wait for KV cache' '$tmp/seqs.txt'"
check "cap-bound run, open loop at 8 req/s: did not keep up, at the cap" bash -c "
  grep -q 'The server did not keep up with the offered load: requests were sent at 8.00 req/s' '$tmp/seqs.txt' &&
  grep -q \"the server's cap of 8 running requests\" '$tmp/seqs.txt'"
# round 1 with --max-num-seqs 10: running sits at the cap and KV usage reaches 94%
report cap10 "$C/round1-max-num-seqs-10.json"
check "max_num_seqs 10 below the pool's 10.6: both limits named ($(ids cap10))" bash -c "
  grep -q 'both limits were reached' '$tmp/cap10.txt' && grep -q 'KV pool and the server.s cap of 10 running requests' '$tmp/cap10.txt'"
check "max_num_seqs 10: the red line is not explained as 'slightly above 1' at 0.93x" bash -c "
  ! grep -q 'slightly above 1' '$tmp/cap10.txt' && grep -q 'The cap shares the credit' '$tmp/cap10.txt' &&
  ! grep -q 'Concurrency collapsed to what the KV pool holds' '$tmp/cap10.txt'"
# llama.cpp, 4 slots, open loop at 1 req/s: not "found no problem"
report lcpp "$C/engines/llamacpp-open-loop.json"
check "llama.cpp open loop past its slots: said ($(ids lcpp))" bash -c "
  grep -q 'The server did not keep up with the offered load: requests were sent at 1.00 req/s' '$tmp/lcpp.txt' &&
  grep -q \"all 4 of llama-server's slots at the peak\" '$tmp/lcpp.txt' && ! grep -qE 'found no problem|None of the checks of this report' '$tmp/lcpp.txt'"
# the reference round 1 keeps its sentence
report r1 "$C/round1.json"
check "round 1: requests wait for KV cache ($(ids r1))" bash -c "
  grep -q 'requests wait for KV cache, not for the GPU' '$tmp/r1.txt' && grep -q 'slightly above 1' '$tmp/r1.txt'"
finish

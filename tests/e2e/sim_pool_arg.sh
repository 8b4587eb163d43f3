#!/usr/bin/env bash
# A what-if on the KV pool (gpu.kv_pool_from_arg): the simulated server's
# arguments state the pool, as a user's --kv-cache-memory-bytes (vLLM) or
# --max-total-tokens (SGLang) would, so compare credits the pool change to
# that argument (a controlled A/B) instead of "the pool moved by itself"
# (twentieth breaker, M7). Without the key the log names no argument, as a
# pool sized by start-up memory profiling. Expected values from the configs:
# bytes = kv_pool_tokens x model.kv_bytes_per_token.
. "$(dirname "$0")/lib.bash"
"$PY" - "$SRC/fixtures/configs/small-1024-256.json" "$SRC/fixtures/configs/engines/sglang-round1.json" "$tmp" <<'PYEOF'
import json, sys, copy
base, sg, out = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
for name, pool, arg in (("big", 86864, True), ("small", 37440, True), ("small-noarg", 37440, False)):
    c = copy.deepcopy(base)
    c["name"] = name
    c["gpu"].pop("kv_pool_gib", None)
    c["gpu"]["kv_pool_tokens"] = pool
    c["gpu"]["kv_pool_from_arg"] = arg
    json.dump(c, open(f"{out}/{name}.json", "w"))
    print(name, pool * c["model"]["kv_bytes_per_token"], file=open(f"{out}/{name}.bytes", "w"))
c = copy.deepcopy(sg)
c["gpu"]["kv_pool_from_arg"] = True
json.dump(c, open(f"{out}/sg.json", "w"))
c["engine"] = "llamacpp"
json.dump(c, open(f"{out}/llama.json", "w"))
PYEOF
for n in big small small-noarg sg; do
	"$BIN" simulate "$tmp/$n.json" -o "$tmp/$n" > /dev/null 2>&1; rc=$?
	check "simulate $n exit 0 (got $rc)" [ "$rc" -eq 0 ]
done
for n in big small; do
	want=$(cut -d' ' -f2 "$tmp/$n.bytes")
	check "$n: the log's non-default args carry 'kv_cache_memory_bytes': $want" \
		grep -qF "'kv_cache_memory_bytes': $want" "$tmp/$n/server.log"
done
check "without kv_pool_from_arg the log names no pool argument" bash -c "! grep -q kv_cache_memory_bytes '$tmp/small-noarg/server.log'"
sgpool=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['gpu']['kv_pool_tokens'])" "$tmp/sg.json")
check "SGLang: ServerArgs says max_total_tokens=$sgpool" grep -qF "max_total_tokens=$sgpool," "$tmp/sg/server.log"
"$BIN" simulate "$tmp/llama.json" -o "$tmp/llama" > /dev/null 2> "$tmp/llama.err"; rc=$?
check "llama.cpp refuses the key (exit $rc): $(head -c 160 "$tmp/llama.err")" \
	[ "$rc" -ne 0 ] && grep -q "kv_pool_from_arg" "$tmp/llama.err"
"$BIN" compare "$tmp/big" "$tmp/small" -o "$tmp/cmp" -q; rc=$?
check "compare exit 0 (got $rc)" [ "$rc" -eq 0 ]
s="$tmp/cmp/summary.json"
check "the pool change is a controlled A/B ($(jget "$s" focus.verdict))" [ "$(jget "$s" focus.verdict)" = controlled ]
check "not 'the pool moved by itself'" [ "$(jget "$s" focus.pool_moved_alone)" = False ]
pdftotext -layout "$tmp/cmp/report.pdf" - 2> /dev/null | tr -s ' \n' '  ' > "$tmp/cmp.txt"
check "PDF names the one argument that differs, with both values" \
	grep -qF "only one differs: arg kv_cache_memory_bytes $(cut -d' ' -f2 "$tmp/big.bytes") → $(cut -d' ' -f2 "$tmp/small.bytes")" "$tmp/cmp.txt"
finish

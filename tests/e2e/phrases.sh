#!/usr/bin/env bash
# Messages of the analyses in the report's language (issue 12):
# templates/phrases.zh.json is checked against the C sources
# (phrases_check.py: every key's literal text is still written by the code,
# holes balanced, no key twice), then a Chinese report of a run whose log
# belongs to another server prints the set-aside reason and the removed
# sections in Chinese, while summary.json keeps the English messages.
. "$(dirname "$0")/lib.bash"
"$PY" "$SRC/tests/e2e/phrases_check.py" "$SRC" zh > "$tmp/check" 2>&1; rc=$?
grep -v "^note:" "$tmp/check" | tail -5
check "phrases.zh.json: every key still in the sources, holes match (rc $rc)" [ "$rc" -eq 0 ]

"$BIN" "$SRC/fixtures/runs/tiny" --log "$SRC/fixtures/logs/v0-blocks.log" --lang zh -o "$tmp/zh" > /dev/null 2>&1
check "zh report written" [ -s "$tmp/zh/report.pdf" ]
pdftotext "$tmp/zh/report.pdf" - 2>/dev/null | tr -d '\n' > "$tmp/zh.txt"
# the set-aside message composed of three phrases ("{} ({}) is not used: {}",
# "the server log", "it serves model {}, the bench ran against {}: ...")
check "zh: the set-aside log named with its reason in Chinese" \
	grep -qF "v0-blocks.log（服务端日志）未采用" "$tmp/zh.txt"
check "zh: the model names kept verbatim inside the Chinese reason" \
	grep -qF "facebook/opt-125m，而 bench 测的是 Qwen/Qwen2.5-7B-Instruct" "$tmp/zh.txt"
check "zh: no English left of that message" bash -c "! grep -qF 'is not used' '$tmp/zh.txt'"
check "zh: the removed capacity section's reason in Chinese" \
	grep -qF "需要服务端日志（GPU KV cache size 一行）" "$tmp/zh.txt"
# summary.json is language-independent: the English messages stay there
check "summary.json keeps the English reason" grep -qF "is not used: it serves model facebook/opt-125m" "$tmp/zh/summary.json"
"$PY" -c "import json,re,sys; s=json.load(open(sys.argv[1])); sys.exit(1 if re.search('[\u4e00-\u9fff]', json.dumps(s, ensure_ascii=False)) else 0)" "$tmp/zh/summary.json"
check "summary.json has no Chinese (rc $?)" [ $? -eq 0 ]
finish

#!/usr/bin/env bash
# Every language has every key (issue 12): templates/NAME.zh.json holds the
# same keys as NAME.en.json, each string the same placeholders with the same
# formats (a count's ":n:WORD" may become ":,.0f" plus a measure word). Then a
# Chinese run report: same summary.json as the English one, the numbers of
# the text equal, Chinese headings present, and --lang auto follows LANG.
. "$(dirname "$0")/lib.bash"
"$PY" - "$SRC/templates" > "$tmp/keys" <<'PYEOF'
import collections, json, re, sys
PH = re.compile(r'\{([^{}]*)\}')
def leaves(o, p=()):
    if isinstance(o, dict):
        for k, v in o.items():
            yield from leaves(v, p + (k,))
    else:
        yield p, o
def phs(s):
    return [(b.partition(':')[0], b.partition(':')[2] if ':' in b else None) for b in PH.findall(s)]
def norm(spec):
    return ',.0f' if spec is not None and spec.startswith('n:') else spec
bad = 0
for name in ('report', 'knee', 'compare'):
    en = dict(leaves(json.load(open(f'{sys.argv[1]}/{name}.en.json'))))
    zh = dict(leaves(json.load(open(f'{sys.argv[1]}/{name}.zh.json'))))
    for k in sorted(set(en) ^ set(zh)):
        print(name, 'missing in', 'zh' if k in en else 'en', '.'.join(k)); bad += 1
    for k in set(en) & set(zh):
        if not (isinstance(en[k], str) and isinstance(zh[k], str)):
            continue
        ce = collections.Counter((a, norm(s)) for a, s in phs(en[k]))
        cz = collections.Counter(phs(zh[k]))
        if ce != cz:
            print(name, '.'.join(k), 'placeholders differ', dict(ce - cz), dict(cz - ce)); bad += 1
print(f"BAD {bad}")
PYEOF
grep -v "^BAD" "$tmp/keys" || true
check "zh templates: the same keys and placeholders as en" grep -qx "BAD 0" "$tmp/keys"

"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > /dev/null 2>&1 || bad "simulate round1"
"$BIN" "$tmp/r1" -o "$tmp/en" > /dev/null 2>&1; rc=$?
check "en report exit 0 (got $rc)" [ "$rc" -eq 0 ]
"$BIN" "$tmp/r1" -o "$tmp/zh" --lang zh > /dev/null 2>&1; rc=$?
check "zh report exit 0 (got $rc)" [ "$rc" -eq 0 ]
LANG=zh_CN.UTF-8 LC_ALL= LC_MESSAGES= "$BIN" "$tmp/r1" -o "$tmp/auto" --lang auto > /dev/null 2>&1; rc=$?
check "--lang auto with LANG=zh_CN exit 0 (got $rc)" [ "$rc" -eq 0 ]
"$BIN" "$tmp/r1" -o "$tmp/bad" --lang fr > /dev/null 2> "$tmp/fr.err"; rc=$?
check "--lang fr exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "--lang fr: the message names the languages" grep -qF "expected en, zh or auto" "$tmp/fr.err"
# summary.json is language-independent: apart from the output folder in
# the figures' paths, nothing differs (figure titles are the English ones)
cat > "$tmp/same.py" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def strip(o, out_dir):
    if isinstance(o, dict):
        return {k: strip(v, out_dir) for k, v in o.items()}
    if isinstance(o, list):
        return [strip(v, out_dir) for v in o]
    return o.replace(out_dir, "OUT") if isinstance(o, str) else o
a, b = strip(a, sys.argv[3]), strip(b, sys.argv[4])
diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
print("differs:", sorted(diff)[:10])
print("SAME" if a == b else "DIFF")
PYEOF
"$PY" "$tmp/same.py" "$tmp/en/summary.json" "$tmp/zh/summary.json" "$tmp/en" "$tmp/zh" > "$tmp/sum"
cat "$tmp/sum"
check "run summary.json the same in both languages (figure titles included)" grep -qx SAME "$tmp/sum"
for l in en zh auto; do pdftotext "$tmp/$l/report.pdf" "$tmp/$l.txt" 2> "$tmp/$l.pdftotext.err"; done
check "zh PDF: Chinese headings (结论)" grep -qF "结论" "$tmp/zh.txt"
check "auto PDF is the Chinese one" grep -qF "结论" "$tmp/auto.txt"
check "pdftotext prints no warning on the zh PDF" [ ! -s "$tmp/zh.pdftotext.err" ]
# the numbers the data gives (decimals and grouped thousands) are the same in both texts
"$PY" - "$tmp/en.txt" "$tmp/zh.txt" > "$tmp/nums" <<'PYEOF'
import re, sys
def nums(p):
    t = open(p, encoding="utf-8").read()
    t = re.sub(r"page \d+ of \d+|第 \d+ 页，共 \d+ 页", "", t)
    return set(re.findall(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+", t))
e, z = nums(sys.argv[1]), nums(sys.argv[2])
print("only en:", sorted(e - z)[:20]); print("only zh:", sorted(z - e)[:20])
print("SAME" if e == z else "DIFF")
PYEOF
cat "$tmp/nums"
check "the numbers of the en and zh texts are the same" grep -qx SAME "$tmp/nums"

# compare and knee: the same summary.json in both languages
"$BIN" simulate "$SRC/fixtures/configs/round1-max-num-seqs-10.json" -o "$tmp/r1b" > /dev/null 2>&1 || bad "simulate round1-max-num-seqs-10"
for l in en zh; do
	"$BIN" compare "$tmp/r1" "$tmp/r1b" -o "$tmp/cmp-$l" --lang $l > /dev/null 2>&1 || bad "compare --lang $l"
	"$BIN" knee "$tmp/r1" "$tmp/r1b" --slo 'ttft_p99<=500ms' -o "$tmp/knee-$l" --lang $l > /dev/null 2>&1
done
"$PY" "$tmp/same.py" "$tmp/cmp-en/summary.json" "$tmp/cmp-zh/summary.json" "$tmp/cmp-en" "$tmp/cmp-zh" > "$tmp/sum"
cat "$tmp/sum"
check "compare summary.json the same in both languages" grep -qx SAME "$tmp/sum"
"$PY" "$tmp/same.py" "$tmp/knee-en/summary.json" "$tmp/knee-zh/summary.json" "$tmp/knee-en" "$tmp/knee-zh" > "$tmp/sum"
cat "$tmp/sum"
check "knee summary.json the same in both languages" grep -qx SAME "$tmp/sum"

# every Chinese PDF: qpdf finds no damage, pdftotext no warning, pdffonts
# lists only embedded fonts (DejaVu and the CJK face)
for f in zh/report.pdf cmp-zh/report.pdf knee-zh/report.pdf; do
	[ -s "$tmp/$f" ] || { bad "$f missing"; continue; }
	qpdf --check "$tmp/$f" > "$tmp/q" 2>&1
	check "$f: qpdf --check clean (rc $?)" grep -q "No syntax or stream encoding errors" "$tmp/q"
	pdftotext "$tmp/$f" /dev/null 2> "$tmp/w"
	check "$f: pdftotext prints no warning" [ ! -s "$tmp/w" ]
	pdffonts "$tmp/$f" | awk 'NR > 2 && $(NF-4) != "yes" { bad = 1 } END { exit bad }'
	check "$f: every font embedded" [ $? -eq 0 ]
done
finish

#!/usr/bin/env bash
# Figure text comes from the templates (src/render/figure_io.h): every
# "figtext.KEY" the figure code names (a string literal in a br_ft, br_ftp or
# br_ftj call, or BR_FT_KEY("...")) exists in the English template that file's
# figures are drawn with, every figtext string is valid for br_template_fill
# (balanced braces), and a template without the figtext keys still gives a
# report (the figures then draw "[figtext.KEY]") instead of a crash.
. "$(dirname "$0")/lib.bash"
"$PY" - "$SRC" > "$tmp/keys.out" 2>&1 <<'PYEOF'
import glob, json, os, re, sys
src = sys.argv[1]
# which template each render source's figures are drawn with
use = {"fig_knee.c": ["knee"], "fig_compare.c": ["compare"], "chart.c": [], "canvas.c": []}
run_files = ["figures.c", "figure_io.c", "fig_waveform.c", "fig_gpu.c", "fig_residency.c",
             "fig_preemption.c", "fig_budget.c", "fig_latency.c", "fig_campaign.c"]
for f in run_files:
    use[f] = ["report"]
def flat(d, p=""):
    out = {}
    for k, v in d.items():
        full = p + "." + k if p else k
        if isinstance(v, dict):
            out.update(flat(v, full))
        else:
            out[full] = v
    return out
tmpl = {n: flat(json.load(open(os.path.join(src, "templates", n + ".en.json")))) for n in ("report", "knee", "compare")}
call = re.compile(r'\bbr_ft[pj]?\(\s*[\w>.-]+\s*,\s*"([^"]+)"|\bBR_FT_KEY\("([^"]+)"\)')
bad = 0
used = {n: set() for n in tmpl}
for path in sorted(glob.glob(os.path.join(src, "src/render/*.c"))):
    name = os.path.basename(path)
    if name not in use:
        print(f"FAIL - {name}: not in the file -> template table of tests/e2e/figtext_keys.sh"); bad += 1
        continue
    text = open(path).read()
    keys = [a or b for a, b in call.findall(text)]
    for k in keys:
        for n in use[name]:
            used[n].add(k)
            if "figtext." + k not in tmpl[n]:
                print(f"FAIL - {name}: figtext.{k} missing in templates/{n}.en.json"); bad += 1
    print(f"ok   - {name}: {len(set(keys))} figtext keys")
for n, t in tmpl.items():
    for k, v in t.items():
        if not k.startswith("figtext.") or k.endswith("._comment"):
            continue
        s = re.sub(r"\{\{|\}\}", "", v)
        if re.search(r"\{[^{}]*\{|\}[^{}]*\}|^[^{]*\}|\{[^}]*$", s):
            print(f"FAIL - templates/{n}.en.json: {k}: unbalanced braces"); bad += 1
        bare = re.sub(r"_(sglang|llamacpp)$", "", k[len("figtext."):])   # an engine's variant
        if k[len("figtext."):] not in used[n] and bare not in used[n]:
            print(f"note - templates/{n}.en.json: {k} is not named by the code")
# another language (templates/NAME.LANG.json, when present): a missing figtext key is
# only noted (it draws as "[figtext.KEY]"), a placeholder the English string does not
# have is an error (the code never fills it: it would print "n/a")
ph = re.compile(r"\{([^{}:]+)(?::[^{}]*)?\}")
for n in tmpl:
    for path in sorted(glob.glob(os.path.join(src, "templates", n + ".*.json"))):
        if path.endswith(".en.json"):
            continue
        other = flat(json.load(open(path)))
        name = os.path.basename(path)
        for k, v in tmpl[n].items():
            if not k.startswith("figtext.") or k.endswith("._comment"):
                continue
            if k not in other:
                print(f"note - templates/{name}: {k} missing (drawn as [{k}])")
                continue
            extra = set(ph.findall(re.sub(r"\{\{|\}\}", "", other[k]))) - set(ph.findall(re.sub(r"\{\{|\}\}", "", v)))
            if extra:
                print(f"FAIL - templates/{name}: {k}: placeholders {sorted(extra)} not in the English string"); bad += 1
sys.exit(1 if bad else 0)
PYEOF
rc=$?
cat "$tmp/keys.out"
check "every figtext key named in src/render/ is in the English templates" [ "$rc" -eq 0 ]

# a template without "figtext": the report is still written, the figures say the key
mkdir -p "$tmp/tpl"
for n in report knee compare; do
  "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('figtext',None); json.dump(d,open(sys.argv[2],'w'))" \
    "$SRC/templates/$n.en.json" "$tmp/tpl/$n.en.json"
done
"$BIN" simulate "$SRC/fixtures/configs/round1.json" -o "$tmp/r1" > "$tmp/sim.out" 2>&1
check "simulate round 1" [ -s "$tmp/r1/stress.json" ]
BENCHREPORT_TEMPLATES="$tmp/tpl" "$BIN" "$tmp/r1" > "$tmp/rep.out" 2>&1; rc=$?
check "report without figtext keys: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the waveform title says its missing key" \
  [ "$(jget "$tmp/r1/report/summary.json" figures.id=fig2-waveform.title)" = "[figtext.fig2-waveform.title]" ]

# and the figures say what the template says: a changed figtext string reaches the figure
"$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); d['figtext']['fig2-waveform']['title']='整个运行的波形'; d['figtext']['fig3-residency']['caption']='服务器持有的请求。'; json.dump(d,open(sys.argv[2],'w'),ensure_ascii=False)" \
  "$SRC/templates/report.en.json" "$tmp/tpl/report.en.json"
BENCHREPORT_TEMPLATES="$tmp/tpl" "$BIN" "$tmp/r1" -o "$tmp/r1/out2" > "$tmp/rep2.out" 2>&1; rc=$?
check "report with an edited figtext: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "the waveform title is the template's" \
  [ "$(jget "$tmp/r1/out2/summary.json" figures.id=fig2-waveform.title)" = "整个运行的波形" ]
check "the residency caption in the PDF is the template's" \
  bash -c "pdftotext '$tmp/r1/out2/report.pdf' - | grep -q '服务器持有的请求。'"
finish

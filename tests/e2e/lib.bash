# Shared helpers for the end-to-end tests (sourced, not run).
set -u
BIN=${BR_BINARY:?BR_BINARY not set (run through ctest)}
SRC=${BR_SOURCE_DIR:?}
REAL=${BR_REAL_DIR:-$SRC/../shared/real}
PY=/usr/bin/python3
fails=0
tmp=$(mktemp -d)
trap '[ -n "${BR_KEEP_TMP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT   # BR_KEEP_TMP=1 keeps the scratch folder
ok()   { echo "ok   - $*"; }
bad()  { echo "FAIL - $*"; fails=$((fails + 1)); }
# check DESCRIPTION COMMAND...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
# jget FILE PATH: value at a dotted path of a JSON file (python3); in a list,
# a segment KEY=VALUE selects the first element whose KEY is VALUE
jget() { "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split('.'):
    if isinstance(v, list) and '=' in k:
        key, want = k.split('=', 1)
        v = next((e for e in v if isinstance(e, dict) and str(e.get(key)) == want), None)
        continue
    v = v[int(k)] if isinstance(v, list) else v.get(k) if isinstance(v, dict) else None
print("null" if v is None else v)
PYEOF
}
# near A B REL: |A-B| <= REL*max(|A|,|B|)
near() { "$PY" -c "import sys; a,b,r=map(float,sys.argv[1:]); sys.exit(0 if abs(a-b)<=r*max(abs(a),abs(b)) else 1)" "$1" "$2" "$3"; }
# rerun FILE: a bench result (stress.json) made another run's by moving its
# "date" one second on (a byte-identical result is a copy of a run: compare
# and campaigns treat it as one, not a repeat)
rerun() { "$PY" -c "
import re, sys; p = sys.argv[1]; t = open(p).read()
m = re.search(r'\"date\": \"(\d{8}-\d{4})(\d\d)\"', t)
open(p, 'w').write(t[:m.start(2)] + '%02d' % ((int(m.group(2)) + 1) % 60) + t[m.end(2):])" "$1"; }
finish() { if [ "$fails" -gt 0 ]; then echo "$fails check(s) failed"; exit 1; fi; echo "all checks passed"; exit 0; }

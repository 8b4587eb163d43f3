#!/usr/bin/env bash
# Installable: `cmake --install` puts the binary, the templates and the man
# page under a prefix; the installed binary finds its templates as
# ../share/benchreport/templates (proved by editing the installed copy and
# finding the edit in the PDF), BENCHREPORT_TEMPLATES overrides it, and
# `cpack -G DEB` builds a .deb whose Depends are the Debian packages used.
# Runs in the build folder (ctest's working directory).
. "$(dirname "$0")/lib.bash"
build=$(pwd)
[ -f "$build/cmake_install.cmake" ] || { echo "not in a build folder"; exit 77; }
cmake --install "$build" --prefix "$tmp/p" > /dev/null || bad "cmake --install"
for f in bin/benchreport share/benchreport/templates/report.en.json share/benchreport/templates/knee.en.json \
         share/benchreport/templates/compare.en.json share/man/man1/benchreport.1; do
  check "installs $f" [ -s "$tmp/p/$f" ]
done
check "man page renders" bash -c "man -l '$tmp/p/share/man/man1/benchreport.1' 2>/dev/null | grep -q 'fail-on TERMS'"
# the installed binary reads the installed templates
"$PY" - "$tmp/p/share/benchreport/templates/report.en.json" <<'PYEOF'
import json, sys
p = sys.argv[1]; t = json.load(open(p))
t["doc"]["title"] = "Installed-template report: {run.name}"
json.dump(t, open(p, "w"), ensure_ascii=False, indent=1)
PYEOF
cp -r "$SRC/fixtures/runs/tiny" "$tmp/tiny"; rm -rf "$tmp/tiny/report"
env -u BENCHREPORT_TEMPLATES "$tmp/p/bin/benchreport" "$tmp/tiny" --quiet; rc=$?
check "installed binary: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "installed binary uses ../share/benchreport/templates" \
  bash -c "pdftotext -l 1 '$tmp/tiny/report/report.pdf' - | grep -q 'Installed-template report: tiny'"
rm -rf "$tmp/tiny/report"
BENCHREPORT_TEMPLATES="$SRC/templates" "$tmp/p/bin/benchreport" "$tmp/tiny" --quiet
check "BENCHREPORT_TEMPLATES overrides" \
  bash -c "pdftotext -l 1 '$tmp/tiny/report/report.pdf' - | grep -q 'Load-test report: tiny'"
mkdir -p "$tmp/empty"
BENCHREPORT_TEMPLATES="$tmp/empty" "$tmp/p/bin/benchreport" "$tmp/tiny" --quiet 2> "$tmp/err"; rc=$?
check "missing templates: exit 3 naming the file (got $rc)" bash -c "[ $rc -eq 3 ] && grep -q 'empty/report.en.json' '$tmp/err'"
if command -v cpack > /dev/null && command -v dpkg-deb > /dev/null; then
  (cd "$build" && cpack -G DEB -B "$tmp/deb" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; bad "cpack -G DEB"; }
  deb=$(ls "$tmp"/deb/benchreport_*_*.deb 2>/dev/null | head -1)
  check "cpack builds a .deb" [ -n "$deb" ]
  if [ -n "$deb" ]; then
    dep=$(dpkg-deb -f "$deb" Depends)
    for p in libhpdf-2.3.0 libjansson4 libcairo2 libpango-1.0-0 libnettle8 libcurl4 fonts-dejavu-core; do
      check ".deb depends on $p" bash -c "echo '$dep' | grep -q '$p'"
    done
    for f in ./usr/bin/benchreport ./usr/share/benchreport/templates/report.en.json ./usr/share/man/man1/benchreport.1; do
      check ".deb holds $f" bash -c "dpkg-deb -c '$deb' | grep -q ' $f\$'"
    done
  fi
fi
finish

#!/usr/bin/env bash
# Figures enter the PDF as their PNG files' own compressed data (issue 14:
# src/report/pdf_doc.c png_passthrough, FlateDecode + PNG predictor): every
# image poppler extracts from the report has exactly the pixels of a figure
# PNG (decoded here with zlib from the PNG's IDAT chunks), the PDF passes
# qpdf --check, and its images declare /Predictor 15.
. "$(dirname "$0")/lib.bash"
"$BIN" simulate "$SRC/fixtures/configs/small-1024-256.json" -o "$tmp/run" > /dev/null 2>&1 || bad "simulate"
"$BIN" "$tmp/run" -o "$tmp/out" --quiet > /dev/null 2>&1; rc=$?
check "report exit 0 (got $rc)" [ "$rc" -eq 0 ]
mkdir -p "$tmp/img"
pdfimages "$tmp/out/report.pdf" "$tmp/img/i" 2> "$tmp/pdfimages.err"
check "pdfimages prints no warning" [ ! -s "$tmp/pdfimages.err" ]
"$PY" - "$tmp/out/figures" "$tmp/img" > "$tmp/cmp" <<'PYEOF'
import glob, struct, sys, zlib
def png_rgb(path):
    b = open(path, 'rb').read(); p = 8; idat = b''; w = h = 0
    while p < len(b):
        n, t = struct.unpack('>I4s', b[p:p + 8]); d = b[p + 8:p + 8 + n]; p += 12 + n
        if t == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', d[:10]); assert depth == 8 and ctype == 2
        elif t == b'IDAT': idat += d
        elif t == b'IEND': break
    raw = zlib.decompress(idat); stride = 3 * w; rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]; assert f == 0, "row filter %d" % f   # src/render writes no row filter
        rows.append(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    return (w, h), b''.join(rows)
def ppm(path):
    b = open(path, 'rb').read(); parts = b.split(maxsplit=4)
    assert parts[0] == b'P6'; return (int(parts[1]), int(parts[2])), parts[4]
figs = {png_rgb(f): f for f in sorted(glob.glob(sys.argv[1] + '/*.png'))}
imgs = sorted(glob.glob(sys.argv[2] + '/*.ppm'))
matched = sum(1 for i in imgs if ppm(i) in figs)
print(len(imgs), "images,", len(figs), "figure PNGs,", matched, "identical")
print("SAME" if imgs and matched == len(imgs) else "DIFF")
PYEOF
cat "$tmp/cmp"
check "every image in the PDF has a figure PNG's exact pixels" grep -qx SAME "$tmp/cmp"
qpdf --check "$tmp/out/report.pdf" > "$tmp/q" 2>&1
check "qpdf --check clean" grep -q "No syntax or stream encoding errors" "$tmp/q"
grep -a -o "/Predictor 15" "$tmp/out/report.pdf" | wc -l > "$tmp/np"
check "images carry the PNG predictor ($(cat "$tmp/np"))" [ "$(cat "$tmp/np")" -ge 1 ]
finish

#!/usr/bin/env bash
# scripts/pdf_font.py writes the same bytes on every install: two copies of
# DejaVu Sans made a second apart are identical and keep the source's
# head.modified (fontTools stamped the save time, and that stamp travels
# into every PDF, so reports of the same run differed between machines
# even with SOURCE_DATE_EPOCH set). Its rewritten Unicode cmap maps every
# BMP character to the glyph the source font maps it to, in fewer than 60
# format-4 segments (libharu searches them linearly 65,536 times a face;
# fontTools wrote 193 for DejaVu Sans).
. "$(dirname "$0")/lib.bash"
src=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
if ! "$PY" -c "import fontTools" 2> /dev/null || [ ! -f "$src" ]; then
	echo "skip: python3-fonttools or DejaVu Sans missing"
	exit 77
fi
"$PY" "$SRC/scripts/pdf_font.py" "$src" "$tmp/a.ttf" > /dev/null
sleep 1.1
"$PY" "$SRC/scripts/pdf_font.py" "$src" "$tmp/b.ttf" > /dev/null
check "two copies a second apart are byte-identical" cmp -s "$tmp/a.ttf" "$tmp/b.ttf"
mod() { "$PY" -c "from fontTools.ttLib import TTFont; import sys; print(TTFont(sys.argv[1], lazy=True)['head'].modified)" "$1"; }
check "head.modified is the source font's ($(mod "$src"))" [ "$(mod "$tmp/a.ttf")" = "$(mod "$src")" ]
cmap_check() { "$PY" - "$src" "$tmp/a.ttf" <<'PYEOF'
import struct, sys
from fontTools.ttLib import TTFont
a, b = TTFont(sys.argv[1]), TTFont(sys.argv[2])
oa, ob = a.getReverseGlyphMap(), b.getReverseGlyphMap()
for pe in ((3, 1), (0, 3)):
    ma = {k: oa[v] for k, v in a["cmap"].getcmap(*pe).cmap.items() if k < 0xFFFF}
    mb = {k: ob[v] for k, v in b["cmap"].getcmap(*pe).cmap.items() if k < 0xFFFF and v != ".notdef"}
    if ma != mb or len(ma) < 5000:
        sys.exit(f"cmap {pe}: {len(ma)} vs {len(mb)} characters, same: {ma == mb}")
raw = b.reader["cmap"]
for i in range(struct.unpack(">H", raw[2:4])[0]):
    pid, eid, off = struct.unpack(">HHI", raw[4 + 8 * i:12 + 8 * i])
    if struct.unpack(">H", raw[off:off + 2])[0] == 4 and struct.unpack(">H", raw[off + 6:off + 8])[0] // 2 >= 60:
        sys.exit(f"({pid},{eid}): {struct.unpack('>H', raw[off + 6:off + 8])[0] // 2} segments")
PYEOF
}
check "the cmap maps every BMP character as the source does, in < 60 segments" cmap_check
finish

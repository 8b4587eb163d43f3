#!/usr/bin/env bash
# scripts/pdf_font.py writes the same bytes on every install: two copies of
# DejaVu Sans made a second apart are identical and keep the source's
# head.modified (fontTools stamped the save time, and that stamp travels
# into every PDF, so reports of the same run differed between machines
# even with SOURCE_DATE_EPOCH set).
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
finish

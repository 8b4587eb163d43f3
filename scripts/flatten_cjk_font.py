#!/usr/bin/env python3
"""Write a copy of a TrueType CJK font whose composite glyphs are flattened.

libharu 2.3 (Debian 12) loses the strokes of composite glyphs whose
components have glyph ids above 32767 when it embeds a TrueType font; the
sans CJK faces Debian ships as TrueType (WenQuanYi Micro Hei: 49,531 glyphs,
31,440 of them composite) are such fonts. Decomposing every composite glyph
into a simple one (fontTools, Debian python3-fonttools) gives the same
outlines with no component references, which libharu embeds intact.
Layout tables (GSUB, GPOS, GDEF) are dropped: the PDF writer does no shaping.

usage: flatten_cjk_font.py SRC.ttc|SRC.ttf DST.ttf   (face 0 of a collection)
"""
import os
import sys

from fontTools.pens.recordingPen import DecomposingRecordingPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont


def main(src: str, dst: str) -> int:
    font = TTCollection(src).fonts[0] if src.endswith(".ttc") else TTFont(src)
    glyphs, glyf = font.getGlyphSet(), font["glyf"]
    flattened = 0
    for name in font.getGlyphOrder():
        if glyf[name].isComposite():
            rec = DecomposingRecordingPen(glyphs)
            glyphs[name].draw(rec)
            pen = TTGlyphPen(None)
            rec.replay(pen)
            simple = pen.glyph()
            simple.recalcBounds(glyf)
            glyf[name] = simple
            flattened += 1
    for tag in ("GSUB", "GPOS", "GDEF", "FFTM"):
        if tag in font:
            del font[tag]
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    tmp = dst + ".tmp"
    font.save(tmp)
    os.replace(tmp, dst)
    print(f"{dst}: {flattened} composite glyphs flattened")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))

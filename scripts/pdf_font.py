#!/usr/bin/env python3
"""Write a copy of a TrueType font made for embedding by libharu 2.3.

libharu embeds a TrueType face with every table it reads, keeping only the
outlines of the glyphs a document uses. What it carries along that the PDF
never needs is dropped here (fontTools, Debian python3-fonttools):
- the hinting (fpgm, prep, cvt, gasp, hdmx, LTSH, VDMX and each glyph's
  instructions): PDF viewers rasterise outlines unhinted or auto-hint them,
  and pango lays out the figures unhinted too;
- the glyph names (post format 3) and the layout tables (GSUB, GPOS, GDEF,
  kern, MATH, FFTM): the PDF writer does no shaping.
For DejaVu Sans this takes the embedded font from 151 KB to about 90 KB
uncompressed per face; the outlines and advance widths are unchanged, so
text measures and looks the same.

--flatten also decomposes composite glyphs into simple ones: libharu 2.3
loses the strokes of composites whose components have glyph ids above
32767, which the sans CJK faces Debian ships as TrueType have (WenQuanYi
Micro Hei: 49,531 glyphs, 31,440 of them composite).

usage: pdf_font.py [--flatten] SRC.ttc|SRC.ttf DST.ttf   (face 0 of a collection)
"""
import os
import sys

from fontTools.pens.recordingPen import DecomposingRecordingPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont
from fontTools.ttLib.tables import ttProgram

DROP = ("GSUB", "GPOS", "GDEF", "FFTM", "kern", "MATH", "fpgm", "prep", "cvt ", "gasp",
        "hdmx", "LTSH", "VDMX")


def main(args: list) -> int:
    flatten = "--flatten" in args
    paths = [a for a in args if a != "--flatten"]
    if len(paths) != 2:
        sys.exit(__doc__)
    src, dst = paths
    # recalcTimestamp=False: head.modified stays the source font's, so two
    # installs write byte-identical files (fontTools stamps the save time
    # otherwise, and that stamp is embedded in every PDF)
    font = (TTCollection(src, recalcTimestamp=False).fonts[0] if src.endswith(".ttc")
            else TTFont(src, recalcTimestamp=False))
    glyphs, glyf = font.getGlyphSet(), font["glyf"]
    flattened = 0
    for name in font.getGlyphOrder():
        g = glyf[name]
        if flatten and g.isComposite():
            rec = DecomposingRecordingPen(glyphs)
            glyphs[name].draw(rec)
            pen = TTGlyphPen(None)
            rec.replay(pen)
            g = pen.glyph()
            g.recalcBounds(glyf)
            glyf[name] = g
            flattened += 1
        if hasattr(g, "program"):
            g.program = ttProgram.Program()
            g.program.fromBytecode(b"")
    for tag in DROP:
        if tag in font:
            del font[tag]
    font["maxp"].maxSizeOfInstructions = 0
    font["head"].flags &= ~(1 << 4)      # "instructions may alter advance widths": none left
    post = font["post"]
    post.formatType = 3.0
    post.extraNames, post.mapping = [], {}
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    tmp = dst + ".tmp"
    font.save(tmp)
    os.replace(tmp, dst)
    print(f"{dst}: {os.path.getsize(dst)} bytes" + (f", {flattened} composite glyphs flattened" if flatten else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

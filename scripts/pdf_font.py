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

The Unicode BMP cmap (format 4) is rewritten with fewer segments (short
runs of mapped code points closer than 64 apart share one, their gaps mapped
to glyph 0 through the glyph id array; runs of 64 and more keep their own):
libharu 2.3 builds a 65,536-entry CID-to-glyph map for every face by a
linear search of the segments for each code point, 183 segments on average
for DejaVu Sans's 241 runs, about 33 for the 51 written here (about 25 ms of
CPU per report, for ~5 KB more font data in each PDF). A face whose table
would pass format 4's 64 KB keeps fontTools' own.

--flatten also decomposes composite glyphs into simple ones: libharu 2.3
loses the strokes of composites whose components have glyph ids above
32767, which the sans CJK faces Debian ships as TrueType have (WenQuanYi
Micro Hei: 49,531 glyphs, 31,440 of them composite).

usage: pdf_font.py [--flatten] SRC.ttc|SRC.ttf DST.ttf   (face 0 of a collection)
"""
import os
import struct
import sys

from fontTools.pens.recordingPen import DecomposingRecordingPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont
from fontTools.ttLib.tables import ttProgram
from fontTools.ttLib.tables.DefaultTable import DefaultTable

DROP = ("GSUB", "GPOS", "GDEF", "FFTM", "kern", "MATH", "fpgm", "prep", "cvt ", "gasp",
        "hdmx", "LTSH", "VDMX")


MERGE_GAP = 64    # code points between two short runs that still share a segment
LONG_RUN = 64     # a run of consecutive codes and glyph ids this long keeps its own segment


def format4_merged(bmp: dict):
    """The bytes of a format 4 subtable mapping code -> glyph id (bmp, code
    points below 0xFFFF) in few segments: a run of at least LONG_RUN
    consecutive code points with consecutive glyph ids is one segment
    through idDelta, as usual; shorter runs closer than MERGE_GAP share a
    segment through the glyph id array, their gaps mapped to glyph 0; then
    the closing 0xFFFF segment. None when it would pass 65,535 bytes."""
    runs = []
    for c in sorted(k for k in bmp if k < 0xFFFF):
        if runs and c == runs[-1][1] + 1 and bmp[c] - c == bmp[runs[-1][0]] - runs[-1][0]:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    segs = []   # [first, last, uses the array]
    for lo, hi in runs:
        if hi - lo + 1 >= LONG_RUN:
            segs.append([lo, hi, False])
        elif segs and segs[-1][2] and lo - segs[-1][1] <= MERGE_GAP:
            segs[-1][1] = hi
        else:
            segs.append([lo, hi, True])
    n = len(segs) + 1
    array, offsets, deltas = [], [], []
    for i, (lo, hi, arr) in enumerate(segs):
        if arr:
            offsets.append(2 * (n - i) + 2 * len(array))   # from idRangeOffset[i] to its first entry
            deltas.append(0)
            array.extend(bmp.get(c, 0) for c in range(lo, hi + 1))
        else:
            offsets.append(0)
            deltas.append((bmp[lo] - lo) & 0xFFFF)
    length = 16 + 8 * n + 2 * len(array)
    if length > 0xFFFF:
        return None
    ends = [hi for lo, hi, arr in segs] + [0xFFFF]
    starts = [lo for lo, hi, arr in segs] + [0xFFFF]
    deltas.append(1)
    offsets.append(0)
    search = 2 * (1 << (n.bit_length() - 1))
    head = struct.pack(">7H", 4, length, 0, 2 * n, search, search.bit_length() - 2, 2 * n - search)
    body = struct.pack(f">{n}H", *ends) + b"\0\0" + struct.pack(f">{n}H", *starts)
    body += struct.pack(f">{n}H", *deltas) + struct.pack(f">{n}H", *offsets)
    return head + body + struct.pack(f">{len(array)}H", *array)


def merged_cmap(font):
    """A raw 'cmap' table: the Unicode BMP subtables (0,3) and (3,1) as
    format4_merged writes them, the other subtables as fontTools compiles
    them; None when the BMP table cannot be merged."""
    cmap = font["cmap"]
    bmp_sub = cmap.getcmap(3, 1)
    if bmp_sub is None:
        return None
    order = font.getReverseGlyphMap()
    bmp = {c: order[name] for c, name in bmp_sub.cmap.items() if c < 0xFFFF}
    fmt4 = format4_merged(bmp)
    if fmt4 is None:
        return None
    subs = []
    for t in sorted(cmap.tables, key=lambda t: (t.platformID, t.platEncID)):
        if t.format == 4 and (t.platformID, t.platEncID) in ((0, 3), (3, 1)):
            subs.append((t.platformID, t.platEncID, fmt4))
        else:
            subs.append((t.platformID, t.platEncID, t.compile(font)))
    out = struct.pack(">HH", 0, len(subs))
    data = b""
    offset = 4 + 8 * len(subs)
    for pid, eid, blob in subs:
        out += struct.pack(">HHI", pid, eid, offset + len(data))
        data += blob
    return out + data


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
    raw = merged_cmap(font)
    if raw is not None:
        table = DefaultTable("cmap")
        table.data = raw
        font["cmap"] = table
    os.makedirs(os.path.dirname(os.path.abspath(dst)), exist_ok=True)
    tmp = dst + ".tmp"
    font.save(tmp)
    os.replace(tmp, dst)
    print(f"{dst}: {os.path.getsize(dst)} bytes" + (f", {flattened} composite glyphs flattened" if flatten else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

/*
 * Private to src/report: the UTF-8 line breaker used by pdf_doc.c.
 */
#ifndef BR_REPORT_PDF_TEXT_H
#define BR_REPORT_PDF_TEXT_H

#include <stddef.h>
#include <hpdf.h>

/* One output line: bytes [off, off+len) of the cleaned text, width in pt. */
typedef struct br_line {
	size_t off, len;
	double width_pt;
} br_line;

/*
 * br_text_clean: a copy of s that is valid UTF-8 restricted to the Basic
 * Multilingual Plane: invalid bytes become U+FFFD, a character above
 * U+FFFF (an emoji, which the embedded fonts cannot draw) its code point
 * as text, "[U+1F680]", so the user's text is not silently altered; a BOM
 * becomes U+FFFD, tabs become spaces, '\r' and other control characters except '\n'
 * are dropped, as are the bidi embedding, override and isolate controls
 * (U+202A-U+202E, U+2066-U+2069: an input's name must not reorder the
 * report's own text). NULL gives "". Returns a malloc'd string.
 */
char *br_text_clean(const char *s);

/*
 * Fonts: every function takes the main font and an optional fallback `alt`
 * (NULL = none) used for the characters br_text_is_alt() selects (CJK,
 * Hangul, full-width forms: DejaVu has no glyphs for them).
 */
int br_text_is_alt(unsigned cp);
/* br_text_has_alt: 1 when the cleaned string contains such a character. */
int br_text_has_alt(const char *s);

/*
 * br_text_run: the font for the run of characters starting at s (at most
 * len bytes) and the run's length in bytes in *run_len (> 0 when len > 0).
 */
HPDF_Font br_text_run(HPDF_Font font, HPDF_Font alt, const char *s, size_t len, size_t *run_len);

/* br_text_cache_reset: forget the measured widths (call when a document,
 * whose font handles the cache is keyed by, is created or freed). */
void br_text_cache_reset(void);

/*
 * br_text_width: width in points of the cleaned UTF-8 string s (len bytes)
 * at size, each run measured in its font with HPDF_Font_TextWidth (what
 * HPDF_Page_TextWidth uses).
 */
double br_text_width(HPDF_Font font, HPDF_Font alt, double size, const char *s, size_t len);

/*
 * br_text_break: break cleaned UTF-8 text into lines no wider than max_pt.
 * Breaks at '\n' (hard), at spaces (which are dropped at the break), after
 * '/', '-', '_' and '\\', after the dot of a dotted name (a letter on both
 * sides: "Mode.RECOMPUTE", never "0.82"), inside camelCase (lower then upper
 * case: "GeForce"), and between CJK characters; a word longer than a
 * line is broken between characters; a UTF-8 sequence is never split. Each
 * line holds at least one character, so a line can only exceed max_pt when
 * a single character is wider than max_pt. An empty text gives one empty
 * line. Out: *lines (malloc'd). Returns the number of lines.
 */
size_t br_text_break(HPDF_Font font, HPDF_Font alt, double size, const char *s, double max_pt, br_line **lines);

/*
 * br_text_min_width: width in points of the widest piece of s (len bytes,
 * cleaned) that br_text_break keeps on one line when it can: a run between
 * spaces, or one CJK character with the punctuation that may not be
 * separated from it. A column this wide never breaks a number or a word.
 */
double br_text_min_width(HPDF_Font font, HPDF_Font alt, double size, const char *s, size_t len);

/*
 * br_text_fit: the byte length of the longest prefix of s (cleaned) that,
 * followed by "…", fits in max_pt; returns strlen(s) when s fits whole.
 */
size_t br_text_fit(HPDF_Font font, HPDF_Font alt, double size, const char *s, double max_pt, int *truncated);

/*
 * br_text_visual: the cleaned UTF-8 line s (len bytes) in visual order for
 * drawing left to right, by the Unicode Bidirectional Algorithm (fribidi),
 * Arabic letters in their joined presentation forms: a run name in Hebrew
 * or Arabic reads as it does in the PNG figures (pango). Paragraph
 * direction left-to-right (auto_dir 0: report text) or from the first
 * strong character (auto_dir 1: a figure label, as pango lays it out).
 * Returns a malloc'd string, or NULL when s has no right-to-left character
 * or bidi control (then s is drawn as it is).
 */
char *br_text_visual(const char *s, size_t len, int auto_dir);

/*
 * br_text_show: show cleaned UTF-8 s (len bytes) inside a text object
 * (between HPDF_Page_BeginText and EndText), one ShowText per run of
 * characters in the same font (alt for br_text_is_alt characters), at
 * `size`, in colour (r, g, b). The text matrix of each run is
 * [a b c d e f] with (e, f) the pen, which starts at (x, y) and advances by
 * (a, b) per point of run width, so [1 0 0 1 x y] is plain horizontal text.
 * fake_bold: alt runs are filled and stroked (0.02 em, round joins), since
 * the CJK face has no bold. Returns the width in points.
 */
double br_text_show(HPDF_Page page, HPDF_Font font, HPDF_Font alt, int fake_bold, double size,
    double a, double b, double c, double d, double x, double y, const char *s, size_t len,
    double r, double g, double bl);

#endif

/*
 * PDF document layer: a flowing A4 layout on top of libharu 2.3.
 *
 * The document keeps a cursor (d->y, the top of the next block in PDF
 * coordinates, origin bottom-left) on the current page; every block asks
 * need() for its height first and moves to a new page when it does not fit.
 * Running headers and "page i of n" footers are drawn at save time when the
 * page count is known. Text is UTF-8 in embedded DejaVu TrueType fonts and
 * is wrapped by br_text_break (pdf_text.c).
 *
 * libharu errors are sticky (every later call fails until HPDF_ResetError);
 * the error handler records the first one and resets, and br_pdf_save fails
 * with it. Every coordinate passes through finite checks before it reaches
 * libharu, since a NaN would silently corrupt the file.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <glib.h>
#include <hpdf.h>
#include <hpdf_objects.h>
#include <hpdf_fontdef.h>
#include <hpdf_font.h>
#include <hpdf_streams.h>

#include "benchreport/common.h"
#include "benchreport/report.h"
#include "report/pdf_text.h"
#include "report/pdf_vector.h"

/* Where scripts/deps.sh writes the faces made for embedding (pdf_font.py),
 * tried before the system's own files. */
#define OWN_FONTS_LOCAL "/usr/local/share/benchreport/fonts/"
#define OWN_FONTS_PREFIX BR_INSTALL_PREFIX "/share/benchreport/fonts/"
#define DEJAVU_DIR "/usr/share/fonts/truetype/dejavu/"

/*
 * TrueType (not CFF) fonts with CJK glyphs for the characters DejaVu lacks,
 * tried in order; `index` is the face in a .ttc collection. libharu 2.3
 * drops the strokes of composite glyphs whose components have glyph ids
 * above 32767, which the sans CJK faces Debian ships as TrueType have
 * (WenQuanYi Micro Hei, ~49,500 glyphs), so the first choice is that face
 * with its composites flattened, written by scripts/deps.sh
 * (scripts/pdf_font.py --flatten); then AR PL UMing (Debian
 * fonts-arphic-uming, 27,123 glyphs, no composites above 32767; a Ming
 * face, face 0 = "AR PL UMing CN"). BR_CJK_FONT names another TrueType
 * file to try first.
 */
static const struct {
	const char *path;
	int index;
} cjk_fonts[] = {
	{OWN_FONTS_LOCAL "wqy-microhei-pdf.ttf", 0},
	{OWN_FONTS_PREFIX "wqy-microhei-pdf.ttf", 0},
	{"/usr/share/fonts/truetype/arphic/uming.ttc", 0},
};

/* Page geometry in points: A4 portrait. */
#define PAGE_W 595.276
#define PAGE_H 841.89
#define MARGIN 56.0
#define TOP_Y (PAGE_H - MARGIN)
#define BOTTOM_Y MARGIN
#define TEXT_W (PAGE_W - 2 * MARGIN)

/* Type sizes (pt) and leading factor. */
#define BODY_PT 9.75
#define NOTE_PT 8.25
#define H1_PT 16.0
#define H2_PT 12.0
#define LEAD 1.38
#define TITLE_MAX_LINES 3   /* a title, subtitle or heading longer than this ends in "…" */

struct br_pdf {
	HPDF_Doc pdf;
	HPDF_Font regular, bold;   /* (DejaVu Sans Mono is not loaded: no text uses it) */
	HPDF_Font alt;             /* CJK fallback, loaded on first use */
	const br_template *phrases; /* borrowed, see br_pdf_info */
	int alt_tried;
	HPDF_Encoder enc;
	HPDF_Page page;            /* current page, NULL before the first */
	HPDF_Page *pages;
	size_t n_pages, cap_pages;
	double y;                  /* cursor: top of the next block */
	int page_used;             /* something drawn on the current page */
	int decorated;             /* headers/footers added (by the first save) */
	HPDF_Outline last_l1;
	char *title;               /* running header text (cleaned) */
	char *page_footer;         /* footer pattern with {n} and {total} */
	HPDF_STATUS err, err_detail;
	const char *err_what;      /* operation during which err happened */
	const char *doing;         /* current operation, for error messages */
	br_vec_alpha alphas;       /* ExtGStates of the vector figures */
	char *pending_heading;     /* br_pdf_heading's text, drawn with the next block */
	int pending_level;
};

/* the room a heading keeps for the text after it: three body lines */
#define KEEP_TEXT (3 * BODY_PT * LEAD)
static void flush_heading(br_pdf *d, double keep);

/* on_error: libharu error callback; keeps the first error, then resets the
 * sticky state so later calls work and the failure is reported on save. */
static void
on_error(HPDF_STATUS error_no, HPDF_STATUS detail_no, void *user_data)
{
	br_pdf *d = user_data;
	if (d->err == HPDF_OK) {
		d->err = error_no;
		d->err_detail = detail_no;
		d->err_what = d->doing;
	}
	if (d->pdf)
		HPDF_ResetError(d->pdf);
}

/* fin: a finite coordinate (NaN/Inf → 0) so libharu never writes "nan". */
static HPDF_REAL
fin(double v)
{
	return isfinite(v) ? (HPDF_REAL)v : 0.0f;
}

/* new_page: append an A4 page and put the cursor at its top margin. */
static void
new_page(br_pdf *d)
{
	d->doing = "adding a page";
	HPDF_Page p = HPDF_AddPage(d->pdf);
	if (p == NULL)
		return;
	HPDF_Page_SetWidth(p, (HPDF_REAL)PAGE_W);
	HPDF_Page_SetHeight(p, (HPDF_REAL)PAGE_H);
	if (d->n_pages == d->cap_pages) {
		d->cap_pages = d->cap_pages ? d->cap_pages * 2 : 16;
		d->pages = br_xrealloc(d->pages, d->cap_pages * sizeof *d->pages);
	}
	d->pages[d->n_pages++] = p;
	d->page = p;
	d->y = TOP_Y;
	d->page_used = 0;
}

/*
 * need: make room for a block h points tall: start a page when there is
 * none, or when the block does not fit below the cursor and the current
 * page already has content (a block taller than a page is drawn anyway).
 */
static void
need(br_pdf *d, double h)
{
	if (d->page == NULL)
		new_page(d);
	else if (d->y - h < BOTTOM_Y && d->page_used)
		new_page(d);
}

/* draw_text: one line of cleaned UTF-8 at baseline (x, y) in grey level g. */
static void
draw_text(br_pdf *d, HPDF_Font f, double size, double x, double y, const char *s, size_t len,
    double r, double g, double b)
{
	if (len == 0 || d->page == NULL || !isfinite(x) || !isfinite(y))
		return;
	char *vis = br_text_visual(s, len, 0);
	HPDF_Page_BeginText(d->page);
	br_text_show(d->page, f, d->alt, f == d->bold, size, 1, 0, 0, 1, x, y, vis ? vis : s,
	    vis ? strlen(vis) : len, r, g, b);
	free(vis);
	HPDF_Page_EndText(d->page);
	d->page_used = 1;
}

/* fill_rect / stroke_rect / hline: simple vector marks. */
static void
fill_rect(br_pdf *d, double x, double y, double w, double h, double r, double g, double b)
{
	if (!isfinite(x) || !isfinite(y) || !isfinite(w) || !isfinite(h) || w <= 0 || h <= 0)
		return;
	HPDF_Page_SetRGBFill(d->page, (HPDF_REAL)r, (HPDF_REAL)g, (HPDF_REAL)b);
	HPDF_Page_Rectangle(d->page, fin(x), fin(y), fin(w), fin(h));
	HPDF_Page_Fill(d->page);
}

static void
box(br_pdf *d, double x, double y, double w, double h, double fillg, double strokeg)
{
	if (!isfinite(x) || !isfinite(y) || !isfinite(w) || !isfinite(h) || w <= 0 || h <= 0)
		return;
	HPDF_Page_SetGrayFill(d->page, (HPDF_REAL)fillg);
	HPDF_Page_SetGrayStroke(d->page, (HPDF_REAL)strokeg);
	HPDF_Page_SetLineWidth(d->page, 0.6f);
	HPDF_Page_Rectangle(d->page, fin(x), fin(y), fin(w), fin(h));
	HPDF_Page_FillStroke(d->page);
}

static void
hline(br_pdf *d, double x0, double x1, double y, double width, double grey)
{
	if (!isfinite(x0) || !isfinite(x1) || !isfinite(y))
		return;
	HPDF_Page_SetGrayStroke(d->page, (HPDF_REAL)grey);
	HPDF_Page_SetLineWidth(d->page, (HPDF_REAL)width);
	HPDF_Page_MoveTo(d->page, fin(x0), fin(y));
	HPDF_Page_LineTo(d->page, fin(x1), fin(y));
	HPDF_Page_Stroke(d->page);
}

/*
 * flow: wrap cleaned text to `width` at x and draw it line by line from the
 * cursor, breaking pages between lines (never after a first line or
 * before a last one). `keep` extra points are required below the first
 * line (keeps a heading with what follows).
 */
static void
flow(br_pdf *d, HPDF_Font f, double size, double x, double width, const char *clean,
    double grey, double keep)
{
	br_line *lines;
	size_t n = br_text_break(f, d->alt, size, clean, width, &lines);
	double lead = size * LEAD;
	for (size_t i = 0; i < n; i++) {
		/* no line alone at a page's foot or head: a paragraph of up to
		 * three lines stays whole, a longer one breaks after its second
		 * line at the earliest and before its last but one at the latest */
		double want = lead;
		if (i == 0)
			want = (n <= 3 ? (double)n : 2.0) * lead + keep;
		else if (n >= 4 && i == n - 2)
			want = 2 * lead;
		need(d, want);
		draw_text(d, f, size, x, d->y - size, clean + lines[i].off, lines[i].len, grey, grey, grey);
		d->y -= lead;
		d->page_used = 1;
	}
	free(lines);
}

/*
 * clip_lines: cleaned text that br_text_break puts on at most max_lines
 * lines of `width` points: the text itself (a copy) when it fits, else its
 * first max_lines − 1 lines and as much of the next as fits with "…" (a
 * 2,000-character run name would fill pages of title). Caller frees.
 */
static char *
clip_lines(br_pdf *d, HPDF_Font f, double size, double width, const char *clean, size_t max_lines)
{
	br_line *lines;
	size_t n = br_text_break(f, d->alt, size, clean, width, &lines);
	if (n <= max_lines || max_lines == 0) {
		free(lines);
		return br_xstrdup(clean);
	}
	size_t head = lines[max_lines - 1].off;
	free(lines);
	int truncated;
	size_t fit = br_text_fit(f, d->alt, size, clean + head, width, &truncated);
	return br_xasprintf("%.*s\xE2\x80\xA6", (int)(head + fit), clean);
}

/* set_date: creation and modification dates from SOURCE_DATE_EPOCH (when
 * it is a valid non-negative integer) or the current time, in UTC. */
static void
set_dates(br_pdf *d)
{
	time_t t = time(NULL);
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde != NULL && *sde) {
		char *end;
		errno = 0;
		long long v = strtoll(sde, &end, 10);
		if (*end == '\0' && errno == 0 && v >= 0)
			t = (time_t)v;
	}
	struct tm tm;
	gmtime_r(&t, &tm);
	HPDF_Date date = {
		.year = tm.tm_year + 1900, .month = tm.tm_mon + 1, .day = tm.tm_mday,
		.hour = tm.tm_hour, .minutes = tm.tm_min, .seconds = tm.tm_sec,
		.ind = 'Z', .off_hour = 0, .off_minutes = 0,
	};
	HPDF_SetInfoDateAttr(d->pdf, HPDF_INFO_CREATION_DATE, date);
	HPDF_SetInfoDateAttr(d->pdf, HPDF_INFO_MOD_DATE, date);
}

/* set_info: one document-info string (skipped when NULL or empty). */
static void
set_info(br_pdf *d, HPDF_InfoType type, const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	char *c = br_text_clean(value);
	HPDF_SetInfoAttr(d->pdf, type, c);
	free(c);
}

/*
 * to_unicode_cmap: the text of a ToUnicode CMap (PDF 1.7 §9.10.3) for
 * libharu's UTF-8 encoding of a TrueType font: the codes written into the
 * page are 2-byte Identity-H CIDs equal to the Unicode code points of the
 * Basic Multilingual Plane (libharu 2.3 hpdf_encoder_utf.c), so every code
 * maps to itself. A bfrange may only vary the last byte, so there is one
 * range per high byte (the surrogate block D800–DFFF left out), at most
 * 100 per beginbfrange block. Built once; static storage.
 */
static const char *
to_unicode_cmap(void)
{
	static char *text;
	if (text != NULL)
		return text;
	GString *g = g_string_new("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
	    "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
	    "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
	    "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n");
	int hi[256], n = 0;
	for (int h = 0; h < 256; h++)
		if (h < 0xD8 || h > 0xDF)
			hi[n++] = h;
	for (int i = 0; i < n; i += 100) {
		int m = n - i < 100 ? n - i : 100;
		g_string_append_printf(g, "%d beginbfrange\n", m);
		for (int k = i; k < i + m; k++)
			g_string_append_printf(g, "<%02X00> <%02XFF> <%02X00>\n", hi[k], hi[k], hi[k]);
		g_string_append(g, "endbfrange\n");
	}
	g_string_append(g, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
	text = g_string_free(g, FALSE);
	return text;
}

/*
 * fix_to_unicode: replace the ToUnicode stream libharu 2.3 gives a UTF-8
 * TrueType font (it writes the encoding's CMap there, with begincidrange,
 * which poppler rejects as "Invalid 'begincidrange' operator in ToUnicode
 * CMap" and which leaves search and copy-paste to guesswork) by a real
 * ToUnicode CMap (to_unicode_cmap). Uses libharu's object API
 * (hpdf_objects.h); a font without that stream is left as it is.
 */
static void
fix_to_unicode(HPDF_Font font)
{
	if (font == NULL)
		return;
	HPDF_Dict cmap = HPDF_Dict_GetItem(font, "ToUnicode", HPDF_OCLASS_DICT);
	if (cmap == NULL || cmap->stream == NULL)
		return;
	HPDF_MemStream_FreeData(cmap->stream);
	HPDF_Stream_WriteStr(cmap->stream, to_unicode_cmap());
	HPDF_Dict_AddName(cmap, "CMapName", "Adobe-Identity-UCS");
	HPDF_Dict_RemoveElement(cmap, "CIDSystemInfo");
	HPDF_Dict_RemoveElement(cmap, "WMode");
}

/*
 * load_font: embed the first existing file of `files` (the slimmed copy
 * scripts/deps.sh writes, FACE-pdf.ttf with the same outlines and widths,
 * then the system's FACE.ttf; string literals, since an error message may
 * name them later) and return it in UTF-8 encoding, with a correct
 * ToUnicode map (fix_to_unicode).
 */
#define FACE_FILES(face) \
	{ OWN_FONTS_LOCAL face "-pdf.ttf", OWN_FONTS_PREFIX face "-pdf.ttf", DEJAVU_DIR face ".ttf" }
static HPDF_Font
load_font(br_pdf *d, const char *const files[3])
{
	const char *file = files[2];
	for (int i = 0; i < 2; i++)
		if (br_is_file(files[i])) {
			file = files[i];
			break;
		}
	d->doing = file;
	const char *name = HPDF_LoadTTFontFromFile(d->pdf, file, HPDF_TRUE);
	if (name == NULL)
		return NULL;
	HPDF_Font f = HPDF_GetFont(d->pdf, name, "UTF-8");
	fix_to_unicode(f);
	return f;
}

/* be16, be32 of a font file. */
static unsigned
be16f(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

static uint32_t
be32f(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * font_problem: why the TrueType file at path (face `index` of a .ttc)
 * cannot be handed to libharu, or NULL when its table directory is sound:
 * an sfnt with TrueType outlines (not CFF, which libharu 2.3 cannot embed),
 * every table inside the file, and the tables libharu reads (head, hhea,
 * hmtx, maxp, cmap, loca, glyf, name) present. libharu's loader trusts the
 * directory and crashes on a file that is not a font. Returns a static
 * string.
 */
static const char *
font_problem(const char *path, int index)
{
	char *buf = NULL;
	size_t n = 0;
	if (br_read_file(path, &buf, &n, NULL) != 0)
		return "cannot be read";
	const unsigned char *b = (const unsigned char *)buf;
	const char *why = NULL;
	size_t off = 0;
	if (n >= 12 && memcmp(b, "ttcf", 4) == 0) {
		uint32_t nf = be32f(b + 8);
		if (index < 0 || (uint32_t)index >= nf || n < 12 + 4 * ((size_t)index + 1))
			why = "a font collection without that face";
		else
			off = be32f(b + 12 + 4 * (size_t)index);
	}
	if (why == NULL && (off > n || n - off < 12))
		why = "not a TrueType font (too short)";
	if (why == NULL) {
		const unsigned char *h = b + off;
		uint32_t version = be32f(h);
		unsigned nt = be16f(h + 4);
		static const char *const need[] = { "head", "hhea", "hmtx", "maxp", "cmap", "loca", "glyf", "name" };
		int have = 0;
		if (memcmp(h, "OTTO", 4) == 0)
			why = "an OpenType font with CFF outlines (libharu 2.3 embeds TrueType outlines only)";
		else if (version != 0x00010000u && memcmp(h, "true", 4) != 0)
			why = "not a TrueType font (no sfnt header)";
		else if (nt == 0 || nt > 256 || n - off - 12 < (size_t)nt * 16)
			why = "not a TrueType font (table directory out of the file)";
		for (unsigned t = 0; why == NULL && t < nt; t++) {
			const unsigned char *rec = h + 12 + 16 * (size_t)t;
			uint64_t to = be32f(rec + 8), tl = be32f(rec + 12);
			if (to + tl > n)
				why = "a damaged TrueType font (a table lies outside the file)";
			for (size_t k = 0; k < sizeof need / sizeof *need; k++)
				if (memcmp(rec, need[k], 4) == 0)
					have |= 1 << k;
		}
		if (why == NULL && have != (1 << (sizeof need / sizeof *need)) - 1)
			why = "a TrueType font without the tables libharu needs (head, hhea, hmtx, maxp, cmap, loca, glyf, name)";
	}
	free(buf);
	return why;
}

/* has_cjk_glyphs: 1 when the face maps U+7684 and U+4E00 ("的", "一") to glyphs. */
static int
has_cjk_glyphs(HPDF_Font f)
{
	HPDF_FontAttr attr = f ? (HPDF_FontAttr)f->attr : NULL;
	if (attr == NULL || attr->fontdef == NULL)
		return 0;
	return HPDF_TTFontDef_GetGlyphid(attr->fontdef, 0x7684) != 0 &&
	    HPDF_TTFontDef_GetGlyphid(attr->fontdef, 0x4E00) != 0;
}

/*
 * need_alt: on the first text with CJK characters (c, cleaned), load the
 * fallback font (it stays NULL, and DejaVu's missing-glyph boxes show, when
 * no such font is installed). A file that is not a usable TrueType face,
 * or one without Chinese glyphs, is passed over for the next candidate;
 * when it is the user's BR_CJK_FONT, a note on stderr says why.
 */
static void
need_alt(br_pdf *d, const char *c)
{
	if (!d->alt_tried && br_text_has_alt(c)) {
		d->alt_tried = 1;
		const char *doing = d->doing;
		const char *env = getenv("BR_CJK_FONT");
		size_t n_try = sizeof cjk_fonts / sizeof *cjk_fonts + 1;
		for (size_t i = 0; i < n_try && d->alt == NULL; i++) {
			const char *path = i == 0 ? env : cjk_fonts[i - 1].path;
			int index = i == 0 ? 0 : cjk_fonts[i - 1].index;
			if (path == NULL)
				continue;
			const char *why = br_is_file(path) ? font_problem(path, index) : "no such file";
			if (why != NULL) {
				if (i == 0)
					fprintf(stderr, "benchreport: note: BR_CJK_FONT=%s: %s; using the next CJK font\n",
					    path, why);
				continue;
			}
			HPDF_STATUS before = d->err;
			d->doing = path;
			size_t pl = strlen(path);
			const char *name = pl > 4 && strcmp(path + pl - 4, ".ttc") == 0 ?
			    HPDF_LoadTTFontFromFile2(d->pdf, path, (HPDF_UINT)index, HPDF_TRUE) :
			    HPDF_LoadTTFontFromFile(d->pdf, path, HPDF_TRUE);
			d->alt = name ? HPDF_GetFont(d->pdf, name, "UTF-8") : NULL;
			fix_to_unicode(d->alt);
			if (before == HPDF_OK && d->err != HPDF_OK) { /* unusable: forget */
				d->err = HPDF_OK;
				d->alt = NULL;
				HPDF_ResetError(d->pdf);
			}
			if (d->alt != NULL && !has_cjk_glyphs(d->alt)) {
				if (i == 0)
					fprintf(stderr, "benchreport: note: BR_CJK_FONT=%s has no Chinese glyphs "
					    "(U+7684, U+4E00); using the next CJK font\n", path);
				d->alt = NULL;   /* embedded only if text uses it: it is not */
			}
		}
		d->doing = doing;
	}
}

/* clean_text: the text translated by the document's phrases (br_pdf_info)
 * and cleaned by br_text_clean, the CJK font loaded when it needs one.
 * Returns a malloc'd string. */
static char *
clean_text(br_pdf *d, const char *s)
{
	char *tr = br_template_phrase(d->phrases, s);
	char *c = br_text_clean(tr ? tr : s);
	free(tr);
	need_alt(d, c);
	return c;
}

/*
 * doc_with_fonts: a new document with compression on, the UTF-8 encoder and
 * DejaVu Sans + Bold loaded (~35 ms of CPU: libharu builds a 65,536-entry
 * CID-to-glyph map per face by searching the cmap for each code point).
 * Touches nothing outside the document it creates, so it may run on another
 * thread (br_pdf_prepare). NULL + *cause (cause may be NULL) on failure.
 */
static br_pdf *
doc_with_fonts(char **cause)
{
	br_pdf *d = br_xcalloc(1, sizeof *d);
	d->pdf = HPDF_New(on_error, d);
	if (d->pdf == NULL) {
		if (cause)
			*cause = br_xstrdup("libharu: cannot create a PDF document");
		free(d);
		return NULL;
	}
	d->doing = "setting up UTF-8 encoding";
	HPDF_SetCompressionMode(d->pdf, HPDF_COMP_ALL);
	HPDF_UseUTFEncodings(d->pdf);
	HPDF_SetCurrentEncoder(d->pdf, "UTF-8");
	d->enc = HPDF_GetEncoder(d->pdf, "UTF-8");
	static const char *const regular[3] = FACE_FILES("DejaVuSans");
	static const char *const bold[3] = FACE_FILES("DejaVuSans-Bold");
	d->regular = load_font(d, regular);
	d->bold = load_font(d, bold);
	if (d->regular == NULL || d->bold == NULL || d->err != HPDF_OK) {
		if (cause)
			*cause = br_xasprintf("%s: cannot load font (libharu error 0x%04X, detail %u); "
			    "install fonts-dejavu-core", d->err_what ? d->err_what : DEJAVU_DIR,
			    (unsigned)d->err, (unsigned)d->err_detail);
		HPDF_Free(d->pdf);
		free(d);
		return NULL;
	}
	return d;
}

/* The document br_pdf_prepare builds on its thread; taken by the next
 * br_pdf_new, or freed by br_pdf_prepare_discard. Touched only by the
 * thread that calls those three functions (after the join). */
static GThread *prep_thread;

static gpointer
prep_run(gpointer data)
{
	(void)data;
	return doc_with_fonts(NULL);
}

/* br_pdf_prepare: see report.h. */
void
br_pdf_prepare(void)
{
	if (prep_thread == NULL)
		prep_thread = g_thread_try_new("br-pdf-fonts", prep_run, NULL, NULL);
}

/* prep_take: the prepared document (joined), or NULL when none was started
 * or its fonts did not load (br_pdf_new then loads them again, to say why). */
static br_pdf *
prep_take(void)
{
	if (prep_thread == NULL)
		return NULL;
	br_pdf *d = g_thread_join(prep_thread);
	prep_thread = NULL;
	return d;
}

/* br_pdf_prepare_discard: see report.h. */
void
br_pdf_prepare_discard(void)
{
	br_pdf *d = prep_take();
	if (d != NULL) {
		HPDF_Free(d->pdf);
		free(d);
	}
}

/* br_pdf_new: see report.h. Compression on, UTF-8 encoder, DejaVu fonts
 * embedded (from br_pdf_prepare's thread when one was started), outline
 * shown on open, info and dates set. NULL + *cause when a font does not
 * load. */
br_pdf *
br_pdf_new(const br_pdf_info *info, char **cause)
{
	br_text_cache_reset();
	br_pdf *d = prep_take();
	if (d == NULL)
		d = doc_with_fonts(cause);
	if (d == NULL)
		return NULL;
	d->doing = "setting document info";
	HPDF_SetPageMode(d->pdf, HPDF_PAGE_MODE_USE_OUTLINE);
	if (info) {
		set_info(d, HPDF_INFO_TITLE, info->title);
		set_info(d, HPDF_INFO_SUBJECT, info->subject);
		set_info(d, HPDF_INFO_AUTHOR, info->author);
		set_info(d, HPDF_INFO_KEYWORDS, info->keywords);
		d->title = clean_text(d, info->title);
	}
	d->phrases = info ? info->phrases : NULL;
	d->page_footer = br_xstrdup(info && info->page_footer ? info->page_footer : "page {n} of {total}");
	set_info(d, HPDF_INFO_CREATOR, "benchreport");
	set_info(d, HPDF_INFO_PRODUCER, "benchreport (libharu)");
	set_dates(d);
	return d;
}

/* br_pdf_title: 22 pt bold title and an 11 pt grey subtitle, both wrapped,
 * then a rule. NULL subtitle is skipped. */
void
br_pdf_title(br_pdf *d, const char *title, const char *subtitle)
{
	if (d == NULL)
		return;
	flush_heading(d, KEEP_TEXT);
	need(d, 60);
	d->doing = "title";
	char *c = clean_text(d, title), *t = clip_lines(d, d->bold, 22, TEXT_W, c, TITLE_MAX_LINES);
	free(c);
	d->y -= 10;
	flow(d, d->bold, 22, MARGIN, TEXT_W, t, 0.05, 0);
	free(t);
	if (subtitle && *subtitle) {
		c = clean_text(d, subtitle);
		char *s = clip_lines(d, d->regular, 11, TEXT_W, c, TITLE_MAX_LINES);
		free(c);
		d->y -= 2;
		flow(d, d->regular, 11, MARGIN, TEXT_W, s, 0.35, 0);
		free(s);
	}
	d->y -= 6;
	hline(d, MARGIN, MARGIN + TEXT_W, d->y, 1.0, 0.3);
	d->y -= 16;
	d->page_used = 1;
}

/* draw_heading: br_pdf_heading's drawing, kept with `keep` points of what
 * follows (3 body lines for text, the whole figure for a figure). */
static void
draw_heading(br_pdf *d, int level, const char *utf8, double keep)
{
	d->doing = "heading";
	int short_chapter = level == BR_PDF_SHORT_CHAPTER;
	if (short_chapter)
		level = 1;
	double size = level <= 1 ? H1_PT : H2_PT;
	char *c = clean_text(d, utf8), *t = clip_lines(d, d->bold, size, TEXT_W, c, TITLE_MAX_LINES);
	free(c);
	/* a chapter starts a new page, unless the page holds only the tail of
	 * the one before (two thirds of it still free: no page of a few lines),
	 * or it is a short chapter and a third is free */
	double free_share = d->page != NULL ? (d->y - BOTTOM_Y) / (TOP_Y - BOTTOM_Y) : 0;
	if (level <= 1 && d->page != NULL && d->page_used && free_share >= (short_chapter ? 1.0 / 3 : 2.0 / 3)) {
		d->y -= 18;
	} else if (level <= 1) {
		if (d->page == NULL || d->page_used)
			new_page(d);
	} else if (d->page_used) {
		d->y -= 8;
	}
	/* keep the heading with the start of what follows */
	need(d, size * LEAD + keep);
	double top = d->y;
	HPDF_Page page = d->page;
	flow(d, d->bold, size, MARGIN, TEXT_W, t, 0.0, keep);
	if (level <= 1) {
		d->y -= 2;
		hline(d, MARGIN, MARGIN + TEXT_W, d->y, 0.5, 0.6);
		d->y -= 8;
	} else {
		d->y -= 3;
	}
	/* bookmark: level 2 nests under the last level 1 */
	d->doing = "bookmark";
	HPDF_Outline parent = (level >= 2) ? d->last_l1 : NULL;
	HPDF_Outline o = HPDF_CreateOutline(d->pdf, parent, t, d->enc);
	if (o != NULL && page != NULL) {
		HPDF_Destination dst = HPDF_Page_CreateDestination(page);
		if (dst) {
			HPDF_Destination_SetFitH(dst, fin(top + 4)); /* SetXYZ rejects zoom 0 */
			HPDF_Outline_SetDestination(o, dst);
		}
		if (level <= 1) {
			HPDF_Outline_SetOpened(o, HPDF_TRUE);
			d->last_l1 = o;
		}
	}
	free(t);
}

/* flush_heading: draw the pending heading (if any) kept with `keep` points
 * of the block about to be drawn. Every block calls it first, so a heading
 * never ends a page with its block on the next one. */
static void
flush_heading(br_pdf *d, double keep)
{
	if (d->pending_heading == NULL)
		return;
	char *t = d->pending_heading;
	d->pending_heading = NULL;
	draw_heading(d, d->pending_level, t, keep);
	free(t);
}

/* br_pdf_heading: level 1 (16 pt, rule below) starts a new page unless the
 * current one is empty or holds only a few lines (two thirds still free);
 * BR_PDF_SHORT_CHAPTER is a level-1 heading of a chapter of a few lines,
 * which continues the page while a third of it is free; level 2 (12 pt)
 * continues. Drawn with the next block and kept with it: three body lines
 * of text, a whole figure. Adds a bookmark to the heading's position. */
void
br_pdf_heading(br_pdf *d, int level, const char *utf8)
{
	if (d == NULL)
		return;
	flush_heading(d, KEEP_TEXT);   /* a heading right after a heading */
	d->pending_heading = br_xstrdup(utf8 ? utf8 : "");
	d->pending_level = level;
}

/* br_pdf_paragraph: body text (9.75 pt), wrapped and flowing across pages. */
void
br_pdf_paragraph(br_pdf *d, const char *utf8)
{
	if (d == NULL)
		return;
	flush_heading(d, KEEP_TEXT);
	d->doing = "paragraph";
	char *t = clean_text(d, utf8);
	flow(d, d->regular, BODY_PT, MARGIN, TEXT_W, t, 0.1, 0);
	d->y -= 5;
	free(t);
}

/* br_pdf_note: a small grey paragraph. */
void
br_pdf_note(br_pdf *d, const char *utf8)
{
	if (d == NULL)
		return;
	flush_heading(d, KEEP_TEXT);
	d->doing = "note";
	char *t = clean_text(d, utf8);
	flow(d, d->regular, NOTE_PT, MARGIN, TEXT_W, t, 0.42, 0);
	d->y -= 4;
	free(t);
}

/* br_pdf_bullets: "•" items with a hanging indent; NULL items print empty. */
void
br_pdf_bullets(br_pdf *d, const char *const *items, size_t n)
{
	if (d == NULL || items == NULL)
		return;
	flush_heading(d, KEEP_TEXT);
	d->doing = "bullets";
	const double indent = 16, lead = BODY_PT * LEAD;
	for (size_t i = 0; i < n; i++) {
		char *t = clean_text(d, items[i]);
		br_line *lines;
		size_t nl = br_text_break(d->regular, d->alt, BODY_PT, t, TEXT_W - indent, &lines);
		for (size_t k = 0; k < nl; k++) {
			need(d, lead);
			double base = d->y - BODY_PT;
			if (k == 0)
				draw_text(d, d->regular, BODY_PT, MARGIN + 4, base, "\xE2\x80\xA2", 3, 0.1, 0.1, 0.1);
			draw_text(d, d->regular, BODY_PT, MARGIN + indent, base, t + lines[k].off,
			    lines[k].len, 0.1, 0.1, 0.1);
			d->y -= lead;
			d->page_used = 1;
		}
		d->y -= 2;
		free(lines);
		free(t);
	}
	d->y -= 4;
}

/* br_pdf_page_break: a new page unless the current one is still empty. */
void
br_pdf_page_break(br_pdf *d)
{
	if (d == NULL)
		return;
	flush_heading(d, KEEP_TEXT);
	if (d->page == NULL || d->page_used)
		new_page(d);
}

/* ------------------------------------------------------------------ */
/* cards                                                               */
/* ------------------------------------------------------------------ */

/* br_pdf_cards: boxes of (grey label, bold value), 3 or 4 per row (4 when
 * that fills the rows better; one or two cards share the row's whole width,
 * so a single card is a callout across the page); labels and values wrap
 * inside the box and a row moves to the next page whole. */
void
br_pdf_cards(br_pdf *d, const char *const *labels, const char *const *values, size_t n)
{
	if (d == NULL || n == 0)
		return;
	flush_heading(d, KEEP_TEXT);
	d->doing = "cards";
	size_t cols = n <= 2 ? n : (n % 4 == 0 || (n > 6 && n % 3 != 0)) ? 4 : 3;
	const double gap = 8, pad = 7, lab_pt = 7.5, val_pt = cols == 4 ? 12.0 : 13.0;
	double w = (TEXT_W - gap * (double)(cols - 1)) / (double)cols;
	for (size_t r0 = 0; r0 < n; r0 += cols) {
		size_t m = n - r0 < cols ? n - r0 : cols;
		char *lab[4], *val[4];
		br_line *ll[4], *vl[4];
		size_t nll[4], nvl[4];
		double h = 0;
		for (size_t k = 0; k < m; k++) {
			lab[k] = clean_text(d, labels ? labels[r0 + k] : "");
			val[k] = clean_text(d, values ? values[r0 + k] : "");
			nll[k] = br_text_break(d->regular, d->alt, lab_pt, lab[k], w - 2 * pad, &ll[k]);
			nvl[k] = br_text_break(d->bold, d->alt, val_pt, val[k], w - 2 * pad, &vl[k]);
			double hk = 2 * pad + (double)nll[k] * lab_pt * LEAD + 3 + (double)nvl[k] * val_pt * 1.2;
			if (hk > h)
				h = hk;
		}
		need(d, h + gap);
		for (size_t k = 0; k < m; k++) {
			double x = MARGIN + (double)k * (w + gap);
			box(d, x, d->y - h, w, h, 0.965, 0.78);
			double y = d->y - pad;
			for (size_t i = 0; i < nll[k]; i++) {
				draw_text(d, d->regular, lab_pt, x + pad, y - lab_pt, lab[k] + ll[k][i].off,
				    ll[k][i].len, 0.4, 0.4, 0.4);
				y -= lab_pt * LEAD;
			}
			y -= 3;
			for (size_t i = 0; i < nvl[k]; i++) {
				draw_text(d, d->bold, val_pt, x + pad, y - val_pt, val[k] + vl[k][i].off,
				    vl[k][i].len, 0.05, 0.05, 0.05);
				y -= val_pt * 1.2;
			}
			free(ll[k]);
			free(vl[k]);
			free(lab[k]);
			free(val[k]);
		}
		d->y -= h + gap;
		d->page_used = 1;
	}
	d->y -= 6;
}

/* ------------------------------------------------------------------ */
/* tables                                                              */
/* ------------------------------------------------------------------ */

/* A table cell after wrapping. */
typedef struct cell {
	char *text;
	br_line *lines;
	size_t n_lines;
	int truncated;   /* lines dropped: the row would not fit on a page */
} cell;

/*
 * column_widths: for each column its natural width nat[c] (the widest cell
 * or header on one line) and its minimum width minw[c] (the widest word,
 * i.e. run without spaces, so numbers and ids never wrap), both including
 * the padding, at font size fs. The header is measured in bold; minc[c] is
 * the minimum over the body cells alone (header words may break).
 */
static void
column_widths(br_pdf *d, const struct br_pdf_table *t, char **clean, double fs, double pad,
    double *nat, double *minw, double *minc)
{
	size_t nc = t->n_cols;
	for (size_t c = 0; c < nc; c++) {
		double m = 0, mw = 0, mc = 0;
		for (size_t r = 0; r <= t->n_rows; r++) {
			const char *s = clean[r * nc + c];
			HPDF_Font f = r == 0 ? d->bold : d->regular;
			const char *p = s;
			while (*p) {
				size_t len = strcspn(p, "\n");
				double w = br_text_width(f, d->alt, fs, p, len);
				if (w > m)
					m = w;
				/* the widest unbreakable piece of this hard line */
				double ww = br_text_min_width(f, d->alt, fs, p, len);
				if (ww > mw)
					mw = ww;
				/* a header word counts too: split mid-word ("preemp / t.") it reads as two */
				if (ww > mc)
					mc = ww;
				p += len + (p[len] == '\n' ? 1 : 0);
			}
		}
		nat[c] = m + 2 * pad + 0.5;
		minw[c] = mw + 2 * pad + 0.5;
		minc[c] = mc + 2 * pad + 0.5;
	}
}

/*
 * spread: w = lo + (avail - sum lo) shared in proportion to (hi - lo).
 * Requires sum lo <= avail <= sum hi.
 */
static void
spread(const double *lo, const double *hi, size_t nc, double avail, double *w)
{
	double slo = 0, gap = 0;
	for (size_t c = 0; c < nc; c++)
		slo += lo[c], gap += hi[c] - lo[c];
	for (size_t c = 0; c < nc; c++)
		w[c] = lo[c] + (gap > 0 ? (avail - slo) * (hi[c] - lo[c]) / gap : 0);
}

/*
 * fit_widths: column widths for the available width (HTML-like automatic
 * layout). Level 0: natural widths fit. Level 1: every column gets its
 * minimum (widest word) and the rest is shared in proportion to what each
 * still needs. Level 2: only the body-cell minimums fit (numbers and ids
 * stay whole, header words break). Level 3: even those are scaled down
 * proportionally (cells break words by character). Returns the level.
 */
static int
fit_widths(const double *nat, const double *minw, const double *minc, size_t nc, double avail,
    double *w)
{
	double snat = 0, smin = 0, sminc = 0;
	for (size_t c = 0; c < nc; c++)
		snat += nat[c], smin += minw[c], sminc += minc[c];
	if (snat <= avail) {
		memcpy(w, nat, nc * sizeof *w);
		return 0;
	}
	if (smin <= avail) {
		spread(minw, nat, nc, avail, w);
		return 1;
	}
	if (sminc <= avail) {
		spread(minc, minw, nc, avail, w);
		return 2;
	}
	for (size_t c = 0; c < nc; c++)
		w[c] = minc[c] * avail / sminc;
	return 3;
}

/*
 * wrap_row: wrap the cells of one row to the column widths and return the
 * row height. A row taller than max_h (a page less the repeated header)
 * keeps only the lines that fit, and its cut cells end in "…", so a table
 * never runs off the page.
 */
static double
wrap_row(br_pdf *d, cell *cells, size_t nc, const double *w, double fs, double pad, int header,
    double max_h)
{
	size_t maxl = 1;
	const double lead = fs * 1.25, vpad = 2 * 2.6;
	for (size_t c = 0; c < nc; c++) {
		cell *x = &cells[c];
		x->truncated = 0;
		x->n_lines = br_text_break(header ? d->bold : d->regular, d->alt, fs, x->text, w[c] - 2 * pad,
		    &x->lines);
		if (x->n_lines > maxl)
			maxl = x->n_lines;
	}
	if ((double)maxl * lead + vpad > max_h) {
		size_t keep = max_h > vpad + lead ? (size_t)((max_h - vpad) / lead) : 1;
		for (size_t c = 0; c < nc; c++) {
			if (cells[c].n_lines > keep) {
				cells[c].n_lines = keep;
				cells[c].truncated = 1;
			}
		}
		maxl = keep;
	}
	return (double)maxl * lead + vpad;
}

/* draw_row: one row at the cursor (already known to fit). */
static void
draw_row(br_pdf *d, const struct br_pdf_table *t, cell *cells, const double *w, double h, double fs,
    double pad, int header, int highlight, double table_w)
{
	size_t nc = t->n_cols;
	double top = d->y;
	if (header)
		fill_rect(d, MARGIN, top - h, table_w, h, 0.90, 0.90, 0.90);
	else if (highlight == 1)
		fill_rect(d, MARGIN, top - h, table_w, h, 0.86, 0.95, 0.86);
	else if (highlight == 2)
		fill_rect(d, MARGIN, top - h, table_w, h, 0.99, 0.87, 0.87);
	double x = MARGIN;
	HPDF_Font f = header ? d->bold : d->regular;
	for (size_t c = 0; c < nc; c++) {
		enum br_align al = t->align ? t->align[c] : (c == 0 ? BR_ALIGN_LEFT : BR_ALIGN_RIGHT);
		const cell *x_ = &cells[c];
		double y = top - 2.6;
		for (size_t i = 0; i < x_->n_lines; i++) {
			double lw = x_->lines[i].width_pt, tx;
			if (al == BR_ALIGN_RIGHT)
				tx = x + w[c] - pad - lw;
			else if (al == BR_ALIGN_CENTER)
				tx = x + (w[c] - lw) / 2;
			else
				tx = x + pad;
			if (tx < x + pad)
				tx = x + pad;
			draw_text(d, f, fs, tx, y - fs * 0.98, x_->text + x_->lines[i].off, x_->lines[i].len,
			    0.05, 0.05, 0.05);
			if (x_->truncated && i + 1 == x_->n_lines)
				draw_text(d, f, fs, fmin(tx + lw, x + w[c] - pad - fs), y - fs * 0.98,
				    "\xE2\x80\xA6", 3, 0.05, 0.05, 0.05);
			y -= fs * 1.25;
		}
		x += w[c];
	}
	if (header) {
		hline(d, MARGIN, MARGIN + table_w, top, 0.8, 0.35);
		hline(d, MARGIN, MARGIN + table_w, top - h, 0.8, 0.35);
	} else {
		hline(d, MARGIN, MARGIN + table_w, top - h, 0.3, 0.72);
	}
	d->y -= h;
	d->page_used = 1;
}

/* free_cells: release the wrapped lines of n cells (texts stay). */
static void
free_lines(cell *cells, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(cells[i].lines);
		cells[i].lines = NULL;
		cells[i].n_lines = 0;
	}
}

/* br_pdf_table_draw (br_pdf_table): column widths from col_weight (all
 * finite and > 0; a column still gets its widest body number or word when
 * the others have room) or from the content (fit_widths; 8 pt when words
 * do not fit at 9 pt); the header repeats on every page the table spans. */
void
br_pdf_table_draw(br_pdf *d, const br_pdf_table *t)
{
	if (d == NULL || t == NULL || t->n_cols == 0)
		return;
	flush_heading(d, KEEP_TEXT);
	d->doing = "table";
	size_t nc = t->n_cols, nr = t->n_rows;
	double fs = t->font_size_small ? 8.0 : 9.0;
	double pad = 0.33 * fs;
	/* cleaned texts: row 0 is the header */
	char **clean = br_xcalloc((nr + 1) * nc, sizeof *clean);
	for (size_t c = 0; c < nc; c++)
		clean[c] = clean_text(d, t->header ? t->header[c] : "");
	for (size_t r = 0; r < nr; r++)
		for (size_t c = 0; c < nc; c++)
			clean[(r + 1) * nc + c] = clean_text(d, t->cells ? t->cells[r * nc + c] : NULL);

	double *w = br_xcalloc(nc, sizeof *w), *nat = br_xcalloc(nc, sizeof *nat);
	int weighted = t->col_weight != NULL;
	double wsum = 0;
	for (size_t c = 0; weighted && c < nc; c++) {
		if (!(isfinite(t->col_weight[c]) && t->col_weight[c] > 0))
			weighted = 0;
		else
			wsum += t->col_weight[c];
	}
	if (weighted) {
		for (size_t c = 0; c < nc; c++)
			w[c] = TEXT_W * t->col_weight[c] / wsum;
		/* the weights are a preference: a column narrower than its widest
		 * body number or word takes the width from the columns with room */
		double *minw = br_xcalloc(nc, sizeof *minw), *minc = br_xcalloc(nc, sizeof *minc);
		column_widths(d, t, clean, fs, pad, nat, minw, minc);
		/* wanted: the widest body word, and a short cell whole (up to a
		 * fifth of the text width: "= 11,670", a CJK phrase); when that
		 * does not fit, the short cells give up the same share of what
		 * they ask beyond their widest word */
		double *want = br_xcalloc(nc, sizeof *want);
		double swant0 = 0, smin = 0;
		for (int again = 1; again; ) {
			swant0 = smin = 0;
			for (size_t c = 0; c < nc; c++) {
				double short_cell = nat[c] < 0.2 * TEXT_W ? nat[c] : 0.2 * TEXT_W;
				/* a word wider than a quarter of the text (a SHA-256, a
				 * long path) is cut by character in any case: it asks no
				 * more than that, so it cannot starve a column of numbers
				 * ("108,166,3 / 92" beside a hash) */
				double mc = minc[c] < 0.25 * TEXT_W ? minc[c] : 0.25 * TEXT_W;
				want[c] = short_cell > mc ? short_cell : mc;
				swant0 += want[c];
				smin += mc;
			}
			/* does not fit at 9 pt: once more at 8 pt */
			again = swant0 > TEXT_W && fs > 8.0;
			if (again) {
				fs = 8.0;
				pad = 0.33 * fs;
				column_widths(d, t, clean, fs, pad, nat, minw, minc);
			}
		}
		if (swant0 > TEXT_W) {
			double k = smin < TEXT_W ? (TEXT_W - smin) / (swant0 - smin) : 0;
			for (size_t c = 0; c < nc; c++) {
				double mc = minc[c] < 0.25 * TEXT_W ? minc[c] : 0.25 * TEXT_W;
				want[c] = mc + k * (want[c] - mc);
			}
		}
		double need_w = 0, room = 0, swant = 0;
		for (size_t c = 0; c < nc; c++) {
			swant += want[c];
			if (w[c] < want[c])
				need_w += want[c] - w[c];
			else
				room += w[c] - want[c];
		}
		if (need_w > 0 && swant <= TEXT_W && room > 0) {
			for (size_t c = 0; c < nc; c++)
				w[c] = w[c] < want[c] ? want[c] : w[c] - (w[c] - want[c]) * need_w / room;
		}
		free(want);
		free(minw);
		free(minc);
	} else {
		double *minw = br_xcalloc(nc, sizeof *minw), *minc = br_xcalloc(nc, sizeof *minc);
		column_widths(d, t, clean, fs, pad, nat, minw, minc);
		if (fit_widths(nat, minw, minc, nc, TEXT_W, w) >= 2 && fs > 8.0) {
			/* words do not fit: fall back to 8 pt, then let cells wrap */
			fs = 8.0;
			pad = 0.33 * fs;
			column_widths(d, t, clean, fs, pad, nat, minw, minc);
			fit_widths(nat, minw, minc, nc, TEXT_W, w);
		}
		free(minw);
		free(minc);
	}
	double table_w = 0;
	for (size_t c = 0; c < nc; c++)
		table_w += w[c];

	cell *hdr = br_xcalloc(nc, sizeof *hdr);
	for (size_t c = 0; c < nc; c++)
		hdr[c].text = clean[c];
	double hh = wrap_row(d, hdr, nc, w, fs, pad, 1, (TOP_Y - BOTTOM_Y) / 3);
	double max_row_h = TOP_Y - BOTTOM_Y - hh - 2;
	cell *row = br_xcalloc(nc, sizeof *row);

	/* no lone row: the header comes with the first two rows, and the last
	 * row does not start a page alone (the heights of rows 1 and n-1 are
	 * measured ahead, once each) */
	double rh_second = 0, rh_last = 0;
	for (int k = 0; k < 2 && nr >= 2; k++) {
		size_t r = k == 0 ? 1 : nr - 1;
		for (size_t c = 0; c < nc; c++)
			row[c].text = clean[(r + 1) * nc + c];
		*(k == 0 ? &rh_second : &rh_last) = wrap_row(d, row, nc, w, fs, pad, 0, max_row_h);
		free_lines(row, nc);
	}
	d->y -= 2;
	for (size_t r = 0; r < nr || r == 0; r++) {
		double rh = 0;
		if (r < nr) {
			for (size_t c = 0; c < nc; c++)
				row[c].text = clean[(r + 1) * nc + c];
			rh = wrap_row(d, row, nc, w, fs, pad, 0, max_row_h);
		}
		if (r == 0) {
			need(d, hh + rh + (nr >= 2 && hh + rh + rh_second <= TOP_Y - BOTTOM_Y ? rh_second : 0));
			draw_row(d, t, hdr, w, hh, fs, pad, 1, 0, table_w);
		} else if (d->y - rh < BOTTOM_Y ||
		    (nr >= 4 && r == nr - 2 && d->y - rh - rh_last < BOTTOM_Y)) {
			new_page(d);
			draw_row(d, t, hdr, w, hh, fs, pad, 1, 0, table_w);
		}
		if (r < nr)
			draw_row(d, t, row, w, rh, fs, pad, 0, t->row_highlight ? t->row_highlight[r] : 0,
			    table_w);
		free_lines(row, nc);
		if (nr == 0)
			break;
	}
	d->y -= 10;
	free_lines(hdr, nc);
	free(hdr);
	free(row);
	for (size_t i = 0; i < (nr + 1) * nc; i++)
		free(clean[i]);
	free(clean);
	free(w);
	free(nat);
}

/* ------------------------------------------------------------------ */
/* figures                                                             */
/* ------------------------------------------------------------------ */

/* br_pdf_figure: see report.h. */
int
br_pdf_figure(br_pdf *d, const br_figure *f, const char *caption, char **cause)
{
	return br_pdf_figure_led(d, f, NULL, caption, cause);
}

/* br_pdf_figure_led: see report.h. The figure's display list is drawn as
 * vectors (pdf_vector.c) scaled to the text width, or down to a page. */
int
br_pdf_figure_led(br_pdf *d, const br_figure *f, const char *lead, const char *caption, char **cause)
{
	const br_drawing *dr = f ? f->drawing : NULL;
	if (d == NULL || dr == NULL || !(dr->width_pt > 0 && dr->height_pt > 0) ||
	    !isfinite(dr->width_pt) || !isfinite(dr->height_pt)) {
		if (cause)
			*cause = br_xasprintf("%s: figure has no drawing", f && f->id ? f->id : "br_pdf_figure");
		return -1;
	}
	for (size_t i = 0; i < dr->n_texts; i++) {
		char *c = br_text_clean(dr->texts[i].text);
		need_alt(d, c);
		free(c);
	}
	double iw = dr->width_pt, ih = dr->height_pt;
	char *cap = clean_text(d, caption);
	br_line *lines = NULL;
	size_t nl = *cap ? br_text_break(d->regular, d->alt, NOTE_PT, cap, TEXT_W, &lines) : 0;
	double cap_h = (double)nl * NOTE_PT * LEAD;
	double w = TEXT_W, h = TEXT_W * ih / iw;
	double room = TOP_Y - BOTTOM_Y - cap_h - 10;
	if (h > room) { /* taller than a page: scale down to fit one */
		h = room;
		w = h * iw / ih;
	}
	char *lt = lead && *lead ? clean_text(d, lead) : NULL;
	size_t nll = 0;
	if (lt != NULL) {
		br_line *ll = NULL;
		nll = br_text_break(d->regular, d->alt, BODY_PT, lt, TEXT_W, &ll);
		free(ll);
	}
	/* a pending heading goes with the lead, the figure and its caption */
	flush_heading(d, (lt ? (double)nll * BODY_PT * LEAD + 5 : 0) + h + 6 + cap_h + 4);
	if (lt != NULL) {
		/* the sentence that names the figure goes with it onto one page */
		need(d, (double)nll * BODY_PT * LEAD + 5 + h + 6 + cap_h + 4);
		flow(d, d->regular, BODY_PT, MARGIN, TEXT_W, lt, 0.1, 0);
		d->y -= 5;
		free(lt);
	}
	need(d, h + 6 + cap_h + 4);
	double x = MARGIN + (TEXT_W - w) / 2;
	d->y -= 2;
	if (isfinite(x) && isfinite(w) && isfinite(h) && w > 0 && h > 0) {
		br_vec_target vt = { .pdf = d->pdf, .page = d->page, .regular = d->regular,
			.bold = d->bold, .alt = d->alt, .alpha = &d->alphas };
		d->doing = f->id;
		br_pdf_draw_vector(&vt, dr, x, d->y, w / iw);
	}
	d->y -= h + 5;
	d->page_used = 1;
	for (size_t i = 0; i < nl; i++) {
		need(d, NOTE_PT * LEAD);
		draw_text(d, d->regular, NOTE_PT, MARGIN, d->y - NOTE_PT, cap + lines[i].off,
		    lines[i].len, 0.35, 0.35, 0.35);
		d->y -= NOTE_PT * LEAD;
	}
	d->y -= 8;
	free(lines);
	free(cap);
	return 0;
}

/* ------------------------------------------------------------------ */
/* saving                                                              */
/* ------------------------------------------------------------------ */

/* footer_text: pattern with "{n}" and "{total}" replaced by the page numbers (malloc'd). */
static char *
footer_text(const char *pattern, size_t n, size_t total)
{
	GString *g = g_string_new(NULL);
	for (const char *p = pattern; *p;) {
		if (strncmp(p, "{n}", 3) == 0) {
			g_string_append_printf(g, "%zu", n);
			p += 3;
		} else if (strncmp(p, "{total}", 7) == 0) {
			g_string_append_printf(g, "%zu", total);
			p += 7;
		} else
			g_string_append_c(g, *p++);
	}
	char *clean = br_text_clean(g->str);
	g_string_free(g, TRUE);
	return clean;
}

/* decorate: running header (title, pages 2..n) and "page i of n" footer. */
static void
decorate(br_pdf *d)
{
	d->doing = "page header/footer";
	const double fs = 7.5;
	for (size_t i = 0; i < d->n_pages; i++) {
		HPDF_Page saved = d->page;
		d->page = d->pages[i];
		if (i > 0 && d->title && *d->title) {
			int trunc;
			size_t len = br_text_fit(d->regular, d->alt, fs, d->title, TEXT_W, &trunc);
			char *s = br_xasprintf("%.*s%s", (int)len, d->title, trunc ? "\xE2\x80\xA6" : "");
			draw_text(d, d->regular, fs, MARGIN, PAGE_H - 36, s, strlen(s), 0.45, 0.45, 0.45);
			hline(d, MARGIN, MARGIN + TEXT_W, PAGE_H - 40, 0.4, 0.75);
			free(s);
		}
		char *f = footer_text(d->page_footer, i + 1, d->n_pages);
		double fw = br_text_width(d->regular, d->alt, fs, f, strlen(f));
		draw_text(d, d->regular, fs, (PAGE_W - fw) / 2, 30, f, strlen(f), 0.45, 0.45, 0.45);
		free(f);
		d->page = saved;
	}
}

/* br_pdf_save: headers/footers (once), serialise to memory, write through
 * br_write_atomic. Fails with the first libharu error recorded while
 * building the document. */
int
br_pdf_save(br_pdf *d, const char *path, char **cause)
{
	if (d == NULL || path == NULL) {
		if (cause)
			*cause = br_xstrdup("br_pdf_save: no document or no path");
		return -1;
	}
	flush_heading(d, KEEP_TEXT);   /* a heading last: drawn, with nothing to keep */
	if (d->page == NULL)
		new_page(d);
	if (!d->decorated) {
		decorate(d);
		d->decorated = 1;
	}
	if (d->err != HPDF_OK) {
		if (cause)
			*cause = br_xasprintf("%s: libharu error 0x%04X (detail %u) while %s", path,
			    (unsigned)d->err, (unsigned)d->err_detail, d->err_what ? d->err_what : "drawing");
		return -1;
	}
	d->doing = "saving";
	if (HPDF_SaveToStream(d->pdf) != HPDF_OK || d->err != HPDF_OK) {
		if (cause)
			*cause = br_xasprintf("%s: libharu cannot serialise the document (error 0x%04X, detail %u)",
			    path, (unsigned)d->err, (unsigned)d->err_detail);
		d->err = HPDF_OK;
		return -1;
	}
	HPDF_ResetStream(d->pdf);
	size_t cap = HPDF_GetStreamSize(d->pdf) + 1, n = 0;
	char *buf = br_xmalloc(cap);
	for (;;) {
		HPDF_UINT32 got = (HPDF_UINT32)(cap - n);
		HPDF_STATUS st = HPDF_ReadFromStream(d->pdf, (HPDF_BYTE *)buf + n, &got);
		n += got;
		if (st == HPDF_STREAM_EOF || got == 0)
			break;
		if (st != HPDF_OK) {
			if (cause)
				*cause = br_xasprintf("%s: libharu stream read error 0x%04X", path, (unsigned)st);
			free(buf);
			d->err = HPDF_OK;
			return -1;
		}
		if (n == cap) {
			cap *= 2;
			buf = br_xrealloc(buf, cap);
		}
	}
	/* a failed read at EOF raises an error in libharu; that is not ours */
	d->err = HPDF_OK;
	int rc = br_write_atomic(path, buf, n, cause);
	free(buf);
	return rc;
}

/* br_pdf_page_count: pages so far (for tests and the report writer). */
size_t
br_pdf_page_count(const br_pdf *d)
{
	return d ? d->n_pages : 0;
}

/* br_pdf_free: NULL is fine. */
void
br_pdf_free(br_pdf *d)
{
	if (d == NULL)
		return;
	br_text_cache_reset();   /* the widths are keyed by this document's font handles */
	if (d->pdf)
		HPDF_Free(d->pdf);
	free(d->pages);
	free(d->title);
	free(d->page_footer);
	free(d->pending_heading);
	free(d);
}

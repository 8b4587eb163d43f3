/*
 * UTF-8 line breaking for the PDF layer. libharu's own wrapping
 * (HPDF_Page_TextRect / HPDF_Page_MeasureText) splits multi-byte sequences
 * and cannot break CJK text, so lines are computed here from per-character
 * widths measured with HPDF_Font_TextWidth.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "benchreport/common.h"
#include "report/pdf_text.h"

#include <fribidi.h>

/* decode: one code point from a valid (cleaned) UTF-8 string; *n = bytes. */
static uint32_t
decode(const unsigned char *p, size_t *n)
{
	if (p[0] < 0x80) {
		*n = 1;
		return p[0];
	}
	if ((p[0] & 0xE0) == 0xC0) {
		*n = 2;
		return ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
	}
	*n = 3;
	return ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
}

/*
 * decode_raw: one code point from arbitrary bytes. Returns the code point
 * and its length in *n, or UINT32_MAX with *n = 1 for an invalid, overlong
 * or truncated sequence or a surrogate.
 */
static uint32_t
decode_raw(const unsigned char *p, size_t *n)
{
	*n = 1;
	if (p[0] < 0x80)
		return p[0];
	int len;
	uint32_t cp, min;
	if ((p[0] & 0xE0) == 0xC0) {
		len = 2, cp = p[0] & 0x1F, min = 0x80;
	} else if ((p[0] & 0xF0) == 0xE0) {
		len = 3, cp = p[0] & 0x0F, min = 0x800;
	} else if ((p[0] & 0xF8) == 0xF0) {
		len = 4, cp = p[0] & 0x07, min = 0x10000;
	} else {
		return UINT32_MAX;
	}
	for (int i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return UINT32_MAX;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return UINT32_MAX;
	*n = (size_t)len;
	return cp;
}

/* br_text_clean: see pdf_text.h. */
char *
br_text_clean(const char *s)
{
	if (s == NULL)
		return br_xstrdup("");
	size_t n = strlen(s);
	char *out = br_xmalloc(n * 3 + 1); /* each byte grows to at most 3 */
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t k;
		uint32_t cp = decode_raw(p, &k);
		if (cp == '\t') {
			out[o++] = ' ';
		} else if (cp == '\n') {
			out[o++] = '\n';
		} else if (cp < 0x20 || cp == 0x7F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) {
			/* dropped; so are the bidi embeddings, overrides and isolates:
			 * one in an input's name (a model id) would reorder the rest of
			 * the report's line, its own words included (twenty-fourth
			 * breaker: "dedne nur · mllv dnekcab"); right-to-left letters
			 * still take their order from the bidi algorithm */
		} else if (cp != UINT32_MAX && cp > 0xFFFF) {
			/* 4 bytes in, at most 10 out ("[U+10FFFF]"): within n * 3 */
			o += (size_t)snprintf(out + o, 11, "[U+%04X]", (unsigned)cp);
		} else if (cp == UINT32_MAX || cp == 0xFEFF) {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
		} else {
			memcpy(out + o, p, k);
			o += k;
		}
		p += k;
	}
	out[o] = '\0';
	return out;
}

/*
 * Advance widths by code point, per font, in 1/1000 em as libharu counts
 * them: HPDF_Font_TextWidth searches the font's cmap for every character
 * (a linear scan in libharu 2.3), and line breaking measures the same text
 * many times. The cache holds what HPDF_Font_TextWidth returns for each
 * character alone; a string's width is their sum, as libharu's own (no
 * kerning). Fonts are told apart by handle, so the cache is emptied with
 * every document (br_text_cache_reset). Text is cleaned to the BMP.
 */
#define WCACHE_FONTS 8
#define WCACHE_UNKNOWN 0xFFFFu
static struct {
	HPDF_Font font;
	uint16_t *w;            /* 65,536 entries, WCACHE_UNKNOWN until measured */
} wcache[WCACHE_FONTS];

/* br_text_cache_reset: see pdf_text.h. */
void
br_text_cache_reset(void)
{
	for (int i = 0; i < WCACHE_FONTS; i++) {
		free(wcache[i].w);
		wcache[i].w = NULL;
		wcache[i].font = NULL;
	}
}

static uint16_t *
widths_of(HPDF_Font font)
{
	for (int i = 0; i < WCACHE_FONTS; i++) {
		if (wcache[i].font == font)
			return wcache[i].w;
		if (wcache[i].font == NULL) {
			wcache[i].font = font;
			wcache[i].w = br_xmalloc(65536 * sizeof *wcache[i].w);
			memset(wcache[i].w, 0xFF, 65536 * sizeof *wcache[i].w);
			return wcache[i].w;
		}
	}
	return NULL;
}

/* one_width: width of bytes s[0, len) in a single font, points at size. */
static double
one_width(HPDF_Font font, double size, const char *s, size_t len)
{
	if (font == NULL || len == 0)
		return 0.0;
	uint16_t *cache = widths_of(font);
	double units = 0;
	if (cache == NULL) {
		HPDF_TextWidth tw = HPDF_Font_TextWidth(font, (const HPDF_BYTE *)s, (HPDF_UINT)len);
		units = tw.width;
	} else {
		const unsigned char *p = (const unsigned char *)s, *end = p + len;
		while (p < end) {
			size_t k;
			uint32_t cp = decode(p, &k);
			if (k == 0 || (size_t)(end - p) < k)
				break;
			if (cp > 0xFFFF || cache[cp] == WCACHE_UNKNOWN) {
				HPDF_TextWidth tw = HPDF_Font_TextWidth(font, p, (HPDF_UINT)k);
				if (cp <= 0xFFFF && tw.width < WCACHE_UNKNOWN)
					cache[cp] = (uint16_t)tw.width;
				units += tw.width;
			} else {
				units += cache[cp];
			}
			p += k;
		}
	}
	double w = units * size / 1000.0;
	return isfinite(w) ? w : 0.0;
}

/* br_text_is_alt: CJK, Hangul, full-width: drawn with the fallback font.
 * Not the presentation forms above U+2E80 that the main font (DejaVu
 * Sans) draws and the CJK fonts lack: Latin / Hebrew / Arabic forms A
 * (U+FB00-FDFF) and Arabic forms B (U+FE70-FEFE), which shaped Arabic
 * text is made of (a model name in Arabic came out as empty boxes). */
int
br_text_is_alt(unsigned cp)
{
	return cp >= 0x2E80 && cp != 0xFFFD && !(cp >= 0xFB00 && cp <= 0xFDFF) && !(cp >= 0xFE70 && cp <= 0xFEFE);
}

/* br_text_has_alt: see pdf_text.h. */
int
br_text_has_alt(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t k;
		if (br_text_is_alt(decode(p, &k)))
			return 1;
		p += k;
	}
	return 0;
}

/* br_text_run: see pdf_text.h. */
HPDF_Font
br_text_run(HPDF_Font font, HPDF_Font alt, const char *s, size_t len, size_t *run_len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t off = 0, k;
	if (alt == NULL || len == 0) {
		*run_len = len;
		return font;
	}
	int first = br_text_is_alt(decode(p, &k));
	while (off < len) {
		int a = br_text_is_alt(decode(p + off, &k));
		if (a != first)
			break;
		off += k;
	}
	*run_len = off;
	return first ? alt : font;
}

/* br_text_width: sum over same-font runs. */
double
br_text_width(HPDF_Font font, HPDF_Font alt, double size, const char *s, size_t len)
{
	double w = 0;
	while (len > 0) {
		size_t r;
		HPDF_Font f = br_text_run(font, alt, s, len, &r);
		w += one_width(f, size, s, r);
		s += r;
		len -= r;
	}
	return w;
}

/* is_cjk: code points between which a line may break without a space. */
static int
is_cjk(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
	    (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
	    (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFFEF);
}

/* no_line_start: closing punctuation that must not begin a line (CJK
 * line-breaking rules, and ASCII closers after a CJK character). */
static int
no_line_start(uint32_t cp)
{
	switch (cp) {
	case 0x3001: case 0x3002: case 0xFF0C: case 0xFF0E: case 0xFF1A: case 0xFF1B:
	case 0xFF01: case 0xFF1F: case 0xFF09: case 0xFF3D: case 0xFF5D: case 0x3009:
	case 0x300B: case 0x300D: case 0x300F: case 0x3011: case 0x3015: case 0x2019:
	case 0x201D: case 0x2026: case 0x30FC: case 0x3005: case 0xFF05:
	case ')': case ',': case '.': case ';': case ':': case '!': case '?': case ']': case '}': case '%':
		return 1;
	default:
		return 0;
	}
}

/* no_line_end: opening punctuation that must not end a line. */
static int
no_line_end(uint32_t cp)
{
	switch (cp) {
	case 0xFF08: case 0xFF3B: case 0xFF5B: case 0x3008: case 0x300A: case 0x300C:
	case 0x300E: case 0x3010: case 0x3014: case 0x2018: case 0x201C:
	case '(': case '[': case '{':
		return 1;
	default:
		return 0;
	}
}

/* A decoded character with its width. */
typedef struct ch {
	size_t off, len;
	uint32_t cp;
	double w;
} ch;

/* push_line: append a line [a, b) of chars (trailing spaces trimmed). */
static void
push_line(br_line **lines, size_t *n, size_t *cap, const ch *c, size_t a, size_t b, size_t byte_a)
{
	while (b > a && c[b - 1].cp == ' ')
		b--;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*lines = br_xrealloc(*lines, *cap * sizeof **lines);
	}
	br_line *l = &(*lines)[(*n)++];
	l->off = b > a ? c[a].off : byte_a;
	l->len = b > a ? c[b - 1].off + c[b - 1].len - c[a].off : 0;
	l->width_pt = 0;
	for (size_t i = a; i < b; i++)
		l->width_pt += c[i].w;
}

/*
 * measure_chars: decode s into chars with widths. ASCII widths are cached
 * per call (the common case).
 */
static ch *
measure_chars(HPDF_Font font, HPDF_Font alt, double size, const char *s, size_t *n_out)
{
	size_t len = strlen(s), n = 0;
	ch *c = br_xmalloc((len + 1) * sizeof *c);
	double ascii[128];
	for (int i = 0; i < 128; i++)
		ascii[i] = -1;
	const unsigned char *p = (const unsigned char *)s;
	size_t off = 0;
	while (off < len) {
		size_t k;
		uint32_t cp = decode(p + off, &k);
		double w;
		if (cp < 128 && ascii[cp] >= 0) {
			w = ascii[cp];
		} else {
			w = cp == '\n' ? 0.0 : br_text_width(font, alt, size, s + off, k);
			if (cp < 128)
				ascii[cp] = w;
		}
		c[n].off = off, c[n].len = k, c[n].cp = cp, c[n].w = w;
		n++;
		off += k;
	}
	*n_out = n;
	return c;
}

/* is_ascii_letter: ASCII A-Z or a-z. */
static int
is_ascii_letter(uint32_t cp)
{
	return (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z');
}

/* is_digit: ASCII 0-9. */
static int
is_digit(uint32_t cp)
{
	return cp >= '0' && cp <= '9';
}

/*
 * glued: 1 when the space c[j] should not end a line, if another break
 * will do: between a number and a short unit after it ("269.2 s",
 * "15.7 秒一次" keeps "15.7 秒"), and on either side of '=' ("N = 128").
 */
static int
glued(const ch *c, size_t j, size_t e)
{
	uint32_t before = c[j - 1].cp, after = j + 1 < e ? c[j + 1].cp : 0;
	if (before == '=' || after == '=')
		return 1;
	if (!is_digit(before) || after == 0 || is_digit(after) || after == ' ')
		return 0;
	/* the unit: up to 6 characters before the next space or the end */
	size_t k = j + 1;
	while (k < e && c[k].cp != ' ' && k - j <= 7)
		k++;
	return k - (j + 1) <= 6 || is_cjk(after);
}

/*
 * short_group_start: a break between CJK characters at `at` that falls
 * inside a short bracketed group ("64（峰|值 14）": at most 8 characters from
 * its opening to its closing bracket) moves before the group's opening
 * bracket, when the line up to there is at least 40% of max_pt: a card
 * read "（峰" then "值 14）" (nineteenth breaker). Returns the break to take
 * (`at` itself when the rule does not apply).
 */
static size_t
short_group_start(const ch *c, size_t start, size_t at, size_t e, double max_pt)
{
	size_t ob = at;
	while (ob > start && at - ob < 8 && c[ob - 1].cp != 0xFF08 && c[ob - 1].cp != '(' &&
	    c[ob - 1].cp != 0xFF09 && c[ob - 1].cp != ')')
		ob--;
	if (ob == start || (c[ob - 1].cp != 0xFF08 && c[ob - 1].cp != '('))
		return at;
	ob--;   /* the opening bracket */
	size_t cb = at;
	while (cb < e && cb - ob <= 8 && c[cb].cp != 0xFF09 && c[cb].cp != ')')
		cb++;
	if (cb >= e || cb - ob > 8 || ob == start)
		return at;
	double w = 0;
	for (size_t k = start; k < ob; k++)
		w += c[k].w;
	return w >= 0.4 * max_pt ? ob : at;
}

/* br_text_break: greedy breaking, see pdf_text.h. */
size_t
br_text_break(HPDF_Font font, HPDF_Font alt, double size, const char *s, double max_pt, br_line **lines_out)
{
	br_line *lines = NULL;
	size_t n_lines = 0, cap = 0, n;
	if (!(max_pt > 0) || !isfinite(max_pt))
		max_pt = 1.0;
	ch *c = measure_chars(font, alt, size, s, &n);
	size_t i = 0;
	for (;;) {
		/* one hard line: chars [i, e) */
		size_t e = i;
		while (e < n && c[e].cp != '\n')
			e++;
		size_t byte_a = i < n ? c[i].off : strlen(s);
		if (e == i)
			push_line(&lines, &n_lines, &cap, c, i, i, byte_a);
		size_t start = i;
		while (start < e) {
			double w = 0, brk_w = 0, sp_w = 0;
			size_t brk = start, brk_next = start; /* no break point yet */
			size_t sp = start, sp_next = start;   /* last break at a space or between CJK */
			size_t gl = start, gl_next = start;   /* last glued space ("269.2 s"): a last resort */
			int brk_soft = 0;
			size_t j = start;
			int overflow = 0;
			for (; j < e; j++) {
				if (c[j].cp == ' ') {
					if (j > start && !glued(c, j, e)) {
						brk = j, brk_next = j + 1, brk_soft = 0, brk_w = w;
						sp = j, sp_next = j + 1, sp_w = w;
					} else if (j > start) {
						gl = j, gl_next = j + 1;
					}
					w += c[j].w;
					continue;
				}
				if (w + c[j].w > max_pt + 1e-6) {
					overflow = 1;
					break;
				}
				w += c[j].w;
				int cjk_here = is_cjk(c[j].cp);
				int cjk_next = j + 1 < e && is_cjk(c[j + 1].cp);
				uint32_t nx = j + 1 < e ? c[j + 1].cp : 0;
				int soft = (c[j].cp == '/' || c[j].cp == '\\' || c[j].cp == '_' ||
				    (c[j].cp == '-' && j > start && c[j - 1].cp != ' ') ||
				    /* after the dot of a dotted name ("PreemptionMode.RECOMPUTE",
				     * not "0.82"), and inside camelCase ("GeForce|RTX") */
				    (c[j].cp == '.' && j > start && is_ascii_letter(c[j - 1].cp) && is_ascii_letter(nx)) ||
				    (c[j].cp >= 'a' && c[j].cp <= 'z' && nx >= 'A' && nx <= 'Z'));
				if ((cjk_here || cjk_next || soft) && j + 1 < e && c[j + 1].cp != ' ' &&
				    !no_line_start(c[j + 1].cp) && !no_line_end(c[j].cp)) {
					brk = j + 1, brk_next = j + 1, brk_soft = !(cjk_here || cjk_next), brk_w = w;
					if (!brk_soft)   /* between CJK characters: as good as a space */
						sp = j + 1, sp_next = j + 1, sp_w = w;
				}
			}
			if (!overflow) {
				push_line(&lines, &n_lines, &cap, c, start, e, c[start].off);
				break;
			}
			size_t end, next;
			/* a break after '/', '-', '_' (or a dot, or inside camelCase) is
			 * taken when it leaves the line
			 * at least 15% full (narrow table cells and cards: "max_" then
			 * "concurrency" reads better than "max_concurre" then "ncy");
			 * otherwise the word is broken by character */
			/* identifiers such as max_model_len stay whole when the last
			 * space leaves the line at least 60% full */
			/* and a word that fits whole on the next line (a run name
			 * such as round1-1024-256-c64 in a title) moves there when
			 * the last space leaves the line at least 30% full: whole
			 * names stay searchable in the PDF's text */
			double word_w = 0;
			for (size_t k = sp_next; brk_soft && sp > start && k < e && c[k].cp != ' '; k++)
				word_w += c[k].w;
			if (brk_soft && sp > start && (sp_w >= 0.6 * max_pt || (sp_w >= 0.3 * max_pt && word_w <= max_pt))) {
				end = sp, next = sp_next;
			} else if (brk > start && (!brk_soft || brk_w >= 0.15 * max_pt)) {
				end = brk, next = brk_next;
			} else if (gl > start) {
				end = gl, next = gl_next; /* rather than cut a word: the glued space */
			} else if (j == start) {
				end = next = start + 1; /* one char wider than the line */
			} else {
				end = next = j;         /* break a long word by character */
			}
			if (end == brk && !brk_soft && end == next)
				end = next = short_group_start(c, start, end, e, max_pt);
			push_line(&lines, &n_lines, &cap, c, start, end, c[start].off);
			while (next < e && c[next].cp == ' ')
				next++;
			start = next;
		}
		if (e >= n)
			break;
		i = e + 1; /* past '\n'; a final '\n' adds no empty line */
		if (i == n)
			break;
	}
	free(c);
	*lines_out = lines;
	return n_lines;
}

/* br_text_min_width: see pdf_text.h. The units are those br_text_break
 * never cuts when it has a choice: runs between spaces, and between CJK
 * characters except before closing / after opening punctuation. */
double
br_text_min_width(HPDF_Font font, HPDF_Font alt, double size, const char *s, size_t len)
{
	char *copy = br_xstrndup(s, len);
	size_t n;
	ch *c = measure_chars(font, alt, size, copy, &n);
	double widest = 0, w = 0;
	for (size_t j = 0; j < n; j++) {
		if (c[j].cp == ' ' || c[j].cp == '\n') {
			w = 0;
			continue;
		}
		w += c[j].w;
		if (w > widest)
			widest = w;
		int cjk_break = (is_cjk(c[j].cp) || (j + 1 < n && is_cjk(c[j + 1].cp))) && j + 1 < n &&
		    !no_line_start(c[j + 1].cp) && !no_line_end(c[j].cp);
		if (cjk_break)
			w = 0;
	}
	free(c);
	free(copy);
	return widest;
}

/* br_text_fit: see pdf_text.h. */
size_t
br_text_fit(HPDF_Font font, HPDF_Font alt, double size, const char *s, double max_pt, int *truncated)
{
	size_t n;
	ch *c = measure_chars(font, alt, size, s, &n);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += c[i].w;
	*truncated = 0;
	if (total <= max_pt) {
		free(c);
		return strlen(s);
	}
	*truncated = 1;
	double ell = br_text_width(font, alt, size, "\xE2\x80\xA6", 3), w = 0;
	size_t i = 0;
	while (i < n && c[i].cp != '\n' && w + c[i].w + ell <= max_pt)
		w += c[i++].w;
	size_t bytes = i < n ? c[i].off : strlen(s);
	free(c);
	return bytes;
}

/* br_text_show: see pdf_text.h. */
double
br_text_show(HPDF_Page page, HPDF_Font font, HPDF_Font alt, int fake_bold, double size,
    double a, double b, double c, double d, double x, double y, const char *s, size_t len,
    double r, double g, double bl)
{
	double total = 0;
	HPDF_Page_SetRGBFill(page, (HPDF_REAL)r, (HPDF_REAL)g, (HPDF_REAL)bl);
	while (len > 0) {
		size_t rl;
		HPDF_Font rf = br_text_run(font, alt, s, len, &rl);
		char *tmp = br_xstrndup(s, rl);
		HPDF_Page_SetFontAndSize(page, rf, (HPDF_REAL)size);
		int fb = fake_bold && rf == alt && rf != font;
		if (fb) {
			HPDF_Page_SetTextRenderingMode(page, HPDF_FILL_THEN_STROKE);
			HPDF_Page_SetRGBStroke(page, (HPDF_REAL)r, (HPDF_REAL)g, (HPDF_REAL)bl);
			HPDF_Page_SetLineWidth(page, (HPDF_REAL)(size * 0.02));
			HPDF_Page_SetLineJoin(page, HPDF_ROUND_JOIN);
		}
		HPDF_Page_SetTextMatrix(page, (HPDF_REAL)a, (HPDF_REAL)b, (HPDF_REAL)c, (HPDF_REAL)d,
		    (HPDF_REAL)x, (HPDF_REAL)y);
		HPDF_Page_ShowText(page, tmp);
		if (fb) {
			HPDF_Page_SetTextRenderingMode(page, HPDF_FILL);
			HPDF_Page_SetLineJoin(page, HPDF_MITER_JOIN);
		}
		free(tmp);
		double w = br_text_width(rf, NULL, size, s, rl);
		x += a * w;
		y += b * w;
		total += w;
		s += rl;
		len -= rl;
	}
	return total;
}

/* is_rtl_or_control: a code point that makes a line need reordering:
 * Hebrew, Arabic, Syriac, Thaana, NKo, their presentation forms, and the
 * bidi embedding / override / isolate controls. */
static int
is_rtl_or_control(uint32_t cp)
{
	return (cp >= 0x0590 && cp <= 0x08FF) || (cp >= 0xFB1D && cp <= 0xFDFF) ||
	    (cp >= 0xFE70 && cp <= 0xFEFF) || (cp >= 0x202A && cp <= 0x202E) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200F;
}

/* br_text_visual: see pdf_text.h. */
char *
br_text_visual(const char *s, size_t len, int auto_dir)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	int need = 0;
	size_t n = 0;
	while (p < end) {
		size_t k;
		uint32_t cp = decode(p, &k);
		need |= is_rtl_or_control(cp);
		p += k;
		n++;
	}
	if (!need || n == 0 || n > 100000)
		return NULL;
	FriBidiChar *logical = br_xmalloc(n * sizeof *logical), *visual = br_xmalloc(n * sizeof *visual);
	p = (const unsigned char *)s;
	for (size_t i = 0; i < n; i++) {
		size_t k;
		logical[i] = decode(p, &k);
		p += k;
	}
	FriBidiParType dir = auto_dir ? FRIBIDI_PAR_ON : FRIBIDI_PAR_LTR;
	char *out = NULL;
	if (fribidi_log2vis(logical, (FriBidiStrIndex)n, &dir, visual, NULL, NULL, NULL) != 0) {
		out = br_xmalloc(n * 3 + 1);
		size_t o = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t cp = visual[i];
			if (cp >= 0x202A && cp <= 0x202E)
				continue;   /* controls have done their work */
			if (cp == 0xFEFF || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F)
				continue;
			if (cp > 0xFFFF)
				cp = 0xFFFD;
			if (cp < 0x80)
				out[o++] = (char)cp;
			else if (cp < 0x800) {
				out[o++] = (char)(0xC0 | (cp >> 6));
				out[o++] = (char)(0x80 | (cp & 0x3F));
			} else {
				out[o++] = (char)(0xE0 | (cp >> 12));
				out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
				out[o++] = (char)(0x80 | (cp & 0x3F));
			}
		}
		out[o] = '\0';
	}
	free(logical);
	free(visual);
	return out;
}

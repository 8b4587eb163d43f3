/*
 * Bench result parser: what `vllm bench serve --save-result [--save-detailed]`
 * (and the older benchmarks/benchmark_serving.py) writes, see FORMATS.md §1.
 *
 * Pipeline for one file:
 *   1. reject empty and binary input (NUL bytes, invalid UTF-8);
 *   2. rewrite, outside string literals, the bare tokens Python's json writes
 *      and jansson refuses (NaN, Infinity, -Infinity) into JSON strings of the
 *      SAME length that start with a DEL byte (0x7f), so every error position
 *      jansson reports still matches the original text; lone surrogate escapes
 *      (\udXXX without a partner) become \ufffd, also same length;
 *   3. parse with jansson: one object, JSONL (objects one after another,
 *      JSON_DISABLE_EOF_CHECK in a loop), or one array of objects; the big
 *      per-request numeric arrays are read by a dedicated parser instead and
 *      jansson sees them as "[]" (the fast path, see fast_scan; on any error
 *      the file is parsed again by jansson alone, so messages are the same);
 *   4. map each object onto br_bench, honouring the key drift of §1.
 * Numbers read from a numeric field may be JSON numbers, null (absent, NAN),
 * the sentinels of step 2, or strings such as "inf", "-inf", "nan", "16".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <glib.h>
#include <jansson.h>
#include "benchreport/bench.h"
#include "benchreport/common.h"

/* Sentinel strings (decoded values) that stand for bare NaN/Infinity/-Infinity. */
#define SENT_NAN "\x7f"
#define SENT_INF "\x7fI"
#define SENT_NINF "\x7f-I"

/* The per-request arrays, in the order of this table. */
enum { A_INPUT, A_OUTPUT, A_TTFT, A_ITLS, A_LAT, A_START, A_QUEUE, A_TEXT, A_ERR, A_N };
static const char *const array_keys[A_N] = {
	"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
	"queue_times", "generated_texts", "errors",
};

/*
 * One per-request numeric array read by the fast path (fast_scan): its
 * values are parsed straight from the text and jansson sees "[]" instead.
 */
typedef struct farr {
	size_t obj_start;      /* offset of the '{' of the run object holding it */
	int a;                 /* A_* index of its key */
	size_t vo, ve;         /* [vo, ve): the array's text, brackets included */
	size_t n;              /* entries (one per request) */
	double *v;             /* flat arrays: n values; itls: every ITL back to back */
	size_t *ofs;           /* itls only: n + 1 offsets into v */
} farr;

/* The fast path's state for one file. */
typedef struct fastset {
	farr *arr;             /* regions in text order */
	size_t n, cap;
	size_t next;           /* next region to hand to a run object (convert) */
	char *ct;              /* compact text: each region replaced by "[]" */
	size_t clen;
	size_t *cpos;          /* cpos[k]: offset of region k's "[]" in ct */
} fastset;

/* Per-file parsing state. `text` is the sanitized copy (owned). */
typedef struct pctx {
	const char *name;
	char *text;
	size_t len;
	int replaced;          /* number of bare tokens rewritten in step 2 */
	/* incremental line counter: line number of byte offset line_off */
	size_t line_off;
	int line_no;
	const fastset *fs;     /* fast path regions (NULL on the jansson-only path) */
	int fs_bad;            /* fast path: jansson's view disagreed with the scan */
} pctx;

/* Position of one top-level key of an object in the text. */
typedef struct keypos {
	char *key;             /* decoded key (malloc'd) */
	size_t key_off;        /* offset of the key's opening quote */
	size_t val_off;        /* first byte of the value */
	size_t val_end;        /* one past the last byte of the value */
} keypos;

/* Per-object state: where it lies in the text and its lazily built key index. */
typedef struct octx {
	pctx *p;
	size_t start, end;     /* [start, end) of the object text */
	keypos *keys;
	size_t n_keys;
	int indexed;
	GHashTable *by_key;    /* decoded key → index + 1 in keys (the last of a repeated key) */
	farr *fast[A_N];       /* arrays read by the fast path (jansson saw "[]") */
} octx;

/*
 * line_col: 1-based line and byte column of offset `off`. Lines are counted
 * incrementally from the last query (offsets are mostly increasing), so many
 * queries over a large JSONL file stay linear; the column scans back to the
 * previous newline only.
 */
static void
line_col(pctx *p, size_t off, int *line, int *col)
{
	if (off > p->len)
		off = p->len;
	if (off < p->line_off) {
		p->line_off = 0;
		p->line_no = 1;
	}
	const char *t = p->text;
	for (size_t i = p->line_off; i < off; i++)
		if (t[i] == '\n')
			p->line_no++;
	p->line_off = off;
	size_t b = off;
	while (b > 0 && t[b - 1] != '\n')
		b--;
	*line = p->line_no;
	*col = (int)(off - b) + 1;
}

/* err_at: set *cause to "NAME:LINE:COL: <fmt>" for byte offset off; returns -1. */
static int err_at(pctx *p, size_t off, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int
err_at(pctx *p, size_t off, char **cause, const char *fmt, ...)
{
	if (cause == NULL)
		return -1;
	int line, col;
	line_col(p, off, &line, &col);
	va_list ap;
	va_start(ap, fmt);
	char *msg = br_xvasprintf(fmt, ap);
	va_end(ap);
	*cause = br_xasprintf("%s:%d:%d: %s", p->name, line, col, msg);
	free(msg);
	return -1;
}

/* ascii16: 1 when the 16 bytes at s are all ASCII (< 0x80). */
static inline int
ascii16(const unsigned char *s)
{
#ifdef __SSE2__
	return _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)s)) == 0;
#else
	uint64_t a, b;
	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 8);
	return ((a | b) & 0x8080808080808080ULL) == 0;
#endif
}

/* plain16: 1 when none of the 16 bytes at s is one sanitize looks at
 * ('"', '\\', 'N', 'I', '-'), so it may skip them. */
static inline int
plain16(const char *s)
{
#ifdef __SSE2__
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i m = _mm_or_si128(
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
	    _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('N')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('I'))), _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))));
	return _mm_movemask_epi8(m) == 0;
#else
	for (int k = 0; k < 16; k++)
		if (s[k] == '"' || s[k] == '\\' || s[k] == 'N' || s[k] == 'I' || s[k] == '-')
			return 0;
	return 1;
#endif
}

/*
 * utf8_bad: offset of the first byte that is not part of a well-formed UTF-8
 * sequence (overlongs, encoded surrogates and > U+10FFFF are ill-formed), or
 * (size_t)-1 when the whole text is valid. NUL bytes are checked separately.
 */
static size_t
utf8_bad(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		if (i + 16 <= len && ascii16(s + i)) {
			i += 16;
			continue;
		}
		unsigned c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t need;
		unsigned lo = 0x80, hi = 0xbf;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else
			return i;
		if (i + need >= len)
			return i;  /* truncated sequence */
		if (s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (size_t k = 2; k <= need; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return i;
		i += need + 1;
	}
	return (size_t)-1;
}

/* hex4: value of 4 hex digits at s, or -1. */
static long
hex4(const char *s)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)s[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* is_word: 1 for bytes that may continue a bare token (so "NaNx" is not NaN). */
static int
is_word(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
}

/*
 * sanitize: step 2 above, in place. Walks the text once, tracking string
 * literals (with backslash escapes). Outside strings, a bare NaN, Infinity or
 * -Infinity delimited by non-word bytes becomes a same-length sentinel string.
 * Inside strings, a \uD800-\uDBFF escape not followed by a \uDC00-\uDFFF
 * escape, or a lone \uDC00-\uDFFF escape, becomes \ufffd (jansson refuses
 * lone surrogates; Python writes them for undecodable bytes). Returns the
 * number of bare tokens rewritten.
 */
static int
sanitize(char *t, size_t len)
{
	int n = 0, in_str = 0;
	for (size_t i = 0; i < len; i++) {
		while (i + 16 <= len && plain16(t + i))
			i += 16;      /* nothing to do in these 16 bytes, in or out of a string */
		if (i >= len)
			break;
		char c = t[i];
		if (in_str) {
			if (c == '"')
				in_str = 0;
			else if (c == '\\' && i + 1 < len) {
				if (t[i + 1] == 'u' && i + 5 < len) {
					long h = hex4(t + i + 2);
					if (h >= 0xd800 && h <= 0xdbff) {
						long l = (i + 11 < len && t[i + 6] == '\\' && t[i + 7] == 'u')
						    ? hex4(t + i + 8) : -1;
						if (l >= 0xdc00 && l <= 0xdfff) {
							i += 11;  /* whole pair */
							continue;
						}
						memcpy(t + i + 2, "fffd", 4);
					} else if (h >= 0xdc00 && h <= 0xdfff)
						memcpy(t + i + 2, "fffd", 4);
					i += 5;
				} else
					i++;      /* the escaped byte */
			}
			continue;
		}
		if (c == '"') {
			in_str = 1;
			continue;
		}
		if (c != 'N' && c != 'I' && c != '-')
			continue;
		if (i > 0 && is_word((unsigned char)t[i - 1]))
			continue;
		const char *tok, *rep;
		if (c == 'N') {
			tok = "NaN";
			rep = "\"" SENT_NAN "\"";
		} else if (c == 'I') {
			tok = "Infinity";
			rep = "\"" SENT_INF "\"    ";
		} else {
			tok = "-Infinity";
			rep = "\"" SENT_NINF "\"    ";
		}
		size_t tl = strlen(tok);
		if (i + tl > len || memcmp(t + i, tok, tl) != 0)
			continue;
		if (i + tl < len && is_word((unsigned char)t[i + tl]))
			continue;
		memcpy(t + i, rep, tl);
		n++;
		i += tl - 1;
	}
	return n;
}

/* skip_ws: first offset >= off that is not JSON whitespace. */
static size_t
skip_ws(const char *t, size_t len, size_t off)
{
	while (off < len && (t[off] == ' ' || t[off] == '\t' || t[off] == '\n' || t[off] == '\r'))
		off++;
	return off;
}

/*
 * value_end: one past the end of the JSON value starting at off (text that
 * jansson already accepted). Strings, containers (depth counted, strings
 * skipped) and scalars (up to the next delimiter).
 */
static size_t
value_end(const char *t, size_t len, size_t off)
{
	if (off >= len)
		return len;
	if (t[off] == '"') {
		size_t i = off + 1;
		while (i < len && t[i] != '"')
			i += (t[i] == '\\') ? 2 : 1;
		return i < len ? i + 1 : len;
	}
	if (t[off] == '{' || t[off] == '[') {
		int depth = 0;
		size_t i = off;
		while (i < len) {
			char c = t[i];
			if (c == '"') {
				i = value_end(t, len, i);
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if (c == '}' || c == ']') {
				if (--depth == 0)
					return i + 1;
			}
			i++;
		}
		return len;
	}
	size_t i = off;
	while (i < len && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
	    t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
		i++;
	return i;
}

/* decode_key: the decoded text of the JSON string literal t[off, end). */
static char *
decode_key(const char *t, size_t off, size_t end)
{
	if (memchr(t + off, '\\', end - off) == NULL)
		return br_xstrndup(t + off + 1, end - off - 2);
	json_error_t e;
	json_t *j = json_loadb(t + off, end - off, JSON_DECODE_ANY, &e);
	char *s = br_xstrdup(j && json_is_string(j) ? json_string_value(j) : "");
	json_decref(j);
	return s;
}

/* region_at: the fast path region whose array starts at offset vo, or NULL. */
static const farr *
region_at(const fastset *fs, size_t vo)
{
	if (fs == NULL)
		return NULL;
	size_t lo = 0, hi = fs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->arr[mid].vo < vo)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < fs->n && fs->arr[lo].vo == vo ? &fs->arr[lo] : NULL;
}

/*
 * index_keys: build o->keys, the positions of the object's top-level keys and
 * values, in one pass over its text (only when a position or raw value text is
 * needed: errors and extras).
 */
static void
index_keys(octx *o)
{
	if (o->indexed)
		return;
	o->indexed = 1;
	const char *t = o->p->text;
	size_t len = o->end, i = skip_ws(t, len, o->start);
	size_t cap = 0;
	if (i >= len || t[i] != '{')
		return;
	i++;
	for (;;) {
		i = skip_ws(t, len, i);
		if (i >= len || t[i] != '"')
			return;
		size_t ko = i, ke = value_end(t, len, i);
		i = skip_ws(t, len, ke);
		if (i >= len || t[i] != ':')
			return;
		size_t vo = skip_ws(t, len, i + 1);
		const farr *fa = region_at(o->p->fs, vo);
		size_t ve = fa ? fa->ve : value_end(t, len, vo);
		if (o->n_keys == cap) {
			cap = cap ? cap * 2 : 64;
			o->keys = br_xrealloc(o->keys, cap * sizeof *o->keys);
		}
		keypos *k = &o->keys[o->n_keys++];
		k->key = decode_key(t, ko, ke);
		k->key_off = ko;
		k->val_off = vo;
		k->val_end = ve;
		i = skip_ws(t, len, ve);
		if (i >= len || t[i] != ',')
			return;
		i++;
	}
}

/* find_key: the position record of top-level key `key` (last one wins, as in
 * jansson), or NULL. */
static const keypos *
find_key(octx *o, const char *key)
{
	index_keys(o);
	if (o->by_key == NULL) {
		/* a hash of the keys, so an object with many unknown keys (each
		 * looked up for its raw text) is not quadratic: 80,000 keys took
		 * 14.6 s with a scan per lookup */
		o->by_key = g_hash_table_new(g_str_hash, g_str_equal);
		for (size_t i = 0; i < o->n_keys; i++)
			g_hash_table_insert(o->by_key, o->keys[i].key, GSIZE_TO_POINTER(i + 1));
	}
	size_t k = GPOINTER_TO_SIZE(g_hash_table_lookup(o->by_key, key));
	return k ? &o->keys[k - 1] : NULL;
}

/* key_off: offset of key in the text for messages, else the object start. */
static size_t
key_off(octx *o, const char *key)
{
	const keypos *k = find_key(o, key);
	return k ? k->key_off : o->start;
}

static void
octx_free(octx *o)
{
	if (o->by_key)
		g_hash_table_destroy(o->by_key);
	o->by_key = NULL;
	for (size_t i = 0; i < o->n_keys; i++)
		free(o->keys[i].key);
	free(o->keys);
	o->keys = NULL;
	o->n_keys = 0;
	o->indexed = 0;
}

/*
 * raw_text: the value of `key` as written in the file, with bare tokens
 * restored (NaN, Infinity, -Infinity) and, outside strings, whitespace
 * dropped and ", " / ": " separators as Python writes them, so indented and
 * one-line files give the same text. NULL when the key cannot be located.
 */
static char *
raw_text(octx *o, const char *key)
{
	const keypos *k = find_key(o, key);
	if (k == NULL)
		return NULL;
	const char *t = o->p->text;
	size_t n = k->val_end - k->val_off;
	char *out = br_xmalloc(2 * n + 1);
	size_t w = 0;
	for (size_t i = k->val_off; i < k->val_end;) {
		char c = t[i];
		if (c == '"') {
			size_t e = value_end(t, k->val_end, i);
			size_t sl = e - i;
			if (o->p->replaced && sl >= 3 && (unsigned char)t[i + 1] == 0x7f) {
				const char *rep = NULL;
				if (sl == 3)
					rep = "NaN";
				else if (sl == 4 && t[i + 2] == 'I')
					rep = "Infinity";
				else if (sl == 5 && t[i + 2] == '-' && t[i + 3] == 'I')
					rep = "-Infinity";
				if (rep) {
					memcpy(out + w, rep, strlen(rep));
					w += strlen(rep);
					i = e;
					continue;
				}
			}
			memcpy(out + w, t + i, sl);
			w += sl;
			i = e;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			i++;
			continue;
		}
		out[w++] = c;
		if (c == ',' || c == ':')
			out[w++] = ' ';
		i++;
	}
	out[w] = '\0';
	return out;
}

/* type_name: a JSON type for messages. */
static const char *
type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "?";
}

/*
 * str_num: a string holding a number: the sentinels, "inf"/"+inf"/"-inf",
 * "infinity" (any case), "nan", or a decimal number with optional surrounding
 * blanks. Returns 0 and *v, or -1 when the string is not a number.
 */
static int
str_num(pctx *p, const char *s, double *v)
{
	if (p->replaced && (unsigned char)s[0] == 0x7f) {
		if (strcmp(s, SENT_NAN) == 0) {
			*v = NAN;
			return 0;
		}
		if (strcmp(s, SENT_INF) == 0) {
			*v = INFINITY;
			return 0;
		}
		if (strcmp(s, SENT_NINF) == 0) {
			*v = -INFINITY;
			return 0;
		}
	}
	while (*s == ' ' || *s == '\t')
		s++;
	const char *u = s;
	int neg = 0;
	if (*u == '+' || *u == '-') {
		neg = *u == '-';
		u++;
	}
	if (strcasecmp(u, "inf") == 0 || strcasecmp(u, "infinity") == 0) {
		*v = neg ? -INFINITY : INFINITY;
		return 0;
	}
	if (strcasecmp(u, "nan") == 0) {
		*v = NAN;
		return 0;
	}
	/* plain decimal only (strtod would also take hex and "infinity" spellings) */
	if (!(isdigit((unsigned char)*u) || (*u == '.' && isdigit((unsigned char)u[1]))))
		return -1;
	char *end;
	double x = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end != '\0')
		return -1;
	*v = x;
	return 0;
}

/*
 * json_num: a numeric field's value. Numbers as they are, null → NAN, strings
 * through str_num. Returns 0, or -1 when the value is not a number (bool,
 * container, non-numeric string); *v untouched then.
 */
static int
json_num(pctx *p, const json_t *j, double *v)
{
	switch (json_typeof(j)) {
	case JSON_INTEGER:
		*v = (double)json_integer_value(j);
		return 0;
	case JSON_REAL:
		*v = json_real_value(j);
		return 0;
	case JSON_NULL:
		*v = NAN;
		return 0;
	case JSON_STRING:
		return str_num(p, json_string_value(j), v);
	default:
		return -1;
	}
}

/* num_field: json_num for top-level key `key`, with an error naming the key
 * and its line:col. */
static int
num_field(octx *o, const char *key, const json_t *j, double *v, char **cause)
{
	if (json_num(o->p, j, v) == 0)
		return 0;
	if (json_is_string(j))
		return err_at(o->p, key_off(o, key), cause,
		    "\"%s\": expected a number, got the string \"%.40s\"", key, json_string_value(j));
	return err_at(o->p, key_off(o, key), cause, "\"%s\": expected a number, got %s",
	    key, type_name(j));
}

/* str_field: a string field: strings verbatim, null → NULL, numbers and
 * booleans as their text; containers are an error. */
static int
str_field(octx *o, const char *key, const json_t *j, char **out, char **cause)
{
	free(*out);
	*out = NULL;
	if (json_is_string(j)) {
		*out = br_xstrdup(json_string_value(j));
		return 0;
	}
	if (json_is_null(j))
		return 0;
	if (json_is_object(j) || json_is_array(j))
		return err_at(o->p, key_off(o, key), cause, "\"%s\": expected a string, got %s",
		    key, type_name(j));
	*out = raw_text(o, key);
	if (*out == NULL)
		*out = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	return 0;
}

/*
 * parse_stat_key: split "mean_ttft_ms", "p99.9_itl_ms" ... into a
 * br_file_stat (value not set). Returns 1 when key has that shape and fits.
 */
static int
parse_stat_key(const char *key, br_file_stat *st)
{
	size_t kl = strlen(key);
	if (kl < 6 || kl >= sizeof st->key || strcmp(key + kl - 3, "_ms") != 0)
		return 0;
	const char *us = strchr(key, '_');
	if (us == NULL)
		return 0;
	size_t pl = (size_t)(us - key);
	const char *metric = us + 1;
	size_t ml = (size_t)(key + kl - 3 - metric);
	if (ml == 0 || ml >= sizeof st->metric)
		return 0;
	memset(st, 0, sizeof *st);
	st->percentile = NAN;
	if (pl == 4 && memcmp(key, "mean", 4) == 0)
		strcpy(st->stat, "mean");
	else if (pl == 6 && memcmp(key, "median", 6) == 0)
		strcpy(st->stat, "median");
	else if (pl == 3 && memcmp(key, "std", 3) == 0)
		strcpy(st->stat, "std");
	else if (pl >= 2 && key[0] == 'p') {
		/* digits, optionally one dot and more digits */
		int dots = 0;
		for (size_t i = 1; i < pl; i++) {
			if (key[i] == '.' && i > 1 && i + 1 < pl && dots == 0)
				dots++;
			else if (!isdigit((unsigned char)key[i]))
				return 0;
		}
		char buf[32];
		if (pl >= sizeof buf)
			return 0;
		memcpy(buf, key + 1, pl - 1);
		buf[pl - 1] = '\0';
		st->percentile = strtod(buf, NULL);
		if (st->percentile > 100)
			return 0;
		strcpy(st->stat, "p");
	} else
		return 0;
	memcpy(st->metric, metric, ml);
	st->metric[ml] = '\0';
	/* SGLang's bench_serving names E2EL "e2e_latency" (median_e2e_latency_ms) */
	if (strcmp(st->metric, "e2e_latency") == 0)
		strcpy(st->metric, "e2el");
	memcpy(st->key, key, kl + 1);
	return 1;
}

/* Numeric keys mapped straight onto a br_bench field. */
static const struct numkey {
	const char *key;
	size_t off;
} num_keys[] = {
	{ "num_prompts", offsetof(br_bench, num_prompts) },
	{ "request_rate", offsetof(br_bench, request_rate_rps) },
	{ "burstiness", offsetof(br_bench, burstiness) },
	{ "max_concurrency", offsetof(br_bench, max_concurrency) },
	{ "duration", offsetof(br_bench, duration_s) },
	{ "completed", offsetof(br_bench, completed) },
	{ "failed", offsetof(br_bench, failed) },
	{ "total_input_tokens", offsetof(br_bench, total_input_tokens) },
	{ "total_output_tokens", offsetof(br_bench, total_output_tokens) },
	{ "request_throughput", offsetof(br_bench, request_throughput_rps) },
	{ "request_goodput", offsetof(br_bench, request_goodput_rps) },
	{ "request_goodput:", offsetof(br_bench, request_goodput_rps) },
	{ "output_throughput", offsetof(br_bench, output_throughput_tps) },
	{ "total_token_throughput", offsetof(br_bench, total_token_throughput_tps) },
	{ "input_throughput", offsetof(br_bench, input_throughput_tps) },
	{ "request_inthroughput", offsetof(br_bench, input_throughput_tps) },
	{ "max_output_tokens_per_s", offsetof(br_bench, max_output_tokens_per_s) },
	{ "max_concurrent_requests", offsetof(br_bench, max_concurrent_requests) },
	{ "spec_decode_acceptance_rate", offsetof(br_bench, spec_decode_acceptance_rate) },
	{ "spec_decode_acceptance_length", offsetof(br_bench, spec_decode_acceptance_length) },
	{ "spec_decode_num_drafts", offsetof(br_bench, spec_decode_num_drafts) },
	{ "spec_decode_draft_tokens", offsetof(br_bench, spec_decode_draft_tokens) },
	{ "spec_decode_accepted_tokens", offsetof(br_bench, spec_decode_accepted_tokens) },
};

/* String keys mapped onto a br_bench field. */
static const struct strkey {
	const char *key;
	size_t off;
} str_keys[] = {
	{ "date", offsetof(br_bench, date) },
	{ "backend", offsetof(br_bench, backend) },
	{ "label", offsetof(br_bench, label) },
	{ "model_id", offsetof(br_bench, model_id) },
	{ "tokenizer_id", offsetof(br_bench, tokenizer_id) },
};

/* bench_init: every number NAN, every pointer NULL. */
static void
bench_init(br_bench *b)
{
	memset(b, 0, sizeof *b);
	double *nums[] = {
		&b->num_prompts, &b->request_rate_rps, &b->burstiness, &b->max_concurrency,
		&b->run_number, &b->duration_s, &b->completed, &b->failed,
		&b->total_input_tokens, &b->total_output_tokens, &b->request_throughput_rps,
		&b->request_goodput_rps, &b->output_throughput_tps,
		&b->total_token_throughput_tps, &b->input_throughput_tps,
		&b->max_output_tokens_per_s, &b->max_concurrent_requests,
		&b->spec_decode_acceptance_rate, &b->spec_decode_acceptance_length,
		&b->spec_decode_num_drafts, &b->spec_decode_draft_tokens,
		&b->spec_decode_accepted_tokens,
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		*nums[i] = NAN;
}

/* add_extra: append key=value (value owned by the extra). */
static void
add_extra(br_bench *b, const char *key, char *value)
{
	b->extras = br_xrealloc(b->extras, (b->n_extras + 1) * sizeof *b->extras);
	b->extras[b->n_extras].key = br_xstrdup(key);
	b->extras[b->n_extras].value = value;
	b->n_extras++;
}

/* extra_text: the text kept for an extra: strings verbatim, anything else as
 * written in the file (raw_text). */
static char *
extra_text(octx *o, const char *key, const json_t *v)
{
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!(o->p->replaced && (unsigned char)s[0] == 0x7f))
			return br_xstrdup(s);
	}
	char *r = raw_text(o, key);
	if (r == NULL)
		r = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	return r ? r : br_xstrdup("");
}

/* arr_num: element i of per-request array `key`, as a number (seconds or
 * tokens); error names the key and index. */
static int
arr_num(octx *o, int a, size_t i, const json_t *j, double *v, char **cause)
{
	if (json_num(o->p, j, v) == 0)
		return 0;
	return err_at(o->p, key_off(o, array_keys[a]), cause,
	    "\"%s\"[%zu]: expected a number, got %s", array_keys[a], i, type_name(j));
}

/*
 * elem_off: offset in the text of element i of top-level array `key` and,
 * when k != (size_t)-1, of element k of that element (itls[i][k]); the
 * key's offset when the text cannot be walked (only used for messages).
 */
static size_t
elem_off(octx *o, const char *key, size_t i, size_t k)
{
	const keypos *kp = find_key(o, key);
	if (kp == NULL)
		return o->start;
	const char *t = o->p->text;
	size_t end = kp->val_end, pos = kp->val_off;
	size_t idx[2] = { i, k };
	for (int level = 0; level < 2; level++) {
		if (level == 1 && k == (size_t)-1)
			break;
		if (pos >= end || t[pos] != '[')
			return kp->key_off;
		pos = skip_ws(t, end, pos + 1);
		for (size_t n = 0; n < idx[level]; n++) {
			pos = skip_ws(t, end, value_end(t, end, pos));
			if (pos >= end || t[pos] != ',')
				return kp->key_off;
			pos = skip_ws(t, end, pos + 1);
		}
	}
	return pos;
}

/*
 * check_value: a per-request number of a successful request must be finite
 * and >= 0 (JSON null, an absent value, is allowed: is_null). Returns 0, or -1 with
 * *cause naming the array, the request index and the element's line:col.
 */
static int
check_value(octx *o, const char *key, size_t i, size_t k, int is_null, double v,
    const char *unit, char **cause)
{
	if (is_null || (isfinite(v) && v >= 0))
		return 0;
	char idx[64];
	if (k == (size_t)-1)
		snprintf(idx, sizeof idx, "[%zu]", i);
	else
		snprintf(idx, sizeof idx, "[%zu][%zu]", i, k);
	char what[64];
	if (isnan(v))
		snprintf(what, sizeof what, "NaN");
	else if (isinf(v))
		snprintf(what, sizeof what, "%s", v > 0 ? "Infinity" : "-Infinity");
	else
		snprintf(what, sizeof what, "%g is negative", v);
	return err_at(o->p, elem_off(o, key, i, k), cause,
	    "\"%s\"%s: %s for successful request %zu; expected a finite %s >= 0",
	    key, idx, what, i, unit);
}

/* NULL_NAN: the NaN the fast path stores for a JSON null, told apart from a
 * NaN token by its payload until read_requests turns it into NAN. */
static const uint64_t NULL_NAN_BITS = 0x7ff80000000bad01ULL;

/* fast_is_null: 1 when x is the fast path's null marker. */
static inline int
fast_is_null(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u == NULL_NAN_BITS;
}

/*
 * read_requests: fill b->requests from the per-request arrays arr[] (NULL when
 * absent). All present arrays must have the same length. A request is failed
 * when its error string is non-empty; without `errors`, when ttft and
 * output_len are both 0. An array the fast path read (o->fast[a]; jansson
 * then holds an empty one) gives its values from there: a null entry arrives
 * as the NULL_NAN marker and leaves as NAN; its ITLs become one block owned by
 * b (b->itls_block) that the requests point into.
 */
static int
read_requests(octx *o, br_bench *b, json_t *arr[A_N], char **cause)
{
	int first = -1;
	size_t n = 0;
	for (int a = 0; a < A_N; a++) {
		if (arr[a] == NULL)
			continue;
		size_t m = o->fast[a] ? o->fast[a]->n : json_array_size(arr[a]);
		if (first < 0) {
			first = a;
			n = m;
		} else if (m != n)
			return err_at(o->p, key_off(o, array_keys[a]), cause,
			    "\"%s\" has %zu entries but \"%s\" has %zu: expected one entry per request in every per-request array",
			    array_keys[a], m, array_keys[first], n);
	}
	if (first < 0 || n == 0)
		return 0;
	b->has_latencies = arr[A_LAT] != NULL;
	b->has_start_times = arr[A_START] != NULL;
	b->has_queue_times = arr[A_QUEUE] != NULL;
	b->has_errors = arr[A_ERR] != NULL;
	b->has_itls = arr[A_ITLS] != NULL;
	b->requests = br_xcalloc(n, sizeof *b->requests);
	b->n_requests = n;
	farr *fi = arr[A_ITLS] ? o->fast[A_ITLS] : NULL;
	if (fi != NULL) {
		b->itls_block = fi->v;   /* b owns it from here, even on error */
		fi->v = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		br_request *r = &b->requests[i];
		double *dst[A_N] = {
			[A_INPUT] = &r->input_len_tokens, [A_OUTPUT] = &r->output_len_tokens,
			[A_TTFT] = &r->ttft_s, [A_LAT] = &r->latency_s,
			[A_START] = &r->start_time_s, [A_QUEUE] = &r->queue_time_s,
		};
		int is_null[A_N] = { 0 };
		for (int a = 0; a < A_N; a++) {
			if (dst[a] == NULL)
				continue;
			*dst[a] = NAN;
			if (arr[a] == NULL)
				continue;
			if (o->fast[a] != NULL) {
				double x = o->fast[a]->v[i];
				if (fast_is_null(x)) {
					is_null[a] = 1;
					x = NAN;
				}
				*dst[a] = x;
				continue;
			}
			json_t *e = json_array_get(arr[a], i);
			is_null[a] = json_is_null(e);
			if (arr_num(o, a, i, e, dst[a], cause) != 0)
				return -1;
		}
		if (fi != NULL) {
			size_t m = fi->ofs[i + 1] - fi->ofs[i];
			r->itls_s = m ? b->itls_block + fi->ofs[i] : NULL;
			r->n_itls = m;
		} else if (arr[A_ITLS]) {
			json_t *l = json_array_get(arr[A_ITLS], i);
			if (json_is_array(l)) {
				size_t m = json_array_size(l);
				if (m > 0)
					r->itls_s = br_xmalloc(m * sizeof *r->itls_s);
				for (size_t k = 0; k < m; k++) {
					json_t *e = json_array_get(l, k);
					if (json_num(o->p, e, &r->itls_s[k]) != 0)
						return err_at(o->p, key_off(o, "itls"), cause,
						    "\"itls\"[%zu][%zu]: expected a number, got %s",
						    i, k, type_name(e));
				}
				r->n_itls = m;
			} else if (!json_is_null(l))
				return err_at(o->p, key_off(o, "itls"), cause,
				    "\"itls\"[%zu]: expected a list of numbers, got %s", i, type_name(l));
		}
		if (arr[A_ERR] && o->fast[A_ERR] != NULL)
			r->failed = 0;   /* the fast path takes only "" and null */
		else if (arr[A_ERR]) {
			json_t *e = json_array_get(arr[A_ERR], i);
			if (json_is_string(e)) {
				if (json_string_length(e) > 0)
					r->error = br_xstrdup(json_string_value(e));
			} else if (!json_is_null(e))
				return err_at(o->p, key_off(o, "errors"), cause,
				    "\"errors\"[%zu]: expected a string, got %s", i, type_name(e));
			r->failed = r->error != NULL && r->error[0] != '\0';
		} else
			r->failed = r->ttft_s == 0.0 && r->output_len_tokens == 0.0;
		if (r->failed) {
			if (fi != NULL)
				for (size_t k = 0; k < r->n_itls; k++)
					if (fast_is_null(r->itls_s[k]))
						r->itls_s[k] = NAN;
			continue;
		}
		/* a successful request: its numbers must be real durations/counts */
		static const struct { int a; const char *unit; } chk[] = {
			{ A_INPUT, "token count" }, { A_OUTPUT, "token count" },
			{ A_TTFT, "time in seconds" }, { A_LAT, "time in seconds" },
		};
		for (size_t c = 0; c < sizeof chk / sizeof chk[0]; c++) {
			int a = chk[c].a;
			if (arr[a] && check_value(o, array_keys[a], i, (size_t)-1,
			    is_null[a], *dst[a], chk[c].unit, cause) != 0)
				return -1;
		}
		/* a token count is whole: 512.5 would only surface later as totals
		 * that "differ" while printing alike */
		static const int counts[] = { A_INPUT, A_OUTPUT };
		for (size_t c = 0; c < 2; c++) {
			int a = counts[c];
			if (arr[a] && !is_null[a] && isfinite(*dst[a]) && *dst[a] != floor(*dst[a]))
				return err_at(o->p, elem_off(o, array_keys[a], i, (size_t)-1), cause,
				    "\"%s\"[%zu]: %g for successful request %zu; expected a whole number of tokens",
				    array_keys[a], i, *dst[a], i);
		}
		/* the first token cannot come after the last: E2E latency includes TTFT
		 * (1 µs of slack for clocks rounded differently) */
		if (isfinite(r->ttft_s) && isfinite(r->latency_s) && r->ttft_s > r->latency_s + 1e-6)
			return err_at(o->p, elem_off(o, "ttfts", i, (size_t)-1), cause,
			    "\"ttfts\"[%zu]: %g s is after the request's end (\"latencies\"[%zu] = %g s); "
			    "expected ttft <= latency (the E2E latency includes the time to first token)",
			    i, r->ttft_s, i, r->latency_s);
		json_t *l = arr[A_ITLS] && fi == NULL ? json_array_get(arr[A_ITLS], i) : NULL;
		for (size_t k = 0; k < r->n_itls; k++) {
			double x = r->itls_s[k];
			int nul;
			if (fi != NULL) {
				nul = fast_is_null(x);
				if (nul)
					r->itls_s[k] = x = NAN;
			} else
				nul = json_is_null(json_array_get(l, k));
			if (!(nul || (isfinite(x) && x >= 0)) &&
			    check_value(o, "itls", i, k, nul, x, "time in seconds", cause) != 0)
				return -1;
		}
	}
	return 0;
}

/* bad_date: 1 when d is written as YYYYMMDD-HHMMSS (vllm bench serve's
 * format) but names no real time (month 13, hour 25, 31 April). */
static int
bad_date(const char *d)
{
	int Y, M, D, h, m, sec, n = 0;
	if (strlen(d) != 15 || sscanf(d, "%4d%2d%2d-%2d%2d%2d%n", &Y, &M, &D, &h, &m, &sec, &n) != 6 || n != 15)
		return 0;   /* another format: kept as text */
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] || h > 23 || m > 59 || sec > 60)
		return 1;
	return M == 2 && D == 29 && !((Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0);
}

/*
 * check_counts: completed, failed, num_prompts and total_*_tokens, when
 * present (not NAN), must be whole numbers >= 0 and not absurdly large
 * (requests <= 1e12, tokens <= 1e15); completed may not exceed the number of
 * per-request entries. Returns 0 or -1 with *cause naming the key.
 */
static int
check_counts(octx *o, br_bench *b, int have_failed, char **cause)
{
	const struct { const char *key; double v; double max; const char *what; } c[] = {
		{ "completed", b->completed, 1e12, "requests" },
		{ "failed", have_failed ? b->failed : NAN, 1e12, "requests" },
		{ "num_prompts", b->num_prompts, 1e12, "requests" },
		{ "total_input_tokens", b->total_input_tokens, 1e15, "tokens" },
		{ "total_output_tokens", b->total_output_tokens, 1e15, "tokens" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		double v = c[i].v;
		if (isnan(v))
			continue;
		if (v < 0)
			return err_at(o->p, key_off(o, c[i].key), cause,
			    "\"%s\": %g is negative; expected a whole number of %s >= 0",
			    c[i].key, v, c[i].what);
		if (isinf(v) || v > c[i].max || v != floor(v))
			return err_at(o->p, key_off(o, c[i].key), cause,
			    "\"%s\": %g: expected a whole number of %s (at most %g)",
			    c[i].key, v, c[i].what, c[i].max);
	}
	/* max_concurrency: null (no limit, read as +inf) or a whole number of requests >= 1 */
	double mc = b->max_concurrency;
	if (!isnan(mc) && !(isinf(mc) && mc > 0) && !(mc >= 1 && mc <= 1e9 && mc == floor(mc)))
		return err_at(o->p, key_off(o, "max_concurrency"), cause,
		    "\"max_concurrency\": %g: expected a whole number of requests >= 1 (at most 1e9), or null "
		    "for no limit", mc);
	/* duration and rates: a finite, possible number of seconds / per second
	 * (NaN, written by very old zero-success runs for rates, means absent) */
	if (!(isfinite(b->duration_s) && b->duration_s > 0 && b->duration_s <= 1e9))
		return err_at(o->p, key_off(o, "duration"), cause,
		    "\"duration\": %g: expected the run's length in seconds (> 0 and at most 1e9 s, about 32 years)", b->duration_s);
	const struct { const char *key; double v; } rt[] = {
		{ "request_throughput", b->request_throughput_rps },
		{ "request_goodput", b->request_goodput_rps },
		{ "output_throughput", b->output_throughput_tps },
		{ "total_token_throughput", b->total_token_throughput_tps },
		{ "input_throughput", b->input_throughput_tps },
		{ "max_output_tokens_per_s", b->max_output_tokens_per_s },
	};
	for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
		if (!isnan(rt[i].v) && !(rt[i].v >= 0 && rt[i].v <= 1e12)) {
			const char *k = find_key(o, rt[i].key) != NULL || strcmp(rt[i].key, "request_goodput") != 0 ?
			    rt[i].key : "request_goodput:";
			return err_at(o->p, key_off(o, k), cause,
			    "\"%s\": %g: expected a rate per second >= 0 (at most 1e12)", k, rt[i].v);
		}
	/* the offered load: a rate > 0 or inf (inf: all at once), a gamma shape > 0 */
	if (!isnan(b->request_rate_rps) && !(b->request_rate_rps > 0 && b->request_rate_rps <= 1e12) &&
	    !(isinf(b->request_rate_rps) && b->request_rate_rps > 0))
		return err_at(o->p, key_off(o, "request_rate"), cause,
		    "\"request_rate\": %g: expected the offered rate in requests per second (> 0), or inf for "
		    "all at once", b->request_rate_rps);
	if (!isnan(b->burstiness) && !(b->burstiness > 0))
		return err_at(o->p, key_off(o, "burstiness"), cause,
		    "\"burstiness\": %g: expected the gamma shape of the arrivals (> 0; 1 = Poisson, inf = evenly spaced)",
		    b->burstiness);
	if (!isnan(b->num_prompts) && !isnan(b->completed) &&
	    b->completed + (have_failed && !isnan(b->failed) ? b->failed : 0) > b->num_prompts)
		return err_at(o->p, key_off(o, "num_prompts"), cause,
		    "\"num_prompts\": %.0f but the run completed %.0f%s; expected num_prompts to count every "
		    "request sent", b->num_prompts, b->completed,
		    have_failed && b->failed > 0 ? " and failed more" : "");
	if (b->date != NULL && bad_date(b->date))
		return err_at(o->p, key_off(o, "date"), cause,
		    "\"date\": \"%s\" is no time of day: expected the run's end as YYYYMMDD-HHMMSS",
		    b->date);
	/* the total token rate counts the output and the input tokens: it is
	 * never below either (an output_throughput of 1e9 beside a total of
	 * 3,166 tok/s was printed as stated) */
	const struct { const char *key; double v; } part[] = {
		{ "output_throughput", b->output_throughput_tps },
		{ "input_throughput", b->input_throughput_tps },
	};
	for (size_t i = 0; i < 2; i++)
		if (isfinite(part[i].v) && isfinite(b->total_token_throughput_tps) &&
		    find_key(o, part[i].key) != NULL && find_key(o, "total_token_throughput") != NULL &&
		    part[i].v > b->total_token_throughput_tps * (1 + 1e-9) + 1e-9)
			return err_at(o->p, key_off(o, part[i].key), cause,
			    "\"%s\": %g tok/s is more than \"total_token_throughput\": %g tok/s; expected a part "
			    "of the total (input + output tokens per second)", part[i].key, part[i].v,
			    b->total_token_throughput_tps);
	/* the per-request arrays against the header: every request lies inside
	 * the run, and the token totals count the successful requests (FORMATS.md §1) */
	double max_lat = 0, sum_in = 0, sum_out = 0;
	size_t i_max = 0, n_ok = 0;
	int have_in = 0, have_out = 0;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *r = &b->requests[i];
		if (r->failed)
			continue;
		n_ok++;
		if (isfinite(r->latency_s) && r->latency_s > max_lat) {
			max_lat = r->latency_s;
			i_max = i;
		}
		if (isfinite(r->input_len_tokens)) {
			sum_in += r->input_len_tokens;
			have_in = 1;
		}
		if (isfinite(r->output_len_tokens)) {
			sum_out += r->output_len_tokens;
			have_out = 1;
		}
	}
	if (max_lat > 0 && b->duration_s < 0.99 * max_lat - 1e-3)
		return err_at(o->p, key_off(o, "duration"), cause,
		    "\"duration\": %g s is shorter than request %zu's own latency (%g s); expected the "
		    "run's length, which covers every request", b->duration_s, i_max, max_lat);
	const struct { const char *key, *arr; double total, sum; int have; } tt[] = {
		{ "total_input_tokens", "input_lens", b->total_input_tokens, sum_in, have_in },
		{ "total_output_tokens", "output_lens", b->total_output_tokens, sum_out, have_out },
	};
	for (size_t i = 0; i < 2 && n_ok > 0; i++)
		if (tt[i].have && !isnan(tt[i].total) && tt[i].total != tt[i].sum)
			return err_at(o->p, key_off(o, tt[i].key), cause,
			    "\"%s\": %.0f but the %zu successful requests' \"%s\" sum to %.0f; expected "
			    "the same count (the total covers the successful requests)",
			    tt[i].key, tt[i].total, n_ok, tt[i].arr, tt[i].sum);
	/* with an errors array the arrays say which requests failed: the
	 * header's counts must be theirs (vllm bench serve counts completed as
	 * the successful requests, failed as the others) */
	size_t n_fail = b->n_requests - n_ok;
	if (b->has_errors && b->n_requests > 0 && !isnan(b->completed) && b->completed != (double)n_ok)
		return err_at(o->p, key_off(o, "completed"), cause,
		    "\"completed\": %.0f but %zu of the %zu per-request entries have no error (\"errors\"); "
		    "expected completed to count the requests without an error",
		    b->completed, n_ok, b->n_requests);
	if (b->has_errors && b->n_requests > 0 && have_failed && !isnan(b->failed) &&
	    b->failed != (double)n_fail)
		return err_at(o->p, key_off(o, "failed"), cause,
		    "\"failed\": %.0f but %zu of the %zu per-request entries carry an error (\"errors\"); "
		    "expected failed to count the requests with an error",
		    b->failed, n_fail, b->n_requests);
	if (b->n_requests > 0 && !isnan(b->completed) && b->completed > (double)b->n_requests)
		return err_at(o->p, key_off(o, "completed"), cause,
		    "\"completed\": %.0f but the per-request arrays hold only %zu requests; "
		    "expected completed <= the number of per-request entries",
		    b->completed, b->n_requests);
	return 0;
}

/*
 * map_object: fill b from one parsed object `j` lying at [o->start, o->end).
 * Returns 0, or -1 with *cause (b is left for the caller to free).
 */
static int
map_object(octx *o, json_t *j, br_bench *b, char **cause)
{
	if (!json_is_object(j))
		return err_at(o->p, o->start, cause,
		    "expected a JSON object (a vLLM bench serve result), got %s", type_name(j));
	if (json_object_get(j, "duration") == NULL || json_object_get(j, "completed") == NULL)
		return err_at(o->p, o->start, cause,
		    "not a vllm bench serve result: expected an object with \"duration\" and \"completed\" keys");

	json_t *arr[A_N] = { 0 };
	char *endpoint_type = NULL;
	int have_failed = 0;
	size_t stat_cap = 0;
	const char *key;
	json_t *v;
	json_object_foreach(j, key, v) {
		size_t i;
		for (i = 0; i < sizeof num_keys / sizeof num_keys[0]; i++)
			if (strcmp(key, num_keys[i].key) == 0)
				break;
		if (i < sizeof num_keys / sizeof num_keys[0]) {
			if (num_field(o, key, v, (double *)((char *)b + num_keys[i].off), cause) != 0)
				goto fail;
			if (strcmp(key, "failed") == 0 && !json_is_null(v))
				have_failed = 1;
			continue;
		}
		for (i = 0; i < sizeof str_keys / sizeof str_keys[0]; i++)
			if (strcmp(key, str_keys[i].key) == 0)
				break;
		if (i < sizeof str_keys / sizeof str_keys[0]) {
			if (str_field(o, key, v, (char **)((char *)b + str_keys[i].off), cause) != 0)
				goto fail;
			continue;
		}
		if (strcmp(key, "endpoint_type") == 0) {
			if (str_field(o, key, v, &endpoint_type, cause) != 0)
				goto fail;
			continue;
		}
		for (i = 0; i < A_N; i++)
			if (strcmp(key, array_keys[i]) == 0)
				break;
		if (i < A_N) {
			if (o->fast[i] != NULL && !(json_is_array(v) && json_array_size(v) == 0)) {
				o->p->fs_bad = 1;   /* cannot happen: jansson read "[]" there */
				goto fail;
			}
			if (json_is_null(v))
				continue;
			if (!json_is_array(v)) {
				err_at(o->p, key_off(o, key), cause,
				    "\"%s\": expected a list (one entry per request), got %s",
				    key, type_name(v));
				goto fail;
			}
			arr[i] = v;
			continue;
		}
		br_file_stat st;
		if (parse_stat_key(key, &st)) {
			if (num_field(o, key, v, &st.value_ms, cause) != 0)
				goto fail;
			/* NaN (very old zero-success runs) stays: it reads as unknown */
			if (!isnan(st.value_ms) && !(st.value_ms >= 0 && st.value_ms <= 1e12)) {
				err_at(o->p, key_off(o, key), cause, "\"%s\": %g: expected a latency in ms "
				    ">= 0 (at most 1e12 ms, 31 years)", key, st.value_ms);
				goto fail;
			}
			if (b->n_stats == stat_cap) {
				stat_cap = stat_cap ? stat_cap * 2 : 16;
				b->stats = br_xrealloc(b->stats, stat_cap * sizeof *b->stats);
			}
			b->stats[b->n_stats++] = st;
			continue;
		}
		if (strcmp(key, "run_number") == 0 &&
		    num_field(o, key, v, &b->run_number, cause) != 0)
			goto fail;
		add_extra(b, key, extra_text(o, key, v));
	}
	if (b->backend == NULL && endpoint_type != NULL)
		b->backend = br_xstrdup(endpoint_type);
	b->endpoint_type = endpoint_type;
	endpoint_type = NULL;
	if (!have_failed) {
		b->failed = b->num_prompts - b->completed;  /* NAN when either is absent */
		b->failed_derived = 1;
	}
	/* throughputs a file leaves out (SGLang's bench_serving JSONL, old vLLM
	 * files), by the formulas vllm bench serve itself uses: completed /
	 * duration and (input + output tokens) / duration */
	if (br_isnum(b->duration_s) && b->duration_s > 0) {
		if (!br_isnum(b->request_throughput_rps) && br_isnum(b->completed))
			b->request_throughput_rps = b->completed / b->duration_s;
		if (!br_isnum(b->total_token_throughput_tps) && br_isnum(b->total_input_tokens) &&
		    br_isnum(b->total_output_tokens))
			b->total_token_throughput_tps = (b->total_input_tokens + b->total_output_tokens) / b->duration_s;
	}
	if (read_requests(o, b, arr, cause) != 0 || check_counts(o, b, have_failed, cause) != 0)
		goto fail;
	return 0;
fail:
	free(endpoint_type);
	return -1;
}

/*
 * jansson_phrase: our wording for the part of a jansson error text before
 * " near ", so no jansson-internal word (flag names such as JSON_ALLOW_NUL)
 * reaches a message. Unknown phrases are kept unless they name a JSON_ flag.
 * Returns a static string or `text` itself (first `n` bytes are the phrase).
 */
static const char *
jansson_phrase(const char *text, size_t n, int *keep_len)
{
	static const struct { const char *from, *to; } map[] = {
		{ "\\u0000 is not allowed", "\\u0000 (a NUL character) inside a string is not supported" },
		{ "NUL byte in object key", "\\u0000 (a NUL character) in a key is not supported" },
		{ "real number overflow", "number too large for a double (beyond 1.8e308)" },
		{ "too big integer", "integer too large (beyond 9.2e18)" },
		{ "maximum parsing depth", "nesting too deep" },
		{ "unable to decode byte", "not UTF-8 text" },
		{ "invalid Unicode", "invalid Unicode escape" },
	};
	*keep_len = 0;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strncmp(text, map[i].from, strlen(map[i].from)) == 0)
			return map[i].to;
	if (memmem(text, n, "JSON_", 5) != NULL)
		return "invalid JSON";
	*keep_len = (int)n;
	return text;
}

/*
 * dup_key_err: *cause for jansson's "duplicate object key": the key literal
 * ends just before offset `end`; the message names the decoded key and its
 * line:col. Returns -1.
 */
static int
dup_key_err(pctx *p, size_t end, char **cause)
{
	const char *t = p->text;
	size_t q = end;
	while (q > 0 && t[q - 1] != '"')
		q--;           /* closing quote (jansson stops right after it) */
	size_t b = q > 0 ? q - 1 : 0;
	while (b > 0) {
		b--;
		if (t[b] == '"') {
			size_t bs = 0;
			while (b >= bs + 1 && t[b - bs - 1] == '\\')
				bs++;
			if (bs % 2 == 0)
				break;
		}
	}
	char *key = (q > b + 1 && t[b] == '"') ? decode_key(t, b, q) : br_xstrdup("?");
	err_at(p, b, cause, "key \"%s\" appears twice in the same object; expected each key once "
	    "(which value is meant is ambiguous)", key);
	free(key);
	return -1;
}

/* json_err: *cause for a jansson error at object base offset `base`. The
 * position is the byte jansson stopped on; at end of input, just past the
 * last byte (where more text was expected). jansson's wording is translated
 * (jansson_phrase); its " near '...'" part is kept unless it shows our
 * NaN/Infinity sentinels. */
static int
json_err(pctx *p, size_t base, const json_error_t *e, char **cause)
{
	if (cause == NULL)
		return -1;   /* fast path attempt: the message is not wanted */
	size_t off = base + (size_t)(e->position > 0 ? e->position : 0);
	if (strncmp(e->text, "duplicate object key", 20) == 0)
		return dup_key_err(p, off, cause);
	if (off < p->len && e->position > 0)
		off--;
	const char *near = strstr(e->text, " near ");
	size_t n = near ? (size_t)(near - e->text) : strlen(e->text);
	int keep;
	const char *phrase = jansson_phrase(e->text, n, &keep);
	int show_near = near && strchr(near, 0x7f) == NULL && strstr(near, "JSON_") == NULL;
	return err_at(p, off, cause, "malformed JSON: %.*s%s; expected a vLLM bench result JSON",
	    keep ? keep : (int)strlen(phrase), phrase, show_near ? near : "");
}

/* ------------------------------------------------------------------------
 * Fast path for the per-request numeric arrays.
 *
 * A detailed result holds millions of numbers (itls), and a jansson DOM of
 * them (one malloc'd json_t each, strtod through its lexer) dominates the
 * load. So, after step 2, fast_scan walks the text (respecting strings and
 * nesting), finds each run object's top-level "input_lens", "output_lens",
 * "ttfts", "itls", "latencies", "start_times" and "queue_times" array, and
 * parses it here when it holds only what jansson would accept and read the
 * same way: JSON numbers, null and the NaN/Infinity sentinels (itls: lists of
 * those, or null). jansson then reads a compact copy of the text in which
 * each such array is "[]", and read_requests takes the values from here.
 * "generated_texts" (nothing reads the texts; a real --save-detailed result
 * carries ~4 bytes of text per output token, as much again as its ITLs in a
 * jansson DOM) is only counted, and "errors" is taken here only when every
 * entry is "" or null (a run without failures); both only when every string
 * is one jansson surely accepts (text_scan).
 * Anything else in such an array (strings such as "16", booleans, a syntax
 * error, an integer beyond int64, a real beyond a double) leaves the array
 * to jansson. And whenever the fast attempt fails in any way (a jansson
 * error, a value check, a count), the whole file is parsed again on the
 * jansson-only path, so every error message is exactly that path's.
 * Environment variable BR_BENCH_NO_FAST=1 turns the fast path off (tests
 * compare both paths).
 * ------------------------------------------------------------------------ */

/* is_delim: a byte that may follow a value inside an array. */
static inline int
is_delim(int c)
{
	return c == ',' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* skip_ws_z: skip JSON whitespace in NUL-terminated text. */
static inline size_t
skip_ws_z(const char *t, size_t i)
{
	while (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')
		i++;
	return i;
}

/*
 * The body of a JSON string checked a piece at a time (text_scan), so a
 * streamed string may cross buffer refills. Accepted: printable ASCII but
 * DEL, the escapes \" \\ \/ \b \f \n \r \t and \uXXXX other than \u0000
 * (jansson refuses it) and \u007f (sanitize's marker), and well-formed UTF-8
 * (RFC 3629: no overlongs, surrogates or values past U+10FFFF, as jansson's
 * utf8 checks). Anything else leaves the string to jansson.
 */
typedef struct textscan {
	int esc;               /* 0; 1 after a backslash; 2..5: hex digits of \u seen + 2 */
	unsigned u;            /* the \u value so far */
	int cont;              /* UTF-8 continuation bytes still due */
	unsigned char lo, hi;  /* the range of the next continuation byte */
} textscan;

/*
 * text_scan: scan s[0, n) of a string body (after its opening quote) with
 * state st. Returns the bytes used up to and including the closing quote
 * (*closed = 1), n when the string goes on past s + n (*closed = 0), or -1
 * at a byte outside what the fast path accepts.
 */
static long
text_scan(textscan *st, const unsigned char *s, size_t n, int *closed)
{
	*closed = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = s[i];
		if (st->cont > 0) {
			if (c < st->lo || c > st->hi)
				return -1;
			st->cont--;
			st->lo = 0x80;
			st->hi = 0xbf;
			continue;
		}
		if (st->esc == 1) {
			if (c == 'u') {
				st->esc = 2;
				st->u = 0;
			} else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
			    c == 'r' || c == 't')
				st->esc = 0;
			else
				return -1;
			continue;
		}
		if (st->esc >= 2) {
			int d = c >= '0' && c <= '9' ? (int)c - '0' : c >= 'a' && c <= 'f' ? (int)c - 'a' + 10 :
			    c >= 'A' && c <= 'F' ? (int)c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			st->u = st->u * 16 + (unsigned)d;
			if (++st->esc == 6) {
				if (st->u == 0 || st->u == 0x7f)
					return -1;
				st->esc = 0;
			}
			continue;
		}
		if (c == '"') {
			*closed = 1;
			return (long)(i + 1);
		}
		if (c == '\\') {
			st->esc = 1;
			continue;
		}
		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return -1;
			continue;
		}
		st->lo = 0x80;
		st->hi = 0xbf;
		if (c >= 0xc2 && c <= 0xdf)
			st->cont = 1;
		else if (c >= 0xe0 && c <= 0xef) {
			st->cont = 2;
			if (c == 0xe0)
				st->lo = 0xa0;      /* no overlong */
			else if (c == 0xed)
				st->hi = 0x9f;      /* no surrogate */
		} else if (c >= 0xf0 && c <= 0xf4) {
			st->cont = 3;
			if (c == 0xf0)
				st->lo = 0x90;
			else if (c == 0xf4)
				st->hi = 0x8f;      /* not past U+10FFFF */
		} else
			return -1;
	}
	return (long)n;
}

static size_t text_lists_counted;   /* br_bench_text_lists_counted */

/* br_bench_text_lists_counted: see bench.h. */
size_t
br_bench_text_lists_counted(void)
{
	return text_lists_counted;
}

/*
 * fast_strings: the list of strings (or nulls) at t + f->vo, counted into
 * f->n with f->ve past its ']' (f->v stays NULL). With only_empty every
 * string must be "". Returns 1, or 0 when the list is left to jansson.
 */
static int
fast_strings(const pctx *p, farr *f, int only_empty)
{
	const char *t = p->text;
	size_t i = skip_ws_z(t, f->vo + 1);
	if (t[i] == ']') {
		f->ve = i + 1;
		return 1;
	}
	for (;;) {
		if (t[i] == '"') {
			textscan st = { 0 };
			int closed;
			long k = only_empty && t[i + 1] != '"' ? -1 :
			    text_scan(&st, (const unsigned char *)t + i + 1, p->len - i - 1, &closed);
			if (k < 0 || !closed)
				return 0;
			i += 1 + (size_t)k;
		} else if (t[i] == 'n' && t[i + 1] == 'u' && t[i + 2] == 'l' && t[i + 3] == 'l')
			i += 4;
		else
			return 0;
		f->n++;
		i = skip_ws_z(t, i);
		if (t[i] == ']') {
			f->ve = i + 1;
			text_lists_counted++;
			return 1;
		}
		if (t[i] != ',')
			return 0;
		i = skip_ws_z(t, i + 1);
	}
}

/*
 * fast_number: the JSON number at t + *pi (t is NUL-terminated), read exactly
 * as jansson reads it: without fraction and exponent an int64 (strtoll)
 * converted to double, else the correctly rounded double (strtod; here
 * br_decimal_to_double, bit-identical). The number must be followed by a
 * delimiter (is_delim). Returns 1 with *out and *pi past the number, or 0
 * when jansson would not accept it as a number here (bad syntax, int64 or
 * double overflow).
 */
static inline int
fast_number(const char *t, const char *lim, size_t *pi, double *out)
{
	size_t i = *pi, s0 = i;
	int neg = 0;
	if (t[i] == '-') {
		neg = 1;
		i++;
	}
	uint64_t w = 0;             /* the integer part, while it has <= 19 digits */
	int nd = 0;
	if (t[i] == '0') {
		i++;
		if (t[i] >= '0' && t[i] <= '9')
			return 0;           /* leading zero */
	} else if (t[i] >= '1' && t[i] <= '9') {
		do {
			if (nd < 19)
				w = w * 10 + (uint64_t)(t[i] - '0');
			nd++;
			i++;
		} while (t[i] >= '0' && t[i] <= '9');
	} else
		return 0;
	double v;
	if (t[i] == '.' || t[i] == 'e' || t[i] == 'E') {
		/* JSON wants a digit after '.' and after the exponent's sign;
		 * fast_float reads the rest (fraction digits eight at a time) and
		 * stops before an exponent without digits, which then fails the
		 * delimiter test as jansson fails it */
		if (t[i] == '.' && !(t[i + 1] >= '0' && t[i + 1] <= '9'))
			return 0;
		const char *end = br_decimal_prefix(t + s0, lim, &v);
		if (end == NULL || isinf(v))
			return 0;           /* jansson: "real number overflow" */
		i = (size_t)(end - t);
	} else {
		/* jansson: strtoll, ERANGE is an error ("too big integer") */
		if (nd > 19 || w > (uint64_t)INT64_MAX + (uint64_t)neg)
			return 0;
		v = (double)w;     /* round to nearest, as (double)(json_int_t) */
		if (neg && w != 0)
			v = -v;
	}
	if (!is_delim((unsigned char)t[i]))
		return 0;
	*out = v;
	*pi = i;
	return 1;
}

/*
 * fast_value: one array entry at t + *pi: a number (fast_number), null
 * (stored as the NULL_NAN marker) or, when step 2 rewrote bare tokens, a
 * NaN/Infinity/-Infinity sentinel string. Returns 1 with *out and *pi past
 * it, else 0.
 */
static inline int
fast_value(const pctx *p, const char *t, const char *lim, size_t *pi, double *out)
{
	size_t i = *pi;
	char c = t[i];
	if ((c >= '0' && c <= '9') || c == '-')
		return fast_number(t, lim, pi, out);
	if (c == 'n') {
		if (t[i + 1] == 'u' && t[i + 2] == 'l' && t[i + 3] == 'l' &&
		    is_delim((unsigned char)t[i + 4])) {
			memcpy(out, &NULL_NAN_BITS, sizeof *out);
			*pi = i + 4;
			return 1;
		}
		return 0;
	}
	if (c == '"' && p->replaced && (unsigned char)t[i + 1] == 0x7f) {
		size_t n = 0;
		if (t[i + 2] == '"') {
			*out = NAN;
			n = 3;
		} else if (t[i + 2] == 'I' && t[i + 3] == '"') {
			*out = INFINITY;
			n = 4;
		} else if (t[i + 2] == '-' && t[i + 3] == 'I' && t[i + 4] == '"') {
			*out = -INFINITY;
			n = 5;
		}
		if (n && is_delim((unsigned char)t[i + n])) {
			*pi = i + n;
			return 1;
		}
	}
	return 0;
}

/* dvec_push: append x to a growing double array (*v, *n, *cap). */
static inline void
dvec_push(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*v = br_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/*
 * fast_list: the entries of the array whose '[' is at t + *pi into (*v, *n,
 * *cap). Returns 1 with *pi past the ']', else 0 (*n then undefined).
 */
static int
fast_list(const pctx *p, const char *t, size_t *pi, double **v, size_t *n, size_t *cap)
{
	size_t i = skip_ws_z(t, *pi + 1);
	if (t[i] == ']') {
		*pi = i + 1;
		return 1;
	}
	for (;;) {
		double x;
		if (!fast_value(p, t, p->text + p->len, &i, &x))
			return 0;
		dvec_push(v, n, cap, x);
		i = skip_ws_z(t, i);
		if (t[i] == ',') {
			i = skip_ws_z(t, i + 1);
			continue;
		}
		if (t[i] == ']') {
			*pi = i + 1;
			return 1;
		}
		return 0;
	}
}

/*
 * fast_array: parse per-request array f->a whose '[' is at f->vo into f
 * (f->ve, f->n, f->v, and f->ofs for itls). Returns 1, or 0 when the array
 * holds anything the fast path leaves to jansson (f's arrays freed).
 */
static int
fast_array(const pctx *p, farr *f)
{
	const char *t = p->text;
	size_t i = f->vo, cap = 0;
	if (f->a == A_TEXT || f->a == A_ERR) {
		f->n = 0;
		return fast_strings(p, f, f->a == A_ERR);
	}
	if (f->a != A_ITLS) {
		if (!fast_list(p, t, &i, &f->v, &f->n, &cap))
			goto reject;
		f->ve = i;
		return 1;
	}
	size_t nv = 0, ocap = 0;
	/* sized once from the bytes left, as the streamed reader does (a Python
	 * repr float and its ", " take about 20 bytes): no copies while it grows */
	if (p->len - i > ((size_t)1 << 20)) {
		cap = (p->len - i) / 18 + 1024;
		f->v = br_xmalloc_huge(cap * sizeof *f->v);
	}
	i = skip_ws_z(t, i + 1);
	f->ofs = br_xmalloc((ocap = 1024) * sizeof *f->ofs);
	f->ofs[0] = 0;
	if (t[i] == ']') {
		f->ve = i + 1;
		return 1;
	}
	for (;;) {
		if (t[i] == '[') {
			if (!fast_list(p, t, &i, &f->v, &nv, &cap))
				goto reject;
		} else if (t[i] == 'n' && t[i + 1] == 'u' && t[i + 2] == 'l' && t[i + 3] == 'l' &&
		    is_delim((unsigned char)t[i + 4]))
			i += 4;     /* a null entry: no ITLs, as an empty list */
		else
			goto reject;
		if (f->n + 2 > ocap)
			f->ofs = br_xrealloc(f->ofs, (ocap *= 2) * sizeof *f->ofs);
		f->ofs[++f->n] = nv;
		i = skip_ws_z(t, i);
		if (t[i] == ',') {
			i = skip_ws_z(t, i + 1);
			continue;
		}
		if (t[i] == ']') {
			f->ve = i + 1;
			return 1;
		}
		goto reject;
	}
reject:
	free(f->v);
	free(f->ofs);
	f->v = NULL;
	f->ofs = NULL;
	f->n = 0;
	return 0;
}

/* string_end: one past the closing quote of the string literal at t[i]
 * (t NUL-terminated, length len), or len when unterminated. */
static size_t
string_end(const char *t, size_t len, size_t i)
{
	size_t j = i + 1;
	for (;;) {
		const char *q = memchr(t + j, '"', len - j);
		if (q == NULL)
			return len;
		size_t k = (size_t)(q - t), bs = 0;
		while (k - bs > i + 1 && t[k - bs - 1] == '\\')
			bs++;
		if (bs % 2 == 0)
			return k + 1;
		j = k + 1;
	}
}

/* fast_key: the A_* index of the per-request array whose key is the
 * string literal q[0, n) (quotes included, written without escapes), or -1. */
static int
fast_key(const char *q, size_t n)
{
	for (int a = 0; a < A_N; a++) {
		size_t kl = strlen(array_keys[a]);
		if (n == kl + 2 && memcmp(q + 1, array_keys[a], kl) == 0)
			return a;
	}
	return -1;
}

/*
 * fast_scan: find and parse the per-request numeric arrays of every run
 * object (a top-level object, or an object directly inside a top-level
 * array) of the sanitized text, starting at `off` (the first '{' or '[').
 * Only keys written plainly (no escapes) directly in a run object count.
 * Regions are appended to fs in text order. Malformed text is scanned
 * blindly: jansson judges it later.
 */
static void
fast_scan(const pctx *p, size_t off, fastset *fs)
{
	const char *t = p->text;
	size_t len = p->len;
	int run_depth = t[off] == '[' ? 2 : 1;
	int depth = 0, in_run = 0;   /* in_run: directly inside a run object */
	size_t obj_start = 0;
	size_t i = off;
	while (i < len) {
		char c = t[i];
		if (c == '"') {
			size_t e = string_end(t, len, i);
			if (in_run && depth == run_depth) {
				int a = fast_key(t + i, e - i);
				if (a >= 0) {
					size_t k = skip_ws_z(t, e);
					if (t[k] == ':') {
						size_t vo = skip_ws_z(t, k + 1);
						if (t[vo] == '[') {
							farr f = { .obj_start = obj_start, .a = a, .vo = vo };
							if (fast_array(p, &f)) {
								if (fs->n == fs->cap) {
									fs->cap = fs->cap ? fs->cap * 2 : 16;
									fs->arr = br_xrealloc(fs->arr, fs->cap * sizeof *fs->arr);
								}
								fs->arr[fs->n++] = f;
								i = f.ve;
								continue;
							}
						}
					}
				}
			}
			i = e;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
			if (depth == run_depth) {
				in_run = c == '{';
				obj_start = i;
			}
		} else if (c == '}' || c == ']') {
			if (depth == run_depth)
				in_run = 0;
			if (depth > 0)
				depth--;
		}
		i++;
	}
}

/* fast_compact: build fs->ct, the text with each region replaced by "[]",
 * and fs->cpos. */
static void
fast_compact(const pctx *p, fastset *fs)
{
	size_t removed = 0;
	for (size_t k = 0; k < fs->n; k++)
		removed += fs->arr[k].ve - fs->arr[k].vo - 2;
	fs->clen = p->len - removed;
	fs->ct = br_xmalloc(fs->clen + 1);
	fs->cpos = br_xmalloc(fs->n * sizeof *fs->cpos);
	size_t r = 0, w = 0;
	for (size_t k = 0; k < fs->n; k++) {
		const farr *f = &fs->arr[k];
		memcpy(fs->ct + w, p->text + r, f->vo - r);
		w += f->vo - r;
		fs->cpos[k] = w;
		fs->ct[w++] = '[';
		fs->ct[w++] = ']';
		r = f->ve;
	}
	memcpy(fs->ct + w, p->text + r, p->len - r);
	w += p->len - r;
	fs->ct[w] = '\0';
}

/* cmap: the offset in the original text of offset c of the text jansson read
 * (identity without fast path). */
static size_t
cmap(const fastset *fs, size_t c)
{
	if (fs == NULL || fs->n == 0 || c < fs->cpos[0])
		return c;
	size_t lo = 0, hi = fs->n;       /* last k with cpos[k] <= c */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (fs->cpos[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	const farr *f = &fs->arr[lo];
	size_t d = c - fs->cpos[lo];
	if (d == 0)
		return f->vo;
	if (d == 1)
		return f->ve - 1;
	return f->ve + (d - 2);
}

/* fastset_free: release fs's regions and compact text. */
static void
fastset_free(fastset *fs)
{
	for (size_t k = 0; k < fs->n; k++) {
		free(fs->arr[k].v);
		free(fs->arr[k].ofs);
	}
	free(fs->arr);
	free(fs->ct);
	free(fs->cpos);
	memset(fs, 0, sizeof *fs);
}

/* fast_enabled: the fast path is on unless BR_BENCH_NO_FAST is set to a
 * non-empty value other than "0". */
static int
fast_enabled(void)
{
	const char *e = getenv("BR_BENCH_NO_FAST");
	return e == NULL || e[0] == '\0' || strcmp(e, "0") == 0;
}

/*
 * convert: map parsed object j at [start, end) (offsets in the original
 * text) onto a new run of set. With fs, the fast path's regions of the object
 * starting at `start` go along (all regions must be claimed in order; a
 * mismatch sets p->fs_bad).
 */
static int
convert(pctx *p, fastset *fs, json_t *j, size_t start, size_t end, int index,
    br_bench_set *set, size_t *cap, char **cause)
{
	if (set->n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		set->runs = br_xrealloc(set->runs, *cap * sizeof *set->runs);
	}
	br_bench *b = &set->runs[set->n];
	bench_init(b);
	octx o = { .p = p, .start = start, .end = end };
	if (fs != NULL) {
		while (fs->next < fs->n && fs->arr[fs->next].obj_start == start) {
			farr *f = &fs->arr[fs->next++];
			if (o.fast[f->a] != NULL || f->vo >= end)
				p->fs_bad = 1;
			o.fast[f->a] = f;
		}
		if (fs->next < fs->n && fs->arr[fs->next].obj_start < end)
			p->fs_bad = 1;    /* a region this object did not claim */
		if (p->fs_bad)
			return -1;
	}
	int line, col;
	line_col(p, start, &line, &col);
	b->source_path = br_xstrdup(p->name);
	b->source_index = index;
	b->source_line = line;
	int rc = map_object(&o, j, b, cause);
	octx_free(&o);
	if (rc != 0) {
		br_bench_free(b);
		return -1;
	}
	set->n++;
	return 0;
}

/*
 * parse_runs: steps 3 and 4 on the sanitized text from offset `off` (the
 * first '{' or '['), appending to set. With fs (fast path), jansson reads
 * the compact text fs->ct and offsets are mapped back with cmap; pass
 * cause NULL then (any failure sends the caller to the jansson-only path).
 * Returns 0 or -1 (set keeps what was converted; the caller frees it).
 */
static int
parse_runs(pctx *p, fastset *fs, size_t off, br_bench_set *set, char **cause)
{
	const char *t = fs ? fs->ct : p->text;
	size_t len = fs ? fs->clen : p->len;
	size_t cap = 0;
	json_t *j = NULL;
	json_error_t e;
	int rc = -1;

	/* off lies before the first region, so it is the same in both texts */
	if (t[off] == '[') {
		j = json_loadb(t + off, len - off, JSON_REJECT_DUPLICATES, &e);
		if (j == NULL) {
			json_err(p, off, &e, cause);
			goto done;
		}
		if (json_array_size(j) == 0) {
			err_at(p, off, cause, "empty list: expected a list of vLLM bench serve results");
			goto done;
		}
		/* element offsets from the text, for source_line and messages */
		size_t i = off + 1;
		for (size_t k = 0; k < json_array_size(j); k++) {
			i = skip_ws(t, len, i);
			size_t end = value_end(t, len, i);
			if (convert(p, fs, json_array_get(j, k), cmap(fs, i), cmap(fs, end), (int)k,
			    set, &cap, cause) != 0)
				goto done;
			i = skip_ws(t, len, end);
			if (i < len && t[i] == ',')
				i++;
		}
	} else if (t[off] == '{') {
		int index = 0;
		while (off < len) {
			if (t[off] != '{') {
				err_at(p, cmap(fs, off), cause,
				    "expected '{' (the next JSON object of a JSONL file) or end of file");
				goto done;
			}
			j = json_loadb(t + off, len - off, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &e);
			if (j == NULL) {
				/* a record cut off inside its line: jansson reads on into the
				 * next line's object and reports there, a line too late; the
				 * record's own line end is where it broke */
				size_t eol = off;
				while (eol < len && t[eol] != '\n')
					eol++;
				size_t eol2 = eol + 1;
				while (eol2 < len && t[eol2] != '\n')
					eol2++;
				if (eol + 1 < len && t[eol + 1] == '{' && off + (size_t)e.position > eol &&
				    off + (size_t)e.position <= eol2) {
					size_t at = eol;
					while (at > off && (t[at - 1] == '\r' || t[at - 1] == ' ' || t[at - 1] == '\t'))
						at--;
					err_at(p, cmap(fs, at), cause, "malformed JSON: the object on this line ends unfinished "
					    "(the next line starts another); expected one whole JSON object per line");
				} else
					json_err(p, off, &e, cause);
				goto done;
			}
			size_t end = off + (size_t)e.position;
			if (convert(p, fs, j, cmap(fs, off), cmap(fs, end), index++, set, &cap, cause) != 0)
				goto done;
			json_decref(j);
			j = NULL;
			off = skip_ws(t, len, end);
		}
	} else {
		err_at(p, off, cause,
		    "expected '{' or '[' (a vLLM bench result JSON), got '%c'", t[off]);
		goto done;
	}
	rc = 0;
done:
	json_decref(j);
	return rc;
}

/*
 * parse_owned: the whole parse on a writable buffer t[0, len) (t[len] ==
 * '\0') that this function sanitizes in place and frees. The fast path is
 * tried first when it finds arrays to read; on any failure the text is
 * parsed again by jansson alone, which produces the error. See
 * br_bench_parse_text.
 */
static int
parse_owned(const char *name, char *t, size_t len, farr *pre, size_t n_pre, br_bench_set *out,
    char **cause)
{
	pctx p = { .name = name, .text = t, .len = len, .line_no = 1 };
	br_bench_set set = { 0 };
	int rc = -1;
	/* a streamed text (pre != NULL) is not the file: whatever goes wrong on
	 * it, the caller parses the whole file again, and that run reports */
	char *quiet = NULL;
	char **why = pre ? &quiet : cause;

	out->runs = NULL;
	out->n = 0;
	const char *nul = memchr(t, '\0', len);
	if (nul != NULL) {
		err_at(&p, (size_t)(nul - t), why,
		    "NUL byte: this is a binary file, expected a vLLM bench result JSON (text)");
		goto done;
	}
	size_t bad = utf8_bad((const unsigned char *)t, len);
	if (bad != (size_t)-1) {
		int bl, bc;
		line_col(&p, bad, &bl, &bc);
		err_at(&p, bad, why,
		    "not UTF-8 text (byte 0x%02X at %d:%d); expected a UTF-8 JSON file "
		    "(a vLLM bench result; re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8)",
		    (unsigned char)t[bad], bl, bc);
		goto done;
	}
	size_t off = 0;
	if (len >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0)
		off = 3;  /* byte order mark */
	off = skip_ws(t, len, off);
	if (off >= len) {
		if (why)
			*why = br_xasprintf("%s: empty file, expected a vLLM bench result JSON", name);
		goto done;
	}
	/* the sentinels of step 2 start with a DEL byte: a DEL the file itself
	 * holds (raw or escaped) could pass for one, so such a file keeps its bare
	 * tokens only when it has none */
	const char *del = memchr(t, 0x7f, len);
	if (del == NULL)
		del = memmem(t, len, "\\u007f", 6);
	if (del == NULL)
		del = memmem(t, len, "\\u007F", 6);
	p.replaced = sanitize(t, len);
	if (p.replaced > 0 && del != NULL) {
		err_at(&p, (size_t)(del - t), why, "a DEL character (U+007F) in a file that also holds "
		    "bare NaN/Infinity: expected one or the other (benchreport reads bare NaN/Infinity "
		    "through a DEL-marked stand-in)");
		goto done;
	}

	if ((t[off] == '{' || t[off] == '[') && fast_enabled()) {
		fastset fs = { 0 };
		fast_scan(&p, off, &fs);
		if (pre != NULL) {
			/* the streamed text holds each region as an empty array, in the
			 * same order: hand them their values */
			int same = fs.n == n_pre;
			for (size_t k = 0; same && k < fs.n; k++)
				same = fs.arr[k].a == pre[k].a && fs.arr[k].n == 0;
			for (size_t k = 0; same && k < fs.n; k++) {
				free(fs.arr[k].v);
				free(fs.arr[k].ofs);
				fs.arr[k].v = pre[k].v;
				fs.arr[k].ofs = pre[k].ofs;
				fs.arr[k].n = pre[k].n;
				pre[k].v = NULL;
				pre[k].ofs = NULL;
			}
			if (!same)
				rc = -2;
		}
		if (fs.n > 0 && rc != -2) {
			fast_compact(&p, &fs);
			p.fs = &fs;
			int frc = parse_runs(&p, &fs, off, &set, NULL);
			if (frc == 0 && fs.next == fs.n && !p.fs_bad)
				rc = 0;
			p.fs = NULL;
			p.fs_bad = 0;
		}
		fastset_free(&fs);
		if (rc == 0)
			goto ok;
		br_bench_set_free(&set);
		p.line_off = 0;
		p.line_no = 1;
	}
	if (pre != NULL) {
		rc = -2;
		goto done;
	}
	if (parse_runs(&p, NULL, off, &set, cause) != 0)
		goto done;
ok:
	*out = set;
	set.runs = NULL;
	set.n = 0;
	rc = 0;
done:
	br_bench_set_free(&set);
	free(t);
	free(quiet);
	if (pre != NULL && rc != 0)
		rc = -2;
	return rc;
}

/*
 * br_bench_parse_text: parse an in-memory bench result (see bench.h); the
 * text is copied, not modified. Returns 0 or -1 with *cause.
 */
int
br_bench_parse_text(const char *name, const char *text, size_t len, br_bench_set *out,
    char **cause)
{
	char *t = br_xmalloc(len + 1);
	memcpy(t, text, len);
	t[len] = '\0';
	return parse_owned(name, t, len, NULL, 0, out, cause);
}

/* ------------------------------------------------------------------------
 * Streaming a large result (issue 14: the 108 MB detailed result was held
 * whole, 1.8 × its size in peak memory). The file is read in 1 MiB chunks
 * and copied into a compact text in which every per-request array the fast
 * path would read (same keys, same run objects, as fast_scan decides) is
 * parsed on the fly and left as "[" + its newlines + "]": so the compact
 * text has the file's line numbers, and everything else byte for byte.
 * parse_owned then parses the compact text and hands the regions their
 * values. Anything unusual (a NUL byte, an array the fast path would leave
 * to jansson, bare NaN in an array, a read error, any parse failure) makes
 * br_bench_load read and parse the whole file as before, which gives the
 * same result and every error message exactly.
 * ------------------------------------------------------------------------ */

#define STREAM_CHUNK (1u << 18)   /* 256 KiB: as fast as 1 MiB, 0.75 MB less resident */
#define STREAM_LOOKAHEAD 4096   /* a value longer than this: not streamed */
#define STREAM_MIN_BYTES (16LL << 20)

typedef struct sreader {
	int fd;
	char *buf;              /* buf[end] == '\0' */
	size_t cap, pos, end;
	off_t off0;             /* file offset of buf[0] */
	off_t size;             /* the file's size in bytes (fstat), 0 when unknown */
	int eof;
} sreader;

/* sr_fill: make at least `need` bytes readable at pos unless the file ends. */
static void
sr_fill(sreader *r, size_t need)
{
	if (r->end - r->pos >= need || r->eof)
		return;
	memmove(r->buf, r->buf + r->pos, r->end - r->pos);
	r->end -= r->pos;
	r->off0 += (off_t)r->pos;
	r->pos = 0;
	while (r->end < need && !r->eof) {
		ssize_t k = read(r->fd, r->buf + r->end, r->cap - 1 - r->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			r->eof = k < 0 ? -1 : 1;
			break;
		}
		r->end += (size_t)k;
	}
	r->buf[r->end] = '\0';
}

/* The compact text being built. */
typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void
sb_put(sbuf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		while (b->n + n + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 65536;
		b->s = br_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

/* sr_skip_ws: skip JSON whitespace, counting newlines into *nl. */
static void
sr_skip_ws(sreader *r, size_t *nl)
{
	for (;;) {
		sr_fill(r, 1);
		if (r->pos >= r->end)
			return;
		char c = r->buf[r->pos];
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return;
		*nl += c == '\n';
		r->pos++;
	}
}

/* sr_copy_ws: skip JSON whitespace, copying it to out. */
static void
sr_copy_ws(sreader *r, sbuf *out)
{
	for (;;) {
		sr_fill(r, 1);
		if (r->pos >= r->end)
			return;
		char c = r->buf[r->pos];
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
			return;
		sb_put(out, &c, 1);
		r->pos++;
	}
}

/* is_ws: JSON whitespace. */
static inline int
is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* sr_open: step past the '[' at pos and the whitespace after it; 1 when
 * the list is empty (its ']' read too), else 0. */
static int
sr_open(sreader *r, size_t *nl)
{
	r->pos++;
	sr_skip_ws(r, nl);
	if (r->pos < r->end && r->buf[r->pos] == ']') {
		r->pos++;
		return 1;
	}
	return 0;
}

/* sr_list: one flat list at '[' (fast_list's grammar), values appended to
 * (*v, *n, *cap). Returns 1, or 0 when the fast path would not read it.
 * Values and separators are read straight from the buffer while the next
 * value surely lies inside it (STREAM_LOOKAHEAD bytes ahead, or the file's
 * end is in); a separator beyond the buffer's end is read through sr_*. */
static int
sr_list(sreader *r, const pctx *p, double **v, size_t *n, size_t *cap, size_t *nl)
{
	if (sr_open(r, nl))
		return 1;
	for (;;) {
		sr_fill(r, STREAM_LOOKAHEAD);
		const char *t = r->buf, *lim = r->buf + r->end;
		size_t i = r->pos, safe = r->eof || r->end < STREAM_LOOKAHEAD ? r->end : r->end - STREAM_LOOKAHEAD;
		size_t lines = 0;
		int need_sep = 0;
		for (;;) {
			double x;
			if (!fast_value(p, t, lim, &i, &x))
				return 0;
			dvec_push(v, n, cap, x);
			while (is_ws(t[i]))
				lines += t[i++] == '\n';
			if (i >= r->end) {
				need_sep = 1;      /* the separator is past the buffer */
				break;
			}
			char c = t[i++];
			if (c == ']') {
				r->pos = i;
				*nl += lines;
				return 1;
			}
			if (c != ',')
				return 0;
			while (is_ws(t[i]))
				lines += t[i++] == '\n';
			if (i > safe)
				break;
		}
		r->pos = i;
		*nl += lines;
		sr_skip_ws(r, nl);
		if (!need_sep)
			continue;
		if (r->pos >= r->end)
			return 0;
		char c = r->buf[r->pos++];
		if (c == ']')
			return 1;
		if (c != ',')
			return 0;
		sr_skip_ws(r, nl);
	}
}

/* sr_array: region f (key f->a) at '[', as fast_array reads it. */
static int
sr_array(sreader *r, const pctx *p, farr *f, size_t *nl)
{
	size_t cap = 0;
	if (f->a != A_ITLS)
		return sr_list(r, p, &f->v, &f->n, &cap, nl);
	/* the ITLs are most of the file: sized once from the bytes left (a
	 * Python repr float and its ", " take about 20 bytes; 18 leaves room),
	 * in huge pages, instead of doubling from 256 in 4 KiB pages (5 M ITLs:
	 * 10,000 page faults and 15 reallocations) */
	off_t left = r->size - (r->off0 + (off_t)r->pos);
	if (left > (off_t)(4 << 20)) {
		cap = (size_t)(left / 18) + 1024;
		f->v = br_xmalloc_huge(cap * sizeof *f->v);
	}
	size_t nv = 0, ocap = 1024;
	f->ofs = br_xmalloc(ocap * sizeof *f->ofs);
	f->ofs[0] = 0;
	if (sr_open(r, nl))
		return 1;
	for (;;) {
		sr_fill(r, STREAM_LOOKAHEAD);
		const char *t = r->buf + r->pos;
		if (t[0] == '[') {
			if (!sr_list(r, p, &f->v, &nv, &cap, nl))
				return 0;
		} else if (t[0] == 'n' && t[1] == 'u' && t[2] == 'l' && t[3] == 'l' && is_delim((unsigned char)t[4]))
			r->pos += 4;
		else
			return 0;
		if (f->n + 2 > ocap)
			f->ofs = br_xrealloc(f->ofs, (ocap *= 2) * sizeof *f->ofs);
		f->ofs[++f->n] = nv;
		sr_skip_ws(r, nl);
		if (r->pos >= r->end)
			return 0;
		char c = r->buf[r->pos++];
		if (c == ']')
			return 1;
		if (c != ',')
			return 0;
		sr_skip_ws(r, nl);
	}
}

/*
 * sr_strings: a list of strings or nulls at '[' (fast_strings' grammar,
 * only_empty as there), counted into f->n, the newlines between entries into
 * *nl. Returns 1, or 0 when fast_strings would not take it (the caller
 * rewinds and copies the list as it is).
 */
static int
sr_strings(sreader *r, farr *f, size_t *nl, int only_empty)
{
	if (sr_open(r, nl))
		return 1;
	for (;;) {
		sr_fill(r, 5);
		if (r->pos >= r->end)
			return 0;
		const char *t = r->buf + r->pos;
		if (t[0] == '"') {
			r->pos++;
			textscan st = { 0 };
			for (;;) {
				sr_fill(r, 1);
				if (r->pos >= r->end)
					return 0;
				if (only_empty && r->buf[r->pos] != '"')
					return 0;
				int closed;
				long k = text_scan(&st, (const unsigned char *)r->buf + r->pos, r->end - r->pos, &closed);
				if (k < 0)
					return 0;
				r->pos += (size_t)k;
				if (closed)
					break;
			}
		} else if (t[0] == 'n' && t[1] == 'u' && t[2] == 'l' && t[3] == 'l')
			r->pos += 4;
		else
			return 0;
		f->n++;
		sr_skip_ws(r, nl);
		if (r->pos >= r->end)
			return 0;
		char c = r->buf[r->pos++];
		if (c == ']') {
			text_lists_counted++;
			return 1;
		}
		if (c != ',')
			return 0;
		sr_skip_ws(r, nl);
	}
}

/* sr_rewind: read on from file offset `at` (a regular file). Returns 0 or -1. */
static int
sr_rewind(sreader *r, off_t at)
{
	if (lseek(r->fd, at, SEEK_SET) != at)
		return -1;
	r->off0 = at;
	r->pos = r->end = 0;
	r->eof = 0;
	r->buf[0] = '\0';
	return 0;
}

/*
 * stream_compact: the compact text of the file at fd (see above) and its
 * regions in text order. Returns 1 with *ct (malloc'd, NUL-terminated),
 * *clen, *regions and *n_regions (each region's v / ofs owned), or 0 when
 * the file should be parsed whole (nothing is left allocated then).
 */
static int
stream_compact(int fd, char **ct, size_t *clen, farr **regions, size_t *n_regions)
{
	pctx p = { .name = "", .line_no = 1 };   /* replaced = 0: sentinels are not streamed */
	sreader r = { .fd = fd, .cap = STREAM_CHUNK + STREAM_LOOKAHEAD + 1 };
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		r.size = st.st_size;
	r.buf = br_xmalloc(r.cap);
	r.buf[0] = '\0';
	sbuf out = { 0 };
	farr *reg = NULL;
	size_t nreg = 0, rcap = 0;
	int ok = 1, depth = 0, in_run = 0, run_depth = 0;
	for (;;) {
		sr_fill(&r, 16);
		if (r.pos >= r.end)
			break;
		char c = r.buf[r.pos];
		if (c == '\0') {
			ok = 0;   /* a NUL byte (or the end of a damaged read): the whole-file path says */
			break;
		}
		if (out.n == 0 && r.end - r.pos >= 3 && memcmp(r.buf + r.pos, "\xef\xbb\xbf", 3) == 0) {
			sb_put(&out, r.buf + r.pos, 3);   /* byte order mark */
			r.pos += 3;
			continue;
		}
		if (run_depth == 0 && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
			if (c != '{' && c != '[') {
				ok = 0;
				break;
			}
			run_depth = c == '[' ? 2 : 1;
		}
		if (c == '"') {
			size_t k0 = out.n;
			sb_put(&out, &c, 1);
			r.pos++;
			for (;;) {
				sr_fill(&r, 2);
				if (r.pos >= r.end || r.buf[r.pos] == '\0') {
					ok = 0;
					break;
				}
				char d = r.buf[r.pos];
				size_t take = d == '\\' && r.pos + 1 < r.end ? 2 : 1;
				sb_put(&out, r.buf + r.pos, take);
				r.pos += take;
				if (d == '"')
					break;
			}
			if (!ok)
				break;
			if (!(in_run && depth == run_depth))
				continue;
			int a = fast_key(out.s + k0, out.n - k0);
			if (a < 0)
				continue;
			/* the whitespace and ':' before the value are kept as written */
			sr_copy_ws(&r, &out);
			if (r.pos >= r.end || r.buf[r.pos] != ':')
				continue;
			sb_put(&out, ":", 1);
			r.pos++;
			sr_copy_ws(&r, &out);
			if (r.pos >= r.end || r.buf[r.pos] != '[')
				continue;
			if (nreg == rcap) {
				rcap = rcap ? rcap * 2 : 16;
				reg = br_xrealloc(reg, rcap * sizeof *reg);
			}
			farr *f = &reg[nreg++];
			memset(f, 0, sizeof *f);
			f->a = a;
			size_t nl = 0;
			if (a == A_TEXT || a == A_ERR) {
				off_t at = r.off0 + (off_t)r.pos;
				if (!sr_strings(&r, f, &nl, a == A_ERR)) {
					nreg--;   /* left to jansson: copied as written */
					if (sr_rewind(&r, at) != 0) {
						ok = 0;
						break;
					}
					continue;
				}
			} else if (!sr_array(&r, &p, f, &nl)) {
				ok = 0;
				break;
			}
			sb_put(&out, "[", 1);
			for (size_t q = 0; q < nl; q++)
				sb_put(&out, "\n", 1);
			sb_put(&out, "]", 1);
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
			if (depth == run_depth)
				in_run = c == '{';
		} else if (c == '}' || c == ']') {
			if (depth == run_depth)
				in_run = 0;
			if (depth > 0)
				depth--;
		}
		sb_put(&out, &c, 1);
		r.pos++;
	}
	if (r.eof < 0)
		ok = 0;
	free(r.buf);
	if (!ok || nreg == 0) {
		for (size_t k = 0; k < nreg; k++) {
			free(reg[k].v);
			free(reg[k].ofs);
		}
		free(reg);
		free(out.s);
		return 0;
	}
	*ct = out.s;
	*clen = out.n;
	*regions = reg;
	*n_regions = nreg;
	return 1;
}

/* stream_wanted: stream files of 16 MiB and more (BR_BENCH_STREAM=1: every
 * file, for the tests; =0: none); never without the fast path. */
static int
stream_wanted(long long size)
{
	const char *e = getenv("BR_BENCH_STREAM");
	if (!fast_enabled() || (e && strcmp(e, "0") == 0))
		return 0;
	if (e && strcmp(e, "1") == 0)
		return 1;
	return size >= STREAM_MIN_BYTES;
}

/*
 * br_bench_load: read and parse the bench result file at path (see bench.h).
 * Returns 0 or -1 with *cause ("PATH: cannot open ..." for I/O errors).
 */
int
br_bench_load(const char *path, br_bench_set *out, char **cause)
{
	char *t;
	size_t len;
	out->runs = NULL;
	out->n = 0;
	/* the head first: a binary or non-JSON file is refused before it is read whole */
	if (br_check_head(path, 1, "a vLLM bench result JSON", cause) != 0)
		return -1;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && stream_wanted(st.st_size)) {
		farr *reg = NULL;
		size_t nreg = 0;
		if (stream_compact(fd, &t, &len, &reg, &nreg)) {
			close(fd);
			fd = -1;
			int rc = parse_owned(path, t, len, reg, nreg, out, NULL);
			for (size_t k = 0; k < nreg; k++) {
				free(reg[k].v);
				free(reg[k].ofs);
			}
			free(reg);
			if (rc == 0)
				return 0;
			br_bench_set_free(out);
			out->runs = NULL;
			out->n = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	if (br_read_file(path, &t, &len, cause) != 0)
		return -1;
	return parse_owned(path, t, len, NULL, 0, out, cause);
}

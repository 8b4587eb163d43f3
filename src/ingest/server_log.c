/*
 * Server log scanner (FORMATS.md §3): one streaming pass over the stdout of
 * `vllm serve`, matching message bodies after the prefixes are skipped.
 *
 * Per physical line:
 *   1. strip the line end ("\n", "\r\n"), keep only the text after an inner
 *      "\r" (a terminal shows the last overwrite), drop ANSI escapes;
 *   2. skip a Docker timestamp ("2026-08-01T03:54:33.123456789Z "), process
 *      tags ("(EngineCore_DP0 pid=12) ") and the vLLM logger prefix
 *      ("INFO 08-01 03:54:33 [file.py:12] " or unbracketed "file.py:12] ");
 *      the logger prefix is also searched a little way into the line, so an
 *      unknown extra prefix (docker compose "vllm-1  | ") still works;
 *   3. the body is matched: anchored at its start for lines with a logger
 *      prefix (cheap: a 200 MB log is a few memcmp per line), anywhere
 *      (memmem) for lines without one.
 *
 * Hard-wrapped logs: each line is held back ("pending") until the next one
 * is seen. A following line that carries no known prefix is appended to it
 * when that completes a field (scores: one point per field with its unit or
 * terminator seen), or when the pending text is an unfinished multi-line
 * match (an unbalanced `non-default args: {` dict, a stats line without its
 * KV usage, ...) and its last piece was long enough to have been wrapped.
 *
 * Tracebacks are followed per process tag: "Traceback (most recent call
 * last):", indented frames, then the exception line, plus its first indented
 * detail line (pydantic's "Value error, ...").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/serverlog.h"
#include "pyrepr.h"
#include "benchreport/model.h"

#define LOOKS_LIKE_BYTES (256 * 1024)
#define LOG_MAX_BYTES (8ULL << 30)   /* as br_read_file */
#define NO_VLLM_GIVE_UP_BYTES (64u << 20) /* no vLLM line in the first 64 MiB: not a vLLM log */
#define MAX_JOIN_PIECES 512
#define MAX_JOIN_BYTES (64u << 10) /* 17x the longest wrapped line seen in real logs (3.8 KB) */
#define WRAP_MIN_BYTES 79      /* a piece this long may have been hard-wrapped ... */
#define WRAP_SAME_MIN_BYTES 40 /* ... or one as long as the first piece, if that has 40+ bytes */
#define FAILURE_MAX 300        /* bytes kept of a start-up failure message */
#define DEFAULT_BLOCK_TOKENS 16.0 /* vLLM's CUDA default when the log does not say */

enum kind { K_NONE, K_KVSIZE, K_KVMEM, K_MAXCONC, K_BLOCKS, K_STATS, K_V0PRE, K_ARGS, K_NSARGS, K_INIT, K_BANNER };

/* Stats fields in br_log_stat order. */
enum { S_PROMPT, S_GEN, S_RUN, S_WAIT, S_PREEMPT, S_KV, S_PREFIX, S_N };

/* Result of analysing one (possibly joined) line body. */
typedef struct hit {
	enum kind kind;
	int score;          /* fields complete (number plus unit/terminator) */
	int want_more;      /* an unfinished match: a continuation may follow */
	int engine;
	double a, b;
	double st[S_N];
	int have[S_N];
} hit;

/*
 * A resumable dict_end for the pending text of a hard-wrapped
 * `non-default args: {` line: the scan goes on from where the previous piece
 * stopped, so joining k pieces costs O(total bytes), not O(k · bytes). The
 * rule is dict_end's: the first closing bracket at the dict's own depth
 * decides (closed when it is '}', malformed otherwise); quotes with
 * backslash escapes are skipped.
 */
typedef struct dict_scan {
	long open;       /* offset of the '{' in the pending text, -1 until seen */
	size_t pos;      /* next offset to scan */
	int depth;       /* brackets open, the dict's own included */
	char quote;      /* inside a quoted string: its quote character, else 0 */
	int esc;         /* the previous byte was a backslash inside a string */
	int result;      /* 0 still open, 1 closed by '}', -1 closed by another bracket */
} dict_scan;

/*
 * A memo of substring searches in the growing pending text, so that
 * re-analysing it after each joined piece only searches the new bytes (plus
 * a key's length of overlap): joining k pieces costs O(total bytes), not
 * O(k · bytes). An entry is one (key, start offset) pair: where the key was
 * found, or how far it has been searched without success. Offsets are from
 * the start of the text, whose bytes never change while it grows (a failed
 * join restores a saved copy along with the text's length).
 */
#define MEMO_MAX 40
typedef struct search_memo {
	const char *base;   /* the text being analysed (set by analyze) */
	int n;
	struct {
		const char *key;    /* the key's address: keys are string literals */
		size_t start, to;   /* searched [start, to) */
		long found;         /* offset of the match, or -1 */
	} e[MEMO_MAX];
} search_memo;

/* One classified physical line. Pointers into the scanner's line buffer. */
typedef struct pline {
	const char *text;   /* after ANSI/CR cleaning */
	size_t len;
	const char *body;   /* after all recognised prefixes */
	size_t body_len;
	int prefixed;       /* Docker stamp, process tag or logger prefix in front */
	int vllm;           /* vLLM logger prefix (level + MM-DD HH:MM:SS) found */
	int prefix_cut;     /* logger prefix found but cut off before its "] " */
	char stamp[32];
	double abs_s;       /* seconds on the scanner's running clock, NAN if none */
	char tag[64];       /* process tag as printed, "" when none */
} pline;

typedef struct scanner {
	br_server_log *out;
	const char *path;
	/* current line (cleaned) */
	char *clean;
	size_t clean_cap;
	/* pending logical line */
	int p_active;
	char *p_buf;
	size_t p_len, p_cap;
	int p_line;
	size_t p_body_off;  /* where the pending text starts in its first physical line (bytes) */
	int p_anchored;
	int p_pieces;
	size_t p_last_piece;
	size_t p_first_piece;
	char p_stamp[32];
	double p_abs;
	hit p_hit;
	int p_hit_valid;
	char p_tag[64];     /* process tag of the pending line's first physical line, "" when none */
	dict_scan p_dict;   /* resumable args-dict scan of the pending text */
	search_memo p_memo; /* its substring searches so far */
	/* clock: MM-DD has no year */
	int have_clock;
	double last_abs, year_off_s, t0;
	int leap;
	int prev_prefix_cut;
	char prev_stamp[32];
	char prev_tag[64];  /* process tag of the previous physical line */
	double prev_abs;
	/* found so far */
	int has_vllm;
	int gave_up;        /* stopped: no vLLM line in the first NO_VLLM_GIVE_UP_BYTES */
	char *bad_cap;      /* the first impossible capacity value (bad_capacity), or NULL */
	int n_kvsize, n_blocks;
	/* data-parallel engines (EngineCore_DPn tags, n < 64) of the current
	 * start-up: the ranks whose KV cache size, KV memory and maximum
	 * concurrency lines were seen (one each), and the sums of those */
	unsigned long long dp_size_ranks, dp_mem_ranks, dp_conc_ranks;
	double dp_pool_tokens, dp_pool_gib, dp_conc_x;
	int startups;       /* start-ups seen so far (see new_startup) */
	int cap_seen;       /* the current start-up printed a capacity line */
	size_t stats_at_startup; /* o->n_stats when the current start-up began */
	double gpu_blocks;
	int blocks_line;
	int args_seen, init_seen;
	double cfg_max_len, cfg_tp, cfg_dcp;
	char *cfg_model, *args_model, *args_model_tag;
	size_t stats_cap;
	/* traceback */
	int tb_state;       /* 0 none, 1 frames, 2 after the exception line */
	char tb_tag[64];
	int tb_vllm;
	int tb_detail;
	int saw_usage;      /* an argparse "usage: vllm ..." line was seen */
	char *exc, *prev_exc;
	int exc_line, prev_exc_line;
} scanner;

/* ---------------------------------------------------------------- helpers */

/* starts: 1 when [p, end) begins with the NUL-terminated `s`. */
static int
starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* is_digit: ASCII digit test that never depends on locale or sign. */
static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * parse_num: read a decimal number at p: digits with optional "," thousands
 * separators (a comma counts only when exactly three digits follow it), an
 * optional fraction and exponent. Returns the end of the number, or NULL when
 * no digit is there. *v receives the value.
 */
static const char *
parse_num(const char *p, const char *end, double *v)
{
	char buf[80];
	size_t n = 0;
	const char *q = p;
	if (q < end && *q == '-')
		buf[n++] = *q++;
	if (q >= end || !(is_digit(*q) || (*q == '.' && q + 1 < end && is_digit(q[1]))))
		return NULL;
	while (q < end && n < sizeof buf - 8) {
		if (is_digit(*q)) {
			buf[n++] = *q++;
		} else if (*q == ',' && n > 0 && end - q >= 4 && is_digit(q[1]) && is_digit(q[2]) &&
		           is_digit(q[3]) && (end - q == 4 || !is_digit(q[4]))) {
			q++;
		} else
			break;
	}
	if (q < end && *q == '.' && q + 1 < end && is_digit(q[1])) {
		buf[n++] = *q++;
		while (q < end && is_digit(*q) && n < sizeof buf - 6)
			buf[n++] = *q++;
	}
	if (q + 1 < end && (*q == 'e' || *q == 'E') &&
	    (is_digit(q[1]) || ((q[1] == '-' || q[1] == '+') && q + 2 < end && is_digit(q[2])))) {
		buf[n++] = *q++;
		buf[n++] = *q++;
		while (q < end && is_digit(*q) && n < sizeof buf - 1)
			buf[n++] = *q++;
	}
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return q;
}


/*
 * msearch: memmem(from, end - from, key) through memo m (NULL: plain
 * memmem). Same result as memmem on the same text.
 */
static const char *
msearch(search_memo *m, const char *from, const char *end, const char *key, size_t klen)
{
	if (from >= end)
		return NULL;
	if (m == NULL)
		return memmem(from, end - from, key, klen);
	size_t start = (size_t)(from - m->base), n = (size_t)(end - m->base);
	int i;
	for (i = 0; i < m->n; i++)
		if (m->e[i].key == key && m->e[i].start == start)
			break;
	if (i == m->n) {
		if (m->n == MEMO_MAX)
			return memmem(from, end - from, key, klen);
		m->n++;
		m->e[i].key = key;
		m->e[i].start = start;
		m->e[i].to = start;
		m->e[i].found = -1;
	}
	if (m->e[i].found >= 0)
		return m->base + m->e[i].found;
	size_t s0 = m->e[i].to >= start + klen ? m->e[i].to - klen + 1 : start;
	const char *at = s0 < n ? memmem(m->base + s0, n - s0, key, klen) : NULL;
	m->e[i].to = n;
	if (at != NULL)
		m->e[i].found = at - m->base;
	return at;
}

/*
 * field: find `key` in [p, end), read the number after it and require `unit`
 * right after the number. `unit` NULL means "any non-number character, or the
 * end of text when `final`". Returns 1 with *v when complete, else 0.
 */
static int
field(search_memo *m, const char *p, const char *end, const char *key, const char *unit, int final,
    double *v)
{
	const char *k = msearch(m, p, end, key, strlen(key));
	if (k == NULL)
		return 0;
	const char *q = parse_num(k + strlen(key), end, v);
	if (q == NULL)
		return 0;
	if (unit == NULL)
		return q < end ? 1 : final;
	return starts(q, end, unit);
}

/* find: key at the start of [p, end) (anchored) or anywhere in it. */
static const char *
find(search_memo *m, const char *p, const char *end, int anchored, const char *key)
{
	if (anchored)
		return starts(p, end, key) ? p : NULL;
	return msearch(m, p, end, key, strlen(key));
}

/*
 * dict_end: given p at '{' of a Python repr, the matching '}', or NULL when
 * the text ends first (a wrapped line whose rest has not been joined yet).
 */
static const char *
dict_end(const char *p, const char *end)
{
	int closed;
	const char *q = br_py_skip_value(p + 1, end, &closed);
	/* skip_value stops at a depth-0 ',' too: walk value by value */
	while (closed && q < end && *q == ',')
		q = br_py_skip_value(q + 1, end, &closed);
	return (closed && q < end && *q == '}') ? q : NULL;
}


static void
dict_scan_reset(dict_scan *d)
{
	memset(d, 0, sizeof *d);
	d->open = -1;
}

/* dict_scan_run: advance d over text[0, n) (the pending text; it only grows
 * between calls) from the '{' at or after offset `from`. Returns 1 when the
 * dict is closed by '}' (what dict_end != NULL means). */
static int
dict_scan_run(dict_scan *d, const char *text, size_t n, size_t from)
{
	if (d->open < 0) {
		const char *b = from < n ? memchr(text + from, '{', n - from) : NULL;
		if (b == NULL)
			return 0;
		d->open = b - text;
		d->pos = (size_t)d->open + 1;
		d->depth = 1;
	}
	while (d->result == 0 && d->pos < n) {
		char c = text[d->pos++];
		if (d->quote) {
			if (d->esc)
				d->esc = 0;
			else if (c == '\\')
				d->esc = 1;
			else if (c == d->quote)
				d->quote = 0;
		} else if (c == '\'' || c == '"')
			d->quote = c;
		else if (c == '{' || c == '[' || c == '(' || c == '<')
			d->depth++;
		else if (c == '}' || c == ']' || c == ')' || c == '>') {
			if (--d->depth == 0)
				d->result = c == '}' ? 1 : -1;
		}
	}
	return d->result == 1;
}

/* ------------------------------------------------------ prefix classifier */

/*
 * clean_line: copy `raw` (without its "\n") into s->clean with a trailing
 * "\r" removed, the text before an inner "\r" dropped, and ANSI escape
 * sequences (ESC [ ... final byte, or ESC + one byte) removed.
 */
static void
clean_line(scanner *s, const char *raw, size_t n, const char **text, size_t *len)
{
	while (n > 0 && (raw[n - 1] == '\r' || raw[n - 1] == '\n'))
		n--;
	const char *cr = memrchr(raw, '\r', n);
	if (cr != NULL) {
		n -= (size_t)(cr + 1 - raw);
		raw = cr + 1;
	}
	if (memchr(raw, 0x1b, n) == NULL) {
		*text = raw;
		*len = n;
		return;
	}
	if (s->clean_cap < n + 1) {
		s->clean_cap = n + 1;
		s->clean = br_xrealloc(s->clean, s->clean_cap);
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (raw[i] != 0x1b) {
			s->clean[o++] = raw[i];
			continue;
		}
		if (i + 1 < n && raw[i + 1] == '[') {
			i += 2;
			while (i < n && (unsigned char)raw[i] >= 0x20 && (unsigned char)raw[i] <= 0x3f)
				i++;
			/* i is at the final byte (0x40-0x7e) or the end; the loop steps past it */
		} else if (i + 1 < n)
			i++;
	}
	s->clean[o] = '\0';
	*text = s->clean;
	*len = o;
}

/* d2: two ASCII digits at p as an int, or -1. */
static int
d2(const char *p)
{
	return (is_digit(p[0]) && is_digit(p[1])) ? (p[0] - '0') * 10 + (p[1] - '0') : -1;
}

static const int cum_days[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };

/*
 * level_stamp: match "LEVEL MM-DD HH:MM:SS[.fff] " at p. On success returns
 * the text after it and fills month/day/second-of-day and the stamp text.
 */
static const char *
level_stamp(const char *p, const char *end, int *mon, int *day, double *sod, char stamp[32])
{
	static const char *levels[] = { "INFO ", "WARNING ", "ERROR ", "DEBUG ", "WARN ", "CRITICAL " };
	const char *q = NULL;
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		if (starts(p, end, levels[i])) {
			q = p + strlen(levels[i]);
			break;
		}
	if (q == NULL || end - q < 14)
		return NULL;
	int mo = d2(q), dd = d2(q + 3), hh = d2(q + 6), mi = d2(q + 9), ss = d2(q + 12);
	if (q[2] != '-' || q[5] != ' ' || q[8] != ':' || q[11] != ':' || mo < 1 || mo > 12 ||
	    dd < 1 || dd > 31 || hh < 0 || hh > 23 || mi < 0 || mi > 59 || ss < 0 || ss > 60)
		return NULL;
	double frac = 0;
	const char *r = q + 14;
	if (r < end && (*r == '.' || *r == ',') && r + 1 < end && is_digit(r[1])) {
		double scale = 0.1;
		for (r++; r < end && is_digit(*r); r++, scale /= 10)
			frac += (*r - '0') * scale;
	}
	if (r < end && *r != ' ')
		return NULL;
	memcpy(stamp, q, 14);
	stamp[14] = '\0';
	*mon = mo;
	*day = dd;
	*sod = hh * 3600.0 + mi * 60.0 + ss + frac;
	return r < end ? r + 1 : r;
}

/*
 * clock_abs: seconds on a running clock for a month/day/second-of-day stamp.
 * Logs carry no year: day-of-year uses a non-leap calendar until a 02-29
 * stamp is seen; a jump back of more than half a year is a new year.
 */
static double
clock_abs(scanner *s, int mon, int day, double sod)
{
	if (mon == 2 && day == 29)
		s->leap = 1;
	double doy = cum_days[mon - 1] + (day - 1) + ((s->leap && mon > 2) ? 1 : 0);
	double abs_s = s->year_off_s + doy * 86400.0 + sod;
	if (s->have_clock && abs_s < s->last_abs - 182.0 * 86400.0) {
		s->year_off_s += (s->leap ? 366.0 : 365.0) * 86400.0;
		s->leap = (mon == 2 && day == 29);
		doy = cum_days[mon - 1] + (day - 1) + ((s->leap && mon > 2) ? 1 : 0);
		abs_s = s->year_off_s + doy * 86400.0 + sod;
	}
	if (!s->have_clock) {
		s->have_clock = 1;
		s->t0 = abs_s;
	}
	s->last_abs = abs_s;
	return abs_s;
}

/*
 * classify: split a cleaned line into prefixes and body (see the file
 * comment). Fills every field of *l.
 */
static void
classify(scanner *s, const char *text, size_t len, pline *l)
{
	const char *p = text, *end = text + len;
	memset(l, 0, sizeof *l);
	l->text = text;
	l->len = len;
	l->abs_s = NAN;
	/* Docker --timestamps: 2026-08-01T03:54:33.123456789Z */
	if (len >= 20 && is_digit(p[0]) && is_digit(p[3]) && p[4] == '-' && p[7] == '-' && p[10] == 'T' &&
	    p[13] == ':' && p[16] == ':') {
		const char *sp = memchr(p, ' ', len);
		p = sp ? sp + 1 : end;
		l->prefixed = 1;
	}
	/* process tags: "(EngineCore_DP0 pid=12) ", "(RayWorkerWrapper pid=3, ip=10.0.0.1) " */
	for (int rep = 0; rep < 2 && p < end && *p == '('; rep++) {
		size_t lim = (size_t)(end - p) < 128 ? (size_t)(end - p) : 128;
		const char *close = memchr(p, ')', lim);
		if (close == NULL || memmem(p, close - p, " pid=", 5) == NULL)
			break;
		size_t tl = (size_t)(close + 1 - p);
		if (tl >= sizeof l->tag)
			tl = sizeof l->tag - 1;
		memcpy(l->tag, p, tl);
		l->tag[tl] = '\0';
		p = close + 1;
		if (p < end && *p == ' ')
			p++; /* one space only: traceback frames keep their indentation */
		l->prefixed = 1;
	}
	/* vLLM logger prefix, at p or a little further in */
	int mon = 0, day = 0;
	double sod = 0;
	const char *after = level_stamp(p, end, &mon, &day, &sod, l->stamp);
	if (after == NULL) {
		const char *lim = end - p > 200 ? p + 200 : end;
		for (const char *q = p + 1; q < lim; q++) {
			if ((*q == 'I' || *q == 'W' || *q == 'E' || *q == 'D' || *q == 'C') &&
			    (q[-1] == ' ' || q[-1] == '|' || q[-1] == ']' || q[-1] == ')') &&
			    (after = level_stamp(q, end, &mon, &day, &sod, l->stamp)) != NULL)
				break;
		}
	}
	if (after != NULL) {
		l->vllm = 1;
		l->prefixed = 1;
		l->abs_s = clock_abs(s, mon, day, sod);
		p = after;
		if (p < end && *p == '[') {
			size_t lim = (size_t)(end - p) < 160 ? (size_t)(end - p) : 160;
			const char *close = memchr(p, ']', lim);
			if (close == NULL && (size_t)(end - p) < 160) {
				l->prefix_cut = 1;
				p = end;
			} else if (close != NULL) {
				p = close + 1;
				if (p < end && *p == ' ')
					p++;
			}
		} else {
			const char *q = p;
			while (q < end && q - p < 160 &&
			       (*q == '_' || *q == '.' || *q == '/' || *q == '-' || *q == ':' ||
			        (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || is_digit(*q)))
				q++;
			if (q >= end && q > p && memchr(p, ' ', q - p) == NULL) {
				l->prefix_cut = 1;
				p = end;
			} else if (q < end && *q == ']' && q > p && memmem(p, q - p, ":", 1) != NULL) {
				p = q + 1;
				if (p < end && *p == ' ')
					p++;
			}
		}
	}
	if (l->vllm && p == end)
		l->prefix_cut = 1; /* nothing after the prefix: a wrapped record may go on */
	l->body = p;
	l->body_len = (size_t)(end - p);
}

/* --------------------------------------------------------------- matching */

/* banner_version: the version token of a banner line ("vLLM API server
 * version X", "vLLM version X", or block letters then "version X"; X starts
 * with a digit), its length in *vlen; NULL when the body is no banner. */
static const char *
banner_version(search_memo *m, const char *p, const char *end, size_t *vlen)
{
	const char *v = NULL;
	const char *k;
	if ((k = find(m, p, end, 0, "vLLM API server version ")) != NULL)
		v = k + strlen("vLLM API server version ");
	else if ((k = find(m, p, end, 0, "vLLM version ")) != NULL)
		v = k + strlen("vLLM version ");
	else {
		/* the block-letter banner: "▄▄ ▄█ █ ... █  version 0.23.1", with only
		 * spaces and (UTF-8) block letters before "version " (a banner line
		 * is a terminal's width: look at most 1 KiB into the text) */
		const char *q = p, *lim = end - p > 1024 ? p + 1024 : end;
		while (q < lim && (*q == ' ' || (unsigned char)*q >= 0x80))
			q++;
		if (!starts(q, end, "version "))
			return NULL;
		v = q + 8;
	}
	while (v < end && *v == ' ')
		v++;
	if (v >= end || !is_digit(*v))
		return NULL;
	const char *e = v;
	while (e < end && *e != ' ' && *e != '\t')
		e++;
	*vlen = (size_t)(e - v);
	return v;
}

/* stats_key: where "Avg prompt throughput: " starts (after an optional
 * "Engine 000: " when anchored), or NULL. */
static const char *
stats_key(search_memo *m, const char *p, const char *end, int anchored)
{
	static const char key[] = "Avg prompt throughput: ";
	if (!anchored)
		return msearch(m, p, end, key, sizeof key - 1);
	if (starts(p, end, key))
		return p;
	if (!starts(p, end, "Engine "))
		return NULL;
	const char *q = p + 7;
	while (q < end && is_digit(*q))
		q++;
	return (starts(q, end, ": ") && starts(q + 2, end, key)) ? q + 2 : NULL;
}

/*
 * analyze: what the (possibly joined) body [p, p+n) holds. `anchored`: the
 * body follows a vLLM logger prefix, so messages start at p. `final`: no
 * continuation will follow, so a number ending the text is complete for
 * fields terminated by punctuation. `ds`: NULL, or the resumable dict scan
 * of this (growing) text, used for `non-default args: {`. Fills *h; never
 * allocates.
 */
static void
analyze(const scanner *s, const char *p, size_t n, int anchored, int final, dict_scan *ds,
    search_memo *m, hit *h)
{
	const char *end = p + n, *k;
	memset(h, 0, sizeof *h);
	h->a = h->b = NAN;
	if (n == 0)
		return;
	if (m != NULL)
		m->base = p;
	if ((k = find(m, p, end, anchored, "GPU KV cache size: ")) != NULL) {
		h->kind = K_KVSIZE;
		h->score = field(m, k, end, "GPU KV cache size: ", " tokens", final, &h->a);
		h->want_more = !h->score;
	} else if ((k = find(m, p, end, anchored, "Available KV cache memory: ")) != NULL) {
		h->kind = K_KVMEM;
		h->score = field(m, k, end, "Available KV cache memory: ", " GiB", final, &h->a);
		if (!h->score && field(m, k, end, "Available KV cache memory: ", " MiB", final, &h->a)) {
			h->a /= 1024.0;
			h->score = 1;
		}
		h->want_more = !h->score;
	} else if ((k = find(m, p, end, anchored, "Maximum concurrency for ")) != NULL) {
		h->kind = K_MAXCONC;
		const char *q = parse_num(k + strlen("Maximum concurrency for "), end, &h->a);
		if (q != NULL && starts(q, end, " tokens per request: ")) {
			h->score = 1;
			q = parse_num(q + strlen(" tokens per request: "), end, &h->b);
			if (q != NULL && q < end && *q == 'x')
				h->score = 2;
		} else
			h->a = NAN;
		if (h->score < 2)
			h->b = NAN;
		h->want_more = h->score < 2;
	} else if ((k = find(m, p, end, anchored, "# GPU blocks: ")) != NULL ||
	           (k = find(m, p, end, anchored, "# cuda blocks: ")) != NULL) {
		h->kind = K_BLOCKS;
		const char *key = k[2] == 'G' ? "# GPU blocks: " : "# cuda blocks: ";
		h->score = field(m, k, end, key, NULL, final, &h->a);
		h->want_more = !h->score;
	} else if ((k = stats_key(m, p, end, anchored)) != NULL) {
		h->kind = K_STATS;
		/* "Engine 000: " right before the key */
		const char *e = k;
		if (e - p >= 10 && e[-1] == ' ' && e[-2] == ':') {
			const char *d = e - 2;
			while (d > p && is_digit(d[-1]))
				d--;
			if (d < e - 2 && d - p >= 7 && memcmp(d - 7, "Engine ", 7) == 0)
				h->engine = atoi(d);
		}
		static const struct { const char *key, *unit; } f[S_N] = {
			{ "Avg prompt throughput: ", " tokens/s" },
			{ "Avg generation throughput: ", " tokens/s" },
			{ "Running: ", " reqs" },
			{ "Waiting: ", " reqs" },
			{ "Preemptions: ", NULL },
			{ "GPU KV cache usage: ", "%" },
			{ "Prefix cache hit rate: ", "%" },
		};
		for (int i = 0; i < S_N; i++) {
			h->have[i] = field(m, k, end, f[i].key, f[i].unit, final, &h->st[i]);
			if (!h->have[i])
				h->st[i] = NAN;
		}
		if (!h->have[S_WAIT] && field(m, k, end, "Pending: ", " reqs", final, &h->st[S_WAIT]))
			h->have[S_WAIT] = 1; /* V0 */
		if (!h->have[S_PREFIX] && field(m, k, end, "Prefix cache hit rate: GPU: ", "%", final, &h->st[S_PREFIX]))
			h->have[S_PREFIX] = 1; /* V0 0.6 */
		for (int i = 0; i < S_N; i++)
			h->score += h->have[i];
		h->want_more = !h->have[S_KV];
	} else if ((k = find(m, p, end, anchored, "non-default args: ")) != NULL) {
		h->kind = K_ARGS;
		if (ds != NULL)
			h->score = dict_scan_run(ds, p, n, (size_t)(k - p));
		else {
			const char *b = memchr(k, '{', end - k);
			h->score = (b != NULL && dict_end(b, end) != NULL);
		}
		h->want_more = !h->score;
	} else if ((k = find(m, p, end, anchored, "args: Namespace(")) != NULL) {
		/* V0's argparse Namespace: every argument, defaults included; read
		 * once its closing ')' has arrived (a wrapped line goes on) */
		h->kind = K_NSARGS;
		const char *q = end;
		while (q > k && (q[-1] == ' ' || q[-1] == '\r'))
			q--;
		h->score = q > k && q[-1] == ')';
		h->want_more = !h->score;
	} else if ((k = find(m, p, end, anchored, "Initializing a V1 LLM engine (v")) != NULL ||
	           (k = find(m, p, end, anchored, "Initializing an LLM engine (v")) != NULL) {
		h->kind = K_INIT;
		double x;
		h->score = msearch(m, k, end, ")", 1) != NULL;
		h->score += field(m, k, end, "max_seq_len=", NULL, final, &x);
		h->score += field(m, k, end, "tensor_parallel_size=", NULL, final, &x);
		h->want_more = h->score < 3;
	} else if ((k = find(m, p, end, anchored, "Sequence group ")) != NULL &&
	           msearch(m, k, end, " is preempted by ", 17) != NULL) {
		h->kind = K_V0PRE;
		h->score = field(m, k, end, "total_num_cumulative_preemption=", NULL, final, &h->a);
		h->want_more = !h->score;
	} else {
		/* every banner counts: a second one marks a server restart */
		size_t vl;
		const char *v = banner_version(m, p, end, &vl);
		if (v != NULL) {
			h->kind = K_BANNER;
			h->score = 1;
			h->want_more = (v + vl == end); /* the version may go on in a wrapped piece */
		}
	}
}

/* ------------------------------------------------------- applying a match */

/* py_str: the text of a quoted Python string at v (quotes removed, "\x"
 * kept as x), or NULL when v is not a string. */
static char *
py_str(const char *v, const char *end)
{
	if (v >= end || (*v != '\'' && *v != '"'))
		return NULL;
	char q = *v++;
	char *o = br_xmalloc((size_t)(end - v) + 1);
	size_t n = 0;
	while (v < end && *v != q) {
		if (*v == '\\' && v + 1 < end)
			v++;
		o[n++] = *v++;
	}
	o[n] = '\0';
	return o;
}

/* py_num: a number repr (or a quoted "32k"-style string: k = 1e3, K = 1024,
 * m = 1e6, M = 2^20, g = 1e9, G = 2^30). NAN when not a number. */
static double
py_num(const char *v, const char *end)
{
	int quoted = (v < end && (*v == '\'' || *v == '"'));
	double x;
	const char *q = parse_num(v + quoted, end, &x);
	if (q == NULL)
		return NAN;
	if (quoted && q < end) {
		switch (*q) {
		case 'k': x *= 1e3; q++; break;
		case 'K': x *= 1024.0; q++; break;
		case 'm': x *= 1e6; q++; break;
		case 'M': x *= 1048576.0; q++; break;
		case 'g': x *= 1e9; q++; break;
		case 'G': x *= 1073741824.0; q++; break;
		default: break;
		}
		if (q >= end || *q != v[0])
			return NAN;
		q++;
	}
	while (q < end && *q == ' ')
		q++;
	/* the settings read here are counts of tokens, requests or GPUs: beyond
	 * 2^53 a double no longer holds the printed digits, so none is made up */
	return q == end && fabs(x) <= 9007199254740992.0 ? x : NAN;
}

/*
 * apply_args: keep every top-level entry of `non-default args: {...}` (name
 * and printed value) and read the wanted keys into fields. A later line (a
 * restart) replaces an earlier one.
 * Values of other keys (nested dicts, lists, <Enum: 3> reprs) are skipped
 * unparsed. A value that is not what the key needs (None, a string where a
 * number belongs) leaves the field NAN/NULL.
 */
/* clear_args: forget the args of an earlier `non-default args` line. */
static void
clear_args(scanner *s)
{
	br_server_log *o = s->out;
	br_log_args_clear(o);
	o->max_model_len_tokens = o->max_num_seqs = o->max_num_batched_tokens = NAN;
	o->tensor_parallel_size = o->gpu_memory_utilization = o->block_size_tokens = NAN;
	o->decode_context_parallel_size = NAN;
	free(o->served_model_name);
	o->served_model_name = NULL;
	free(s->args_model);
	free(s->args_model_tag);
	s->args_model = s->args_model_tag = NULL;
}

/*
 * args_field: read a wanted argument (name key of kl bytes, printed value
 * v..vt) into its field of the log model; other names are only listed.
 */
static void
args_field(scanner *s, const char *key, size_t kl, const char *v, const char *vt)
{
	br_server_log *o = s->out;
#define KEY(name) (kl == strlen(name) && memcmp(key, name, kl) == 0)
	if (KEY("max_model_len"))
		o->max_model_len_tokens = py_num(v, vt);
	else if (KEY("max_num_seqs"))
		o->max_num_seqs = py_num(v, vt);
	else if (KEY("max_num_batched_tokens"))
		o->max_num_batched_tokens = py_num(v, vt);
	else if (KEY("tensor_parallel_size"))
		o->tensor_parallel_size = py_num(v, vt);
	else if (KEY("decode_context_parallel_size"))
		o->decode_context_parallel_size = py_num(v, vt);
	else if (KEY("gpu_memory_utilization"))
		o->gpu_memory_utilization = py_num(v, vt);
	else if (KEY("block_size"))
		o->block_size_tokens = py_num(v, vt);
	else if (KEY("model") && s->args_model == NULL)
		s->args_model = py_str(v, vt);
	else if (KEY("model_tag") && s->args_model_tag == NULL)
		s->args_model_tag = py_str(v, vt);
	else if (KEY("served_model_name") && o->served_model_name == NULL) {
		if (v < vt && *v == '[') /* a list: keep the first name */
			o->served_model_name = py_str(v + 1, vt);
		else
			o->served_model_name = py_str(v, vt);
	}
#undef KEY
}

/* ns_field: br_log_kwargs_args' callback: args_field of the scanner ctx. */
static void
ns_field(void *ctx, const char *key, size_t kl, const char *v, const char *ve)
{
	args_field(ctx, key, kl, v, ve);
}

/*
 * apply_ns_args: V0's `args: Namespace(name=value, ...)`: every argument
 * (br_log_kwargs_args), the wanted ones read (args_field). A later line (a
 * restart) replaces an earlier one.
 */
static void
apply_ns_args(scanner *s, const char *p, const char *end, int line)
{
	const char *b = memmem(p, (size_t)(end - p), "Namespace(", 10);
	if (b == NULL)
		return;
	clear_args(s);
	s->args_seen = 1;
	br_log_kwargs_args(s->out, b + strlen("Namespace("), end, line, ns_field, s);
}

static void
apply_args(scanner *s, const char *p, const char *end, int line)
{
	br_server_log *o = s->out;
	const char *b = memchr(p, '{', end - p);
	if (b == NULL)
		return;
	/* a later start-up's line replaces an earlier one: the run came after it */
	clear_args(s);
	s->args_seen = 1;
	o->args_line = line;
	const char *de = dict_end(b, end);
	if (de != NULL)
		end = de;
	o->args_complete = de != NULL;
	p = b + 1;
	for (;;) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end || (*p != '\'' && *p != '"'))
			break;
		char q = *p++;
		const char *key = p;
		while (p < end && *p != q)
			p++;
		if (p >= end)
			break;
		size_t kl = (size_t)(p - key);
		p++;
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p != ':')
			break;
		p++;
		while (p < end && *p == ' ')
			p++;
		int closed;
		const char *v = p, *ve = br_py_skip_value(p, end, &closed);
		const char *vt = ve;
		while (vt > v && vt[-1] == ' ')
			vt--;
		o->args = br_xrealloc(o->args, (o->n_args + 1) * sizeof *o->args);
		br_log_arg_set(&o->args[o->n_args], key, kl, v, (size_t)(vt - v));
		o->n_args++;
		args_field(s, key, kl, v, vt);
		p = ve;
		if (p < end && *p == ',')
			p++;
		else
			break;
	}
}

/* The engine-config settings compared between runs (see serverlog.h). */
const char *const br_log_config_keys[] = { "speculative_config", "dtype", "max_seq_len",
	"tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size",
	"decode_context_parallel_size", "quantization", "enforce_eager", "kv_cache_dtype",
	"enable_prefix_caching", "enable_chunked_prefill", NULL };

/* br_log_config_arg: see serverlog.h. */
const char *
br_log_config_arg(const char *config_key)
{
	return strcmp(config_key, "max_seq_len") == 0 ? "max_model_len" : config_key;
}

/* log_config_clear: forget the engine-config settings read so far. */
static void
log_config_clear(br_server_log *o)
{
	for (size_t i = 0; i < o->n_config; i++) {
		free(o->config[i].name);
		free(o->config[i].value);
		free(o->config[i].raw);
	}
	free(o->config);
	o->config = NULL;
	o->n_config = 0;
}

/* read_config: the br_log_config_keys found in the config text [c, end),
 * each "key=value" at the top level of the line (after ", " or at its
 * start), value as printed (br_py_skip_value), into o->config. */
static void
read_config(br_server_log *o, const char *c, const char *end)
{
	for (int i = 0; br_log_config_keys[i] != NULL; i++) {
		const char *key = br_log_config_keys[i];
		size_t kl = strlen(key);
		for (const char *f = c; f < end && (f = memmem(f, (size_t)(end - f), key, kl)) != NULL; f += kl) {
			if (!(f == c || (f >= c + 2 && f[-1] == ' ' && f[-2] == ',')) || f + kl >= end || f[kl] != '=')
				continue;
			const char *v = f + kl + 1;
			int closed;
			const char *ve = br_py_skip_value(v, end, &closed);
			if (!closed && ve == end)
				while (ve > v && (ve[-1] == '\n' || ve[-1] == '\r'))
					ve--;
			o->config = br_xrealloc(o->config, (o->n_config + 1) * sizeof *o->config);
			br_log_arg_set(&o->config[o->n_config++], key, kl, v, (size_t)(ve - v));
			break;
		}
	}
}

/*
 * apply_init: "Initializing a V1 LLM engine (vX) with config: model='...',
 * ..., max_seq_len=N, ..., tensor_parallel_size=N": engine, version (when no
 * banner gave one) and config fallbacks used when the args line lacks them.
 */
static void
apply_init(scanner *s, const char *p, const char *end, int line)
{
	br_server_log *o = s->out;
	const char *k = memmem(p, end - p, "Initializing a", 14);
	if (k == NULL)
		return;
	/* the engine-config settings: a later start-up's line replaces an earlier one */
	const char *cc = memmem(k, end - k, "with config: ", 13);
	if (cc != NULL) {
		log_config_clear(o);
		read_config(o, cc + 13, end);
	}
	if (s->init_seen)
		return;
	s->init_seen = 1;
	int v1 = starts(k, end, "Initializing a V1 ");
	o->engine = br_xstrdup(v1 ? "V1" : "V0");
	const char *v = memmem(k, end - k, "(v", 2);
	if (v != NULL && o->vllm_version == NULL) {
		v += 2;
		const char *ve = memchr(v, ')', end - v);
		if (ve != NULL && ve > v) {
			o->vllm_version = br_xstrndup(v, (size_t)(ve - v));
			o->version_line = line;
		}
	}
	const char *c = memmem(k, end - k, "with config: ", 13);
	if (c == NULL)
		return;
	c += 13;
	double x;
	const char *f;
	if ((f = memmem(c, end - c, "max_seq_len=", 12)) != NULL && parse_num(f + 12, end, &x))
		s->cfg_max_len = x;
	if ((f = memmem(c, end - c, "tensor_parallel_size=", 21)) != NULL && parse_num(f + 21, end, &x))
		s->cfg_tp = x;
	if ((f = memmem(c, end - c, "decode_context_parallel_size=", 29)) != NULL && parse_num(f + 29, end, &x))
		s->cfg_dcp = x;
	if (starts(c, end, "model=") && s->cfg_model == NULL) {
		const char *ve = c + 6 < end ? memchr(c + 7, c[6], end - c - 7) : NULL;
		if (ve != NULL)
			s->cfg_model = py_str(c + 6, ve + 1);
	}
}

/*
 * new_startup: a server start-up begins (a banner, or a capacity line after
 * periodic stats). When the current start-up already printed capacity lines
 * or stats, this is a restart: its capacity lines are forgotten, since the
 * load test ran against the LAST start-up. The first start-up is counted on
 * its first marker.
 */
static void
new_startup(scanner *s, int line, const char *stamp)
{
	br_server_log *o = s->out;
	int restart = s->cap_seen || o->n_stats > s->stats_at_startup;
	if (s->startups > 0 && !restart)
		return;
	s->startups++;
	o->last_startup_line = line;
	snprintf(o->last_startup_stamp, sizeof o->last_startup_stamp, "%s", stamp ? stamp : "");
	s->cap_seen = 0;
	s->stats_at_startup = o->n_stats;
	if (s->startups == 1)
		return;
	s->n_kvsize = s->n_blocks = 0;
	s->dp_size_ranks = s->dp_mem_ranks = s->dp_conc_ranks = 0;
	s->dp_pool_tokens = s->dp_pool_gib = s->dp_conc_x = 0;
	s->gpu_blocks = NAN;
	s->blocks_line = 0;
	o->kv_pool_tokens = o->kv_pool_gib = o->max_concurrency_x = o->max_concurrency_len_tokens = NAN;
	o->kv_pool_line = o->kv_mem_line = o->max_conc_line = 0;
}

/*
 * bad_capacity: a capacity line whose number no server prints (0, negative,
 * a fraction of a token, 1e20 tokens) makes the log bad input: the first
 * one is kept in s->bad_cap and br_server_log_load fails with it. Returns 1
 * when v is fine.
 */
static int
bad_capacity(scanner *s, const char *text, size_t len, int line, const char *what, double v, const char *unit,
    double lo, double hi, int whole)
{
	if (isfinite(v) && v >= lo && v <= hi && (!whole || v == floor(v)))
		return 1;
	if (s->bad_cap == NULL) {
		/* the column of the number: the first digit (or sign) after the
		 * phrase on the line, else the phrase, else the line's start */
		size_t col = 1 + s->p_body_off;
		const char *k = memmem(text, len, what, strlen(what));
		if (k != NULL) {
			const char *q = k + strlen(what), *end = text + len;
			while (q < end && !is_digit(*q) && *q != '-')
				q++;
			col = (size_t)((q < end ? q : k) - text) + 1 + s->p_body_off;   /* text: the line after its prefixes */
		}
		s->bad_cap = br_xasprintf("%s:%d:%zu: \"%s\" gives %.10g %s; expected %s from %g to %g %s",
		    s->path, line, col, what, v, unit, whole ? "a whole number" : "a number", lo, hi, unit);
	}
	return 0;
}

/*
 * dp_rank: the data-parallel rank n of a vLLM V1 engine core's process tag
 * "(EngineCore_DPn pid=..)", else -1 (no tag, another process, n >= 64).
 */
static int
dp_rank(const char *tag)
{
	const char *q = strstr(tag, "EngineCore_DP");
	if (q == NULL || !is_digit(q[13]))
		return -1;
	int n = 0;
	for (q += 13; is_digit(*q) && n < 64; q++)
		n = n * 10 + (*q - '0');
	return n < 64 ? n : -1;
}

/*
 * dp_add: a capacity value v printed by the pending line's engine. Each
 * data-parallel engine (EngineCore_DPn) owns a pool of its own, so the
 * server holds the sum over the distinct ranks of one start-up: v is added
 * to *sum once per rank (a repeated line is counted once), *ranks marks it.
 */
static void
dp_add(const char *tag, unsigned long long *ranks, double *sum, double v)
{
	int r = dp_rank(tag);
	if (r < 0 || (*ranks & (1ULL << r)))
		return;
	*ranks |= 1ULL << r;
	*sum += v;
}

/* apply: record a finished logical line (analysed with final = 1). */
static void
apply(scanner *s, const hit *h, const char *p, size_t n, int line, const char *stamp, double abs_s)
{
	br_server_log *o = s->out;
	const char *end = p + n;
	if (h->kind != K_NONE && h->kind != K_V0PRE && (h->score > 0 || h->kind == K_KVSIZE || h->kind == K_BLOCKS))
		s->has_vllm = 1;
	if (h->score && (h->kind == K_KVSIZE || h->kind == K_KVMEM || h->kind == K_MAXCONC ||
	    h->kind == K_BLOCKS)) {
		/* capacity after stats (a restart without a banner), or the first
		 * start-up of a log without one */
		if (s->startups == 0 || o->n_stats > s->stats_at_startup)
			new_startup(s, line, stamp);
		s->cap_seen = 1;
	}
	switch (h->kind) {
	case K_KVSIZE:
		s->n_kvsize++;
		if (h->score && !bad_capacity(s, p, n, line, "GPU KV cache size", h->a, "tokens", 1, 1e12, 1))
			break;
		if (h->score && o->kv_pool_line == 0) {
			o->kv_pool_tokens = h->a;
			o->kv_pool_line = line;
		}
		if (h->score)
			dp_add(s->p_tag, &s->dp_size_ranks, &s->dp_pool_tokens, h->a);
		break;
	case K_KVMEM:
		if (h->score && !bad_capacity(s, p, n, line, "Available KV cache memory", h->a, "GiB", 1e-6, 1e6, 0))
			break;
		if (h->score)
			dp_add(s->p_tag, &s->dp_mem_ranks, &s->dp_pool_gib, h->a);
		if (h->score && o->kv_mem_line == 0) {
			o->kv_pool_gib = h->a;
			o->kv_mem_line = line;
		}
		break;
	case K_MAXCONC:
		if (h->score >= 1 && !bad_capacity(s, p, n, line, "Maximum concurrency for", h->a,
		    "tokens per request", 1, 1e9, 1))
			break;
		if (h->score >= 2 && !bad_capacity(s, p, n, line, "Maximum concurrency", h->b, "x", 1e-9, 1e12, 0))
			break;
		if (h->score >= 2)
			dp_add(s->p_tag, &s->dp_conc_ranks, &s->dp_conc_x, h->b);
		if (h->score && o->max_conc_line == 0) {
			o->max_concurrency_len_tokens = h->a;
			o->max_concurrency_x = h->b;
			o->max_conc_line = line;
		}
		break;
	case K_BLOCKS:
		s->n_blocks++;
		if (h->score && !bad_capacity(s, p, n, line, "# GPU blocks", h->a, "blocks", 1, 1e12, 1))
			break;
		if (h->score && s->blocks_line == 0) {
			s->gpu_blocks = h->a;
			s->blocks_line = line;
		}
		break;
	case K_STATS:
		if (!h->have[S_PROMPT] || !h->have[S_GEN] || !h->have[S_RUN] || !h->have[S_KV])
			break;
		if (o->n_stats == s->stats_cap) {
			s->stats_cap = s->stats_cap ? 2 * s->stats_cap : 64;
			o->stats = br_xrealloc(o->stats, s->stats_cap * sizeof *o->stats);
		}
		br_log_stat *st = &o->stats[o->n_stats++];
		memset(st, 0, sizeof *st);
		st->line = line;
		st->engine = h->engine;
		snprintf(st->stamp, sizeof st->stamp, "%s", stamp);
		st->t_s = isnan(abs_s) ? NAN : abs_s - s->t0;
		st->prompt_tput_tps = h->st[S_PROMPT];
		st->gen_tput_tps = h->st[S_GEN];
		st->running = h->st[S_RUN];
		st->waiting = h->st[S_WAIT];
		st->preemptions = h->st[S_PREEMPT];
		st->kv_usage_frac = h->st[S_KV] / 100.0;
		st->prefix_hit_frac = isnan(h->st[S_PREFIX]) ? NAN : h->st[S_PREFIX] / 100.0;
		break;
	case K_V0PRE:
		o->n_preemption_lines++;
		if (h->score) {
			o->v0_cumulative_preemptions = h->a;
			s->has_vllm = 1;
			o->v0_preemptions = br_xrealloc(o->v0_preemptions,
			    (o->n_v0_preemptions + 1) * sizeof *o->v0_preemptions);
			br_log_v0_preemption *v = &o->v0_preemptions[o->n_v0_preemptions++];
			v->line = line;
			snprintf(v->stamp, sizeof v->stamp, "%s", stamp);
			v->cumulative = h->a;
		}
		break;
	case K_ARGS:
		apply_args(s, p, end, line);
		br_log_args_dedupe(s->out);
		break;
	case K_NSARGS:
		if (h->score) {
			apply_ns_args(s, p, end, line);
			br_log_args_dedupe(s->out);
		}
		break;
	case K_INIT:
		apply_init(s, p, end, line);
		break;
	case K_BANNER: {
		size_t vl;
		const char *v = banner_version(NULL, p, end, &vl);
		if (v == NULL)
			break;
		s->has_vllm = 1;
		int before = s->startups;
		new_startup(s, line, stamp);
		/* the version of the last start-up */
		if (o->vllm_version == NULL || s->startups != before) {
			free(o->vllm_version);
			o->vllm_version = br_xstrndup(v, vl);
			o->version_line = line;
		}
		break;
	}
	case K_NONE:
		break;
	}
}

/* ------------------------------------------------------------- tracebacks */

/* exception_like: "pkg.mod.SomeError: message" or a bare "KeyboardInterrupt". */
static int
exception_like(const char *p, const char *end)
{
	if (p >= end || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_'))
		return 0;
	while (p < end && (*p == '_' || *p == '.' || is_digit(*p) || (*p >= 'A' && *p <= 'Z') ||
	                   (*p >= 'a' && *p <= 'z')))
		p++;
	return p == end || *p == ':';
}

/* set_exception: b..end (line lineno) is the newest exception; the one
 * before it is kept as prev_exc (the root cause behind "See root cause above"). */
static void
set_exception(scanner *s, const char *b, const char *end, int lineno)
{
	free(s->prev_exc);
	s->prev_exc = s->exc;
	s->prev_exc_line = s->exc_line;
	s->exc = br_clip_utf8(b, (size_t)(end - b), FAILURE_MAX);
	s->exc_line = lineno;
}

/*
 * cli_error: argparse refuses the command line before any vLLM logger runs:
 * "usage: vllm serve [model_tag] [options]" then "vllm serve: error:
 * unrecognized arguments: --max-num-seq 10". The usage line marks the file
 * as vLLM's; the error line becomes the exception (did_not_start when no
 * capacity line follows).
 */
static void
cli_error(scanner *s, const pline *l, int lineno)
{
	const char *b = l->body, *end = l->body + l->body_len;
	while (end > b && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (starts(b, end, "usage: vllm") || starts(b, end, "usage: api_server.py")) {
		s->saw_usage = 1;
		s->has_vllm = 1;
		return;
	}
	if (!s->saw_usage)
		return;
	const char *e = memmem(b, (size_t)(end - b), ": error: ", 9);
	if (e == NULL || !(starts(b, end, "vllm") || starts(b, end, "api_server.py")))
		return;
	set_exception(s, b, end, lineno);
}

/*
 * traceback: follow "Traceback (most recent call last):" blocks line by line.
 * Only lines with the same process tag and the same kind of prefix as the
 * "Traceback" line take part, so interleaved output of other processes does
 * not end a block early.
 */
static void
traceback(scanner *s, const pline *l, int lineno)
{
	const char *b = l->body, *end = l->body + l->body_len;
	while (end > b && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (starts(b, end, "Traceback (most recent call last):")) {
		s->tb_state = 1;
		snprintf(s->tb_tag, sizeof s->tb_tag, "%s", l->tag);
		s->tb_vllm = l->vllm;
		return;
	}
	if (s->tb_state == 0 || strcmp(s->tb_tag, l->tag) != 0 || s->tb_vllm != l->vllm)
		return;
	int indented = (b < end && (*b == ' ' || *b == '\t'));
	if (s->tb_state == 1) {
		if (b == end || indented)
			return;
		if (!exception_like(b, end)) {
			s->tb_state = 0;
			return;
		}
		set_exception(s, b, end, lineno);
		s->tb_state = 2;
		s->tb_detail = 0;
		return;
	}
	/* tb_state 2: indented lines right after the exception line are its detail */
	if (!indented || b == end) {
		s->tb_state = 0;
		return;
	}
	while (b < end && (*b == ' ' || *b == '\t'))
		b++;
	if (s->tb_detail || starts(b, end, "For further information visit"))
		return;
	s->tb_detail = 1;
	size_t have = strlen(s->exc);
	if (have >= FAILURE_MAX)
		return;
	char *joined = br_xasprintf("%s: %.*s", s->exc, (int)(end - b), b);
	free(s->exc);
	s->exc = br_clip_utf8(joined, strlen(joined), FAILURE_MAX);
	free(joined);
}

/* ---------------------------------------------------------------- the scan */

/* pending_hit: the (cached) non-final analysis of the pending text. */
static const hit *
pending_hit(scanner *s)
{
	if (!s->p_hit_valid) {
		analyze(s, s->p_buf, s->p_len, s->p_anchored, 0, &s->p_dict, &s->p_memo, &s->p_hit);
		s->p_hit_valid = 1;
	}
	return &s->p_hit;
}

/* pending_append: add bytes to the pending text (kept NUL-terminated). */
static void
pending_append(scanner *s, const char *p, size_t n)
{
	if (s->p_len + n + 1 > s->p_cap) {
		s->p_cap = (s->p_len + n + 1) * 2;
		s->p_buf = br_xrealloc(s->p_buf, s->p_cap);
	}
	memcpy(s->p_buf + s->p_len, p, n);
	s->p_len += n;
	s->p_buf[s->p_len] = '\0';
}

/* flush: analyse the pending text as final and record it. */
static void
flush(scanner *s)
{
	if (!s->p_active)
		return;
	hit h;
	analyze(s, s->p_buf, s->p_len, s->p_anchored, 1, NULL, NULL, &h);
	apply(s, &h, s->p_buf, s->p_len, s->p_line, s->p_stamp, s->p_abs);
	s->p_active = 0;
}

/*
 * try_join: append the unprefixed line l to the pending text when that is a
 * hard-wrap continuation (see the file comment). Returns 1 when joined.
 */
static int
try_join(scanner *s, const pline *l)
{
	if (!s->p_active || l->prefixed || s->p_pieces >= MAX_JOIN_PIECES ||
	    s->p_len + l->len > MAX_JOIN_BYTES)
		return 0;
	const hit *ph = pending_hit(s);
	hit hn, hc;
	size_t old = s->p_len;
	dict_scan saved = s->p_dict;
	search_memo saved_memo = s->p_memo;
	pending_append(s, l->text, l->len);
	analyze(s, s->p_buf, s->p_len, s->p_anchored, 0, &s->p_dict, &s->p_memo, &hc);
	int ok = 0;
	if (hc.kind != K_NONE) {
		analyze(s, l->text, l->len, 0, 0, NULL, NULL, &hn);
		int best = ph->score > hn.score ? ph->score : hn.score;
		if (hc.score > best && (ph->kind == K_NONE || ph->kind == hc.kind))
			ok = 1;
		else if (ph->kind == K_NONE && (hn.kind == K_NONE || (s->p_anchored && old > 0)))
			ok = 1; /* the message's key itself was split by the wrap (anchored: the
			         * key can only be found at the start of the pending body) */
		else if (ph->want_more && ph->kind == hc.kind && hc.score >= ph->score && hn.kind == K_NONE &&
		         (s->p_last_piece >= WRAP_MIN_BYTES ||
		          (s->p_last_piece == s->p_first_piece && s->p_first_piece >= WRAP_SAME_MIN_BYTES)))
			ok = 1;
	}
	if (!ok) {
		s->p_len = old;
		s->p_buf[old] = '\0';
		s->p_dict = saved;
		s->p_memo = saved_memo;
		return 0;
	}
	s->p_hit = hc;
	s->p_hit_valid = 1;
	s->p_pieces++;
	s->p_last_piece = l->len;
	return 1;
}

/* start_pending: the line l becomes the pending logical line. */
static void
start_pending(scanner *s, const pline *l, int lineno)
{
	s->p_active = 1;
	s->p_len = 0;
	s->p_hit_valid = 0;
	dict_scan_reset(&s->p_dict);
	s->p_memo.n = 0;
	s->p_pieces = 1;
	s->p_last_piece = l->len;
	s->p_first_piece = l->len;
	s->p_line = lineno;
	s->p_body_off = (size_t)(l->body - l->text);
	/* a record whose logger prefix was wrapped has its tag on the line before */
	snprintf(s->p_tag, sizeof s->p_tag, "%s", l->tag[0] == '\0' && s->prev_prefix_cut ? s->prev_tag : l->tag);
	s->p_anchored = l->vllm && !l->prefix_cut;
	pending_append(s, l->body, l->body_len);
	if (l->vllm) {
		snprintf(s->p_stamp, sizeof s->p_stamp, "%s", l->stamp);
		s->p_abs = l->abs_s;
	} else if (s->prev_prefix_cut) {
		/* the logger prefix was wrapped: this line is the rest of its record */
		snprintf(s->p_stamp, sizeof s->p_stamp, "%s", s->prev_stamp);
		s->p_abs = s->prev_abs;
	} else {
		s->p_stamp[0] = '\0';
		s->p_abs = NAN;
	}
}

/* log_init: an empty model: numbers NAN, pointers NULL, counts 0. */
static void
log_init(br_server_log *o)
{
	memset(o, 0, sizeof *o);
	o->max_model_len_tokens = o->max_num_seqs = o->max_num_batched_tokens = NAN;
	o->tensor_parallel_size = o->gpu_memory_utilization = o->block_size_tokens = NAN;
	o->decode_context_parallel_size = NAN;
	o->kv_pool_tokens = o->kv_pool_gib = o->max_concurrency_x = o->max_concurrency_len_tokens = NAN;
	o->v0_cumulative_preemptions = NAN;
	o->v0_in_run_bound = NAN;
	o->engine_kind = BR_ENGINE_VLLM;
	o->n_ctx_tokens = o->ctx_per_slot_tokens = o->data_parallel_size = o->stats_epoch0_s = NAN;
	o->kv_unified = -1;
}

/* br_server_log_add_request: see serverlog.h. */
br_log_request *
br_server_log_add_request(br_server_log *l)
{
	if ((l->n_requests & (l->n_requests - 1)) == 0)   /* 0, 1, 2, 4, ...: grow to the next power */
		l->requests = br_xrealloc(l->requests, (l->n_requests ? 2 * l->n_requests : 1) *
		    sizeof *l->requests);
	br_log_request *r = &l->requests[l->n_requests++];
	r->line = 0;
	r->slot = r->task = -1;
	r->prompt_ms = r->prompt_tokens = r->eval_ms = r->eval_tokens = NAN;
	return r;
}

/* scanner_free: release the scanner's buffers and unclaimed strings. */
static void
scanner_free(scanner *s)
{
	free(s->clean);
	free(s->p_buf);
	free(s->cfg_model);
	free(s->args_model);
	free(s->args_model_tag);
	free(s->exc);
	free(s->prev_exc);
	free(s->bad_cap);
}

/*
 * A line reader with a bound on a line's length: getline(3) would turn a
 * crash's gigabytes of zero padding without a newline into one line held in
 * memory. A line longer than LINE_MAX_BYTES is handed out cut to that
 * length and the rest of it, up to its newline, is skipped.
 */
#define LINE_MAX_BYTES (1u << 20)
typedef struct line_reader {
	FILE *fp;
	char *buf;
	size_t cap, start, end;
	int eof, skipping;
	size_t consumed;     /* bytes read from the file so far (skipped ones included) */
} line_reader;

/*
 * lr_next: the next line [*line, *line + *n) including its '\n' when it has
 * one. Returns 1, 0 at the end of the file, or -1 on a read error (errno).
 */
static int
lr_next(line_reader *r, const char **line, size_t *n)
{
	if (r->buf == NULL) {
		r->cap = 64 * 1024;      /* grows up to 2 × LINE_MAX_BYTES for long lines */
		r->buf = br_xmalloc(r->cap);
	}
	for (;;) {
		char *b = r->buf + r->start;
		size_t have = r->end - r->start;
		char *nl = have ? memchr(b, '\n', have) : NULL;
		if (r->skipping) {
			if (nl != NULL) {
				r->start += (size_t)(nl - b) + 1;
				r->skipping = 0;
				continue;
			}
			r->start = r->end;     /* all of it belongs to the cut line */
		} else if (nl != NULL) {
			*line = b;
			*n = (size_t)(nl - b) + 1;
			r->start += *n;
			return 1;
		} else if (have >= LINE_MAX_BYTES) {
			*line = b;
			*n = LINE_MAX_BYTES;
			r->start += LINE_MAX_BYTES;
			r->skipping = 1;
			return 1;
		} else if (r->eof) {
			if (have == 0)
				return 0;
			*line = b;
			*n = have;
			r->start = r->end;
			return 1;
		}
		if (r->eof)
			return 0;
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
		if (r->end == r->cap && r->cap < 2 * (size_t)LINE_MAX_BYTES) {
			r->cap *= 2;
			r->buf = br_xrealloc(r->buf, r->cap);
		}
		size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->fp);
		r->end += got;
		r->consumed += got;
		if (got == 0) {
			if (ferror(r->fp))
				return -1;
			r->eof = 1;
		}
	}
}

/*
 * scan: the pass over the file. `limit` > 0 stops after that many bytes
 * (looks_like). Returns 0, or -1 with *cause for a read error or a NUL byte
 * seen before any vLLM line (later NUL-bearing lines, e.g. the zero padding
 * a crash can leave, are skipped). *n_lines gets the lines read.
 */
static int
scan(scanner *s, FILE *fp, size_t limit, int stop_on_vllm, int *n_lines, char **cause)
{
	line_reader lr = { .fp = fp };
	const char *raw;
	size_t got = 0, total = 0;
	int lineno = 0, rd, err = 0;
	while ((rd = lr_next(&lr, &raw, &got)) > 0) {
		lineno++;
		total = lr.consumed - (lr.end - lr.start);   /* bytes of the file handled so far */
		const char *nul = memchr(raw, '\0', got);
		if (nul != NULL) {
			if (!s->has_vllm) {
				if (cause)
					*cause = br_xasprintf("%s:%d:%d: expected a vLLM server log, found a NUL byte (binary file)",
					                      s->path, lineno, (int)(nul - raw) + 1);
				free(lr.buf);
				return -1;
			}
			if (s->out->first_binary_line == 0)
				s->out->first_binary_line = lineno;
			s->out->binary_bytes += (long long)got;
			continue;
		}
		const char *text, *from = raw;
		size_t len, rawlen = got;
		pline l;
		if (lineno == 1 && rawlen >= 3 && memcmp(raw, "\xef\xbb\xbf", 3) == 0) {
			from += 3; /* UTF-8 byte order mark */
			rawlen -= 3;
		}
		clean_line(s, from, rawlen, &text, &len);
		classify(s, text, len, &l);
		if (l.vllm)
			s->has_vllm = 1;
		if (!try_join(s, &l)) {
			flush(s);
			traceback(s, &l, lineno);
			cli_error(s, &l, lineno);
			start_pending(s, &l, lineno);
		}
		s->prev_prefix_cut = l.prefix_cut;
		snprintf(s->prev_tag, sizeof s->prev_tag, "%s", l.tag);
		if (l.vllm) {
			snprintf(s->prev_stamp, sizeof s->prev_stamp, "%s", l.stamp);
			s->prev_abs = l.abs_s;
		}
		if ((limit > 0 && total >= limit) || (stop_on_vllm && s->has_vllm))
			break;
		if (!s->has_vllm && total >= NO_VLLM_GIVE_UP_BYTES) {
			/* a vLLM log names itself in its first lines: do not read 1 GB of something else */
			s->gave_up = 1;
			break;
		}
	}
	if (rd < 0)
		err = errno ? errno : EIO;
	free(lr.buf);
	flush(s);
	*n_lines = lineno;
	if (err != 0) {
		if (cause)
			*cause = br_xasprintf("%s: read error: %s", s->path, strerror(err));
		return -1;
	}
	return 0;
}

/*
 * br_server_log_load: see serverlog.h. After the pass: capacity fields are
 * merged (V0 "# GPU blocks: N" becomes N × block size, 16 when the log does
 * not give one), config-line fallbacks fill max_model_len / tensor_parallel
 * / model when the args line lacks them, and a traceback with no capacity
 * and no stats line afterwards means the server did not start (its last
 * exception, or the root cause before a "See root cause above" wrapper,
 * becomes failure_message).
 */
int
br_server_log_load(const char *path, br_server_log *out, char **cause)
{
	log_init(out);
	FILE *fp;
	if (br_open_input(path, LOG_MAX_BYTES, &fp, NULL, cause) != 0)
		return -1;
	int other = br_server_log_sniff_engine(path);
	if (other == BR_ENGINE_SGLANG || other == BR_ENGINE_LLAMACPP) {
		int r = br_server_log_load_engine(path, other, fp, out, cause);
		fclose(fp);
		if (r != 0) {
			br_server_log_free(out);
			log_init(out);
			return -1;
		}
		out->source_path = br_xstrdup(path);
		return 0;
	}
	scanner s;
	memset(&s, 0, sizeof s);
	s.out = out;
	s.path = path;
	s.cfg_max_len = s.cfg_tp = s.cfg_dcp = s.gpu_blocks = NAN;
	s.prev_abs = NAN;
	int n_lines = 0;
	int rc = scan(&s, fp, 0, 0, &n_lines, cause);
	fclose(fp);
	if (rc == 0 && n_lines == 0) {
		if (cause)
			*cause = br_xasprintf("%s: empty file, expected a vLLM server log", path);
		rc = -1;
	} else if (rc == 0 && !s.has_vllm) {
		if (cause)
			*cause = br_xasprintf(s.gave_up ? "%s: expected a vLLM server log (no vLLM log line in "
			    "its first 64 MiB; read no further)" : "%s: expected a vLLM server log (no vLLM log "
			    "line found)", path);
		rc = -1;
	}
	if (rc == 0 && s.bad_cap != NULL) {
		if (cause) {
			*cause = s.bad_cap;
			s.bad_cap = NULL;
		}
		rc = -1;
	}
	if (rc != 0) {
		scanner_free(&s);
		br_server_log_free(out);
		log_init(out);
		return -1;
	}
	out->source_path = br_xstrdup(path);
	/* model: args "model" / "model_tag", then the config line, then the served name */
	if (s.args_model != NULL) {
		out->model = s.args_model;
		s.args_model = NULL;
	} else if (s.args_model_tag != NULL) {
		out->model = s.args_model_tag;
		s.args_model_tag = NULL;
	} else if (s.cfg_model != NULL) {
		out->model = s.cfg_model;
		s.cfg_model = NULL;
	} else if (out->served_model_name != NULL)
		out->model = br_xstrdup(out->served_model_name);
	if (isnan(out->max_model_len_tokens))
		out->max_model_len_tokens = s.cfg_max_len;
	if (isnan(out->tensor_parallel_size))
		out->tensor_parallel_size = s.cfg_tp;
	if (isnan(out->decode_context_parallel_size))
		out->decode_context_parallel_size = s.cfg_dcp;
	/* capacity (of the last start-up: new_startup forgot earlier ones) */
	out->n_startups = s.startups;
	out->n_capacity_lines = s.n_kvsize > 0 ? s.n_kvsize : s.n_blocks;
	if (__builtin_popcountll(s.dp_size_ranks) > 1 && br_isnum(out->kv_pool_tokens)) {
		/* data-parallel engines, each with its own pool: the server holds
		 * their sum; memory and concurrency summed over the same engines,
		 * else unknown (one engine's value would read as the server's) */
		out->data_parallel_size = __builtin_popcountll(s.dp_size_ranks);
		out->kv_pool_tokens = s.dp_pool_tokens;
		out->kv_pool_gib = s.dp_mem_ranks == s.dp_size_ranks ? s.dp_pool_gib : NAN;
		out->max_concurrency_x = s.dp_conc_ranks == s.dp_size_ranks ? s.dp_conc_x : NAN;
	}
	if (isnan(out->kv_pool_tokens) && !isnan(s.gpu_blocks)) {
		double bs = isnan(out->block_size_tokens) ? DEFAULT_BLOCK_TOKENS : out->block_size_tokens;
		out->kv_pool_tokens = s.gpu_blocks * bs;
		out->kv_pool_line = s.blocks_line;
	}
	/* start-up failure */
	if (s.exc != NULL && out->n_capacity_lines == 0 && out->n_stats == 0) {
		out->did_not_start = 1;
		if (strstr(s.exc, "See root cause above") != NULL && s.prev_exc != NULL) {
			out->failure_message = s.prev_exc;
			out->failure_line = s.prev_exc_line;
			s.prev_exc = NULL;
		} else {
			out->failure_message = s.exc;
			out->failure_line = s.exc_line;
			s.exc = NULL;
		}
	}
	scanner_free(&s);
	return 0;
}

/*
 * br_server_log_looks_like: 1 when the first 256 KiB (whole lines) hold a
 * vLLM logger line or a recognised vLLM message body; 0 otherwise, also for
 * an unreadable, empty or binary file.
 */
int
br_server_log_looks_like(const char *path)
{
	int other = br_server_log_sniff_engine(path);
	if (other == BR_ENGINE_SGLANG || other == BR_ENGINE_LLAMACPP)
		return 1;
	FILE *fp;
	if (br_open_input(path, LOG_MAX_BYTES, &fp, NULL, NULL) != 0)
		return 0;
	br_server_log tmp;
	log_init(&tmp);
	scanner s;
	memset(&s, 0, sizeof s);
	s.out = &tmp;
	s.path = path;
	s.cfg_max_len = s.cfg_tp = s.cfg_dcp = s.gpu_blocks = NAN;
	s.prev_abs = NAN;
	int n_lines = 0;
	int rc = scan(&s, fp, LOOKS_LIKE_BYTES, 1, &n_lines, NULL);
	fclose(fp);
	int yes = (rc == 0 && s.has_vllm);
	scanner_free(&s);
	br_server_log_free(&tmp);
	return yes;
}

/* br_server_log_free: release everything the log owns; safe on a zeroed or
 * already freed struct (leaves it zeroed). */
void
br_server_log_free(br_server_log *l)
{
	if (l == NULL)
		return;
	free(l->source_path);
	free(l->vllm_version);
	free(l->engine);
	free(l->model);
	free(l->served_model_name);
	free(l->failure_message);
	free(l->stats);
	free(l->v0_preemptions);
	free(l->engine_version);
	free(l->requests);
	for (size_t i = 0; i < l->n_args; i++) {
		free(l->args[i].name);
		free(l->args[i].value);
		free(l->args[i].raw);
	}
	free(l->args);
	log_config_clear(l);
	memset(l, 0, sizeof *l);
}

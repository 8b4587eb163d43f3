/*
 * Prometheus text exposition format 0.0.4 → one-row br_series
 * (FORMATS.md §2, metrics.h for the column naming).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"
#include "ingest/metrics_priv.h"

/* Parse state for one text. */
typedef struct prom_state {
	const char *name;     /* for messages */
	const char *text;
	size_t len;
	br_series *out;
	GHashTable *idx;      /* column name (owned by out) → index + 1 */
	size_t *count;        /* samples added per column */
	size_t count_cap;
	GHashTable *seen;     /* series identity (owned) → offset of its line + 1 */
	br_prom_sample_fn fn; /* raw scan (br_prom_scan_text): called per sample instead of
	                         filling out */
	void *user;
} prom_state;

/*
 * fail_at: set *cause to "NAME:LINE:COL: expected WHAT" for byte offset off;
 * `found` (may be NULL) names what was there instead. Returns -1.
 */
static int
fail_at(const prom_state *st, size_t off, const char *what, const char *found, char **cause)
{
	int line, col;
	br_line_col(st->text, st->len, off, &line, &col);
	if (cause) {
		if (found)
			*cause = br_xasprintf("%s:%d:%d: expected %s, found '%s'", st->name, line, col, what, found);
		else
			*cause = br_xasprintf("%s:%d:%d: expected %s", st->name, line, col, what);
	}
	return -1;
}

/*
 * token_excerpt: a short malloc'd copy of the token at off (up to a blank or
 * the end of the line, at most 40 bytes) for an error message.
 */
static char *
token_excerpt(const prom_state *st, size_t off)
{
	size_t e = off;
	while (e < st->len && e - off < 40 && st->text[e] != ' ' && st->text[e] != '\t' &&
	    st->text[e] != '\n' && st->text[e] != '\r')
		e++;
	return br_xstrndup(st->text + off, e - off);
}

/*
 * add_value: add v to column `col` of row 0, creating the column (start 0)
 * on first use, and count the samples added to it.
 */
static void
add_value(prom_state *st, const char *col, double v)
{
	size_t c = GPOINTER_TO_SIZE(g_hash_table_lookup(st->idx, col));
	if (c == 0) {
		c = br_series_push_col(st->out, col) + 1;
		st->out->cols[c - 1][0] = 0.0;
		g_hash_table_insert(st->idx, st->out->names[c - 1], GSIZE_TO_POINTER(c));
	}
	st->out->cols[c - 1][0] += v;
	if (st->count_cap < st->out->n_cols) {
		size_t cap = st->out->n_cols * 2;
		st->count = br_xrealloc(st->count, cap * sizeof *st->count);
		memset(st->count + st->count_cap, 0, (cap - st->count_cap) * sizeof *st->count);
		st->count_cap = cap;
	}
	st->count[c - 1]++;
}

/*
 * average_usage: KV / CPU cache usage is a fraction of each engine's pool;
 * summed over data-parallel engines it would exceed 1, so those columns hold
 * the mean over the engines instead (a fraction of the whole pool when the
 * engines' pools are equal).
 */
static void
average_usage(prom_state *st)
{
	for (size_t c = 0; c < st->out->n_cols; c++)
		if (st->count[c] > 1 && br_metric_is_usage_frac(st->out->names[c]))
			st->out->cols[c][0] /= (double)st->count[c];
}

/*
 * is_name_start / is_name_char: Prometheus metric name bytes.
 */
static int
is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int
is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * parse_sample: parse the sample line starting at st->text[p] (first
 * non-blank byte of a non-comment line) and add it to the series.
 * *end is set to the offset of the line's '\n' (or len). 0 or -1 with *cause.
 */
static int
parse_sample(prom_state *st, size_t p, size_t *end, char **cause)
{
	const char *s = st->text;
	size_t len = st->len;
	if (!is_name_start(s[p])) {
		char *tok = token_excerpt(st, p);
		int r = fail_at(st, p, "a metric name or a '#' comment at the start of the line", tok, cause);
		free(tok);
		return r;
	}
	size_t ns = p;
	while (p < len && is_name_char(s[p]))
		p++;
	char *mname = br_xstrndup(s + ns, p - ns);
	br_label *labels = NULL;
	size_t nl = 0;
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	int had_labels = 0;
	if (p < len && s[p] == '{') {
		const char *exp = NULL;
		if (br_prom_labels_parse(s, len, &p, &labels, &nl, &exp) != 0) {
			free(mname);
			return fail_at(st, p, exp, NULL, cause);
		}
		had_labels = 1;
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
	}
	const char *after = had_labels ? "a number after the label set" : "a number after the series name";
	size_t vs = p;
	while (p < len && s[p] != ' ' && s[p] != '\t' && s[p] != '\n' && s[p] != '\r')
		p++;
	double v;
	if (p == vs || br_parse_double(s + vs, p - vs, &v) != 0) {
		char *tok = p == vs ? NULL : token_excerpt(st, vs);
		fail_at(st, vs, after, p == vs ? "the end of the line" : tok, cause);
		free(tok);
		free(mname);
		br_labels_free(labels, nl);
		return -1;
	}
	while (p < len && (s[p] == ' ' || s[p] == '\t'))
		p++;
	if (p < len && s[p] != '\n' && s[p] != '\r' && s[p] != '#') {
		/* optional timestamp (not used): integer ms in 0.0.4, float seconds
		 * in OpenMetrics */
		size_t ts = p;
		while (p < len && s[p] != ' ' && s[p] != '\t' && s[p] != '\n' && s[p] != '\r')
			p++;
		double tv;
		if (br_parse_double(s + ts, p - ts, &tv) != 0) {
			char *tok = token_excerpt(st, ts);
			fail_at(st, ts, "a timestamp or the end of the line after the value", tok, cause);
			free(tok);
			free(mname);
			br_labels_free(labels, nl);
			return -1;
		}
		while (p < len && (s[p] == ' ' || s[p] == '\t'))
			p++;
	}
	if (p < len && s[p] == '#') {
		/* OpenMetrics exemplar "# {trace_id=...} v [t]": skipped */
		while (p < len && s[p] != '\n')
			p++;
		if (p > 0 && s[p - 1] == '\r')
			p--;
	}
	if (p < len && s[p] == '\r')
		p++;
	if (p < len && s[p] != '\n') {
		char *tok = token_excerpt(st, p);
		fail_at(st, p, "the end of the line after the timestamp", tok, cause);
		free(tok);
		free(mname);
		br_labels_free(labels, nl);
		return -1;
	}
	*end = p;
	/* the same series twice is not two engines: summing it would double it */
	char *id = br_series_identity(mname, 0, labels, nl);
	size_t first = GPOINTER_TO_SIZE(g_hash_table_lookup(st->seen, id));
	if (first != 0) {
		int fl, fc;
		br_line_col(s, len, first - 1, &fl, &fc);
		char *what = br_xasprintf("each series once (this one, %.80s, is also on line %d)", id, fl);
		fail_at(st, ns, what, NULL, cause);
		free(what);
		free(id);
		free(mname);
		br_labels_free(labels, nl);
		return -1;
	}
	g_hash_table_insert(st->seen, id, GSIZE_TO_POINTER(ns + 1));
	if (st->fn != NULL) {
		size_t ml = strlen(mname);
		if (!(ml > 8 && strcmp(mname + ml - 8, "_created") == 0))
			st->fn(st->user, id, v);
		free(mname);
		br_labels_free(labels, nl);
		return 0;
	}
	char *full = NULL, *bare = NULL;
	for (size_t k = 0; k < nl; k++)
		if (strcmp(labels[k].name, "model_name") == 0)
			br_series_note_model(st->out, labels[k].value);
	if (br_metric_column_names(mname, labels, nl, &full, &bare) == 0) {
		add_value(st, full, v);
		if (bare)
			add_value(st, bare, v);
		free(full);
		free(bare);
	}
	free(mname);
	br_labels_free(labels, nl);
	return 0;
}

/*
 * prom_run: the parse loop shared by br_prom_parse_text (st->out set, one
 * row at t_s) and br_prom_scan_text (st->fn set, no series). Returns 0 or
 * -1 with *cause; st->out is freed on error.
 */
static int
prom_run(prom_state *st, double t_s, char **cause)
{
	const char *text = st->text, *name = st->name;
	size_t len = st->len;
	const char *nul = len ? memchr(text, '\0', len) : NULL;
	if (nul != NULL)
		return fail_at(st, (size_t)(nul - text), "Prometheus text, found a NUL byte (binary file)", NULL, cause);
	size_t p = 0;
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		p = 3;
	size_t q = p;
	while (q < len && (text[q] == ' ' || text[q] == '\t' || text[q] == '\n' || text[q] == '\r'))
		q++;
	if (q >= len) {
		if (cause)
			*cause = br_xasprintf("%s: expected Prometheus text, found an empty file", name);
		return -1;
	}
	st->idx = g_hash_table_new(g_str_hash, g_str_equal);
	st->seen = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	if (st->out != NULL)
		br_series_add_row(st->out, t_s);
	size_t samples = 0;
	while (p < len) {
		while (p < len && (text[p] == ' ' || text[p] == '\t'))
			p++;
		if (p >= len)
			break;
		if (text[p] == '\n' || text[p] == '\r' || text[p] == '#') {
			const char *nl = memchr(text + p, '\n', len - p);
			p = nl ? (size_t)(nl - text) + 1 : len;
			continue;
		}
		size_t end = len;
		if (parse_sample(st, p, &end, cause) != 0) {
			g_hash_table_destroy(st->idx);
			g_hash_table_destroy(st->seen);
			free(st->count);
			if (st->out != NULL)
				br_series_free(st->out);
			return -1;
		}
		samples++;
		p = end < len ? end + 1 : len;
	}
	g_hash_table_destroy(st->idx);
	g_hash_table_destroy(st->seen);
	if (st->out != NULL && st->out->n_cols > 0)
		average_usage(st);
	free(st->count);
	if (st->out == NULL && samples == 0) {
		if (cause)
			*cause = br_xasprintf("%s: expected at least one sample line 'name{labels} value', found only comments", name);
		return -1;
	}
	if (st->out != NULL && st->out->n_cols == 0) {
		if (cause)
			*cause = samples ?
			    br_xasprintf("%s: expected at least one sample besides _created series, found none", name) :
			    br_xasprintf("%s: expected at least one sample line 'name{labels} value', found only comments", name);
		br_series_free(st->out);
		return -1;
	}
	if (st->out != NULL) {
		st->out->source_path = br_xstrdup(name);
		st->out->engine = br_series_detect_engine(st->out);
	}
	return 0;
}

/*
 * json_quoted_body: llama.cpp builds b7010 to ~b7200 (Nov 2025, issue
 * #17384, fixed by PR #17386) served /metrics as ONE JSON string: the body
 * starts and ends with '"' and its newlines are "\n". When text[0..len)
 * is such a string (blanks around it allowed), returns the unescaped text
 * (malloc'd, *out_len set); else NULL. Escapes \" \\ \/ \n \r \t and
 * \uXXXX below U+0080 are undone; any other escape means it is not one
 * (NULL), and the text is then parsed, and refused, as it is.
 */
static char *
json_quoted_body(const char *text, size_t len, size_t *out_len)
{
	size_t a = 0, b = len;
	while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == '\n' || text[a] == '\r'))
		a++;
	if (len >= 3 && a == 0 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		a = 3;
	while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\n' ||
	    text[b - 1] == '\r'))
		b--;
	if (b - a < 2 || text[a] != '"' || text[b - 1] != '"')
		return NULL;
	char *o = br_xmalloc(b - a);
	size_t n = 0;
	for (size_t i = a + 1; i < b - 1; i++) {
		char c = text[i];
		if (c == '"') {
			free(o);
			return NULL;
		}
		if (c != '\\') {
			o[n++] = c;
			continue;
		}
		if (++i >= b - 1) {
			free(o);
			return NULL;
		}
		switch (text[i]) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u': {
			unsigned v = 0;
			int ok = i + 4 < b - 1;
			for (int k = 1; ok && k <= 4; k++) {
				char h = text[i + k];
				v = v * 16 + (unsigned)(h >= '0' && h <= '9' ? h - '0' :
				    h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 99);
				ok = v < 0x10000;
			}
			if (!ok || v >= 0x80 || v == 0) {
				free(o);
				return NULL;
			}
			o[n++] = (char)v;
			i += 4;
			break;
		}
		default:
			free(o);
			return NULL;
		}
	}
	*out_len = n;
	return o;
}

/*
 * prom_run_text: prom_run on the text, or on its unescaped form when it is
 * a JSON-quoted body (json_quoted_body), then noted as a series warning.
 */
static int
prom_run_text(prom_state *st, double t_s, char **cause)
{
	size_t ulen = 0;
	char *unq = st->len ? json_quoted_body(st->text, st->len, &ulen) : NULL;
	if (unq == NULL)
		return prom_run(st, t_s, cause);
	st->text = unq;
	st->len = ulen;
	int r = prom_run(st, t_s, cause);
	if (r != 0 && cause != NULL && *cause != NULL) {
		/* the position is in the unescaped text, not in the one-line file */
		char *c = br_xasprintf("%s (in the JSON-quoted body, at that line of its unescaped text; "
		    "the file itself is one string)", *cause);
		free(*cause);
		*cause = c;
	}
	if (r == 0 && st->out != NULL)
		br_series_add_warning(st->out, "%s: the metrics page was served as one JSON-quoted "
		    "string (llama.cpp builds b7010 to about b7200, issue #17384); it was unescaped "
		    "and read", st->name);
	free(unq);
	st->text = NULL;
	return r;
}

/*
 * br_prom_parse_text: see metrics.h. Blank lines and every '#' line are
 * skipped; CRLF line ends and a UTF-8 BOM are accepted, so are OpenMetrics
 * float timestamps, exemplars ("# {...} v") and the "# EOF" line. Series that differ
 * only in `engine` / `model_name` are summed, except cache usage fractions,
 * which are averaged over the engines (see average_usage). The optional
 * per-sample timestamp is checked but not used. On error *out is left
 * zeroed.
 */
int
br_prom_parse_text(const char *name, const char *text, size_t len,
    double t_s, br_series *out, char **cause)
{
	memset(out, 0, sizeof *out);
	prom_state st = { .name = name ? name : "<metrics text>", .text = text,
	    .len = text ? len : 0, .out = out };
	return prom_run_text(&st, t_s, cause);
}

/* br_prom_scan_text: see metrics.h. */
int
br_prom_scan_text(const char *name, const char *text, size_t len,
    br_prom_sample_fn fn, void *user, char **cause)
{
	prom_state st = { .name = name ? name : "<metrics text>", .text = text,
	    .len = text ? len : 0, .fn = fn, .user = user };
	return prom_run_text(&st, NAN, cause);
}

/*
 * br_prom_load: see metrics.h.
 */
int
br_prom_load(const char *path, br_series *out, char **cause)
{
	char *data = NULL;
	size_t len = 0;
	memset(out, 0, sizeof *out);
	if (br_check_head(path, 0, "Prometheus text", cause) != 0 ||
	    br_read_file(path, &data, &len, cause) != 0)
		return -1;
	int r = br_prom_parse_text(path, data, len, NAN, out, cause);
	free(data);
	return r;
}

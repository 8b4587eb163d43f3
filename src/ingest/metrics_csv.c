/*
 * Metrics CSV reader: the canonical 1 Hz CSV (DESIGN.md §1) and the
 * accepted variants (FORMATS.md §4) → br_series.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"
#include "ingest/metrics_priv.h"

/* One cell of a record: bytes [off, off+len) of the record's scratch
 * buffer (quotes removed), `src` = byte offset of the cell in the file. */
typedef struct csv_cell {
	size_t off, len, src;
	int quoted;
} csv_cell;

typedef struct csv_rec {
	GString *buf;          /* unquoted cell text, back to back */
	csv_cell *cell;
	size_t n, cap;
	size_t start, end;     /* file offsets: first byte, line end (before \r\n) */
} csv_rec;

/* One source column of the file mapped into the series. */
typedef struct csv_col {
	char *header;          /* header cell as written (trimmed), for messages */
	long full, bare;       /* series column indexes, -1 = none */
	int ignored;           /* unnamed, _created, or a bucket under BR_METRICS_NO_BUCKETS */
	int usage;             /* a cache usage fraction column (percent check) */
	int gauge;             /* running/waiting/swapped/usage: never < 0, finite */
	int counter;           /* an engine counter (NAME_total of vllm:, sglang:, llamacpp:): finite */
	int all_nan;           /* no cell sampled: contributes nothing */
	/* cells dropped to NAN, per reason: count, first value and file offset */
	size_t n_neg, n_nonfinite, n_range, n_huge;
	double first_neg, first_nonfinite, first_range, first_huge;
	size_t off_neg, off_nonfinite, off_range, off_huge;
} csv_col;

/* A request-count gauge (running, waiting, swapped) above this is not a
 * count of requests any server holds (vLLM's max_num_seqs is in the
 * hundreds to thousands; a flooded open-loop queue, in the tens of
 * thousands): a corrupted or mislabelled cell, set to NaN like a negative. */
#define GAUGE_MAX_REQUESTS 1e7

/* Unix epoch seconds of 2000-01-01 and 2100-01-01 (UTC): the accepted range
 * of sample times. */
#define T_MIN_EPOCH_S 946684800.0
#define T_MAX_EPOCH_S 4102444800.0
/* Epoch seconds stay below 1e11 until the year 5138; epoch milliseconds are
 * above it since 1973: the unit test for a numeric time column. */
#define T_MS_THRESHOLD 1e11

/*
 * is_gauge: 1 when canonical column `name` (labels allowed) is a gauge that
 * can never be negative nor infinite: requests running / waiting / swapped,
 * KV and CPU cache usage.
 */
static int
is_gauge(const char *name)
{
	static const char *const g[] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:num_requests_swapped", "vllm:kv_cache_usage_perc", "vllm:cpu_cache_usage_perc" };
	size_t n = strcspn(name, "{");
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (strlen(g[i]) == n && strncmp(name, g[i], n) == 0)
			return 1;
	return 0;
}

/* is_engine_counter: NAME_total of an engine's own series (vllm:, sglang:,
 * llamacpp:), as a capture writes it: a NaN or infinite cell there is said,
 * as for a gauge, not dropped silently. */
static int
is_engine_counter(const char *name)
{
	size_t n = strcspn(name, "{");
	return n > 6 && strncmp(name + n - 6, "_total", 6) == 0 &&
	    (strncmp(name, "vllm:", 5) == 0 || strncmp(name, "sglang:", 7) == 0 || strncmp(name, "llamacpp:", 9) == 0);
}

/*
 * cell_text: pointer to a cell's bytes (not NUL-terminated).
 */
static const char *
cell_text(const csv_rec *r, size_t i)
{
	return r->buf->str + r->cell[i].off;
}

/*
 * trim: shrink [*s, *s+*n) past leading and trailing blanks.
 */
static void
trim(const char **s, size_t *n)
{
	while (*n > 0 && isspace((unsigned char)(*s)[0])) {
		(*s)++;
		(*n)--;
	}
	while (*n > 0 && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

/*
 * read_record: read one RFC 4180 record starting at *pos (comma separated,
 * "..." quoting with "" for a quote, quoted cells may span lines, CRLF or
 * LF). *pos moves past the record's line end. Returns 0, or -1 with
 * *err_off / *expected describing a quoting error.
 */
static int
read_record(const char *d, size_t len, size_t *pos, csv_rec *r,
    size_t *err_off, const char **expected)
{
	size_t p = *pos;
	g_string_truncate(r->buf, 0);
	r->n = 0;
	r->start = p;
	for (;;) {
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 16;
			r->cell = br_xrealloc(r->cell, r->cap * sizeof *r->cell);
		}
		csv_cell *c = &r->cell[r->n++];
		c->off = r->buf->len;
		c->src = p;
		c->quoted = 0;
		size_t q = p;
		while (q < len && (d[q] == ' ' || d[q] == '\t'))
			q++;
		if (q < len && d[q] == '"') {
			c->quoted = 1;
			c->src = q;
			size_t open = q;
			q++;
			for (;;) {
				if (q >= len) {
					*err_off = open;
					*expected = "a closing '\"' for the quoted cell that starts here";
					return -1;
				}
				if (d[q] == '"') {
					if (q + 1 < len && d[q + 1] == '"') {
						g_string_append_c(r->buf, '"');
						q += 2;
						continue;
					}
					q++;
					break;
				}
				g_string_append_c(r->buf, d[q]);
				q++;
			}
			while (q < len && (d[q] == ' ' || d[q] == '\t'))
				q++;
			if (q < len && d[q] != ',' && d[q] != '\n' && d[q] != '\r') {
				*err_off = q;
				*expected = "',' or the end of the line after a closing quote";
				return -1;
			}
			p = q;
		} else {
			while (p < len && d[p] != ',' && d[p] != '\n' && d[p] != '\r') {
				g_string_append_c(r->buf, d[p]);
				p++;
			}
		}
		c->len = r->buf->len - c->off;
		if (p < len && d[p] == ',') {
			p++;
			continue;
		}
		r->end = p;
		if (p < len && d[p] == '\r')
			p++;
		if (p < len && d[p] == '\n')
			p++;
		break;
	}
	*pos = p;
	return 0;
}

/*
 * merge_brace_cells: a header written without CSV quoting splits a label set
 * with several labels at its commas (name{a="x",b="y"} → two cells). Join
 * such pieces again: an unquoted cell with an unclosed '{' absorbs the
 * following cells, with ',' between, up to the one holding the '}'.
 */
static void
merge_brace_cells(csv_rec *r)
{
	GString *nb = g_string_new(NULL);
	size_t out = 0;
	for (size_t i = 0; i < r->n; i++) {
		csv_cell c = r->cell[i];
		const char *t = r->buf->str + c.off;
		size_t start = nb->len;
		g_string_append_len(nb, t, (gssize)c.len);
		const char *open = memchr(t, '{', c.len);
		int unclosed = !c.quoted && open && memchr(open, '}', c.len - (size_t)(open - t)) == NULL;
		while (unclosed && i + 1 < r->n) {
			i++;
			const char *u = r->buf->str + r->cell[i].off;
			g_string_append_c(nb, ',');
			g_string_append_len(nb, u, (gssize)r->cell[i].len);
			unclosed = memchr(u, '}', r->cell[i].len) == NULL;
		}
		c.off = start;
		c.len = nb->len - start;
		r->cell[out++] = c;
	}
	g_string_free(r->buf, TRUE);
	r->buf = nb;
	r->n = out;
}

/*
 * is_blank_record: 1 for an empty (or all-blank) line.
 */
static int
is_blank_record(const csv_rec *r)
{
	if (r->n != 1 || r->cell[0].quoted)
		return 0;
	const char *s = cell_text(r, 0);
	size_t n = r->cell[0].len;
	trim(&s, &n);
	return n == 0;
}

/*
 * days_from_civil: days since 1970-01-01 of a proleptic Gregorian date.
 */
static long long
days_from_civil(long long y, int m, int d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * digits: parse exactly n decimal digits at s; -1 when any is not a digit.
 */
static long
digits(const char *s, size_t n)
{
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * parse_iso8601: "YYYY-MM-DD[T| ]HH:MM[:SS[.frac]][Z|±HH[:]MM|±HH]" → epoch
 * seconds. A stamp without a zone is taken as UTC. 0 or -1.
 */
static int
parse_iso8601(const char *s, size_t n, double *out)
{
	if (n < 16 || s[4] != '-' || s[7] != '-' || !(s[10] == 'T' || s[10] == 't' || s[10] == ' ') ||
	    s[13] != ':')
		return -1;
	long y = digits(s, 4), mo = digits(s + 5, 2), d = digits(s + 8, 2);
	long h = digits(s + 11, 2), mi = digits(s + 14, 2), sec = 0;
	double frac = 0;
	size_t p = 16;
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 || mi < 0 || mi > 59)
		return -1;
	if (p < n && s[p] == ':') {
		if (p + 3 > n || (sec = digits(s + p + 1, 2)) < 0 || sec > 60)
			return -1;
		p += 3;
		if (p < n && (s[p] == '.' || s[p] == ',')) {
			size_t fs = ++p;
			double scale = 0.1;
			while (p < n && s[p] >= '0' && s[p] <= '9') {
				frac += (s[p] - '0') * scale;
				scale /= 10;
				p++;
			}
			if (p == fs)
				return -1;
		}
	}
	long off_s = 0;
	if (p < n && (s[p] == 'Z' || s[p] == 'z')) {
		p++;
	} else if (p < n && (s[p] == '+' || s[p] == '-')) {
		int sign = s[p] == '-' ? -1 : 1;
		p++;
		long oh, om = 0;
		if (p + 2 > n || (oh = digits(s + p, 2)) < 0 || oh > 23)
			return -1;
		p += 2;
		if (p < n && s[p] == ':')
			p++;
		if (p + 2 <= n) {
			if ((om = digits(s + p, 2)) < 0 || om > 59)
				return -1;
			p += 2;
		}
		off_s = sign * (oh * 3600 + om * 60);
	}
	if (p != n)
		return -1;
	long long days = days_from_civil(y, (int)mo, (int)d);
	*out = (double)(days * 86400 + h * 3600 + mi * 60 + sec - off_s) + frac;
	return 0;
}

/* Recognised time column names, case-insensitive. */
static const char *const time_names[] = { "timestamp", "timestamp_unix", "time", "ts", "t_unix_ms" };

/*
 * fail_at: set *cause to "PATH:LINE:COL: MSG" for file offset off. Returns -1.
 */
static int
fail_at(const char *path, const char *d, size_t len, size_t off, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int
fail_at(const char *path, const char *d, size_t len, size_t off, char **cause, const char *fmt, ...)
{
	int line, col;
	br_line_col(d, len, off, &line, &col);
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = br_xvasprintf(fmt, ap);
		va_end(ap);
		*cause = br_xasprintf("%s:%d:%d: %s", path, line, col, msg);
		free(msg);
	}
	return -1;
}

/* Row order for sorting: time, then file order. */
typedef struct row_key {
	double t;
	size_t i;
} row_key;

static int
row_key_cmp(const void *a, const void *b)
{
	const row_key *x = a, *y = b;
	if (x->t < y->t)
		return -1;
	if (x->t > y->t)
		return 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * setup_columns: map every header cell but the time column to series
 * columns of `out` (see csv_col). Labelled headers are parsed as Prometheus
 * label sets; engine/model_name dropped. The bare-name sum of labelled
 * columns is only made when the file has no column of that bare name.
 * Returns 0 or -1 with *cause.
 */
static int
setup_columns(const char *path, const char *d, size_t len, const csv_rec *hdr, size_t tcol,
    unsigned flags, csv_col *cols, br_series *out, char **cause)
{
	char **full = br_xcalloc(hdr->n, sizeof *full);
	char **bare = br_xcalloc(hdr->n, sizeof *bare);
	int rc = 0;
	GHashTable *explicit_names = g_hash_table_new(g_str_hash, g_str_equal);
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	for (size_t i = 0; i < hdr->n; i++) {
		const char *s = cell_text(hdr, i);
		size_t n = hdr->cell[i].len;
		trim(&s, &n);
		cols[i].header = br_xstrndup(s, n);
		cols[i].full = cols[i].bare = -1;
		if (i == tcol || n == 0) {
			cols[i].ignored = 1;
			continue;
		}
		const char *brace = memchr(s, '{', n);
		size_t name_len = brace ? (size_t)(brace - s) : n;
		char *raw = br_xstrndup(s, name_len);
		br_label *labels = NULL;
		size_t nl = 0;
		if (brace) {
			size_t p = name_len, hl = n;
			const char *exp = NULL;
			int lr = br_prom_labels_parse(s, hl, &p, &labels, &nl, &exp);
			if (lr != 0 || p != hl) {
				if (lr == 0) {
					exp = "the end of the header cell after the label set";
					br_labels_free(labels, nl);
				}
				/* offset within the file: quoted cells have one quote before */
				size_t off = hdr->cell[i].src + (hdr->cell[i].quoted ? 1 : 0) + (size_t)(s - cell_text(hdr, i)) + p;
				rc = fail_at(path, d, len, off, cause, "expected %s in header '%s'", exp, cols[i].header);
				free(raw);
				goto out;
			}
		}
		char *key = br_series_identity(raw, 1, labels, nl);
		size_t first = GPOINTER_TO_SIZE(g_hash_table_lookup(seen, key));
		if (first != 0) {
			size_t off = hdr->cell[i].src + (hdr->cell[i].quoted ? 1 : 0) + (size_t)(s - cell_text(hdr, i));
			rc = fail_at(path, d, len, off, cause, "column '%s' appears twice (also column %zu, '%s'); "
			    "expected each series once", cols[i].header, first, cols[first - 1].header);
			free(key);
			free(raw);
			br_labels_free(labels, nl);
			goto out;
		}
		g_hash_table_insert(seen, key, GSIZE_TO_POINTER(i + 1));
		for (size_t k = 0; k < nl; k++)
			if (strcmp(labels[k].name, "model_name") == 0)
				br_series_note_model(out, labels[k].value);
		if (br_metric_column_names(raw, labels, nl, &full[i], &bare[i]) != 0 ||
		    ((flags & BR_METRICS_NO_BUCKETS) && br_metric_is_bucket(full[i])))
			cols[i].ignored = 1;
		else
			g_hash_table_add(explicit_names, full[i]);
		free(raw);
		br_labels_free(labels, nl);
	}
	for (size_t i = 0; i < hdr->n; i++) {
		if (cols[i].ignored)
			continue;
		cols[i].full = (long)br_series_add_col(out, full[i]);
		cols[i].usage = br_metric_is_usage_frac(full[i]);
		cols[i].gauge = is_gauge(full[i]);
		cols[i].counter = is_engine_counter(full[i]);
		if (bare[i] && !g_hash_table_contains(explicit_names, bare[i]))
			cols[i].bare = (long)br_series_add_col(out, bare[i]);
	}
out:
	g_hash_table_destroy(explicit_names);
	g_hash_table_destroy(seen);
	for (size_t i = 0; i < hdr->n; i++) {
		free(full[i]);
		free(bare[i]);
	}
	free(full);
	free(bare);
	return rc;
}

/*
 * accumulate: add v into series cell (col, row) and count the contribution
 * (for averaging usage fractions). A NAN source cell poisons the target cell
 * (cnt = UINT_MAX): a sum over engines or labels with a part not sampled is
 * not known, so it ends up NAN rather than a partial sum.
 */
static void
accumulate(br_series *s, long col, size_t row, double v, unsigned *cnt)
{
	if (col < 0)
		return;
	unsigned *k = &cnt[(size_t)col * s->n_rows + row];
	if (*k == UINT_MAX)
		return;
	if (isnan(v)) {
		*k = UINT_MAX;
		return;
	}
	double *cell = &s->cols[col][row];
	*cell = *k == 0 ? v : *cell + v;
	(*k)++;
}

/* dbl_cmp: qsort order of doubles (no NaN in the input). */
static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* br_median_inplace: see metrics_priv.h. */
double
br_median_inplace(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * check_times: unit and range of the time column. The unit is decided on the
 * median of its numeric cells (ISO-8601 cells are already seconds): under
 * timestamp / timestamp_unix / time / ts a median above 1e11 means epoch
 * milliseconds, under t_unix_ms a median below 1e11 means epoch seconds;
 * either is converted (not refused: the numbers are unambiguous) and
 * recorded as a warning. Then every time must lie in [2000-01-01,
 * 2100-01-01) UTC; the first that does not is an error at its cell.
 * Returns 0 or -1 with *cause.
 */
static int
check_times(const char *path, const char *d, size_t len, const char *header, int time_ms,
    br_dvec *times, const char *numeric, const size_t *off, br_series *out, char **cause)
{
	size_t nn = 0;
	double *tmp = br_xmalloc((times->n + 1) * sizeof *tmp);
	for (size_t r = 0; r < times->n; r++)
		if (numeric[r])
			tmp[nn++] = times->v[r];
	double med = br_median_inplace(tmp, nn);
	free(tmp);
	double div = time_ms ? 1000.0 : 1.0;
	if (nn > 0 && !time_ms && med > T_MS_THRESHOLD) {
		div = 1000.0;
		br_series_add_warning(out, "%s: column '%s' holds epoch milliseconds (median %.0f), "
		    "not seconds; converted to seconds", path, header, med);
	} else if (nn > 0 && time_ms && med < T_MS_THRESHOLD) {
		div = 1.0;
		br_series_add_warning(out, "%s: column '%s' holds epoch seconds (median %.3f), "
		    "not milliseconds as its name says; used as seconds", path, header, med);
	}
	for (size_t r = 0; r < times->n; r++) {
		if (numeric[r])
			times->v[r] /= div;
		double t = times->v[r];
		if (t < T_MIN_EPOCH_S || t >= T_MAX_EPOCH_S)
			return fail_at(path, d, len, off[r], cause,
			    "time %.17g s in column '%s' is %s; expected Unix epoch seconds of the run, "
			    "between 2000-01-01 (946684800) and 2100-01-01 (4102444800)",
			    t, header, t < T_MIN_EPOCH_S ? "before 2000-01-01" : "after 2100-01-01");
	}
	return 0;
}

/*
 * fix_usage: a cache usage column (cells col[r * stride], r < nrows; NaN =
 * empty or already dropped). Percent when the median of its positive values
 * is > 1.0, else a fraction (a percent series that never exceeds 1% reads
 * as a fraction: the two cannot be told apart). A cell outside [0, 100]
 * (percent) or [0, 1] (fraction) is set to NAN and counted in c->n_range;
 * then percent cells are divided by 100.
 */
static void
fix_usage(csv_col *c, double *col, size_t stride, size_t nrows, const size_t *off)
{
	size_t np = 0;
	double *pos = br_xmalloc((nrows + 1) * sizeof *pos);
	for (size_t r = 0; r < nrows; r++)
		if (col[r * stride] > 0)
			pos[np++] = col[r * stride];
	int percent = np > 0 && br_median_inplace(pos, np) > 1.0;
	free(pos);
	double hi = percent ? 100.0 : 1.0;
	for (size_t r = 0; r < nrows; r++) {
		double *v = &col[r * stride];
		if (*v > hi) {
			if (c->n_range++ == 0) {
				c->first_range = *v;
				c->off_range = off[r];
			}
			*v = NAN;
		} else if (percent)
			*v /= 100.0;
	}
	c->usage = percent ? 2 : 1;
}

/* quoted_value: v as a note quotes it: "NaN", "+Inf", "-Inf" (Prometheus'
 * spelling), else %g; into buf (32 bytes), returned. */
static const char *
quoted_value(double v, char buf[32])
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	snprintf(buf, 32, "%g", v);
	return buf;
}

/*
 * warn_dropped: one warning per reason for which cells of column c were set
 * to NAN (count, first value and its line).
 */
static void
warn_dropped(const char *path, const char *d, size_t len, const csv_col *c, br_series *out)
{
	int line, col;
	char vb[32];
	if (c->n_neg) {
		br_line_col(d, len, c->off_neg, &line, &col);
		br_series_add_warning(out, "%s: column '%s': %zu negative value%s (first %g at line %d) "
		    "set to NaN; a gauge cannot be negative", path, c->header, c->n_neg,
		    c->n_neg == 1 ? "" : "s", c->first_neg, line);
	}
	if (c->n_nonfinite) {
		br_line_col(d, len, c->off_nonfinite, &line, &col);
		br_series_add_warning(out, "%s: column '%s': %zu NaN or infinite value%s (first %s at line %d) "
		    "set to NaN (not sampled)", path, c->header, c->n_nonfinite,
		    c->n_nonfinite == 1 ? "" : "s", quoted_value(c->first_nonfinite, vb), line);
	}
	if (c->n_huge) {
		br_line_col(d, len, c->off_huge, &line, &col);
		br_series_add_warning(out, "%s: column '%s': %zu value%s above 10,000,000 requests (first %g "
		    "at line %d) set to NaN; no server holds that many, the cell is corrupted or the column "
		    "mislabelled", path, c->header, c->n_huge, c->n_huge == 1 ? "" : "s", c->first_huge, line);
	}
	if (c->n_range) {
		br_line_col(d, len, c->off_range, &line, &col);
		br_series_add_warning(out, "%s: column '%s': %zu value%s outside %s (first %g at line %d) "
		    "set to NaN", path, c->header, c->n_range, c->n_range == 1 ? "" : "s",
		    c->usage == 2 ? "[0, 100] (the column is in percent)" : "[0, 1] (the column is a fraction)",
		    c->first_range, line);
	}
}

/* same_row: 1 when two rows of nv raw cells hold the same values (NaN = NaN). */
static int
same_row(const double *a, const double *b, size_t nv)
{
	for (size_t j = 0; j < nv; j++)
		if (!(a[j] == b[j] || (isnan(a[j]) && isnan(b[j]))))
			return 0;
	return 1;
}

/*
 * check_order: file order must be time order. A row earlier than the latest
 * time so far is a second file or a sampler restarted with another clock,
 * never a sample to sort in (it would read as a counter reset), unless it
 * repeats an earlier row exactly (same time, same values: a file
 * concatenated twice), which drop_repeats then removes with a warning.
 * kept[] (the rows that advanced time, in order, so sorted) is searched by
 * bisection: O(n log n). Returns 0, or -1 with *cause "PATH:LINE:COL: time
 * goes backwards by N s ...".
 */
static int
check_order(const char *path, const char *d, size_t len, const char *tname, const double *t,
    size_t nrows, const double *vals, size_t nv, const size_t *t_off, char **cause)
{
	size_t *kept = br_xmalloc((nrows + 1) * sizeof *kept), nk = 0;
	int rc = 0;
	for (size_t r = 0; r < nrows && rc == 0; r++) {
		if (nk == 0 || t[r] >= t[kept[nk - 1]]) {
			kept[nk++] = r;
			continue;
		}
		size_t lo = 0, hi = nk;   /* first kept row with time >= t[r] */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t[kept[mid]] < t[r])
				lo = mid + 1;
			else
				hi = mid;
		}
		int repeat = 0;
		for (size_t k = lo; k < nk && t[kept[k]] == t[r] && !repeat; k++)
			repeat = nv == 0 || same_row(vals + kept[k] * nv, vals + r * nv, nv);
		if (!repeat) {
			double prev = t[kept[nk - 1]], back = prev - t[r];
			rc = fail_at(path, d, len, t_off[r], cause,
			    "time goes backwards by %.*f s (%.3f s after %.3f s on an earlier row) in "
			    "column '%s'; expected rows in time order, one sampler's series per file",
			    back >= 10 ? 0 : 3, back, t[r], prev, tname);
		}
	}
	free(kept);
	return rc;
}

/*
 * drop_repeats: rows sharing a sample time (order is sorted by time, then
 * file order). A row that repeats an earlier one exactly (same time, same
 * values: a file concatenated twice, a sampler that retried) is dropped
 * with one warning naming the lines, so it cannot weigh twice in means and
 * shares; a row at the same time with other values is bad input (which one
 * is the sample?). Shortens order to *nrows kept rows. Returns 0, or -1
 * with *cause "PATH:LINE:COL: ...".
 */
static int
drop_repeats(const char *path, const char *d, size_t len, const char *tname, row_key *order,
    size_t *nrows, const double *vals, size_t nv, const size_t *t_off, br_series *out, char **cause)
{
	size_t kept = 0, n_drop = 0;
	GString *lines = g_string_new(NULL);
	for (size_t r = 0; r < *nrows; r++) {
		if (kept > 0 && order[r].t == order[kept - 1].t) {
			const row_key *a = &order[kept - 1], *b = &order[r];
			int la, ca;
			br_line_col(d, len, t_off[a->i], &la, &ca);
			if (nv > 0 && !same_row(vals + a->i * nv, vals + b->i * nv, nv)) {
				fail_at(path, d, len, t_off[b->i], cause, "time %.3f s in column '%s' repeats line "
				    "%d's with other values; expected one row per sample time (give sub-second "
				    "times when sampling faster than once a second)", b->t, tname, la);
				g_string_free(lines, TRUE);
				return -1;
			}
			if (n_drop++ < 5) {
				int lb, cb;
				br_line_col(d, len, t_off[b->i], &lb, &cb);
				g_string_append_printf(lines, "%s%d (= line %d)", n_drop > 1 ? ", " : "", lb, la);
			}
			continue;
		}
		order[kept++] = order[r];
	}
	if (n_drop > 0)
		br_series_add_warning(out, "%s: %zu row%s repeat an earlier row's time and values and %s "
		    "dropped (kept the first): line%s %s%s", path, n_drop, n_drop == 1 ? "" : "s",
		    n_drop == 1 ? "was" : "were", n_drop == 1 ? "" : "s", lines->str, n_drop > 5 ? ", ..." : "");
	g_string_free(lines, TRUE);
	*nrows = kept;
	return 0;
}

/* br_metrics_side_path: see metrics.h. */
char *
br_metrics_side_path(const char *csv_path)
{
	size_t n = strlen(csv_path);
	if (n < 4 || strcmp(csv_path + n - 4, ".csv") != 0)
		return NULL;
	return br_xasprintf("%.*s.new-series.csv", (int)(n - 4), csv_path);
}

/* side_is_counter: 1 when a series (name as exposed, labels allowed) only
 * counts up: _total, _count, _sum, _bucket. Absent before it first
 * appeared, it had counted nothing (prometheus_client creates a labelled
 * child at its first increment), so its earlier cells are 0. */
static int
side_is_counter(const char *series)
{
	size_t n = strcspn(series, "{");
	static const char *const suf[] = { "_total", "_count", "_sum", "_bucket" };
	for (size_t i = 0; i < sizeof suf / sizeof suf[0]; i++) {
		size_t k = strlen(suf[i]);
		if (n >= k && strncmp(series + n - k, suf[i], k) == 0)
			return 1;
	}
	return 0;
}

/* One value of the side file: series index, value text (a number). */
typedef struct side_val {
	size_t series;
	char *value;
} side_val;

static void
side_vals_free(void *p)
{
	GArray *a = p;
	for (guint i = 0; i < a->len; i++)
		free(g_array_index(a, side_val, i).value);
	g_array_free(a, TRUE);
}

/* A metric family with this many label sets in the side file is label churn. */
#define SIDE_FAMILY_MAX 64

/*
 * merge_side: when STEM.new-series.csv (br_metrics_side_path) exists beside
 * the metrics CSV `path`, append its series as extra columns to the text
 * *d / *len (replaced by a new buffer; the old one is freed): the header
 * gets one cell per series, each data row the series' value at the row's
 * time (its first cell, matched as written; the sampler writes both files'
 * times with %.3f), empty when the side file has none, "0" for a counter
 * before its first value. Line numbers and the original cells stay where
 * they were, so messages about the main file still point right. Records a
 * warning in out naming the file, the number of series joined and of
 * values at times the main file lacks. Returns 0 (also when there is no
 * side file, or the main file's first header cell is not "timestamp": then
 * a warning says the side file was not joined), or -1 with *cause
 * "SIDE:LINE:COL: expected ..." for a malformed side file.
 */
static int
merge_side(const char *path, char **d, size_t *len, br_series *out, char **cause)
{
	char *side_path = br_metrics_side_path(path);
	if (side_path == NULL || !br_path_exists(side_path)) {
		free(side_path);
		return 0;
	}
	char *sd = NULL;
	size_t slen = 0;
	int rc = -1;
	csv_rec rec = { .buf = g_string_new(NULL) };
	GHashTable *series_ix = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	GPtrArray *series = g_ptr_array_new();   /* names, borrowed from series_ix */
	GHashTable *by_time = g_hash_table_new_full(g_str_hash, g_str_equal, free, side_vals_free);
	GString *o = NULL;
	char *seen = NULL, *join = NULL;
	GArray *n_of = g_array_new(FALSE, TRUE, sizeof(size_t));   /* values per side series */
	size_t err_off = 0, n_vals = 0;
	const char *expected = NULL;
	if (br_check_head(side_path, 0, "CSV text", cause) != 0 || br_read_file(side_path, &sd, &slen, cause) != 0)
		goto done;
	size_t p = 0;
	if (slen >= 3 && memcmp(sd, "\xEF\xBB\xBF", 3) == 0)
		p = 3;
	if (memchr(sd, '\0', slen) != NULL) {
		fail_at(side_path, sd, slen, (size_t)((char *)memchr(sd, '\0', slen) - sd), cause,
		    "expected CSV text, found a NUL byte (binary file)");
		goto done;
	}
	while (p < slen) {
		if (read_record(sd, slen, &p, &rec, &err_off, &expected) != 0) {
			fail_at(side_path, sd, slen, err_off, cause, "expected %s", expected);
			goto done;
		}
		if (is_blank_record(&rec))
			continue;
		if (rec.n != 3) {
			fail_at(side_path, sd, slen, rec.cell[rec.n < 3 ? rec.n - 1 : 3].src, cause,
			    "expected 3 cells (timestamp, series, value), found %zu", rec.n);
			goto done;
		}
		const char *c0 = cell_text(&rec, 0), *c1 = cell_text(&rec, 1), *c2 = cell_text(&rec, 2);
		size_t n0 = rec.cell[0].len, n1 = rec.cell[1].len, n2 = rec.cell[2].len;
		trim(&c0, &n0);
		trim(&c1, &n1);
		trim(&c2, &n2);
		if (g_hash_table_size(series_ix) == 0 && n_vals == 0 && n0 == 9 && strncmp(c0, "timestamp", 9) == 0) {
			if (!(n1 == 6 && strncmp(c1, "series", 6) == 0 && n2 == 5 && strncmp(c2, "value", 5) == 0)) {
				fail_at(side_path, sd, slen, rec.cell[1].src, cause,
				    "expected the header timestamp,series,value");
				goto done;
			}
			continue;
		}
		double t, v;
		if (br_parse_double(c0, n0, &t) != 0) {
			fail_at(side_path, sd, slen, rec.cell[0].src, cause, "expected a time in epoch seconds");
			goto done;
		}
		if (n1 == 0) {
			fail_at(side_path, sd, slen, rec.cell[1].src, cause, "expected a series name");
			goto done;
		}
		if (br_parse_double(c2, n2, &v) != 0) {
			fail_at(side_path, sd, slen, rec.cell[2].src, cause, "expected a number");
			goto done;
		}
		char *name = br_xstrndup(c1, n1);
		gpointer ix;
		if (!g_hash_table_lookup_extended(series_ix, name, NULL, &ix)) {
			ix = GSIZE_TO_POINTER(series->len);
			g_ptr_array_add(series, name);
			g_hash_table_insert(series_ix, name, ix);
		} else {
			free(name);
		}
		char *tk = br_xstrndup(c0, n0);
		GArray *vals = g_hash_table_lookup(by_time, tk);
		if (vals == NULL) {
			vals = g_array_new(FALSE, FALSE, sizeof(side_val));
			g_hash_table_insert(by_time, tk, vals);
		} else {
			free(tk);
		}
		side_val sv = { GPOINTER_TO_SIZE(ix), br_xstrndup(c2, n2) };
		g_array_append_val(vals, sv);
		n_vals++;
		if (sv.series >= n_of->len)
			g_array_set_size(n_of, sv.series + 1);   /* zero-filled */
		g_array_index(n_of, size_t, sv.series)++;
	}
	if (series->len == 0) {
		rc = 0;
		goto done;
	}
	/* label churn: a metric family with SIDE_FAMILY_MAX or more label sets
	 * appearing during the capture (one series per LoRA adapter set, per
	 * client id) is not joined: no analysis reads such families, and
	 * joined they made every row as wide as their count (60,000 late series:
	 * 39 s and a file of commas; twenty-second breaker) */
	join = br_xcalloc(series->len, 1);
	GHashTable *fam_n = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	for (guint k = 0; k < series->len; k++) {
		const char *nm = g_ptr_array_index(series, k);
		char *fam = br_xstrndup(nm, strcspn(nm, "{"));
		gpointer n = g_hash_table_lookup(fam_n, fam);
		g_hash_table_replace(fam_n, fam, GSIZE_TO_POINTER(GPOINTER_TO_SIZE(n) + 1));
	}
	size_t n_join = 0, n_churn = 0, n_vals_joined = 0;
	const char *churn_first = NULL;
	for (guint k = 0; k < series->len; k++) {
		const char *nm = g_ptr_array_index(series, k);
		char *fam = br_xstrndup(nm, strcspn(nm, "{"));
		size_t n = GPOINTER_TO_SIZE(g_hash_table_lookup(fam_n, fam));
		free(fam);
		join[k] = n < SIDE_FAMILY_MAX;
		n_join += join[k];
		n_vals_joined += join[k] ? g_array_index(n_of, size_t, k) : 0;
		if (!join[k]) {
			n_churn++;
			if (churn_first == NULL)
				churn_first = nm;
		}
	}
	g_hash_table_destroy(fam_n);
	if (n_churn > 0)
		br_series_add_warning(out, "%s: %zu series of metric families with %d or more label sets each "
		    "(first: %s) were not joined: label churn that no analysis reads", side_path, n_churn,
		    SIDE_FAMILY_MAX, churn_first);
	if (n_join == 0) {
		rc = 0;
		goto done;
	}

	/* the main file: header first, then every data row */
	p = 0;
	if (*len >= 3 && memcmp(*d, "\xEF\xBB\xBF", 3) == 0)
		p = 3;
	while (p < *len) {
		if (read_record(*d, *len, &p, &rec, &err_off, &expected) != 0) {
			rc = 0;   /* the main reader reports it */
			goto done;
		}
		if (!is_blank_record(&rec))
			break;
	}
	const char *h0 = cell_text(&rec, 0);
	size_t hn0 = rec.cell[0].len;
	trim(&h0, &hn0);
	if (!(hn0 == 9 && strncasecmp(h0, "timestamp", 9) == 0)) {
		br_series_add_warning(out, "%s: not joined: %s's first column is not 'timestamp' (the sampler "
		    "writes both files)", side_path, path);
		rc = 0;
		goto done;
	}
	o = g_string_sized_new(*len + *len / 4);
	g_string_append_len(o, *d, (gssize)rec.end);
	for (guint k = 0; k < series->len; k++) {
		if (!join[k])
			continue;
		g_string_append_c(o, ',');
		br_csv_append_cell(o, g_ptr_array_index(series, k));
	}
	g_string_append_len(o, *d + rec.end, (gssize)(p - rec.end));
	seen = br_xcalloc(series->len, 1);
	const char **cell = br_xcalloc(series->len, sizeof *cell);
	size_t matched = 0;
	while (p < *len) {
		size_t start = p;
		if (read_record(*d, *len, &p, &rec, &err_off, &expected) != 0) {
			g_string_append_len(o, *d + start, (gssize)(*len - start));   /* the main reader reports it */
			break;
		}
		if (is_blank_record(&rec)) {
			g_string_append_len(o, *d + start, (gssize)(p - start));
			continue;
		}
		const char *t0 = cell_text(&rec, 0);
		size_t tn = rec.cell[0].len;
		trim(&t0, &tn);
		char *tk = br_xstrndup(t0, tn);
		GArray *vals = g_hash_table_lookup(by_time, tk);
		free(tk);
		memset(cell, 0, series->len * sizeof *cell);
		for (guint i = 0; vals != NULL && i < vals->len; i++) {
			side_val *sv = &g_array_index(vals, side_val, i);
			cell[sv->series] = sv->value;
		}
		for (guint i = 0; vals != NULL && i < vals->len; i++)
			matched += join[g_array_index(vals, side_val, i).series];
		g_string_append_len(o, *d + start, (gssize)(rec.end - start));
		for (guint k = 0; k < series->len; k++) {
			if (!join[k])
				continue;
			g_string_append_c(o, ',');
			if (cell[k] != NULL) {
				g_string_append(o, cell[k]);
				seen[k] = 1;
			} else if (!seen[k] && side_is_counter(g_ptr_array_index(series, k))) {
				g_string_append_c(o, '0');
			}
		}
		g_string_append_len(o, *d + rec.end, (gssize)(p - rec.end));
	}
	free(cell);
	guint first_joined = 0;
	while (!join[first_joined])
		first_joined++;
	br_series_add_warning(out, "%s: %zu series that appeared after the header joined as columns of %s "
	    "(first: %s; a counter counts 0 before it appeared)", side_path, n_join, path,
	    (const char *)g_ptr_array_index(series, first_joined));
	n_vals = n_vals_joined;
	if (matched < n_vals)
		br_series_add_warning(out, "%s: %zu of its %zu values are at times %s has no row for; "
		    "left out", side_path, n_vals - matched, n_vals, path);
	free(*d);
	*len = o->len;
	*d = g_string_free(o, FALSE);
	o = NULL;
	rc = 0;
done:
	if (o != NULL)
		g_string_free(o, TRUE);
	free(seen);
	free(join);
	g_array_free(n_of, TRUE);
	g_hash_table_destroy(by_time);
	g_ptr_array_free(series, TRUE);
	g_hash_table_destroy(series_ix);
	g_string_free(rec.buf, TRUE);
	free(rec.cell);
	free(sd);
	free(side_path);
	return rc;
}

/*
 * br_metrics_csv_load: see metrics.h. Details:
 * - the first header cell named timestamp, timestamp_unix, time, ts or
 *   t_unix_ms (any case) is the time: a number (seconds; milliseconds for
 *   t_unix_ms) or an ISO-8601 stamp (no zone = UTC);
 * - other headers are canonicalised (br_metric_canonical) and their label
 *   sets normalised as in the Prometheus reader; columns that end up with
 *   the same name are summed (cache usage fractions averaged); when one
 *   contributing cell of a row is empty the result is NAN (a column empty in
 *   every row contributes nothing);
 * - unnamed and `_created` columns are ignored (and `_bucket` ones under
 *   BR_METRICS_NO_BUCKETS, their cells unread); an empty cell is NAN;
 * - a column name that appears twice (same canonical name and the same
 *   labels, engine and model_name included) is an error;
 * - times: see check_times (unit repair with a warning, 2000..2100 range);
 * - gauges (running, waiting, swapped, cache usage): a negative, NaN or
 *   infinite value is set to NAN with a warning;
 * - a cache usage column is percent when the median of its positive values
 *   is > 1 (else a fraction), see fix_usage; out-of-range cells → NAN with a
 *   warning, so one bad sample never rescales the series;
 * - rows must be in time order: a row earlier than an earlier row is an
 *   error at its time cell ("time goes backwards by N s", check_order)
 *   unless it repeats an earlier row exactly; rows with the same time are
 *   dropped when identical, else an error (drop_repeats);
 * - a file with a header but no data row is an error.
 */
int
br_metrics_csv_load(const char *path, unsigned flags, br_series *out, char **cause)
{
	memset(out, 0, sizeof *out);
	char *d = NULL;
	size_t len = 0;
	if (br_check_head(path, 0, "CSV text", cause) != 0 || br_read_file(path, &d, &len, cause) != 0)
		return -1;
	if (merge_side(path, &d, &len, out, cause) != 0) {
		free(d);
		br_series_free(out);
		return -1;
	}
	int rc = -1;
	csv_rec rec = { .buf = g_string_new(NULL) };
	csv_col *cols = NULL;
	size_t ncols = 0, tcol = 0;
	br_dvec times = { 0 }, vals = { 0 };  /* vals: row-major raw cells */
	char *t_numeric = NULL;                /* per row: time cell was a number (not ISO) */
	size_t *t_off = NULL;                  /* per row: file offset of the time cell */
	size_t err_off = 0;
	const char *expected = NULL;

	const char *nul = len ? memchr(d, '\0', len) : NULL;
	if (nul) {
		fail_at(path, d, len, (size_t)(nul - d), cause, "expected CSV text, found a NUL byte (binary file)");
		goto done;
	}
	size_t p = 0;
	if (len >= 3 && memcmp(d, "\xEF\xBB\xBF", 3) == 0)
		p = 3;
	/* header: the first non-blank record */
	for (;;) {
		if (p >= len) {
			if (cause)
				*cause = br_xasprintf("%s: expected a CSV header row, found an empty file", path);
			goto done;
		}
		if (read_record(d, len, &p, &rec, &err_off, &expected) != 0) {
			fail_at(path, d, len, err_off, cause, "expected %s", expected);
			goto done;
		}
		if (!is_blank_record(&rec))
			break;
	}
	/* column names are UTF-8 text: a byte that is not (a Latin-1 'é' in a
	 * name) left the column unmatched and its role silently empty
	 * (eighteenth breaker: waiting "n/a / n/a / n/a") */
	for (size_t i = 0; i < rec.n; i++) {
		const char *s = cell_text(&rec, i), *bad = NULL;
		if (!g_utf8_validate(s, (gssize)rec.cell[i].len, &bad)) {
			fail_at(path, d, len, rec.cell[i].src + (rec.cell[i].quoted ? 1 : 0) + (size_t)(bad - s), cause,
			    "expected UTF-8 text in the "
			    "header, found the byte 0x%02X (save the file as UTF-8)", (unsigned char)*bad);
			goto done;
		}
	}
	merge_brace_cells(&rec);
	ncols = rec.n;
	size_t hdr_start = rec.start;
	int have_time = 0, time_ms = 0;
	for (size_t i = 0; i < rec.n && !have_time; i++) {
		const char *s = cell_text(&rec, i);
		size_t n = rec.cell[i].len;
		trim(&s, &n);
		for (size_t k = 0; k < sizeof time_names / sizeof time_names[0]; k++)
			if (n == strlen(time_names[k]) && strncasecmp(s, time_names[k], n) == 0) {
				have_time = 1;
				tcol = i;
				time_ms = k == 4;
			}
	}
	if (!have_time) {
		/* one cell holding another separator: a spreadsheet's export */
		const char *h = cell_text(&rec, 0), *sep = NULL;
		if (rec.n == 1)
			sep = memchr(h, ';', rec.cell[0].len) ? "';'" : memchr(h, '\t', rec.cell[0].len) ? "tabs" : NULL;
		if (sep != NULL)
			fail_at(path, d, len, hdr_start, cause, "expected comma-separated cells, found a header "
			    "separated by %s (read as one cell); write the file with ',' between cells", sep);
		else
			fail_at(path, d, len, hdr_start, cause,
			    "expected a time column (timestamp, timestamp_unix, time, ts or t_unix_ms) in the header");
		goto done;
	}
	cols = br_xcalloc(ncols, sizeof *cols);
	if (setup_columns(path, d, len, &rec, tcol, flags, cols, out, cause) != 0)
		goto done;

	/* data rows; the cells are sized once from the bytes left (a cell and
	 * its comma take at least 2 bytes, most 4 and more) instead of doubling
	 * in copies: a 4.6 MB series cost 2,000 page faults in realloc */
	if (len - p > ((size_t)1 << 20))
		br_dvec_reserve(&vals, (len - p) / 4);
	while (p < len) {
		if (read_record(d, len, &p, &rec, &err_off, &expected) != 0) {
			fail_at(path, d, len, err_off, cause, "expected %s", expected);
			goto done;
		}
		if (is_blank_record(&rec))
			continue;
		if (rec.n < ncols && p >= len && len > 0 && d[len - 1] != '\n') {
			/* the last line, fewer cells and no newline: a file cut off while
			 * being written (a full disk, a killed sampler); the rows before
			 * it stand (twenty-second breaker: the whole series was refused) */
			int line, col;
			br_line_col(d, len, rec.cell[0].src, &line, &col);
			br_series_add_warning(out, "%s: its last line (line %d) holds %zu of the header's %zu cells and "
			    "ends without a newline, as a file cut off while being written; it was not read", path,
			    line, rec.n, ncols);
			break;
		}
		if (rec.n != ncols) {
			size_t off = rec.n > ncols ? rec.cell[ncols].src : rec.end;
			fail_at(path, d, len, off, cause, "expected %zu cells as in the header, found %zu", ncols, rec.n);
			goto done;
		}
		for (size_t i = 0; i < ncols; i++) {
			const char *s = cell_text(&rec, i);
			size_t n = rec.cell[i].len;
			trim(&s, &n);
			double v = NAN;
			if (i == tcol) {
				if (n == 0) {
					fail_at(path, d, len, rec.cell[i].src, cause,
					    "expected a time in column '%s', found an empty cell", cols[i].header);
					goto done;
				}
				int numeric = br_parse_double(s, n, &v) == 0;
				if (!numeric && parse_iso8601(s, n, &v) != 0) {
					char *tok = br_xstrndup(s, n > 60 ? 60 : n);
					fail_at(path, d, len, rec.cell[i].src, cause,
					    "expected epoch seconds or an ISO-8601 time in column '%s', found '%s'",
					    cols[i].header, tok);
					free(tok);
					goto done;
				}
				if (!br_isnum(v)) {
					fail_at(path, d, len, rec.cell[i].src, cause,
					    "expected a finite time in column '%s'", cols[i].header);
					goto done;
				}
				br_dvec_push(&times, v);
				t_numeric = br_xrealloc(t_numeric, times.n);
				t_numeric[times.n - 1] = (char)numeric;
				t_off = br_xrealloc(t_off, times.n * sizeof *t_off);
				t_off[times.n - 1] = rec.cell[i].src;
				continue;
			}
			if (!cols[i].ignored && n > 0 && br_parse_double(s, n, &v) != 0) {
				char *tok = br_xstrndup(s, n > 60 ? 60 : n);
				fail_at(path, d, len, rec.cell[i].src, cause,
				    "expected a number in column '%s', found '%s'", cols[i].header, tok);
				free(tok);
				goto done;
			}
			if ((cols[i].gauge || cols[i].counter) && !cols[i].ignored && n > 0 && !isfinite(v)) {
				if (cols[i].n_nonfinite++ == 0) {
					cols[i].first_nonfinite = v;
					cols[i].off_nonfinite = rec.cell[i].src;
				}
				v = NAN;
			} else if (cols[i].gauge && v < 0) {
				if (cols[i].n_neg++ == 0) {
					cols[i].first_neg = v;
					cols[i].off_neg = rec.cell[i].src;
				}
				v = NAN;
			} else if (cols[i].gauge && !cols[i].usage && v > GAUGE_MAX_REQUESTS) {
				if (cols[i].n_huge++ == 0) {
					cols[i].first_huge = v;
					cols[i].off_huge = rec.cell[i].src;
				}
				v = NAN;
			}
			br_dvec_push(&vals, v);
		}
	}
	size_t nrows = times.n, nv = ncols - 1;
	if (nrows == 0) {
		fail_at(path, d, len, len, cause, "expected at least one data row after the header");
		goto done;
	}

	if (check_times(path, d, len, cols[tcol].header, time_ms, &times, t_numeric, t_off, out, cause) != 0)
		goto done;
	if (out->n_cols == 0)
		br_series_add_warning(out, "%s: holds the time column '%s' only, no series: every section "
		    "that needs server metrics is removed", path, cols[tcol].header);

	/* per source column: usage range and percent → fraction; never sampled? */
	for (size_t i = 0, j = 0; i < ncols; i++) {
		if (i == tcol)
			continue;
		if (cols[i].usage)
			fix_usage(&cols[i], vals.v + j, nv, nrows, t_off);
		cols[i].all_nan = 1;
		for (size_t r = 0; r < nrows && cols[i].all_nan; r++)
			cols[i].all_nan = isnan(vals.v[r * nv + j]);
		warn_dropped(path, d, len, &cols[i], out);
		j++;
	}

	if (check_order(path, d, len, cols[tcol].header, times.v, nrows, vals.v, nv, t_off, cause) != 0)
		goto done;
	/* time order: only exact repeats can be out of order here; the sort
	 * brings them beside the row they repeat */
	row_key *order = br_xmalloc(nrows * sizeof *order);
	for (size_t r = 0; r < nrows; r++)
		order[r] = (row_key){ times.v[r], r };
	qsort(order, nrows, sizeof *order, row_key_cmp);
	if (drop_repeats(path, d, len, cols[tcol].header, order, &nrows, vals.v, nv, t_off, out, cause) != 0) {
		free(order);
		goto done;
	}

	br_series_reserve_rows(out, out->n_rows + nrows);
	for (size_t r = 0; r < nrows; r++)
		br_series_add_row(out, order[r].t);
	unsigned *cnt = br_xcalloc(out->n_cols ? out->n_cols * nrows : 1, sizeof *cnt);
	/* the sampler's scrape_ok column: in a row it answered, an empty cell is
	 * a series the server did not expose then (a label set that changed or
	 * appeared mid-run), not a part not sampled: it adds nothing to a sum
	 * instead of making it unknown (twenty-ninth breaker: every series
	 * gaining an `engine` label 10 s in left running unknown in all rows) */
	long ok_j = -1;
	for (size_t i = 0, j = 0; i < ncols; i++) {
		if (i == tcol)
			continue;
		if (strcmp(cols[i].header, "benchreport:scrape_ok") == 0)
			ok_j = (long)j;
		j++;
	}
	for (size_t r = 0; r < nrows; r++) {
		if (nv == 0)
			break;      /* a time column only: no cell to place (and vals.v is NULL) */
		const double *row = vals.v + order[r].i * nv;
		int answered = ok_j >= 0 && row[ok_j] == 1;
		for (size_t i = 0, j = 0; i < ncols; i++) {
			if (i == tcol)
				continue;
			if (!cols[i].ignored && !cols[i].all_nan && !(answered && isnan(row[j]))) {
				accumulate(out, cols[i].full, r, row[j], cnt);
				accumulate(out, cols[i].bare, r, row[j], cnt);
			}
			j++;
		}
	}
	for (size_t c = 0; c < out->n_cols; c++) {
		int usage = br_metric_is_usage_frac(out->names[c]);
		for (size_t r = 0; r < nrows; r++) {
			unsigned k = cnt[c * nrows + r];
			if (k == UINT_MAX || k == 0)
				out->cols[c][r] = NAN;
			else if (usage && k > 1)
				out->cols[c][r] /= k;
		}
	}
	free(cnt);
	free(order);
	out->source_path = br_xstrdup(path);
	out->engine = br_series_detect_engine(out);
	rc = 0;
done:
	if (rc != 0)
		br_series_free(out);
	for (size_t i = 0; cols && i < ncols; i++)
		free(cols[i].header);
	free(cols);
	free(rec.cell);
	g_string_free(rec.buf, TRUE);
	br_dvec_free(&times);
	br_dvec_free(&vals);
	free(t_numeric);
	free(t_off);
	free(d);
	return rc;
}

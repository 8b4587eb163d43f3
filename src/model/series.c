/*
 * br_series: a table of samples (rows, in time order) × series (columns).
 * See metrics.h for the model and ownership.
 */
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"


/*
 * rows_allocated: rows held by t_s and each column (row_cap when it is the
 * larger, else exactly n_rows).
 */
static size_t
rows_allocated(const br_series *s)
{
	return s->row_cap > s->n_rows ? s->row_cap : s->n_rows;
}

/*
 * reserve_rows: make room for at least `need` rows in t_s and every column,
 * growing geometrically so that appending row by row stays linear.
 */
static void
reserve_rows(br_series *s, size_t need)
{
	size_t have = rows_allocated(s);
	if (need <= have)
		return;
	size_t cap = have * 2;
	if (cap < need)
		cap = need;
	if (cap < 8)
		cap = 8;
	s->t_s = br_xrealloc(s->t_s, cap * sizeof *s->t_s);
	for (size_t c = 0; c < s->n_cols; c++)
		s->cols[c] = br_xrealloc(s->cols[c], cap * sizeof **s->cols);
	s->row_cap = cap;
}

/*
 * br_series_col_index: see metrics.h. Through the name index that
 * br_series_push_col keeps (O(1)); a series whose names were set by hand
 * (tests build small ones) has none and is searched linearly.
 */
long
br_series_col_index(const br_series *s, const char *name)
{
	if (s == NULL || name == NULL)
		return -1;
	if (s->name_index != NULL)
		return (long)GPOINTER_TO_SIZE(g_hash_table_lookup(s->name_index, name)) - 1;
	for (size_t c = 0; c < s->n_cols; c++)
		if (strcmp(s->names[c], name) == 0)
			return (long)c;
	return -1;
}

/*
 * br_series_col: see metrics.h.
 */
const double *
br_series_col(const br_series *s, const char *name)
{
	long c = br_series_col_index(s, name);
	return c < 0 ? NULL : s->cols[c];
}

/*
 * br_series_has_prefix: see metrics.h. An empty prefix matches when the
 * series has any column.
 */
int
br_series_has_prefix(const br_series *s, const char *prefix)
{
	if (s == NULL || prefix == NULL)
		return 0;
	size_t l = strlen(prefix);
	for (size_t c = 0; c < s->n_cols; c++)
		if (strncmp(s->names[c], prefix, l) == 0)
			return 1;
	return 0;
}

/*
 * br_series_push_col: see metrics.h.
 */
size_t
br_series_push_col(br_series *s, const char *name)
{
	size_t rows = rows_allocated(s);
	if (s->n_cols >= s->col_cap) {
		s->col_cap = s->col_cap * 2 > s->n_cols + 1 ? s->col_cap * 2 : s->n_cols + 16;
		s->names = br_xrealloc(s->names, s->col_cap * sizeof *s->names);
		s->cols = br_xrealloc(s->cols, s->col_cap * sizeof *s->cols);
	}
	if (s->name_index == NULL) {
		s->name_index = g_hash_table_new(g_str_hash, g_str_equal);
		for (size_t c = 0; c < s->n_cols; c++)
			g_hash_table_insert(s->name_index, s->names[c], GSIZE_TO_POINTER(c + 1));
	}
	double *col = br_xmalloc((rows ? rows : 1) * sizeof *col);
	for (size_t r = 0; r < rows; r++)
		col[r] = NAN;
	s->names[s->n_cols] = br_xstrdup(name);
	s->cols[s->n_cols] = col;
	g_hash_table_insert(s->name_index, s->names[s->n_cols], GSIZE_TO_POINTER(s->n_cols + 1));
	return s->n_cols++;
}

/*
 * br_series_add_col: see metrics.h.
 */
size_t
br_series_add_col(br_series *s, const char *name)
{
	long c = br_series_col_index(s, name);
	if (c >= 0)
		return (size_t)c;
	return br_series_push_col(s, name);
}

/* br_series_reserve_rows: see metrics.h. */
void
br_series_reserve_rows(br_series *s, size_t n_rows)
{
	if (n_rows <= rows_allocated(s))
		return;
	s->t_s = br_xrealloc(s->t_s, n_rows * sizeof *s->t_s);
	for (size_t c = 0; c < s->n_cols; c++)
		s->cols[c] = br_xrealloc(s->cols[c], n_rows * sizeof **s->cols);
	s->row_cap = n_rows;
}

/*
 * br_series_add_row: see metrics.h.
 */
size_t
br_series_add_row(br_series *s, double t_s)
{
	reserve_rows(s, s->n_rows + 1);
	size_t r = s->n_rows++;
	s->t_s[r] = t_s;
	for (size_t c = 0; c < s->n_cols; c++)
		s->cols[c][r] = NAN;
	return r;
}

/*
 * br_series_append_rows: see metrics.h. dst may be a zeroed series (it then
 * takes src's source_path). src must not be dst. Columns of src that dst
 * lacks are added with NAN in dst's earlier rows; dst columns src lacks get
 * NAN in the appended rows.
 */
void
br_series_append_rows(br_series *dst, const br_series *src)
{
	if (dst == NULL || src == NULL || src == dst)
		return;
	if (dst->source_path == NULL && src->source_path != NULL)
		dst->source_path = br_xstrdup(src->source_path);
	GHashTable *idx = g_hash_table_new(g_str_hash, g_str_equal);
	for (size_t c = 0; c < dst->n_cols; c++)
		g_hash_table_insert(idx, dst->names[c], GSIZE_TO_POINTER(c + 1));
	size_t *map = br_xcalloc(src->n_cols ? src->n_cols : 1, sizeof *map);
	for (size_t c = 0; c < src->n_cols; c++) {
		size_t d = GPOINTER_TO_SIZE(g_hash_table_lookup(idx, src->names[c]));
		if (d == 0) {
			d = br_series_push_col(dst, src->names[c]) + 1;
			g_hash_table_insert(idx, dst->names[d - 1], GSIZE_TO_POINTER(d));
		}
		map[c] = d - 1;
	}
	g_hash_table_destroy(idx);
	for (size_t i = 0; i < src->n_model_names; i++)
		br_series_note_model(dst, src->model_names[i]);
	if (dst->engine == 0)
		dst->engine = src->engine;
	size_t r0 = dst->n_rows;
	reserve_rows(dst, r0 + src->n_rows);
	for (size_t r = 0; r < src->n_rows; r++)
		dst->t_s[r0 + r] = src->t_s ? src->t_s[r] : NAN;
	for (size_t c = 0; c < dst->n_cols; c++)
		for (size_t r = 0; r < src->n_rows; r++)
			dst->cols[c][r0 + r] = NAN;
	for (size_t c = 0; c < src->n_cols; c++)
		for (size_t r = 0; r < src->n_rows; r++)
			dst->cols[map[c]][r0 + r] = src->cols[c][r];
	dst->n_rows = r0 + src->n_rows;
	free(map);
	for (size_t i = 0; i < src->n_warnings; i++)
		br_series_add_warning(dst, "%s", src->warnings[i]);
}

/* br_metric_is_bucket: see metrics.h. */
int
br_metric_is_bucket(const char *name)
{
	size_t n = strcspn(name, "{");
	return n >= 7 && strncmp(name + n - 7, "_bucket", 7) == 0;
}

/* br_series_drop_buckets: see metrics.h. */
size_t
br_series_drop_buckets(br_series *s)
{
	if (s == NULL)
		return 0;
	if (s->engine == 0)
		s->engine = (int)br_series_detect_engine(s);
	size_t kept = 0;
	for (size_t c = 0; c < s->n_cols; c++) {
		if (br_metric_is_bucket(s->names[c])) {
			free(s->names[c]);
			free(s->cols[c]);
			continue;
		}
		s->names[kept] = s->names[c];
		s->cols[kept++] = s->cols[c];
	}
	size_t dropped = s->n_cols - kept;
	s->n_cols = kept;
	if (dropped > 0 && s->name_index != NULL) {
		g_hash_table_remove_all(s->name_index);
		for (size_t c = 0; c < s->n_cols; c++)
			g_hash_table_insert(s->name_index, s->names[c], GSIZE_TO_POINTER(c + 1));
	}
	return dropped;
}

/*
 * br_series_free: see metrics.h.
 */
void
br_series_free(br_series *s)
{
	if (s == NULL)
		return;
	for (size_t c = 0; c < s->n_cols; c++) {
		free(s->names[c]);
		free(s->cols[c]);
	}
	free(s->names);
	free(s->cols);
	free(s->t_s);
	free(s->source_path);
	if (s->name_index != NULL)
		g_hash_table_destroy(s->name_index);
	for (size_t i = 0; i < s->n_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	for (size_t i = 0; i < s->n_model_names; i++)
		free(s->model_names[i]);
	memset(s, 0, sizeof *s);
}

/* br_series_note_model: see metrics.h. */
void
br_series_note_model(br_series *s, const char *value)
{
	if (s == NULL || value == NULL || *value == '\0' || s->n_model_names == 8)
		return;
	for (size_t i = 0; i < s->n_model_names; i++)
		if (strcmp(s->model_names[i], value) == 0)
			return;
	s->model_names[s->n_model_names++] = br_xstrdup(value);
}

/*
 * br_series_add_warning: see metrics.h.
 */
void
br_series_add_warning(br_series *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = br_xvasprintf(fmt, ap);
	va_end(ap);
	s->warnings = br_xrealloc(s->warnings, (s->n_warnings + 1) * sizeof *s->warnings);
	s->warnings[s->n_warnings++] = m;
}

/*
 * label_number: the numeric value of label `key` in a Prometheus-style
 * column name `name{a="1",key="2"}`, or NAN when absent or not a number
 * ("None").
 */
static double
label_number(const char *name, const char *key)
{
	const char *p = strchr(name, '{');
	size_t kl = strlen(key);
	while (p != NULL && *p != '\0') {
		p++;                                  /* past '{' or ',' */
		const char *eq = strchr(p, '=');
		if (eq == NULL || eq[1] != '"')
			return NAN;
		const char *v = eq + 2, *e = v;
		while (*e != '\0' && *e != '"') {
			if (*e == '\\' && e[1] != '\0')
				e++;
			e++;
		}
		if ((size_t)(eq - p) == kl && strncmp(p, key, kl) == 0) {
			char *end = NULL;
			double x = strtod(v, &end);
			return end != v && end == e && isfinite(x) ? x : NAN;
		}
		if (*e == '\0')
			return NAN;
		p = strchr(e + 1, ',');
	}
	return NAN;
}

/* br_series_cache_config: see metrics.h. */
int
br_series_cache_config(const br_series *s, br_cache_config *out)
{
	out->kv_cache_size_tokens = out->num_gpu_blocks = out->block_size = NAN;
	out->kv_cache_max_concurrency = out->gpu_memory_utilization = NAN;
	if (s == NULL)
		return 0;
	static const char pre[] = "vllm:cache_config_info{";
	for (size_t c = 0; c < s->n_cols; c++) {
		if (strncmp(s->names[c], pre, sizeof pre - 1) != 0)
			continue;
		const char *n = s->names[c];
		out->kv_cache_size_tokens = label_number(n, "kv_cache_size_tokens");
		out->num_gpu_blocks = label_number(n, "num_gpu_blocks");
		out->block_size = label_number(n, "block_size");
		out->kv_cache_max_concurrency = label_number(n, "kv_cache_max_concurrency");
		out->gpu_memory_utilization = label_number(n, "gpu_memory_utilization");
		return 1;
	}
	return 0;
}

/* cmp_gap: ascending doubles, for qsort. */
static int
cmp_gap(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* br_series_median_step_s: see metrics.h. */
double
br_series_median_step_s(const br_series *s, size_t i0, size_t i1)
{
	if (s == NULL || s->t_s == NULL || i1 >= s->n_rows || i1 <= i0)
		return NAN;
	double *d = br_xcalloc(i1 - i0, sizeof *d);
	size_t n = 0;
	for (size_t i = i0 + 1; i <= i1; i++)
		if (isfinite(s->t_s[i]) && isfinite(s->t_s[i - 1]) && s->t_s[i] > s->t_s[i - 1])
			d[n++] = s->t_s[i] - s->t_s[i - 1];
	double m = NAN;
	if (n > 0) {
		qsort(d, n, sizeof *d, cmp_gap);
		m = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);
	}
	free(d);
	return m;
}

/* br_rows_in_flight: see metrics.h. */
double
br_rows_in_flight(const double *running, const double *waiting, size_t r)
{
	return (running && isfinite(running[r]) ? running[r] : 0) + (waiting && isfinite(waiting[r]) ? waiting[r] : 0);
}

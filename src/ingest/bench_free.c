/* Bench result model: look-ups and release (the parser is bench_json.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/bench.h"
#include "benchreport/common.h"

/*
 * br_bench_looks_like: 1 when the file at path parses as a bench result
 * (br_bench_load succeeds), else 0. The parse is complete, so a large
 * detailed file costs as much as loading it.
 */
int
br_bench_looks_like(const char *path)
{
	br_bench_set s;
	char *cause = NULL;
	int ok = br_bench_load(path, &s, &cause) == 0;
	free(cause);
	if (ok)
		br_bench_set_free(&s);
	return ok;
}

/* br_bench_sent_rps: see bench.h. */
double
br_bench_sent_rps(const br_bench *b)
{
	double t_lo = INFINITY, t_hi = -INFINITY;
	size_t n_st = 0;
	for (size_t i = 0; b != NULL && b->requests != NULL && i < b->n_requests; i++)
		if (isfinite(b->requests[i].start_time_s)) {
			t_lo = fmin(t_lo, b->requests[i].start_time_s);
			t_hi = fmax(t_hi, b->requests[i].start_time_s);
			n_st++;
		}
	return n_st >= 10 && t_hi > t_lo ? (double)(n_st - 1) / (t_hi - t_lo) : NAN;
}

/*
 * br_bench_file_stat: the file's own statistic in ms for metric ("ttft") and
 * stat ("mean", "median", "std", "p"); for "p" the percentile must match
 * (within 1e-9, so 99.9 matches "p99.9"). NAN when absent or b is NULL.
 */
double
br_bench_file_stat(const br_bench *b, const char *metric, const char *stat,
    double percentile)
{
	if (b == NULL || metric == NULL || stat == NULL)
		return NAN;
	int is_p = strcmp(stat, "p") == 0;
	for (size_t i = 0; i < b->n_stats; i++) {
		const br_file_stat *s = &b->stats[i];
		if (strcmp(s->metric, metric) != 0 || strcmp(s->stat, stat) != 0)
			continue;
		if (is_p && !(fabs(s->percentile - percentile) <= 1e-9))
			continue;
		return s->value_ms;
	}
	return NAN;
}

/* br_bench_file_pct_bounds: see bench.h. */
void
br_bench_file_pct_bounds(const br_bench *b, const char *metric, double p,
    double *below, double *below_pct, double *above, double *above_pct)
{
	*below = *below_pct = *above = *above_pct = NAN;
	if (b == NULL || metric == NULL)
		return;
	for (size_t i = 0; i < b->n_stats; i++) {
		const br_file_stat *s = &b->stats[i];
		double q = strcmp(s->stat, "median") == 0 ? 50 : strcmp(s->stat, "p") == 0 ? s->percentile : NAN;
		if (strcmp(s->metric, metric) != 0 || !(q >= 0 && q <= 100) || !br_isnum(s->value_ms))
			continue;
		if (q <= p + 1e-9 && !(s->value_ms <= *below)) {
			*below = s->value_ms;
			*below_pct = q;
		}
		if (q >= p - 1e-9 && !(s->value_ms >= *above)) {
			*above = s->value_ms;
			*above_pct = q;
		}
	}
}

/* stat_pct: the percentile an order statistic stands at ("median" 50,
 * "p" its own), NAN for mean / std. */
static double
stat_pct(const br_file_stat *s)
{
	return strcmp(s->stat, "median") == 0 ? 50 : strcmp(s->stat, "p") == 0 ? s->percentile : NAN;
}

/* br_bench_file_pct_disorder: see bench.h. */
int
br_bench_file_pct_disorder(const br_bench *b, const char *metric,
    double *lo_pct, double *lo_ms, double *hi_pct, double *hi_ms)
{
	*lo_pct = *lo_ms = *hi_pct = *hi_ms = NAN;
	if (b == NULL || metric == NULL)
		return 0;
	double worst = 0;   /* the largest drop found, relative */
	for (size_t i = 0; i < b->n_stats; i++) {
		const br_file_stat *s = &b->stats[i];
		double qs = stat_pct(s);
		if (strcmp(s->metric, metric) != 0 || !(qs >= 0 && qs <= 100) || !br_isnum(s->value_ms))
			continue;
		for (size_t j = 0; j < b->n_stats; j++) {
			const br_file_stat *t = &b->stats[j];
			double qt = stat_pct(t);
			if (strcmp(t->metric, metric) != 0 || !(qt > qs + 1e-9 && qt <= 100) || !br_isnum(t->value_ms))
				continue;
			double m = fmax(fabs(s->value_ms), fabs(t->value_ms));
			double drop = m > 0 ? (s->value_ms - t->value_ms) / m : 0;
			if (drop > 1e-9 && drop > worst) {
				worst = drop;
				*lo_pct = qs;
				*lo_ms = s->value_ms;
				*hi_pct = qt;
				*hi_ms = t->value_ms;
			}
		}
	}
	return worst > 0;
}

/* br_bench_extra_get: value text of extra key `key`, or NULL (last one wins). */
const char *
br_bench_extra_get(const br_bench *b, const char *key)
{
	if (b == NULL || key == NULL)
		return NULL;
	for (size_t i = b->n_extras; i-- > 0;)
		if (strcmp(b->extras[i].key, key) == 0)
			return b->extras[i].value;
	return NULL;
}

/* br_bench_free: release everything b owns and zero it (b itself is not
 * freed; it lives in a br_bench_set's array). Per-request ITLs are freed one
 * by one unless they are slices of b->itls_block, which is freed once.
 * NULL is a no-op. */
void
br_bench_free(br_bench *b)
{
	if (b == NULL)
		return;
	free(b->source_path);
	free(b->date);
	free(b->backend);
	free(b->endpoint_type);
	free(b->label);
	free(b->model_id);
	free(b->tokenizer_id);
	free(b->stats);
	for (size_t i = 0; i < b->n_requests; i++) {
		if (b->itls_block == NULL)
			free(b->requests[i].itls_s);
		free(b->requests[i].error);
	}
	free(b->itls_block);
	free(b->requests);
	for (size_t i = 0; i < b->n_extras; i++) {
		free(b->extras[i].key);
		free(b->extras[i].value);
	}
	free(b->extras);
	memset(b, 0, sizeof *b);
}

/* br_bench_set_free: free every run and the array; s is left empty. */
void
br_bench_set_free(br_bench_set *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		br_bench_free(&s->runs[i]);
	free(s->runs);
	s->runs = NULL;
	s->n = 0;
}

/* br_bench_set_ordinal: see bench.h. */
size_t
br_bench_set_ordinal(const br_bench_set *s, size_t i)
{
	size_t k = 1;
	for (size_t j = 0; j < s->n; j++)
		if (j != i && (s->runs[j].source_line < s->runs[i].source_line ||
		    (s->runs[j].source_line == s->runs[i].source_line && j < i)))
			k++;
	return k;
}

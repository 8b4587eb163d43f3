/*
 * libFuzzer target: br_metrics_csv_load (src/ingest/metrics_csv.c). The
 * loader takes a path, so each input is written to one per-process
 * temporary file (fuzz_util.h) first. On success the series is checked
 * against the promises of metrics.h (check_series).
 *
 * Issues known before this harness, fixed in 82be2ae: a header holding only
 * the time column (UBSan: zero offset applied to a null pointer; now the
 * seed fixtures/bad/metrics-time-only.csv) and a header of 100k columns
 * (linear column lookup).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/metrics.h"
#include "fuzz_util.h"

static void __attribute__((noreturn, format(printf, 1, 2)))
bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fuzz_metrics_csv: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* name_is: canonical column `name` is `base` or a labelled variant of it. */
static int
name_is(const char *name, const char *base)
{
	size_t l = strlen(base);
	return strncmp(name, base, l) == 0 && (name[l] == '\0' || name[l] == '{');
}

/*
 * check_series: what metrics.h promises of a loaded CSV: rows sorted by a
 * finite time in [2000-01-01, 2100-01-01], distinct named columns, gauges
 * (running, waiting, swapped) never negative, KV/CPU cache usage a
 * fraction in [0, 1] (percent converted, out-of-range samples dropped).
 */
static void
check_series(const br_series *s)
{
	if (s->n_rows == 0 || s->t_s == NULL)
		bad("success without a row");
	for (size_t r = 0; r < s->n_rows; r++) {
		double t = s->t_s[r];
		if (!isfinite(t) || (r > 0 && t < s->t_s[r - 1]))
			bad("t_s[%zu] = %.17g: times must be finite and sorted", r, t);
		if (t < 946684800.0 || t > 4102444800.0)
			bad("t_s[%zu] = %.17g: outside 2000-01-01 .. 2100-01-01", r, t);
	}
	for (size_t c = 0; c < s->n_cols; c++) {
		const char *n = s->names[c];
		if (n == NULL || s->cols[c] == NULL)
			bad("column %zu without a name or values", c);
		int usage = name_is(n, "vllm:kv_cache_usage_perc") || name_is(n, "vllm:cpu_cache_usage_perc");
		int gauge = usage || name_is(n, "vllm:num_requests_running") ||
		    name_is(n, "vllm:num_requests_waiting") || name_is(n, "vllm:num_requests_swapped");
		for (size_t r = 0; r < s->n_rows; r++) {
			double v = s->cols[c][r];
			if (isnan(v))
				continue;
			if (gauge && (!isfinite(v) || v < 0))
				bad("column '%s' row %zu: %g: a gauge must be finite and >= 0 (else NaN)", n, r, v);
			if (usage && v > 1.0)
				bad("column '%s' row %zu: %.17g: cache usage must be a fraction <= 1 (else NaN)", n, r, v);
		}
	}
	br_fuzz_check_unique_names("fuzz_metrics_csv", s->names, s->n_cols);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = br_fuzz_tmp_path("metrics_csv", ".csv");
	br_fuzz_write(path, data, size);
	br_series s;
	char *cause = NULL;
	int rc = br_metrics_csv_load(path, size & 1 ? BR_METRICS_NO_BUCKETS : 0, &s, &cause);
	br_fuzz_check_cause("br_metrics_csv_load", rc, cause);
	if (rc == 0)
		check_series(&s);
	br_series_free(&s);
	free(cause);
	return 0;
}

/*
 * Tests of the metrics CSV reader (src/ingest/metrics_csv.c).
 * Expected values are read by hand from the fixtures in fixtures/metrics/
 * (each test names its file); epoch values of ISO stamps were computed with
 * python3: datetime.fromisoformat("2026-07-31T03:55:29+00:00").timestamp().
 */
#include "br_test.h"

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "ingest/metrics_priv.h"
#include <locale.h>
#include <unistd.h>

static double
colv(const br_series *s, const char *name, size_t row)
{
	const double *c = br_series_col(s, name);
	if (c == NULL)
		fail_msg("column %s missing", name);
	assert_true(row < s->n_rows);
	return c[row];
}

static void
load_ok(const char *rel, br_series *s)
{
	char *path = br_test_src(rel);
	char *cause = NULL;
	if (br_metrics_csv_load(path, 0, s, &cause) != 0)
		fail_msg("%s: %s", path, cause ? cause : "(no cause)");
	assert_string_equal(s->source_path, path);
	free(path);
}

/* A bad fixture must fail with a message that contains `want`. */
static void
load_bad(const char *rel, const char *want)
{
	char *path = br_test_src(rel);
	br_series s;
	char *cause = NULL;
	assert_int_equal(br_metrics_csv_load(path, 0, &s, &cause), -1);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("message '%s' lacks '%s'", cause, want);
	assert_int_equal(s.n_rows, 0);
	assert_int_equal(s.n_cols, 0);
	free(cause);
	free(path);
}

/*
 * canonical.csv: timestamp + vllm: columns, quoted labelled headers
 * ("vllm:request_success_total{finished_reason=""length""}"), an empty
 * waiting cell in row 3, an abort column that is empty in every row.
 */
static void
test_canonical(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/canonical.csv", &s);
	assert_int_equal(s.n_rows, 4);
	assert_double_abs(s.t_s[0], 1785549300.0, 0);
	assert_double_abs(s.t_s[3], 1785549303.5, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 1), 4, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 1), 2, 0);
	assert_nan(colv(&s, "vllm:num_requests_waiting", 2));     /* empty cell = not sampled */
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 2), 0.5, 0);  /* fraction: kept */
	assert_double_abs(colv(&s, "vllm:num_preemptions_total", 3), 1, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_sum", 2), 2500, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total{finished_reason=\"length\"}", 3), 3, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total{finished_reason=\"stop\"}", 3), 1, 0);
	/* bare name = length + stop (abort never sampled): 0, 1, 3, 4 */
	assert_double_abs(colv(&s, "vllm:request_success_total", 0), 0, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total", 2), 3, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total", 3), 4, 0);
	assert_nan(colv(&s, "vllm:request_success_total{finished_reason=\"abort\"}", 0));
	assert_int_equal(s.n_cols, 9);
	br_series_free(&s);
}

/*
 * thirdparty.csv: the layout of FORMATS.md §4 (timestamp_unix,
 * vllm:gpu_cache_usage_perc, ..., num_requests_swapped) at ~4.5 Hz.
 */
static void
test_third_party(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/thirdparty.csv", &s);
	assert_int_equal(s.n_rows, 4);
	assert_double_rel(s.t_s[1], 1722480000.222, 1e-15);
	assert_double_rel(s.t_s[3], 1722480000.667, 1e-15);
	assert_null(br_series_col(&s, "vllm:gpu_cache_usage_perc"));
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 2), 0.9375, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 3), 0.96875, 0);
	assert_double_abs(colv(&s, "vllm:num_preemptions_total", 3), 2, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 2), 32, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_swapped", 3), 2, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 1), 24, 0);
	br_series_free(&s);
}

/* t_unix_ms.csv (CRLF): milliseconds → s; vllm_ and unprefixed names; unknown kept. */
static void
test_t_unix_ms(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/t_unix_ms.csv", &s);
	assert_int_equal(s.n_rows, 3);
	assert_double_abs(s.t_s[0], 1785549300.0, 0);
	assert_double_abs(s.t_s[1], 1785549300.5, 0);
	assert_double_abs(s.t_s[2], 1785549301.25, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 2), 3, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 1), 1, 0);
	assert_double_abs(colv(&s, "vllm:num_preemptions_total", 2), 1, 0);
	assert_double_abs(colv(&s, "unknown_metric", 1), 8, 0);
	assert_nan(colv(&s, "unknown_metric", 2));
	assert_false(br_series_has_prefix(&s, "vllm_"));
	assert_false(br_series_has_prefix(&s, "num_"));
	br_series_free(&s);
}

/* iso8601.csv: Z, .250+00:00, "YYYY-MM-DD HH:MM:SS" (UTC), +02:00. */
static void
test_iso8601(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/iso8601.csv", &s);
	assert_int_equal(s.n_rows, 4);
	assert_double_abs(s.t_s[0], 1785470129.0, 0);
	assert_double_abs(s.t_s[1], 1785470129.25, 0);
	assert_double_abs(s.t_s[2], 1785470130.0, 0);
	assert_double_abs(s.t_s[3], 1785470131.0, 0);   /* 05:55:31+02:00 = 03:55:31Z */
	assert_double_abs(colv(&s, "vllm:num_requests_running", 3), 4, 0);
	br_series_free(&s);
}

/*
 * percent.csv: `time` column, rows 1785548999, 1785549000, 1785549001;
 * unprefixed kv_cache_usage_perc in percent (50, 12.5, 0.5) → /100.
 */
static void
test_percent(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/percent.csv", &s);
	assert_int_equal(s.n_rows, 3);
	assert_double_abs(s.t_s[0], 1785548999, 0);
	assert_double_abs(s.t_s[1], 1785549000, 0);
	assert_double_abs(s.t_s[2], 1785549001, 0);
	assert_int_equal(s.n_warnings, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.125, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 1), 0.5, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 2), 0.005, 1e-18);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 2, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 1), 1, 0);
	br_series_free(&s);
}

/*
 * engines.csv: per-engine columns summed (running 1+2 = 3; engine 1 empty in
 * row 2 → NAN, not a partial sum), KV usage averaged over engines (0.2, 0.4
 * → 0.3), an explicit bare request_success_total kept as written (5, 6)
 * beside its length column, _created and unnamed columns ignored, a header
 * written without quoting around a two-label set.
 */
static void
test_engines(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/engines.csv", &s);
	assert_int_equal(s.n_rows, 2);
	assert_int_equal(s.n_cols, 4);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 3, 0);
	assert_nan(colv(&s, "vllm:num_requests_running", 1));
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.3, 1e-15);
	assert_double_abs(colv(&s, "vllm:request_success_total", 0), 5, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total", 1), 6, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total{finished_reason=\"length\"}", 1), 4, 0);
	assert_false(br_series_has_prefix(&s, "vllm:num_preemptions"));
	br_series_free(&s);
}

/* Bad files: -1 and "PATH:LINE:COL: expected ..." with the right position. */
/* has_warning: some warning of s contains both needles. */
static int
has_warning(const br_series *s, const char *a, const char *b)
{
	for (size_t i = 0; i < s->n_warnings; i++)
		if (strstr(s->warnings[i], a) && (b == NULL || strstr(s->warnings[i], b)))
			return 1;
	return 0;
}

/*
 * kv-bad-samples.csv: KV usage 40, 60, 250, 80, -5. The -5 is dropped as
 * negative; the median of the positive values is (60 + 80) / 2 = 70 (numpy)
 * > 1 → percent; 250 > 100 → NaN; the rest / 100. Running has an inf (row
 * 4), waiting a -1 (row 2) and a NaN (row 5): each → NaN. One warning per
 * column and reason: 5.
 */
static void
test_gauge_repairs(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/kv-bad-samples.csv", &s);
	assert_int_equal(s.n_rows, 5);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.40, 1e-15);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 1), 0.60, 1e-15);
	assert_nan(colv(&s, "vllm:kv_cache_usage_perc", 2));
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 3), 0.80, 1e-15);
	assert_nan(colv(&s, "vllm:kv_cache_usage_perc", 4));
	assert_double_abs(colv(&s, "vllm:num_requests_running", 2), 4, 0);
	assert_nan(colv(&s, "vllm:num_requests_running", 3));
	assert_nan(colv(&s, "vllm:num_requests_waiting", 1));
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 3), 2, 0);
	assert_nan(colv(&s, "vllm:num_requests_waiting", 4));
	assert_int_equal(s.n_warnings, 5);
	assert_true(has_warning(&s, "'vllm:kv_cache_usage_perc': 1 value outside [0, 100]", "first 250 at line 4"));
	assert_true(has_warning(&s, "'vllm:kv_cache_usage_perc': 1 negative value", "first -5 at line 6"));
	assert_true(has_warning(&s, "'vllm:num_requests_running': 1 NaN or infinite", "line 5"));
	assert_true(has_warning(&s, "'vllm:num_requests_waiting': 1 negative value", "first -1 at line 3"));
	assert_true(has_warning(&s, "'vllm:num_requests_waiting': 1 NaN or infinite", "line 6"));
	assert_true(has_warning(&s, "kv-bad-samples.csv: ", NULL));
	br_series_free(&s);

	/* running-huge.csv: running 3, 1e300, 10,000,000, 10,000,001 → the two
	 * above ten million requests are NaN (the bound itself is kept); a
	 * waiting queue of 50,000 is a real flood and stays */
	load_ok("fixtures/metrics/running-huge.csv", &s);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 3, 0);
	assert_nan(colv(&s, "vllm:num_requests_running", 1));
	assert_double_abs(colv(&s, "vllm:num_requests_running", 2), 1e7, 0);
	assert_nan(colv(&s, "vllm:num_requests_running", 3));
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 3), 50000, 0);
	assert_int_equal(s.n_warnings, 1);
	assert_true(has_warning(&s, "'vllm:num_requests_running': 2 values above 10,000,000 requests",
	    "first 1e+300 at line 3"));
	br_series_free(&s);

	/* a fraction series with one 57: median of positives 0.7 (numpy) → fraction;
	 * the 57 → NaN, the others NOT divided by 100 */
	load_ok("fixtures/metrics/kv-fraction-outlier.csv", &s);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.2, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 1), 0.5, 0);
	assert_nan(colv(&s, "vllm:kv_cache_usage_perc", 2));
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 3), 0.9, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 4), 0, 0);
	assert_int_equal(s.n_warnings, 1);
	assert_true(has_warning(&s, "1 value outside [0, 1] (the column is a fraction)", "first 57 at line 4"));
	br_series_free(&s);
}

/* Time unit repairs: epoch ms under `timestamp` → /1000; seconds under
 * t_unix_ms → kept as seconds; both with a warning. */
static void
test_time_units(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/metrics/timestamp-ms.csv", &s);
	assert_double_abs(s.t_s[0], 1785549300.0, 0);
	assert_double_abs(s.t_s[1], 1785549301.5, 0);
	assert_int_equal(s.n_warnings, 1);
	assert_true(has_warning(&s, "column 'timestamp' holds epoch milliseconds", "converted to seconds"));
	br_series_free(&s);
	load_ok("fixtures/metrics/t_unix_ms-seconds.csv", &s);
	assert_double_abs(s.t_s[0], 1785549300.25, 0);
	assert_double_abs(s.t_s[1], 1785549301.0, 0);
	assert_int_equal(s.n_warnings, 1);
	assert_true(has_warning(&s, "column 't_unix_ms' holds epoch seconds", NULL));
	br_series_free(&s);
	/* the real ms fixture stays warning-free */
	load_ok("fixtures/metrics/t_unix_ms.csv", &s);
	assert_int_equal(s.n_warnings, 0);
	br_series_free(&s);
}

/* Duplicated columns and times outside 2000..2100 are errors. */
static void
test_bad_dup_and_time(void **state)
{
	(void)state;
	/* num_requests_running canonicalises to column 2's name; header col 63 */
	load_bad("fixtures/bad/metrics-dup-column.csv",
	    "metrics-dup-column.csv:1:63: column 'num_requests_running' appears twice (also column 2, "
	    "'vllm:num_requests_running')");
	/* same labels in another order (second header unquoted, col 79) */
	load_bad("fixtures/bad/metrics-dup-labels.csv", "metrics-dup-labels.csv:1:79: column "
	    "'vllm:request_success_total{engine=\"0\",finished_reason=\"stop\"}' appears twice (also column 2");
	load_bad("fixtures/bad/metrics-1970.csv",
	    "metrics-1970.csv:3:1: time 1000 s in column 'timestamp' is before 2000-01-01");
	load_bad("fixtures/bad/metrics-2100.csv",
	    "metrics-2100.csv:2:1: time 4102444800 s in column 'time' is after 2100-01-01");
}

static void
test_bad(void **state)
{
	(void)state;
	/* line 3 "2.0,3": 2 cells, header has 3; the line ends at column 6 */
	load_bad("fixtures/bad/metrics-ragged.csv", "metrics-ragged.csv:3:6: expected 3 cells as in the header, found 2");
	/* line 3 "2.0,abc,2": abc starts at column 5 */
	load_bad("fixtures/bad/metrics-nonnumeric.csv",
	    "metrics-nonnumeric.csv:3:5: expected a number in column 'vllm:num_requests_running', found 'abc'");
	load_bad("fixtures/bad/metrics-empty.csv", "metrics-empty.csv: expected a CSV header row, found an empty file");
	/* the NUL bytes start line 2 */
	load_bad("fixtures/bad/metrics-binary.csv", "metrics-binary.csv:2:1: expected CSV text, found a NUL byte");
	load_bad("fixtures/bad/metrics-no-time.csv", "metrics-no-time.csv:1:1: expected a time column");
	/* a spreadsheet's export: "timestamp;vllm:num_requests_running" is one cell */
	load_bad("fixtures/bad/metrics-semicolon.csv", "metrics-semicolon.csv:1:1: expected comma-separated "
	    "cells, found a header separated by ';' (read as one cell)");
	/* the quote opened at line 1 column 11 never closes */
	load_bad("fixtures/bad/metrics-unterminated-quote.csv",
	    "metrics-unterminated-quote.csv:1:11: expected a closing '\"'");
	load_bad("fixtures/bad/metrics-header-only.csv", "expected at least one data row");
	/* a missing file: cause from br_read_file */
	br_series s;
	char *cause = NULL;
	assert_int_equal(br_metrics_csv_load("/nonexistent/metrics.csv", 0, &s, &cause), -1);
	assert_non_null(cause);
	free(cause);
}

/*
 * br_parse_double on a table of cell texts: accepted exactly when C's strtod
 * (the "C" locale: the oracle, as g_ascii_strtod was the implementation
 * before fast_float) reads the whole text and it holds no blank or hex
 * 'x', and then to the same bits (NaN to a NaN). Rows cover the fast path
 * (decimal, exponent, inf/nan), what only the fallback reads ('+', "nan(1)"),
 * overflow to inf, subnormals, 40 digits, and texts both refuse.
 */
static void
test_parse_double_table(void **state)
{
	(void)state;
	static const struct { const char *text; int ok; } rows[] = {
		{ "0", 1 }, { "-0", 1 }, { "1", 1 }, { "1.5", 1 }, { ".5", 1 }, { "5.", 1 },
		{ "0.1", 1 }, { "1700000000.123456789", 1 }, { "6.02214076e23", 1 }, { "1E-7", 1 },
		{ "1.7976931348623157e308", 1 }, { "2.2250738585072011e-308", 1 }, { "4.9e-324", 1 },
		{ "1e400", 1 }, { "-1e400", 1 }, { "1e-400", 1 },
		{ "1234567890123456789012345678901234567890", 1 }, { "0.30000000000000004", 1 },
		{ "nan", 1 }, { "NaN", 1 }, { "-inf", 1 }, { "+Inf", 1 }, { "Infinity", 1 },
		{ "+5", 1 }, { "nan(123)", 1 },
		{ "", 0 }, { " 1", 0 }, { "1 ", 0 }, { "0x10", 0 }, { "1,5", 0 }, { "--1", 0 },
		{ "+-1", 0 }, { "1e", 0 }, { "e5", 0 }, { "-", 0 }, { ".", 0 }, { "1.2.3", 0 }, { "abc", 0 },
	};
	setlocale(LC_NUMERIC, "C");
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const char *t = rows[i].text;
		double got = 12345.0;
		int rc = br_parse_double(t, strlen(t), &got);
		char *end = NULL;
		double want = strtod(t, &end);
		int oracle_ok = *t != '\0' && *end == '\0' && strpbrk(t, " xX") == NULL;
		if (oracle_ok != rows[i].ok)
			fail_msg("row %zu \"%s\": the table says %d, strtod %d", i, t, rows[i].ok, oracle_ok);
		if ((rc == 0) != rows[i].ok)
			fail_msg("row %zu \"%s\": rc %d", i, t, rc);
		if (rc == 0 && !(isnan(want) ? isnan(got) : memcmp(&got, &want, sizeof got) == 0))
			fail_msg("row %zu \"%s\": %.17g, strtod %.17g", i, t, got, want);
		if (rc != 0 && got != 12345.0)
			fail_msg("row %zu \"%s\": *out written on refusal", i, t);
	}
}

/*
 * BR_METRICS_NO_BUCKETS, one table: each CSV read with flags 0 and with the
 * flag. Expected by hand from the text: the header has 1 time column,
 * 1 bucket, 1 histogram _count and 1 gauge, so 3 columns, or 2 without the
 * bucket; a bucket cell that is not a number (row 2) fails the plain read
 * at its line:column and is not read at all under the flag.
 */
static void
test_no_buckets(void **state)
{
	(void)state;
	static const char hdr[] = "timestamp,\"vllm:e2e_request_latency_seconds_bucket{le=\"\"0.5\"\"}\","
	    "vllm:e2e_request_latency_seconds_count,vllm:num_requests_running\n";
	static const struct {
		const char *rows;
		unsigned flags;
		int rc;
		size_t n_cols;
		double bucket_r1, count_r1;   /* row 1 cells; NAN = no such column */
		const char *cause;
	} t[] = {
		{ "1700000000,3,5,2\n1700000001,4,7,1\n", 0, 0, 3, 4, 7, NULL },
		{ "1700000000,3,5,2\n1700000001,4,7,1\n", BR_METRICS_NO_BUCKETS, 0, 2, NAN, 7, NULL },
		{ "1700000000,3,5,2\n1700000001,x,7,1\n", 0, -1, 0, NAN, NAN, ":3:12: expected a number in column" },
		{ "1700000000,3,5,2\n1700000001,x,7,1\n", BR_METRICS_NO_BUCKETS, 0, 2, NAN, 7, NULL },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char path[] = "/tmp/br_csv_buckets_XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		FILE *fp = fdopen(fd, "w");
		fputs(hdr, fp);
		fputs(t[i].rows, fp);
		fclose(fp);
		br_series s;
		char *cause = NULL;
		int rc = br_metrics_csv_load(path, t[i].flags, &s, &cause);
		unlink(path);
		if (rc != t[i].rc)
			fail_msg("row %zu: rc %d (%s)", i, rc, cause ? cause : "");
		if (rc != 0) {
			if (cause == NULL || strstr(cause, t[i].cause) == NULL)
				fail_msg("row %zu: message '%s' lacks '%s'", i, cause ? cause : "", t[i].cause);
			free(cause);
			continue;
		}
		assert_int_equal(s.n_cols, t[i].n_cols);
		const double *b = br_series_col(&s, "vllm:e2e_request_latency_seconds_bucket{le=\"0.5\"}");
		const double *c = br_series_col(&s, "vllm:e2e_request_latency_seconds_count");
		if (isnan(t[i].bucket_r1))
			assert_null(b);
		else
			assert_double_abs(b[1], t[i].bucket_r1, 0);
		assert_double_abs(c[1], t[i].count_r1, 0);
		assert_double_abs(br_series_col(&s, "vllm:num_requests_running")[1], 1, 0);
		br_series_free(&s);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical),
		cmocka_unit_test(test_parse_double_table),
		cmocka_unit_test(test_third_party),
		cmocka_unit_test(test_t_unix_ms),
		cmocka_unit_test(test_iso8601),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_engines),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_no_buckets),
		cmocka_unit_test(test_gauge_repairs),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_bad_dup_and_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Tests of the Prometheus text reader (src/ingest/prom.c), canonical names
 * (metric_names.c) and the series helpers (series.c).
 * Expected numbers were read off the files with grep (commands in comments).
 */
#include "br_test.h"

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"

/* Value of column `name` in row `row`; fails the test when the column is missing. */
static double
colv(const br_series *s, const char *name, size_t row)
{
	const double *c = br_series_col(s, name);
	if (c == NULL)
		fail_msg("column %s missing", name);
	assert_true(row < s->n_rows);
	return c[row];
}

/* Load a .prom file that must parse. */
static void
load_ok(const char *path, br_series *s)
{
	char *cause = NULL;
	int r = br_prom_load(path, s, &cause);
	if (r != 0)
		fail_msg("%s: %s", path, cause ? cause : "(no cause)");
	assert_null(cause);
}

/* Load a bad fixture: must fail with a message containing `want`. */
static void
load_bad(const char *rel, const char *want)
{
	char *path = br_test_src(rel);
	br_series s;
	char *cause = NULL;
	assert_int_equal(br_prom_load(path, &s, &cause), -1);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("message '%s' lacks '%s'", cause, want);
	assert_int_equal(s.n_cols, 0);
	assert_null(s.names);
	free(cause);
	free(path);
}

static void
test_canonical_names(void **state)
{
	(void)state;
	static const char *cases[][2] = {
		{ "vllm:num_requests_running", "vllm:num_requests_running" },
		{ "vllm_num_requests_running", "vllm:num_requests_running" },
		{ "num_requests_running", "vllm:num_requests_running" },
		{ "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc" },
		{ "gpu_cache_usage_perc", "vllm:kv_cache_usage_perc" },
		{ "vllm_gpu_cache_usage_perc", "vllm:kv_cache_usage_perc" },
		{ "vllm:time_per_output_token_seconds", "vllm:inter_token_latency_seconds" },
		{ "vllm:time_per_output_token_seconds_bucket", "vllm:inter_token_latency_seconds_bucket" },
		{ "time_per_output_token_seconds_sum", "vllm:inter_token_latency_seconds_sum" },
		{ "iteration_tokens_total_sum", "vllm:iteration_tokens_total_sum" },
		{ "num_preemptions_total", "vllm:num_preemptions_total" },
		{ "num_requests_swapped", "vllm:num_requests_swapped" },
		{ "process_open_fds", "process_open_fds" },             /* unknown: kept */
		{ "vllm:some_future_metric", "vllm:some_future_metric" }, /* unknown vllm: kept */
		{ "vllm:gpu_cache_usage_perc_x", "vllm:gpu_cache_usage_perc_x" }, /* not an old name */
		{ "vllm_request_success_total{finished_reason=\"length\"}",
		  "vllm:request_success_total{finished_reason=\"length\"}" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *c = br_metric_canonical(cases[i][0]);
		assert_string_equal(c, cases[i][1]);
		free(c);
	}
	assert_null(br_metric_canonical(NULL));
}

/*
 * Real before/after snapshots of the GLM-5.2 run. Expected values:
 *   grep -E '^vllm:(prompt_tokens_total|generation_tokens_total|request_success_total|
 *            iteration_tokens_total_sum|spec_decode_num_drafts_total)' metrics-{before,after}.prom
 * before: prompt 11675, generation 4104, success length 17 (stop/abort/error/repetition 0),
 *         iteration_tokens_total_sum 15779, drafts 1373;
 * after:  23345, 8200, 33, 31545, 2798.
 */
static void
test_real_glm_pair(void **state)
{
	(void)state;
	char *pb = br_test_real("runs/glm52-mtp3-c4-r2/metrics-before.prom");
	char *pa = br_test_real("runs/glm52-mtp3-c4-r2/metrics-after.prom");
	if (pb == NULL || pa == NULL) {
		free(pb);
		free(pa);
		skip();
	}
	br_series b, a;
	load_ok(pb, &b);
	load_ok(pa, &a);
	assert_int_equal(b.n_rows, 1);
	assert_nan(b.t_s[0]);
	assert_string_equal(b.source_path, pb);

	assert_double_abs(colv(&b, "vllm:prompt_tokens_total", 0), 11675, 0);
	assert_double_abs(colv(&a, "vllm:prompt_tokens_total", 0), 23345, 0);
	assert_double_abs(colv(&b, "vllm:generation_tokens_total", 0), 4104, 0);
	assert_double_abs(colv(&a, "vllm:generation_tokens_total", 0), 8200, 0);
	assert_double_abs(colv(&b, "vllm:request_success_total", 0), 17, 0);
	assert_double_abs(colv(&a, "vllm:request_success_total", 0), 33, 0);
	assert_double_abs(colv(&b, "vllm:request_success_total{finished_reason=\"length\"}", 0), 17, 0);
	assert_double_abs(colv(&a, "vllm:request_success_total{finished_reason=\"length\"}", 0), 33, 0);
	assert_double_abs(colv(&a, "vllm:request_success_total{finished_reason=\"stop\"}", 0), 0, 0);
	assert_double_abs(colv(&b, "vllm:iteration_tokens_total_sum", 0), 15779, 0);
	assert_double_abs(colv(&a, "vllm:iteration_tokens_total_sum", 0), 31545, 0);
	assert_double_abs(colv(&b, "vllm:spec_decode_num_drafts_total", 0), 1373, 0);
	assert_double_abs(colv(&a, "vllm:spec_decode_num_drafts_total", 0), 2798, 0);
	/* grep 'iteration_tokens_total_bucket.*le="+Inf"' → 371 before, 785 after */
	assert_double_abs(colv(&b, "vllm:iteration_tokens_total_bucket{le=\"+Inf\"}", 0), 371, 0);
	/* per-position counter keeps its label: position="2" → 710 before */
	assert_double_abs(colv(&b, "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"2\"}", 0), 710, 0);
	/* _created ignored; engine / model_name dropped everywhere */
	assert_null(br_series_col(&b, "vllm:spec_decode_num_drafts_created"));
	assert_int_equal(br_series_has_prefix(&b, "vllm:prompt_tokens_created"), 0);
	for (size_t c = 0; c < b.n_cols; c++) {
		assert_null(strstr(b.names[c], "engine=\""));
		assert_null(strstr(b.names[c], "model_name="));
		assert_null(strstr(b.names[c], "_created"));
	}
	/* unknown names kept: process_open_fds 53.0 (grep '^process_open_fds' before) */
	assert_double_abs(colv(&b, "process_open_fds", 0), 53, 0);

	/* before + after → a 2-row series */
	br_series pair = { 0 };
	br_series_append_rows(&pair, &b);
	br_series_append_rows(&pair, &a);
	assert_int_equal(pair.n_rows, 2);
	assert_int_equal(pair.n_cols, b.n_cols);
	assert_double_abs(colv(&pair, "vllm:prompt_tokens_total", 0), 11675, 0);
	assert_double_abs(colv(&pair, "vllm:prompt_tokens_total", 1), 23345, 0);
	assert_double_abs(colv(&pair, "vllm:request_success_total", 1) - colv(&pair, "vllm:request_success_total", 0), 16, 0);
	assert_string_equal(pair.source_path, pb);

	br_series_free(&pair);
	br_series_free(&a);
	br_series_free(&b);
	free(pa);
	free(pb);
}

/*
 * Real vLLM 0.25.1 page under load. grep -E '^vllm:(num_requests|kv_cache|estimated_flops|
 * iteration_tokens_total)' vllm-0.25.1-loaded.prom: running 64, waiting 64,
 * kv 0.11223878211531546, flops 0.0, waiting_by_reason capacity 64 / deferred 0,
 * iteration buckets le=32.0 → 293, le=64.0 → 2639, +Inf → 2829 (14 buckets), sum 502781.
 */
static void
test_real_loaded(void **state)
{
	(void)state;
	char *p = br_test_real("metrics/vllm-0.25.1-loaded.prom");
	if (p == NULL)
		skip();
	br_series s;
	load_ok(p, &s);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 64, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 0), 64, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.11223878211531546, 0);
	assert_double_abs(colv(&s, "vllm:estimated_flops_per_gpu_total", 0), 0, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting_by_reason{reason=\"capacity\"}", 0), 64, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting_by_reason{reason=\"deferred\"}", 0), 0, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting_by_reason", 0), 64, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_bucket{le=\"32.0\"}", 0), 293, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_bucket{le=\"64.0\"}", 0), 2639, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_bucket{le=\"+Inf\"}", 0), 2829, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_sum", 0), 502781, 0);
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_count", 0), 2829, 0);
	/* buckets are stored per le only: no bare _bucket column, 14 le columns */
	assert_null(br_series_col(&s, "vllm:iteration_tokens_total_bucket"));
	size_t nb = 0;
	for (size_t c = 0; c < s.n_cols; c++)
		if (strncmp(s.names[c], "vllm:iteration_tokens_total_bucket{le=", 38) == 0)
			nb++;
	assert_int_equal(nb, 14);
	assert_true(br_series_has_prefix(&s, "vllm:estimated_read_bytes_per_gpu_total"));
	assert_false(br_series_has_prefix(&s, "vllm:estimated_read_bytes_per_gpu_created"));
	/* br_series_drop_buckets: `grep -v '^#' FILE | grep -c '_bucket{'` →
	 * 287 bucket samples, 287 distinct once engine/model_name are dropped;
	 * the rest keep their values through the rebuilt name index */
	size_t before = s.n_cols;
	assert_int_equal(br_series_drop_buckets(&s), 287);
	assert_int_equal(s.n_cols, before - 287);
	assert_null(br_series_col(&s, "vllm:iteration_tokens_total_bucket{le=\"+Inf\"}"));
	assert_double_abs(colv(&s, "vllm:iteration_tokens_total_sum", 0), 502781, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting_by_reason{reason=\"capacity\"}", 0), 64, 0);
	assert_int_equal(s.engine, BR_ENGINE_VLLM);
	assert_int_equal(br_series_drop_buckets(&s), 0);
	br_series_free(&s);
	free(p);
}

/*
 * Own fixture fixtures/metrics/two-engines.prom; sums by hand from the file:
 * running 3+5 = 8; waiting 4+0 = 4 (first sample has a timestamp);
 * gpu_cache_usage_perc (old name) 0.5, 0.7 → kv_cache_usage_perc mean 0.6;
 * vllm_num_preemptions_total 2+1 = 3; success length 10+6 = 16, stop 4, bare 20;
 * time_per_output_token_seconds (old name) → inter_token_latency_seconds:
 * bucket le=0.01 7+1 = 8, +Inf 9+2 = 11, sum 0.25+0.5 = 0.75, count 9+2 = 11.
 */
static void
test_two_engines(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/metrics/two-engines.prom");
	br_series s;
	load_ok(p, &s);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 8, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 0), 4, 0);
	assert_double_abs(colv(&s, "vllm:kv_cache_usage_perc", 0), 0.6, 1e-15);
	assert_null(br_series_col(&s, "vllm:gpu_cache_usage_perc"));
	assert_double_abs(colv(&s, "vllm:num_preemptions_total", 0), 3, 0);
	assert_null(br_series_col(&s, "vllm:num_preemptions_created"));
	assert_false(br_series_has_prefix(&s, "vllm_"));
	assert_double_abs(colv(&s, "vllm:request_success_total{finished_reason=\"length\"}", 0), 16, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total{finished_reason=\"stop\"}", 0), 4, 0);
	assert_double_abs(colv(&s, "vllm:request_success_total", 0), 20, 0);
	assert_double_abs(colv(&s, "vllm:inter_token_latency_seconds_bucket{le=\"0.01\"}", 0), 8, 0);
	assert_double_abs(colv(&s, "vllm:inter_token_latency_seconds_bucket{le=\"+Inf\"}", 0), 11, 0);
	assert_double_abs(colv(&s, "vllm:inter_token_latency_seconds_sum", 0), 0.75, 0);
	assert_double_abs(colv(&s, "vllm:inter_token_latency_seconds_count", 0), 11, 0);
	assert_null(br_series_col(&s, "vllm:inter_token_latency_seconds_bucket"));
	assert_false(br_series_has_prefix(&s, "vllm:time_per_output_token"));
	assert_false(br_series_has_prefix(&s, "vllm:inter_token_latency_seconds_created"));
	/* escaped quotes, commas and backslashes in label values; labels sorted;
	 * model_name (itself full of escapes) dropped; the two engines summed: 2 */
	assert_double_abs(colv(&s, "vllm:cache_config_info{block_size=\"16\",path=\"/data/user/a \\\"b\\\", c\\\\d\"}", 0), 2, 0);
	assert_double_abs(colv(&s, "vllm:cache_config_info", 0), 2, 0);
	assert_double_abs(colv(&s, "process_open_fds", 0), 53, 0);
	double ninf = colv(&s, "my_gauge{x=\"1\"}", 0), pinf = colv(&s, "my_gauge{x=\"2\"}", 0);
	assert_true(isinf(ninf) && ninf < 0);
	assert_true(isinf(pinf) && pinf > 0);
	assert_nan(colv(&s, "my_gauge{x=\"3\"}", 0));
	br_series_free(&s);
	free(p);
}

/* parse_text directly: t_s stored, CRLF line ends accepted. */
static void
test_parse_text_crlf(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/metrics/crlf.prom");
	char *data = NULL, *cause = NULL;
	size_t len = 0;
	assert_int_equal(br_read_file(p, &data, &len, &cause), 0);
	br_series s;
	assert_int_equal(br_prom_parse_text("crlf.prom", data, len, 1785549300.5, &s, &cause), 0);
	assert_double_abs(s.t_s[0], 1785549300.5, 0);
	assert_int_equal(s.n_cols, 2);
	assert_double_abs(colv(&s, "vllm:num_requests_running", 0), 1, 0);
	assert_double_abs(colv(&s, "vllm:num_requests_waiting", 0), 2, 0);
	br_series_free(&s);
	free(data);
	free(p);
}

/* Malformed inputs: -1, a message naming line:column and what was expected. */
static void
test_bad_files(void **state)
{
	(void)state;
	/* line 3: 'vllm:num_requests_waiting{engine="0",model_name="m"} abc', abc at column 54 */
	load_bad("fixtures/bad/metrics-bad-value.prom",
	    "metrics-bad-value.prom:3:54: expected a number after the label set, found 'abc'");
	/* the value quote of model_name never closes on line 1 */
	load_bad("fixtures/bad/metrics-unterminated-label.prom", "metrics-unterminated-label.prom:1:");
	load_bad("fixtures/bad/metrics-unterminated-label.prom", "expected");
	load_bad("fixtures/bad/metrics-missing-value.prom",
	    "metrics-missing-value.prom:1:38: expected a number after the label set, found 'the end of the line'");
	load_bad("fixtures/bad/metrics-empty.prom", "metrics-empty.prom: expected Prometheus text, found an empty file");
	load_bad("fixtures/bad/metrics-comments-only.prom", "expected at least one sample line");
	/* NUL is the 9th byte of line 1 */
	load_bad("fixtures/bad/metrics-binary.prom", "metrics-binary.prom:1:9: expected Prometheus text, found a NUL byte (binary file)");
}

/* In-memory malformed texts. */
static void
test_bad_texts(void **state)
{
	(void)state;
	static const char *cases[][2] = {
		{ "x 1\nvllm:a 1 2 3\n", "t:2:12: expected the end of the line after the timestamp" },
		{ "x 1\nvllm:a 1 12:30\n", "t:2:10: expected a timestamp or the end of the line after the value, found '12:30'" },
		{ "x{a=\"1\" b=\"2\"} 1\n", "t:1:9: expected ',' or '}' after the label value" },
		{ "x{a \"1\"} 1\n", "t:1:5: expected '=' after the label name" },
		{ "x{a=1} 1\n", "t:1:5: expected '\"' to open the label value" },
		{ "x 1\n9bad 1\n", "t:2:1: expected a metric name" },
		{ "vllm:x_created 5\n", "expected at least one sample besides _created" },
		{ "x 0x10\n", "t:1:3: expected a number after the series name, found '0x10'" },
		{ "   \n\n", "t: expected Prometheus text, found an empty file" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		br_series s;
		char *cause = NULL;
		assert_int_equal(br_prom_parse_text("t", cases[i][0], strlen(cases[i][0]), NAN, &s, &cause), -1);
		assert_non_null(cause);
		if (strstr(cause, cases[i][1]) == NULL)
			fail_msg("case %zu: message '%s' lacks '%s'", i, cause, cases[i][1]);
		free(cause);
	}
	/* cause may be NULL */
	br_series s;
	assert_int_equal(br_prom_parse_text("t", "", 0, NAN, &s, NULL), -1);
	/* OpenMetrics: float-second timestamp, exemplar, # EOF → accepted */
	const char *om = "vllm:a_total{engine=\"0\"} 3 1785549300.25 # {trace_id=\"x\"} 1.0\r\nvllm:b 2 # {} 1\n# EOF\n";
	char *cause = NULL;
	assert_int_equal(br_prom_parse_text("om", om, strlen(om), NAN, &s, &cause), 0);
	assert_int_equal(s.n_cols, 2);
	assert_double_abs(s.cols[0][0], 3, 0);
	assert_string_equal(s.names[1], "vllm:b");
	assert_double_abs(s.cols[1][0], 2, 0);
	br_series_free(&s);
}

/* Series helpers: append with different column sets, add_row growth. */
static void
test_series_append(void **state)
{
	(void)state;
	br_series a, b;
	char *cause = NULL;
	const char *ta = "vllm:num_requests_running 1\nonly_a 5\n";
	const char *tb = "vllm:num_requests_running 2\nonly_b 7\n";
	assert_int_equal(br_prom_parse_text("a", ta, strlen(ta), 10.0, &a, &cause), 0);
	assert_int_equal(br_prom_parse_text("b", tb, strlen(tb), 11.0, &b, &cause), 0);
	br_series all = { 0 };
	for (int k = 0; k < 50; k++)
		br_series_append_rows(&all, k % 2 ? &b : &a);
	assert_int_equal(all.n_rows, 50);
	assert_int_equal(all.n_cols, 3);
	assert_double_abs(all.t_s[48], 10.0, 0);
	assert_double_abs(all.t_s[49], 11.0, 0);
	assert_double_abs(colv(&all, "vllm:num_requests_running", 49), 2, 0);
	assert_double_abs(colv(&all, "only_a", 48), 5, 0);
	assert_nan(colv(&all, "only_a", 49));
	assert_nan(colv(&all, "only_b", 0));
	assert_double_abs(colv(&all, "only_b", 1), 7, 0);
	assert_int_equal(br_series_col_index(&all, "only_b"), 2);
	assert_int_equal(br_series_col_index(&all, "nope"), -1);
	size_t c = br_series_add_col(&all, "new");
	assert_int_equal(c, 3);
	assert_int_equal(br_series_add_col(&all, "new"), 3);
	assert_nan(all.cols[3][49]);
	size_t r = br_series_add_row(&all, 12.0);
	assert_int_equal(r, 50);
	assert_nan(all.cols[0][50]);
	all.cols[3][50] = 1.5;
	assert_double_abs(colv(&all, "new", 50), 1.5, 0);
	assert_int_equal(br_series_has_prefix(&all, "only_"), 1);
	assert_int_equal(br_series_has_prefix(&all, "vllm:kv"), 0);
	br_series_free(&all);
	br_series_free(&a);
	br_series_free(&b);
	assert_int_equal(all.n_cols, 0);
	br_series_free(NULL);
}

/* br_prom_scan_text: every sample in page order, named as exposed with all
 * labels sorted (engine and model_name kept), _created skipped, the same
 * errors as the parser. Expected strings written by hand from the text. */
typedef struct scan_seen {
	char names[8][128];
	double values[8];
	size_t n;
} scan_seen;

static void
scan_cb(void *user, const char *series, double value)
{
	scan_seen *s = user;
	if (s->n < 8) {
		snprintf(s->names[s->n], sizeof s->names[0], "%s", series);
		s->values[s->n++] = value;
	}
}

static void
test_scan_text(void **state)
{
	(void)state;
	static const char text[] =
	    "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
	    "# TYPE vllm:num_requests_running gauge\n"
	    "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} 3.0\n"
	    "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"1\"} 4.0\n"
	    "vllm:e2e_request_latency_seconds_bucket{le=\"0.3\",engine=\"0\"} 12\n"
	    "vllm:e2e_request_latency_seconds_created{engine=\"0\"} 1.7e9\n"
	    "process_start_time_seconds 1793275100.25\n"
	    "# EOF\n";
	scan_seen seen = { 0 };
	char *cause = NULL;
	assert_int_equal(br_prom_scan_text("t", text, strlen(text), scan_cb, &seen, &cause), 0);
	assert_int_equal(seen.n, 4);
	assert_string_equal(seen.names[0], "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"}");
	assert_string_equal(seen.names[1], "vllm:num_requests_running{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"}");
	assert_string_equal(seen.names[2], "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"0.3\"}");
	assert_string_equal(seen.names[3], "process_start_time_seconds");
	assert_double_abs(seen.values[1], 4.0, 0);
	assert_double_abs(seen.values[3], 1793275100.25, 0);
	static const char bad[] = "vllm:x 1\nvllm:y{a=\"1\"} oops\n";
	assert_int_equal(br_prom_scan_text("t", bad, strlen(bad), scan_cb, &seen, &cause), -1);
	assert_non_null(strstr(cause, "t:2:"));
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_canonical_names),
		cmocka_unit_test(test_scan_text),
		cmocka_unit_test(test_real_glm_pair),
		cmocka_unit_test(test_real_loaded),
		cmocka_unit_test(test_two_engines),
		cmocka_unit_test(test_parse_text_crlf),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_texts),
		cmocka_unit_test(test_series_append),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

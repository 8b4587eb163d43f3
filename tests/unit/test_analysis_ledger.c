/*
 * Counter ledger (DESIGN.md §3.8 first cut) and the run window (§3.1):
 * the real glm52 before/after pair against its stress.json (deltas worked
 * out by hand from the two .prom files), and hand-built series with a
 * counter reset.
 */
#include "br_test.h"
#include "benchreport/analysis.h"
#include "benchreport/common.h"
#include "benchreport/run.h"

static const br_ledger_row *
row(const br_ledger *l, const char *series)
{
	for (size_t i = 0; i < l->n_rows; i++)
		if (strcmp(l->rows[i].series, series) == 0)
			return &l->rows[i];
	fail_msg("no ledger row %s", series);
	return NULL;
}

static int
has_row(const br_ledger *l, const char *series)
{
	for (size_t i = 0; i < l->n_rows; i++)
		if (strcmp(l->rows[i].series, series) == 0)
			return 1;
	return 0;
}

/*
 * metrics-before.prom → metrics-after.prom (engine 0):
 *   prompt_tokens_total 11675 → 23345: Δ 11670 = total_input_tokens 11670
 *   generation_tokens_total 4104 → 8200: Δ 4096 = total_output_tokens 4096
 *   request_success_total (sum over finished_reason; length 17 → 33): Δ 16 = completed 16
 *   iteration_tokens_total_sum 15779 → 31545: Δ 15766 >= 11670 + 4096 = 15766
 *   num_preemptions_total 0 → 0: Δ 0, no counterpart
 *   spec_decode_num_drafts_total 1373 → 2798: Δ 1425 = spec_decode_num_drafts 1425
 *   spec_decode_num_draft_tokens_total 4119 → 8394: Δ 4275 = spec_decode_draft_tokens 4275
 *   spec_decode_num_accepted_tokens_total 2738 → 5411: Δ 2673 = spec_decode_accepted_tokens 2673
 *   estimated_flops_per_gpu_total 0 → 0: Δ 0, no counterpart
 */
static void
test_real_glm52_pair(void **state)
{
	(void)state;
	char *pb = br_test_real("runs/glm52-mtp3-c4-r2/metrics-before.prom");
	char *pa = br_test_real("runs/glm52-mtp3-c4-r2/metrics-after.prom");
	char *pj = br_test_real("runs/glm52-mtp3-c4-r2/stress.json");
	if (pb == NULL || pa == NULL || pj == NULL) {
		free(pb);
		free(pa);
		free(pj);
		skip();
		return;
	}
	char *cause = NULL;
	br_series before, after;
	if (br_prom_load(pb, &before, &cause) != 0)
		fail_msg("%s", cause);
	if (br_prom_load(pa, &after, &cause) != 0)
		fail_msg("%s", cause);
	br_series *pair = br_xcalloc(1, sizeof *pair);
	br_series_append_rows(pair, &before);
	br_series_append_rows(pair, &after);
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	if (br_bench_load(pj, &run.bench, &cause) != 0)
		fail_msg("%s", cause);
	run.metrics = pair;
	run.metrics_kind = BR_METRICS_PAIR;

	br_analysis a;
	memset(&a, 0, sizeof a);
	br_analyze_ledger(&run, &a.ledger);
	const br_ledger *L = &a.ledger;
	assert_int_equal(L->available, 1);
	assert_null(L->missing);
	assert_string_equal(L->window_source, "before/after snapshots");
	assert_nan(L->window_start_t_s);
	assert_int_equal(L->counter_resets, 0);
	assert_int_equal(L->n_rows, 9);

	const br_ledger_row *r = row(L, "vllm:prompt_tokens_total");
	assert_double_abs(r->server_delta, 11670, 0);
	assert_double_abs(r->client_value, 11670, 0);
	assert_string_equal(r->relation, "=");
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:generation_tokens_total");
	assert_double_abs(r->server_delta, 4096, 0);
	assert_double_abs(r->client_value, 4096, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:request_success_total");
	assert_double_abs(r->server_delta, 16, 0);
	assert_double_abs(r->client_value, 16, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:iteration_tokens_total_sum");
	assert_double_abs(r->server_delta, 15766, 0);
	assert_double_abs(r->client_value, 11670 + 4096, 0);
	assert_string_equal(r->relation, ">=");
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:num_preemptions_total");
	assert_double_abs(r->server_delta, 0, 0);
	assert_nan(r->client_value);
	assert_int_equal(r->agrees, -1);
	r = row(L, "vllm:spec_decode_num_drafts_total");
	assert_double_abs(r->server_delta, 1425, 0);
	assert_double_abs(r->client_value, 1425, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:spec_decode_num_draft_tokens_total");
	assert_double_abs(r->server_delta, 4275, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:spec_decode_num_accepted_tokens_total");
	assert_double_abs(r->server_delta, 2673, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:estimated_flops_per_gpu_total");
	assert_int_equal(r->agrees, -1);

	/* one snapshot alone: unavailable */
	br_analysis b1;
	memset(&b1, 0, sizeof b1);
	run.metrics = &after;
	run.metrics_kind = BR_METRICS_SNAPSHOT;
	br_analyze_ledger(&run, &b1.ledger);
	assert_int_equal(b1.ledger.available, 0);
	assert_non_null(b1.ledger.missing);
	assert_int_equal(b1.ledger.n_rows, 0);
	br_analysis_free(&b1);

	br_analysis_free(&a);
	br_series_free(pair);
	free(pair);
	br_series_free(&before);
	br_series_free(&after);
	br_bench_set_free(&run.bench);
	free(pb);
	free(pa);
	free(pj);
}

/*
 * Hand-built snapshot series, 6 rows at t = 1000..1005 s:
 *   running      0    2    2   2    0    0   → busy rows 1..3 → window rows 0..4
 *   waiting      0    1    0   0    0    0
 *   prompt    1000 1100   30  80  120  999   (restart between rows 1 and 2)
 *     by hand: 100 + 30 (post-reset value) + 50 + 40 = 220; row 5 is outside
 *   generation  10   20   30  40   50   60   → 40 vs client 41: disagrees
 *   iteration    0  100  200 300  400  500   → 400 >= 220 + 41: agrees
 *   preemptions  0    0    1   1    1    1   → 1, no counterpart
 */
static void
test_hand_reset_window(void **state)
{
	(void)state;
	double t[6] = { 1000, 1001, 1002, 1003, 1004, 1005 };
	double running[6] = { 0, 2, 2, 2, 0, 0 };
	double waiting[6] = { 0, 1, 0, 0, 0, 0 };
	double prompt[6] = { 1000, 1100, 30, 80, 120, 999 };
	double gen[6] = { 10, 20, 30, 40, 50, 60 };
	double iter[6] = { 0, 100, 200, 300, 400, 500 };
	double pre[6] = { 0, 0, 1, 1, 1, 1 };
	char *names[6] = { "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:prompt_tokens_total", "vllm:generation_tokens_total",
		"vllm:iteration_tokens_total_sum", "vllm:num_preemptions_total" };
	double *cols[6] = { running, waiting, prompt, gen, iter, pre };
	br_series s = { .n_rows = 6, .t_s = t, .n_cols = 6, .names = names, .cols = cols };

	size_t i0 = 99, i1 = 99;
	assert_int_equal(br_run_window(&s, &i0, &i1), 0);
	assert_int_equal(i0, 0);
	assert_int_equal(i1, 4);
	int resets = -1;
	assert_double_abs(br_counter_delta(prompt, 0, 4, &resets), 220, 0);
	assert_int_equal(resets, 1);
	assert_double_abs(br_counter_delta(prompt, 0, 5, NULL), 1099, 0);   /* 220 + 879 */
	double one[2] = { 5, NAN };
	assert_nan(br_counter_delta(one, 0, 1, NULL));                     /* one numeric sample */

	br_bench b;
	memset(&b, 0, sizeof b);
	b.total_input_tokens = 220;
	b.total_output_tokens = 41;
	b.completed = 4;
	b.spec_decode_num_drafts = NAN;
	b.spec_decode_draft_tokens = NAN;
	b.spec_decode_accepted_tokens = NAN;
	br_run run;
	memset(&run, 0, sizeof run);
	run.bench.runs = &b;
	run.bench.n = 1;
	run.metrics = &s;
	run.metrics_kind = BR_METRICS_SNAPSHOTS;

	br_analysis a;
	memset(&a, 0, sizeof a);
	br_analyze_ledger(&run, &a.ledger);
	const br_ledger *L = &a.ledger;
	assert_int_equal(L->available, 1);
	assert_string_equal(L->window_source, "metrics series window");
	assert_double_abs(L->window_start_t_s, 1000, 0);
	assert_double_abs(L->window_end_t_s, 1004, 0);
	assert_int_equal(L->counter_resets, 1);
	assert_int_equal(L->n_rows, 4);
	assert_false(has_row(L, "vllm:request_success_total"));
	assert_false(has_row(L, "vllm:spec_decode_num_drafts_total"));
	const br_ledger_row *r = row(L, "vllm:prompt_tokens_total");
	assert_double_abs(r->server_delta, 220, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:generation_tokens_total");
	assert_double_abs(r->server_delta, 40, 0);
	assert_int_equal(r->agrees, 0);
	r = row(L, "vllm:iteration_tokens_total_sum");
	assert_double_abs(r->server_delta, 400, 0);
	assert_double_abs(r->client_value, 261, 0);
	assert_int_equal(r->agrees, 1);
	r = row(L, "vllm:num_preemptions_total");
	assert_double_abs(r->server_delta, 1, 0);
	assert_int_equal(r->agrees, -1);
	br_analysis_free(&a);

	/* never busy: the whole series is used and said so */
	double idle[6] = { 0, 0, 0, 0, 0, 0 };
	cols[0] = idle;
	cols[1] = idle;
	assert_int_equal(br_run_window(&s, &i0, &i1), -1);
	memset(&a, 0, sizeof a);
	br_analyze_ledger(&run, &a.ledger);
	assert_int_equal(a.ledger.available, 1);
	assert_string_equal(a.ledger.window_source, "whole metrics series (no busy window found)");
	assert_double_abs(row(&a.ledger, "vllm:prompt_tokens_total")->server_delta, 1099, 0);
	br_analysis_free(&a);

	/* no metrics */
	run.metrics = NULL;
	run.metrics_kind = BR_METRICS_NONE;
	memset(&a, 0, sizeof a);
	br_analyze_ledger(&run, &a.ledger);
	assert_int_equal(a.ledger.available, 0);
	assert_non_null(a.ledger.missing);
	br_analysis_free(&a);
}

/* Window edges: busy at the first and last rows clamps to the series ends. */
static void
test_window_edges(void **state)
{
	(void)state;
	double t[4] = { 0, 1, 2, 3 };
	double running[4] = { 3, 0, NAN, 1 };
	char *names[1] = { "vllm:num_requests_running" };
	double *cols[1] = { running };
	br_series s = { .n_rows = 4, .t_s = t, .n_cols = 1, .names = names, .cols = cols };
	size_t i0, i1;
	assert_int_equal(br_run_window(&s, &i0, &i1), 0);
	assert_int_equal(i0, 0);
	assert_int_equal(i1, 3);
	s.n_rows = 1;
	assert_int_equal(br_run_window(&s, &i0, &i1), -1);
	names[0] = "vllm:kv_cache_usage_perc";
	s.n_rows = 4;
	assert_int_equal(br_run_window(&s, &i0, &i1), -1);   /* no running column */
}

/*
 * llama.cpp prints counters >= 1e6 with 6 significant digits: a pair
 * 1.90511e+06 → 1.97065e+06 is a delta of 65,540 known to ±(5 + 5) tokens
 * (half a unit of the 6th digit at each end). "<=" (a cached prefix is not
 * counted) agrees when 65,540 < client + 0.5 + 10: 65,536, 65,551 and
 * 65,530 (65,540.5) agree, 65,529 (65,539.5) does not. Below 1e6 the values
 * are exact: 420,506 → 436,890 = 16,384 must equal the client's exactly.
 */
static void
test_llamacpp_print_precision(void **state)
{
	(void)state;
	static const struct { double client_in; int agrees; } cases[] = {
		{ 65536, 1 }, { 65551, 1 }, { 65530, 1 }, { 65529, 0 },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double prompt[2] = { 1.90511e6, 1.97065e6 }, gen[2] = { 420506, 436890 };
		char *names[2] = { "llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total" };
		double *cols[2] = { prompt, gen };
		br_series s = { .n_rows = 2, .n_cols = 2, .names = names, .cols = cols };
		br_bench b;
		memset(&b, 0, sizeof b);
		b.total_input_tokens = cases[k].client_in;
		b.total_output_tokens = 16384;
		b.completed = 64;
		b.spec_decode_num_drafts = b.spec_decode_draft_tokens = b.spec_decode_accepted_tokens = NAN;
		br_run run;
		memset(&run, 0, sizeof run);
		run.bench.runs = &b;
		run.bench.n = 1;
		run.metrics = &s;
		run.metrics_kind = BR_METRICS_PAIR;
		br_ledger L;
		br_analyze_ledger(&run, &L);
		assert_int_equal(L.n_rows, 2);
		assert_string_equal(L.rows[0].series, "llamacpp:prompt_tokens_total");
		assert_string_equal(L.rows[0].relation, "<=");
		assert_double_abs(L.rows[0].server_delta, 65540, 0);
		assert_double_abs(L.rows[0].tolerance, 10, 1e-9);
		if (L.rows[0].agrees != cases[k].agrees)
			fail_msg("client %.0f: agrees %d, expected %d", cases[k].client_in, L.rows[0].agrees,
			    cases[k].agrees);
		assert_double_abs(L.rows[1].tolerance, 0, 0);
		assert_int_equal(L.rows[1].agrees, 1);
		free(L.rows);
	}
}

/*
 * br_run_counter_window, by hand: 12 rows at t = 0..11 s (1 s apart).
 *   running   0 0 0 1 1 0 0 0 0 0 0 0   busy rows 3..4 → br_run_window rows 2..5
 *   success   0 0 1 2 3 4 5 5 5 5 6 6   rises at rows 2..6 (short requests the gauge
 *                                       missed) and at row 10 (another client, later)
 * With the bench's duration 5 s the reach is 5 + 2 = 7 s: the rise at row 2
 * (from row 1) and those at rows 5, 6 join (span rows 1..6 = 5 s); row 10
 * (span 1..10 = 9 s) stays out. Without a duration: rows 2..5.
 */
static void
test_counter_window(void **state)
{
	(void)state;
	double t[12], running[12] = { 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0 };
	double success[12] = { 0, 0, 1, 2, 3, 4, 5, 5, 5, 5, 6, 6 };
	for (int i = 0; i < 12; i++)
		t[i] = i;
	char *names[2] = { "vllm:num_requests_running", "vllm:request_success_total" };
	double *cols[2] = { running, success };
	br_series s = { .n_rows = 12, .t_s = t, .n_cols = 2, .names = names, .cols = cols };
	br_bench b = { .duration_s = 5.0, .completed = 5 };
	br_run run = { .bench = { .runs = &b, .n = 1 }, .metrics = &s };
	size_t i0 = 99, i1 = 99;
	assert_int_equal(br_run_counter_window(&run, &i0, &i1), 0);
	assert_int_equal(i0, 1);
	assert_int_equal(i1, 6);
	assert_double_abs(br_counter_delta(success, i0, i1, NULL), 5, 0);   /* the client's 5 */
	b.duration_s = NAN;
	assert_int_equal(br_run_counter_window(&run, &i0, &i1), 0);
	assert_int_equal(i0, 2);
	assert_int_equal(i1, 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_glm52_pair),
		cmocka_unit_test(test_hand_reset_window),
		cmocka_unit_test(test_window_edges),
		cmocka_unit_test(test_counter_window),
		cmocka_unit_test(test_llamacpp_print_precision),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

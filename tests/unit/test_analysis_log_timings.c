/*
 * llama-server's per-request timing lines summarised (src/analysis/log_timings.c).
 * Four requests built by hand, expected values worked by hand (numpy-linear
 * percentiles, position (n−1)·p/100):
 *   prompt ms {100, 200, 400, 50} → sorted {50, 100, 200, 400}: p50 at 1.5 = 150,
 *     p99 at 2.97 = 200 + 0.97·200 = 394
 *   prompt tok/s 10/0.1, 10/0.2, 40/0.4, 20/0.05 = {100, 50, 100, 400} → p50 = 100
 *   eval ms/token 1000/10, 2000/40, 3000/30 = {100, 50, 100} (the fourth has 0 tokens,
 *     left out) → p50 = 100, p99 at 1.98 = 100
 *   eval tok/s {10, 20, 10} → p50 = 10
 *   means: prompt (10+10+40+20)/4 = 20, eval (10+40+30+0)/4 = 20
 * and the real b5489 log (fixtures/engines): 410.44 ms / 4 tokens, 25055.10 ms / 128 tokens →
 *   4 / 0.41044 = 9.745639801 tok/s, 25055.10 / 128 = 195.74296875 ms per token.
 */
#include "br_test.h"

#include "benchreport/analysis_blocks.h"
#include "benchreport/common.h"
#include "benchreport/serverlog.h"

static void
test_hand_built(void **state)
{
	(void)state;
	static const double v[4][4] = { { 100, 10, 1000, 10 }, { 200, 10, 2000, 40 },
		{ 400, 40, 3000, 30 }, { 50, 20, 0, 0 } };
	br_server_log log;
	memset(&log, 0, sizeof log);
	for (int i = 0; i < 4; i++) {
		br_log_request *r = br_server_log_add_request(&log);
		r->prompt_ms = v[i][0];
		r->prompt_tokens = v[i][1];
		r->eval_ms = v[i][2];
		r->eval_tokens = v[i][3];
	}
	br_run run;
	memset(&run, 0, sizeof run);
	run.log = &log;
	br_log_timings t;
	br_analyze_log_timings(&run, NULL, &t);
	assert_true(t.available);
	assert_int_equal(t.n, 4);
	assert_double_rel(t.prompt_ms_p50, 150, 1e-12);
	assert_double_rel(t.prompt_ms_p99, 394, 1e-12);
	assert_double_rel(t.prompt_tps_p50, 100, 1e-12);
	assert_double_rel(t.eval_ms_per_token_p50, 100, 1e-12);
	assert_double_rel(t.eval_ms_per_token_p99, 100, 1e-12);
	assert_double_rel(t.eval_tps_p50, 10, 1e-12);
	assert_double_rel(t.prompt_tokens_mean, 20, 1e-12);
	assert_double_rel(t.eval_tokens_mean, 20, 1e-12);
	assert_nan(t.bench_completed);
	assert_nan(t.client_tpot_p50_ms);
	br_server_log_free(&log);

	/* no log, or a log without timing lines: unavailable with a reason */
	run.log = NULL;
	br_analyze_log_timings(&run, NULL, &t);
	assert_false(t.available);
	assert_non_null(t.missing);
}

static void
test_real_log(void **state)
{
	(void)state;
	char *path = br_test_src("fixtures/engines/llama-server-b5489.log"), *cause = NULL;
	br_server_log log;
	assert_int_equal(br_server_log_load(path, &log, &cause), 0);
	br_run run;
	memset(&run, 0, sizeof run);
	run.log = &log;
	br_log_timings t;
	br_analyze_log_timings(&run, NULL, &t);
	assert_int_equal(t.n, 1);
	assert_double_rel(t.prompt_ms_p50, 410.44, 1e-15);
	assert_double_rel(t.prompt_tps_p50, 4 / 0.41044, 1e-12);
	assert_double_rel(t.eval_ms_per_token_p50, 195.74296875, 1e-12);
	br_server_log_free(&log);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_real_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Capacity analysis (DESIGN.md §3.3) on the reference reports' numbers
 * (DESIGN.md §6), the glm52 log values, the P sources and the missing case.
 */
#include "br_test.h"
#include "benchreport/analysis.h"
#include "benchreport/common.h"

static void
log_blank(br_server_log *l)
{
	memset(l, 0, sizeof *l);
	l->max_model_len_tokens = l->max_num_seqs = l->max_num_batched_tokens = NAN;
	l->tensor_parallel_size = l->gpu_memory_utilization = l->block_size_tokens = NAN;
	l->kv_pool_tokens = l->kv_pool_gib = l->max_concurrency_x = NAN;
	l->max_concurrency_len_tokens = l->v0_cumulative_preemptions = NAN;
}

static void
bench_blank(br_bench *b)
{
	memset(b, 0, sizeof *b);
	b->max_concurrency = b->completed = b->failed = NAN;
	b->total_input_tokens = b->total_output_tokens = b->num_prompts = NAN;
}

/* a run of N = 128 requests, 6144 in / 2048 out, C = 64 (DESIGN.md §6) */
static void
reference_run(br_run *run, br_bench *b, br_server_log *l, double P, double gib, double x)
{
	bench_blank(b);
	b->max_concurrency = 64;
	b->completed = 128;
	b->total_input_tokens = 128.0 * 6144;
	b->total_output_tokens = 128.0 * 2048;
	log_blank(l);
	l->kv_pool_tokens = P;
	l->kv_pool_gib = gib;
	l->max_concurrency_x = x;
	l->max_concurrency_len_tokens = 8192;
	memset(run, 0, sizeof *run);
	run->kv_pool_tokens_override = NAN;
	run->bench.runs = b;
	run->bench.n = 1;
	run->log = l;
}

/*
 * Round 1: P 86,864, M 8192 (from the "Maximum concurrency for 8,192 tokens"
 * line; no max_model_len arg), 4.64 GiB, log 10.60x.
 * By hand: demand 64·(6144+2048) = 524,288; 524288/86864 = 6.0357 ("6.0×");
 * P/M = 10.603515625; resident P/(6144+1024) = 12.1183; bytes/token =
 * 4.64·2^30/86864 = 57,355.9 (≈ 56 KiB as the reports say).
 */
static void
test_round1(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_server_log l;
	reference_run(&run, &b, &l, 86864, 4.64, 10.60);
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_null(c.missing);
	assert_string_equal(c.kv_pool_source, "server log");
	assert_double_abs(c.kv_pool_tokens, 86864, 0);
	assert_double_abs(c.max_model_len_tokens, 8192, 0);
	assert_double_rel(c.predicted_max_concurrency, 10.603515625, 1e-15);
	assert_double_abs(c.log_max_concurrency_x, 10.60, 0);
	assert_double_abs(c.concurrency, 64, 0);
	assert_double_abs(c.mean_input_tokens, 6144, 0);
	assert_double_abs(c.mean_output_tokens, 2048, 0);
	assert_double_abs(c.demand_tokens, 524288, 0);
	assert_double_rel(c.oversubscription, 6.035734020998342, 1e-12);
	assert_double_abs(c.oversubscription, 6.0, 0.05);            /* reported "6.0×" */
	assert_double_rel(c.resident_estimate, 12.118303571428571, 1e-12);
	assert_double_rel(c.kv_pool_gib, 4.64, 0);
	assert_double_rel(c.kv_bytes_per_token, 57355.890396021365, 1e-12);
	assert_double_abs(c.kv_bytes_per_token, 56 * 1024, 20);       /* 56 KiB per token */
}

/* Round 2: P 120,064, 6.41 GiB: 524288/120064 = 4.3667 ("4.4×"), P/M = 14.65625 ("14.66x"). */
static void
test_round2(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_server_log l;
	reference_run(&run, &b, &l, 120064, 6.41, 14.66);
	l.max_model_len_tokens = 8192;   /* from non-default args this time */
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_double_rel(c.oversubscription, 4.366737739872068, 1e-12);
	assert_double_abs(c.oversubscription, 4.4, 0.05);
	assert_double_rel(c.predicted_max_concurrency, 14.65625, 1e-15);
	assert_double_rel(c.resident_estimate, 16.75, 1e-15);       /* 120064 / 7168 */
}

/*
 * glm52 values (real/runs/glm52-mtp3-c4-r2: server.log says P 1,600,255,
 * max_model_len 400,000, 13.52 GiB, 4.00x; stress.json C 4, 16 completed,
 * 11670 in, 4096 out). By hand: P/M = 4.0006375; in 729.375, out 256;
 * demand 4·985.375 = 3941.5; oversubscription 0.00246304; resident
 * 1600255/857.375 = 1866.4587; bytes/token 13.52·2^30/1600255 = 9071.67.
 */
static void
test_glm52_values(void **state)
{
	(void)state;
	br_bench b;
	bench_blank(&b);
	b.max_concurrency = 4;
	b.completed = 16;
	b.total_input_tokens = 11670;
	b.total_output_tokens = 4096;
	br_server_log l;
	log_blank(&l);
	l.kv_pool_tokens = 1600255;
	l.kv_pool_gib = 13.52;
	l.max_model_len_tokens = 400000;
	l.max_concurrency_len_tokens = 400000;
	l.max_concurrency_x = 4.00;
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	run.bench.runs = &b;
	run.bench.n = 1;
	run.log = &l;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_double_rel(c.predicted_max_concurrency, 4.0006375, 1e-15);
	assert_double_abs(c.mean_input_tokens, 729.375, 0);
	assert_double_abs(c.mean_output_tokens, 256, 0);
	assert_double_rel(c.demand_tokens, 3941.5, 1e-15);
	assert_double_rel(c.oversubscription, 0.0024630449522107414, 1e-12);
	assert_double_rel(c.resident_estimate, 1866.458667444234, 1e-12);
	assert_double_rel(c.kv_bytes_per_token, 9071.672614976987, 1e-12);

	/* the log's capacity line wins over a run.json pool that contradicts
	 * it (a helper's report: run.json's 1,000 tokens beside the log's 4.64
	 * GiB gave "81.92× the pool" for a run the metrics showed unpreempted) */
	run.kv_pool_tokens_override = 800000;
	br_analyze_capacity(&run, &c);
	assert_string_equal(c.kv_pool_source, "server log");
	assert_double_abs(c.kv_pool_tokens, 1600255, 0);
	assert_double_rel(c.predicted_max_concurrency, 4.0006375, 1e-15);

	/* an override equal to the log's value changes nothing: the source
	 * is the server log */
	run.kv_pool_tokens_override = 1600255;
	br_analyze_capacity(&run, &c);
	assert_string_equal(c.kv_pool_source, "server log");
	assert_double_abs(c.kv_pool_tokens, 1600255, 0);

	/* an override with no pool in the log is the run.json value */
	run.kv_pool_tokens_override = 1600255;
	l.kv_pool_tokens = NAN;
	br_analyze_capacity(&run, &c);
	assert_string_equal(c.kv_pool_source, "run.json");
	l.kv_pool_tokens = 1600255;

	/* open loop: no C → demand and oversubscription absent, rest stays */
	run.kv_pool_tokens_override = NAN;
	b.max_concurrency = NAN;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_nan(c.concurrency);
	assert_nan(c.demand_tokens);
	assert_nan(c.oversubscription);
	assert_double_rel(c.resident_estimate, 1866.458667444234, 1e-12);
}

/*
 * Fewer prompts than the concurrency (tester's round 1 with num_prompts 1):
 * C = 64, N = 1, 6144 in / 2048 out, P = 86,864. By hand: C_eff = min(64,
 * 1) = 1; demand 1·8192 = 8192; oversubscription 8192/86864 =
 * 0.094308344078... (python3: 8192/86864); the configured C stays 64.
 * N = 32: C_eff 32, demand 262,144, 3.01786... (262144/86864). N = 128
 * (round 1): C_eff 64. N unknown but 10 per-request records → N = 10;
 * nothing at all → C. Open loop: NAN.
 */
static void
test_effective_concurrency(void **state)
{
	(void)state;
	br_run run;
	br_bench b;
	br_server_log l;
	reference_run(&run, &b, &l, 86864, 4.64, 10.60);
	b.num_prompts = 1;
	b.completed = 1;
	b.failed = 0;
	b.total_input_tokens = 6144;
	b.total_output_tokens = 2048;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_double_abs(c.concurrency, 64, 0);
	assert_double_abs(c.effective_concurrency, 1, 0);
	assert_non_null(c.effective_concurrency_reason);
	assert_non_null(strstr(c.effective_concurrency_reason, "fewer prompts"));
	assert_double_abs(c.demand_tokens, 8192, 0);
	assert_double_rel(c.oversubscription, 0.0943083440780991, 1e-12);
	assert_true(c.oversubscription < 1);

	b.num_prompts = 32;
	b.completed = 32;
	b.total_input_tokens = 32.0 * 6144;
	b.total_output_tokens = 32.0 * 2048;
	br_analyze_capacity(&run, &c);
	assert_double_abs(c.effective_concurrency, 32, 0);
	assert_double_abs(c.demand_tokens, 262144, 0);
	assert_double_rel(c.oversubscription, 3.017867010499171, 1e-12);

	b.num_prompts = 128;   /* round 1 as run: N > C */
	br_analyze_capacity(&run, &c);
	assert_double_abs(c.effective_concurrency, 64, 0);
	assert_string_equal(c.effective_concurrency_reason, "max_concurrency (num_prompts >= max_concurrency)");
	assert_double_abs(c.demand_tokens, 524288, 0);

	/* N = C exactly: C */
	b.num_prompts = 64;
	assert_double_abs(br_effective_concurrency(&b, NULL), 64, 0);

	/* num_prompts absent: the per-request records count */
	b.num_prompts = NAN;
	b.n_requests = 10;
	assert_double_abs(br_effective_concurrency(&b, NULL), 10, 0);
	/* then completed + failed */
	b.n_requests = 0;
	b.completed = 3;
	b.failed = 2;
	assert_double_abs(br_effective_concurrency(&b, NULL), 5, 0);
	/* nothing known: C, and the reason says so */
	b.completed = b.failed = NAN;
	const char *why = NULL;
	assert_double_abs(br_effective_concurrency(&b, &why), 64, 0);
	assert_string_equal(why, "max_concurrency (number of prompts unknown)");
	/* open loop */
	b.max_concurrency = NAN;
	b.num_prompts = 1;
	assert_nan(br_effective_concurrency(&b, &why));
	assert_null(why);
	assert_nan(br_effective_concurrency(NULL, &why));
}

/* No log, no override, no metrics: unavailable, every number NAN. */
static void
test_missing(void **state)
{
	(void)state;
	br_bench b;
	bench_blank(&b);
	b.max_concurrency = 4;
	b.completed = 16;
	b.total_input_tokens = 11670;
	b.total_output_tokens = 4096;
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	run.bench.runs = &b;
	run.bench.n = 1;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 0);
	assert_string_equal(c.missing, "needs the server log (GPU KV cache size line)");
	assert_nan(c.kv_pool_tokens);
	assert_nan(c.oversubscription);
	assert_nan(c.predicted_max_concurrency);

	/* a log that never started */
	br_server_log l;
	log_blank(&l);
	l.did_not_start = 1;
	run.log = &l;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 0);
	assert_non_null(strstr(c.missing, "never started"));
}

/*
 * P from vllm:cache_config_info of the real glm52 snapshot (label
 * kv_cache_size_tokens="1600255"; num_gpu_blocks 6253 × block_size 64 would
 * be the fallback) when no log is present.
 */
static void
test_cache_config_info_real(void **state)
{
	(void)state;
	char *p = br_test_real("runs/glm52-mtp3-c4-r2/metrics-after.prom");
	if (p == NULL) {
		skip();
		return;
	}
	br_series s;
	char *cause = NULL;
	if (br_prom_load(p, &s, &cause) != 0)
		fail_msg("br_prom_load: %s", cause);
	br_bench b;
	bench_blank(&b);
	b.max_concurrency = 4;
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	run.bench.runs = &b;
	run.bench.n = 1;
	run.metrics = &s;
	run.metrics_kind = BR_METRICS_SNAPSHOT;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_string_equal(c.kv_pool_source, "vllm:cache_config_info");
	assert_double_abs(c.kv_pool_tokens, 1600255, 0);
	/* kv_cache_max_concurrency="4.000639795265515" = P / max_model_len: the
	 * same server's log says "Maximum concurrency for 400,000 tokens per
	 * request: 4.00x", so M = round(1600255 / 4.0006398) = 400,000 and
	 * P / M = 1600255 / 400000 = 4.0006375 */
	assert_double_abs(c.max_model_len_tokens, 400000, 0);
	assert_double_abs(c.predicted_max_concurrency, 4.0006375, 1e-12);
	assert_double_abs(c.log_max_concurrency_x, 4.000639795265515, 1e-15);
	br_series_free(&s);
	free(p);
}

/* The fallback num_gpu_blocks × block_size when kv_cache_size_tokens is absent. */
static void
test_cache_config_info_blocks(void **state)
{
	(void)state;
	char *names[2] = {
		"vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",num_gpu_blocks=\"5429\"}",
		"vllm:num_requests_running" };
	double c0[1] = { 1 }, c1[1] = { 0 };
	double *cols[2] = { c0, c1 };
	double t[1] = { NAN };
	br_series s = { .source_path = NULL, .n_rows = 1, .t_s = t, .n_cols = 2,
		.names = names, .cols = cols };
	br_bench b;
	bench_blank(&b);
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	run.bench.runs = &b;
	run.bench.n = 1;
	run.metrics = &s;
	run.metrics_kind = BR_METRICS_SNAPSHOT;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 1);
	assert_double_abs(c.kv_pool_tokens, 5429.0 * 16, 0);   /* 86,864 */
}

/*
 * br_log_cap: the log's max_num_seqs unless the run saw more running: a
 * 5-row series (idle, 3 busy rows, idle) with the running gauge's busy
 * peak given per row, or a statistics line of the log. Expected by hand:
 * the cap when nothing exceeds it; NAN plus what exceeded it otherwise.
 * The resident estimate P / (in + out/2) = 12.12 for round 1 is capped only
 * by a cap that stands.
 */
static void
test_log_cap_contradicted(void **state)
{
	(void)state;
	static const struct {
		double cap, series_peak, log_running;   /* NAN: no series / no stats line */
		double want, want_seen;
		const char *want_where;
	} rows[] = {
		{ 8, 8, NAN, 8, NAN, NULL },                     /* reached, not exceeded */
		{ 8, 14, NAN, NAN, 14, "the metrics" },
		{ 8, NAN, 9, NAN, 9, "the log's own statistics lines" },
		{ 8, 14, 9, NAN, 14, "the metrics" },            /* the metrics speak first */
		{ 128, 14, 20, 128, NAN, NULL },
		{ NAN, 14, NAN, NAN, NAN, NULL },                 /* the log states no cap */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		br_run run;
		br_bench b;
		br_server_log l;
		reference_run(&run, &b, &l, 86864, 4.64, 10.60);
		l.max_num_seqs = rows[i].cap;
		br_log_stat st = { .running = rows[i].log_running };
		if (!isnan(rows[i].log_running)) {
			l.stats = &st;
			l.n_stats = 1;
		}
		char *names[1] = { "vllm:num_requests_running" };
		double running[5] = { 0, 3, rows[i].series_peak, 2, 0 }, t[5] = { 0, 1, 2, 3, 4 };
		double *cols[1] = { running };
		br_series s = { .source_path = NULL, .n_rows = 5, .t_s = t, .n_cols = 1,
			.names = names, .cols = cols };
		if (!isnan(rows[i].series_peak)) {
			run.metrics = &s;
			run.metrics_kind = BR_METRICS_CSV;
		}
		double seen = 0;
		const char *where = "x";
		double got = br_log_cap(&run, &seen, &where);
		if (!(isnan(rows[i].want) ? isnan(got) : got == rows[i].want))
			fail_msg("row %zu: cap %g, want %g", i, got, rows[i].want);
		if (!(isnan(rows[i].want_seen) ? isnan(seen) : seen == rows[i].want_seen))
			fail_msg("row %zu: seen %g, want %g", i, seen, rows[i].want_seen);
		if (rows[i].want_where == NULL ? where != NULL : where == NULL || strcmp(where, rows[i].want_where) != 0)
			fail_msg("row %zu: where %s, want %s", i, where ? where : "NULL",
			    rows[i].want_where ? rows[i].want_where : "NULL");
		br_capacity c;
		br_analyze_capacity(&run, &c);
		int capped = !isnan(rows[i].want) && rows[i].want < 12.118303571428571;
		assert_int_equal(c.resident_capped_by_max_num_seqs, capped);
		assert_double_rel(c.resident_estimate, capped ? rows[i].want : 12.118303571428571, 1e-12);
	}
}

/*
 * The real glm52 run folder through br_run_load + br_analyze: the server log
 * gives P 1,600,255 tokens, "Maximum concurrency for 400,000 tokens per
 * request: 4.00x", 13.52 GiB (grep of server.log); stress.json C 4,
 * 11670/4096 tokens over 16 completed. Expected by hand as in
 * test_glm52_values; the ledger comes from the before/after pair.
 */
static void
test_real_run_folder(void **state)
{
	(void)state;
	char *dir = br_test_real("runs/glm52-mtp3-c4-r2/server.log");
	if (dir == NULL) {
		skip();
		return;
	}
	*strrchr(dir, '/') = '\0';
	br_run run;
	char *cause = NULL;
	if (br_run_load(dir, NULL, &run, &cause) != 0)
		fail_msg("br_run_load: %s", cause);
	br_analysis a;
	br_analyze(&run, &a);
	assert_ptr_equal(a.run, &run);
	const br_capacity *c = &a.capacity;
	assert_int_equal(c->available, 1);
	assert_string_equal(c->kv_pool_source, "server log");
	assert_double_abs(c->kv_pool_tokens, 1600255, 0);
	assert_double_abs(c->max_model_len_tokens, 400000, 0);
	assert_double_rel(c->predicted_max_concurrency, 4.0006375, 1e-15);
	assert_double_abs(c->log_max_concurrency_x, 4.00, 0);
	/* 13.52 GiB per GPU · 2^30 · decode_context_parallel_size 4 / 1,600,255
	 * tokens (the logged pool counts all 4 DCP ranks' tokens; its
	 * cache_config_info num_gpu_blocks 6253 × block 64 = 400,192 per rank):
	 * python 13.52*2**30*4/1600255 */
	assert_double_rel(c->kv_bytes_per_token, 36286.69045990795, 1e-12);
	assert_double_rel(c->oversubscription, 0.0024630449522107414, 1e-12);
	/* latency from the file's values (no arrays in stress.json) */
	assert_int_equal(a.latency.from_arrays, 0);
	assert_double_rel(a.latency.m[BR_TTFT].mean, 782.6371825503884, 1e-15);
	/* ledger from the before/after pair (metrics-before/after.prom) */
	assert_int_equal(run.metrics_kind, BR_METRICS_PAIR);
	assert_int_equal(a.ledger.available, 1);
	assert_int_equal(a.ledger.n_rows, 9);
	for (size_t i = 0; i < a.ledger.n_rows; i++)
		assert_int_not_equal(a.ledger.rows[i].agrees, 0);
	/* no 1 Hz series here */
	assert_int_equal(a.residency.available, 0);
	assert_string_equal(a.residency.missing, "needs a 1 Hz metrics series (metrics.csv)");
	br_analysis_free(&a);
	br_run_free(&run);
	free(dir);
}

/* A server that failed at start-up (traceback, no KV lines): no capacity, said plainly. */
static void
test_real_failed_start(void **state)
{
	(void)state;
	char *p = br_test_real("logs/vllm-0.25.1-max-model-len-rejected.log");
	if (p == NULL) {
		skip();
		return;
	}
	br_server_log l;
	char *cause = NULL;
	if (br_server_log_load(p, &l, &cause) != 0)
		fail_msg("br_server_log_load: %s", cause);
	br_bench b;
	bench_blank(&b);
	br_run run;
	memset(&run, 0, sizeof run);
	run.kv_pool_tokens_override = NAN;
	run.bench.runs = &b;
	run.bench.n = 1;
	run.log = &l;
	br_capacity c;
	br_analyze_capacity(&run, &c);
	assert_int_equal(c.available, 0);
	assert_non_null(strstr(c.missing, "never started"));
	assert_nan(c.kv_pool_tokens);
	br_server_log_free(&l);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round1),
		cmocka_unit_test(test_round2),
		cmocka_unit_test(test_glm52_values),
		cmocka_unit_test(test_effective_concurrency),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_cache_config_info_real),
		cmocka_unit_test(test_cache_config_info_blocks),
		cmocka_unit_test(test_log_cap_contradicted),
		cmocka_unit_test(test_real_run_folder),
		cmocka_unit_test(test_real_failed_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

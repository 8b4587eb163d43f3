/*
 * Tests of the bench result parser (src/ingest/bench_json.c, bench_free.c).
 * Expected values come from the files themselves, read with Python's json
 * module (python3 -c "import json; d=json.load(open(F)); print(repr(d[K]))"),
 * or from the fixture text as written (fixtures/bench/ and fixtures/bad/).
 */
#include "br_test.h"
#include "benchreport/bench.h"

/* load: br_bench_load a source-tree fixture; fails the test on error. */
static void
load_src(const char *rel, br_bench_set *s)
{
	char *p = br_test_src(rel);
	char *cause = NULL;
	int rc = br_bench_load(p, s, &cause);
	if (rc != 0)
		fail_msg("%s: %s", rel, cause ? cause : "(no cause)");
	assert_null(cause);
	assert_true(s->n >= 1);
	free(p);
}

/* load_bad: br_bench_load must fail; returns the cause (caller frees). */
static char *
load_bad(const char *rel)
{
	char *p = br_test_src(rel);
	br_bench_set s = { (br_bench *)1, 99 };
	char *cause = NULL;
	int rc = br_bench_load(p, &s, &cause);
	assert_int_equal(rc, -1);
	assert_non_null(cause);
	assert_null(s.runs);          /* nothing handed out on failure */
	assert_int_equal(s.n, 0);
	/* the message names the file */
	if (strstr(cause, p) == NULL)
		fail_msg("cause lacks the path: %s", cause);
	free(p);
	return cause;
}

/* assert_contains: cause must contain needle. */
#define assert_contains(hay, needle) do { \
	if (strstr((hay), (needle)) == NULL) \
		fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle)); \
} while (0)

/* ---------- real files (skipped when ../shared/real is absent) ---------- */

/* stress.json: one-line vLLM 0.23.1 result, no per-request arrays. Values
 * copied from the file text. */
static void
t_real_stress(void **state)
{
	char *p = br_test_real("runs/glm52-mtp3-c4-r2/stress.json");
	if (p == NULL)
		skip();
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_load(p, &s, &cause), 0);
	assert_int_equal(s.n, 1);
	br_bench *b = &s.runs[0];
	assert_string_equal(b->source_path, p);
	assert_int_equal(b->source_index, 0);
	assert_int_equal(b->source_line, 1);
	assert_string_equal(b->date, "20260801-035708");
	assert_string_equal(b->backend, "openai");
	assert_null(b->label);                               /* "label": null */
	assert_string_equal(b->model_id, "glm52-w4a16-tiered");
	assert_double_abs(b->num_prompts, 16, 0);
	assert_true(isinf(b->request_rate_rps) && b->request_rate_rps > 0); /* "inf" */
	assert_double_abs(b->burstiness, 1.0, 0);
	assert_double_abs(b->max_concurrency, 4, 0);
	assert_nan(b->run_number);
	assert_double_abs(b->duration_s, 26.112403583014384, 0);
	assert_double_abs(b->completed, 16, 0);
	assert_double_abs(b->failed, 0, 0);
	assert_int_equal(b->failed_derived, 0);
	assert_double_abs(b->total_input_tokens, 11670, 0);
	assert_double_abs(b->total_output_tokens, 4096, 0);
	assert_double_abs(b->request_throughput_rps, 0.6127356276925687, 0);
	assert_nan(b->request_goodput_rps);                  /* null */
	assert_double_abs(b->output_throughput_tps, 156.8603206892976, 0);
	assert_double_abs(b->total_token_throughput_tps, 603.7743691375649, 0);
	assert_nan(b->input_throughput_tps);
	assert_double_abs(b->max_output_tokens_per_s, 80.0, 0);
	assert_double_abs(b->max_concurrent_requests, 6, 0);
	assert_double_abs(b->spec_decode_acceptance_rate, 62.526315789473685, 0);
	assert_double_abs(b->spec_decode_acceptance_length, 2.8757894736842102, 0);
	assert_double_abs(b->spec_decode_num_drafts, 1425, 0);
	assert_double_abs(b->spec_decode_draft_tokens, 4275, 0);
	assert_double_abs(b->spec_decode_accepted_tokens, 2673, 0);
	/* 3 metrics (ttft, tpot, itl) x mean/median/std/p99 */
	assert_int_equal(b->n_stats, 12);
	assert_double_abs(br_bench_file_stat(b, "ttft", "p", 99), 2032.3611899511889, 0);
	assert_double_abs(br_bench_file_stat(b, "ttft", "mean", NAN), 782.6371825503884, 0);
	assert_double_abs(br_bench_file_stat(b, "tpot", "median", 0), 20.617735058562282, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "std", NAN), 54.872089691785824, 0);
	assert_nan(br_bench_file_stat(b, "e2el", "mean", NAN));  /* not in the file */
	assert_nan(br_bench_file_stat(b, "ttft", "p", 99.9));
	assert_int_equal(b->n_requests, 0);
	assert_null(b->requests);
	/* rtfx and the per-position list are not modelled: extras, as written */
	assert_string_equal(br_bench_extra_get(b, "rtfx"), "0.0");
	assert_string_equal(br_bench_extra_get(b, "spec_decode_per_position_acceptance_rates"),
	    "[0.8189473684210526, 0.6042105263157894, 0.45263157894736844]");
	/* endpoint_type is a known key, not an extra */
	assert_null(br_bench_extra_get(b, "endpoint_type"));
	br_bench_set_free(&s);
	free(p);
}

/* glm52-c4-detailed.json: --save-detailed, 16 requests with itls and
 * start_times; no latencies/queue_times. Values from python json.load. */
static void
t_real_c4_detailed(void **state)
{
	char *p = br_test_real("bench/glm52-c4-detailed.json");
	if (p == NULL)
		skip();
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_load(p, &s, &cause), 0);
	br_bench *b = &s.runs[0];
	assert_double_abs(b->duration_s, 25.5480500201229, 0);
	assert_double_abs(b->completed, 16, 0);
	assert_double_abs(b->spec_decode_num_drafts, 1420, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "mean", NAN), 60.46837008948451, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "p", 99), 340.1760162622668, 0);
	assert_int_equal(b->n_requests, 16);
	assert_int_equal(b->has_start_times, 1);
	assert_int_equal(b->has_latencies, 0);
	assert_int_equal(b->has_queue_times, 0);
	/* itls lengths: [112, 86, 120, 74, 99, 68, 127, 83, 98, 80, 67, 80, 82, 66, 96, 82] */
	static const size_t n_itls[16] = { 112, 86, 120, 74, 99, 68, 127, 83, 98, 80, 67, 80, 82, 66, 96, 82 };
	size_t total = 0;
	for (size_t i = 0; i < 16; i++) {
		assert_int_equal(b->requests[i].n_itls, n_itls[i]);
		assert_int_equal(b->requests[i].failed, 0);         /* errors all "" */
		assert_string_equal(b->requests[i].error, "");
		assert_double_abs(b->requests[i].output_len_tokens, 256, 0);
		assert_nan(b->requests[i].latency_s);
		assert_nan(b->requests[i].queue_time_s);
		total += b->requests[i].n_itls;
	}
	assert_int_equal(total, 1420);   /* one chunk per draft round: equals spec_decode_num_drafts */
	assert_double_abs(b->requests[0].input_len_tokens, 2277, 0);
	assert_double_abs(b->requests[1].input_len_tokens, 1602, 0);
	assert_double_abs(b->requests[2].input_len_tokens, 395, 0);
	assert_double_abs(b->requests[0].ttft_s, 0.6968687300104648, 0);
	assert_double_abs(b->requests[0].start_time_s, 1302806.807655553, 0);
	assert_double_abs(b->requests[15].start_time_s, 1302828.815781909, 0);
	assert_double_abs(b->requests[0].itls_s[0], 0.2630175759550184, 0);
	assert_double_abs(b->requests[15].itls_s[81], 0.031634424114599824, 0);
	br_bench_set_free(&s);
	free(p);
}

/* glm52-batch1-detailed.json: one request, 255 ITLs. Sum by python. */
static void
t_real_batch1_detailed(void **state)
{
	char *p = br_test_real("bench/glm52-batch1-detailed.json");
	if (p == NULL)
		skip();
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_load(p, &s, &cause), 0);
	br_bench *b = &s.runs[0];
	assert_int_equal(b->n_requests, 1);
	assert_int_equal(b->requests[0].n_itls, 255);
	double sum = 0;
	for (size_t k = 0; k < 255; k++)
		sum += b->requests[0].itls_s[k];
	assert_double_rel(sum, 6.8649402629816905, 1e-12);   /* python sum(d["itls"][0]) */
	assert_double_abs(b->requests[0].itls_s[254], 0.02750191290397197, 0);
	assert_double_abs(b->requests[0].start_time_s, 613784.447780051, 0);
	assert_double_abs(b->requests[0].input_len_tokens, 4096, 0);
	assert_double_abs(b->max_concurrency, 1, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "median", NAN), 26.917532086372375, 0);
	br_bench_set_free(&s);
	free(p);
}

/* opt125m-v0.25.1.json: indent=2, sorted keys. */
static void
t_real_opt125m_sorted(void **state)
{
	char *p = br_test_real("bench/opt125m-v0.25.1.json");
	if (p == NULL)
		skip();
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_load(p, &s, &cause), 0);
	assert_int_equal(s.n, 1);
	br_bench *b = &s.runs[0];
	assert_string_equal(b->backend, "vllm");
	assert_string_equal(b->model_id, "facebook/opt-125m");
	assert_double_abs(b->duration_s, 1.5441598830002476, 0);
	assert_double_abs(b->completed, 8, 0);
	assert_double_abs(b->total_token_throughput_tps, 248.6789122211242, 0);
	assert_double_abs(br_bench_file_stat(b, "ttft", "p", 99), 734.4049174101428, 0);
	assert_int_equal(b->n_stats, 12);
	br_bench_set_free(&s);
	free(p);
}

#define SWEEP "bench/sweep-v0.25.1/SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8/"

/* vllm bench sweep: run=0.json, run=1.json and summary.json (array of 2). */
static void
t_real_sweep(void **state)
{
	char *p0 = br_test_real(SWEEP "run=0.json");
	char *p1 = br_test_real(SWEEP "run=1.json");
	char *ps = br_test_real(SWEEP "summary.json");
	if (p0 == NULL || p1 == NULL || ps == NULL) {
		free(p0);
		free(p1);
		free(ps);
		skip();
	}
	br_bench_set r0, r1, sum;
	char *cause = NULL;
	assert_int_equal(br_bench_load(p0, &r0, &cause), 0);
	assert_int_equal(br_bench_load(p1, &r1, &cause), 0);
	assert_int_equal(br_bench_load(ps, &sum, &cause), 0);
	assert_int_equal(r0.n, 1);
	assert_int_equal(r1.n, 1);
	assert_int_equal(sum.n, 2);
	assert_double_abs(r0.runs[0].run_number, 0, 0);
	assert_double_abs(r1.runs[0].run_number, 1, 0);
	assert_string_equal(br_bench_extra_get(&r0.runs[0], "run_number"), "0");
	assert_string_equal(br_bench_extra_get(&r0.runs[0], "max_num_seqs"), "4");
	assert_double_abs(r0.runs[0].duration_s, 1.3653671270003542, 0);
	assert_double_abs(r1.runs[0].duration_s, 0.6420253609976498, 0);
	/* 4 metrics (ttft, tpot, itl, e2el) x 4 */
	assert_int_equal(r0.runs[0].n_stats, 16);
	assert_double_abs(br_bench_file_stat(&r0.runs[0], "e2el", "p", 99), 876.8009717071254, 0);
	/* summary: same values, each run's line in the file ('{' lines 2 and 44) */
	for (int i = 0; i < 2; i++) {
		br_bench *a = &sum.runs[i], *b = i ? &r1.runs[0] : &r0.runs[0];
		assert_int_equal(a->source_index, i);
		assert_double_abs(a->run_number, i, 0);
		assert_double_abs(a->duration_s, b->duration_s, 0);
		assert_double_abs(a->request_throughput_rps, b->request_throughput_rps, 0);
		assert_int_equal(a->n_stats, b->n_stats);
		assert_string_equal(br_bench_extra_get(a, "max_num_seqs"), "4");
	}
	assert_int_equal(sum.runs[0].source_line, 2);
	assert_int_equal(sum.runs[1].source_line, 44);
	assert_double_abs(sum.runs[1].max_output_tokens_per_s, 128.0, 0);
	assert_int_equal(br_bench_looks_like(ps), 1);
	br_bench_set_free(&r0);
	br_bench_set_free(&r1);
	br_bench_set_free(&sum);
	free(p0);
	free(p1);
	free(ps);
}

/* ---------- fixtures ---------- */

/* Bare NaN / Infinity / -Infinity (Python json.dumps of a zero-success run
 * with --request-rate inf). Text inside strings stays text. */
static void
t_nan_inf(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/nan_inf.json", &s);
	br_bench *b = &s.runs[0];
	assert_true(isinf(b->request_rate_rps) && b->request_rate_rps > 0);
	assert_nan(b->max_concurrency);                  /* null */
	assert_double_abs(b->completed, 0, 0);
	assert_double_abs(b->failed, 10, 0);
	assert_int_equal(b->n_stats, 4);
	assert_nan(br_bench_file_stat(b, "ttft", "mean", NAN));
	assert_nan(br_bench_file_stat(b, "ttft", "p", 99));
	assert_string_equal(br_bench_extra_get(b, "note"), "NaN Infinity -Infinity stay text");
	assert_string_equal(br_bench_extra_get(b, "low_bound"), "-Infinity");
	br_bench_set_free(&s);
}

/* "inf", "Infinity", "nan", "-inf" and "80" strings in numeric fields. */
static void
t_inf_strings(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/inf_strings.json", &s);
	br_bench *b = &s.runs[0];
	assert_true(isinf(b->request_rate_rps) && b->request_rate_rps > 0);   /* "inf" */
	assert_true(isinf(b->burstiness) && b->burstiness > 0);               /* "Infinity" */
	assert_nan(b->request_goodput_rps);                                   /* "nan" */
	assert_double_abs(b->total_output_tokens, 80, 0);                     /* "80" */
	double m = br_bench_file_stat(b, "ttft", "mean", NAN);
	assert_true(isinf(m) && m < 0);                                       /* "-inf" */
	assert_string_equal(b->label, "inf-strings");
	assert_string_equal(br_bench_extra_get(b, "floor"), "-inf");          /* a string extra stays text */
	br_bench_set_free(&s);
}

/* --append-result: 3 objects, the 2nd indented (lines 2..23), no final newline. */
static void
t_jsonl3(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/append3.jsonl", &s);
	assert_int_equal(s.n, 3);
	static const int lines[3] = { 1, 2, 24 };
	for (int k = 0; k < 3; k++) {
		br_bench *b = &s.runs[k];
		char label[16];
		snprintf(label, sizeof label, "run%d", k);
		assert_string_equal(b->label, label);
		assert_int_equal(b->source_index, k);
		assert_int_equal(b->source_line, lines[k]);
		/* generator: num_prompts 8(k+1), completed 8(k+1)-k, failed k, duration 1.5+k, rate k+1 */
		assert_double_abs(b->num_prompts, 8 * (k + 1), 0);
		assert_double_abs(b->completed, 8 * (k + 1) - k, 0);
		assert_double_abs(b->failed, k, 0);
		assert_double_abs(b->duration_s, 1.5 + k, 0);
		assert_double_abs(b->request_rate_rps, k + 1, 0);
		assert_double_abs(br_bench_file_stat(b, "ttft", "p", 99), 20.0 + k, 0);
	}
	br_bench_set_free(&s);
}

/* indent=4, sorted keys, no trailing newline. */
static void
t_indented_sorted(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/indented_sorted.json", &s);
	br_bench *b = &s.runs[0];
	assert_string_equal(b->backend, "vllm");
	assert_string_equal(b->model_id, "Qwen/Qwen2.5-7B");
	assert_double_abs(b->duration_s, 30.25, 0);
	assert_double_abs(b->completed, 98, 0);
	assert_double_abs(b->failed, 2, 0);
	assert_double_abs(b->max_concurrency, 16, 0);
	assert_double_abs(b->total_token_throughput_tps, 3799.8677685950414, 0);
	assert_int_equal(b->n_stats, 12);
	assert_double_abs(br_bench_file_stat(b, "ttft", "std", NAN), 40.125, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "p", 99), 80.0, 0);
	assert_int_equal(b->n_extras, 0);
	br_bench_set_free(&s);
}

/* 2024-10..2025-07: "request_goodput:" (trailing colon); no "failed" →
 * derived 50 - 47 = 3. */
static void
t_goodput_colon(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/goodput_colon.json", &s);
	br_bench *b = &s.runs[0];
	assert_double_abs(b->request_goodput_rps, 2.5, 0);
	assert_double_abs(b->failed, 3, 0);
	assert_int_equal(b->failed_derived, 1);
	assert_null(br_bench_extra_get(b, "request_goodput:"));
	assert_double_abs(b->request_rate_rps, 4.0, 0);
	br_bench_set_free(&s);
}

/* Early 2024: "request_inthroughput" typo, endpoint_type for backend, no
 * failed (20 - 18 = 2), no total_token_throughput (stays NAN: not invented). */
static void
t_inthroughput_2024(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/inthroughput_2024.json", &s);
	br_bench *b = &s.runs[0];
	assert_string_equal(b->backend, "openai-chat");
	assert_double_abs(b->input_throughput_tps, 180.0, 0);
	assert_nan(b->total_token_throughput_tps);
	assert_double_abs(b->failed, 2, 0);
	assert_int_equal(b->failed_derived, 1);
	assert_nan(b->burstiness);                       /* absent */
	assert_null(b->label);
	assert_string_equal(br_bench_extra_get(b, "best_of"), "1");
	assert_string_equal(br_bench_extra_get(b, "use_beam_search"), "false");
	br_bench_set_free(&s);

	/* "input_throughput" spelling; no num_prompts-free derivation issue */
	load_src("fixtures/bench/input_throughput.json", &s);
	assert_double_abs(s.runs[0].input_throughput_tps, 200.0, 0);
	assert_double_abs(s.runs[0].failed, 0, 0);        /* 10 - 10 */
	assert_int_equal(s.runs[0].failed_derived, 1);
	assert_null(s.runs[0].date);
	br_bench_set_free(&s);
}

/* --metric-percentiles 50,90,99,99.9 over 6 metrics: 6 x (3 + 4) = 42 stats. */
static void
t_percentiles(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/percentiles.json", &s);
	br_bench *b = &s.runs[0];
	assert_int_equal(b->n_stats, 42);
	/* generator: itl base 19.0, p99.9 = base * 2.5 = 47.5, p90 = base * 1.5 */
	assert_double_abs(br_bench_file_stat(b, "itl", "p", 99.9), 47.5, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "p", 99), 38.0, 0);
	assert_double_abs(br_bench_file_stat(b, "itl", "p", 90), 28.5, 0);
	assert_double_abs(br_bench_file_stat(b, "e2el", "mean", NAN), 1100.0, 0);
	assert_double_abs(br_bench_file_stat(b, "client_queue_time", "p", 99.9), 7.5, 0);
	assert_double_abs(br_bench_file_stat(b, "e2el_including_client_queue", "mean", NAN), 1103.0, 0);
	assert_double_abs(br_bench_file_stat(b, "e2el_including_client_queue", "p", 99.9), 2757.5, 0);
	assert_nan(br_bench_file_stat(b, "itl", "p", 95));
	/* the entry for "p99.9_itl_ms" keeps its pieces */
	int found = 0;
	for (size_t i = 0; i < b->n_stats; i++)
		if (strcmp(b->stats[i].key, "p99.9_itl_ms") == 0) {
			assert_string_equal(b->stats[i].metric, "itl");
			assert_string_equal(b->stats[i].stat, "p");
			assert_double_abs(b->stats[i].percentile, 99.9, 1e-12);
			found = 1;
		} else if (strcmp(b->stats[i].key, "median_e2el_ms") == 0) {
			assert_string_equal(b->stats[i].stat, "median");
			assert_nan(b->stats[i].percentile);
		}
	assert_int_equal(found, 1);
	br_bench_set_free(&s);
}

/* --metadata strings and sweep parameters go to extras in file order. */
static void
t_metadata(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/metadata.json", &s);
	br_bench *b = &s.runs[0];
	assert_int_equal(b->n_extras, 7);
	assert_string_equal(b->extras[0].key, "tp");
	assert_string_equal(b->extras[0].value, "1");
	assert_string_equal(b->extras[1].key, "gpu");
	assert_string_equal(br_bench_extra_get(b, "gpu"), "H100 80GB");
	assert_string_equal(br_bench_extra_get(b, "max_num_seqs"), "256");
	assert_string_equal(br_bench_extra_get(b, "gpu_memory_utilization"), "0.9");
	assert_string_equal(br_bench_extra_get(b, "enforce_eager"), "true");
	assert_string_equal(br_bench_extra_get(b, "spec_decode_per_position_acceptance_rates"),
	    "[0.8, 0.6, 0.45]");
	assert_string_equal(br_bench_extra_get(b, "run_number"), "3");
	assert_double_abs(b->run_number, 3, 0);
	assert_null(br_bench_extra_get(b, "nope"));
	assert_null(br_bench_extra_get(NULL, "tp"));
	br_bench_set_free(&s);
}

/* A detailed file with one failed request (index 2): traceback error,
 * output_len 0, ttft 0.0, itls []. */
static void
t_detailed_failed(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/detailed_failed.json", &s);
	br_bench *b = &s.runs[0];
	assert_int_equal(b->n_requests, 4);
	assert_int_equal(b->has_latencies, 1);
	assert_int_equal(b->has_start_times, 1);
	assert_int_equal(b->has_queue_times, 1);
	const br_request *r = b->requests;
	assert_int_equal(r[0].failed, 0);
	assert_int_equal(r[1].failed, 0);
	assert_int_equal(r[2].failed, 1);
	assert_int_equal(r[3].failed, 0);
	assert_true(strncmp(r[2].error, "Traceback (most recent call last):\n", 35) == 0);
	assert_contains(r[2].error, "ClientPayloadError: Response payload is not completed");
	assert_double_abs(r[2].output_len_tokens, 0, 0);
	assert_double_abs(r[2].ttft_s, 0.0, 0);
	assert_int_equal(r[2].n_itls, 0);
	assert_null(r[2].itls_s);
	assert_double_abs(r[2].input_len_tokens, 120, 0);
	assert_double_abs(r[2].queue_time_s, 0.25, 0);
	assert_int_equal(r[0].n_itls, 4);
	assert_int_equal(r[1].n_itls, 3);
	assert_double_abs(r[1].itls_s[1], 0.0625, 0);
	assert_double_abs(r[3].latency_s, 0.725, 0);
	assert_double_abs(r[3].start_time_s, 1000.875, 0);
	assert_double_abs(b->failed, 1, 0);
	assert_null(br_bench_extra_get(b, "generated_texts"));   /* texts are not kept */
	br_bench_set_free(&s);
}

/* \uXXXX escapes: CJK, Latin-1, a surrogate pair, a lone \ufffd, and a lone
 * surrogate \udc80 (written by Python for undecodable bytes) → U+FFFD. */
static void
t_unicode(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/unicode_escapes.json", &s);
	br_bench *b = &s.runs[0];
	/* 测试 résumé 🚀 in UTF-8 */
	assert_string_equal(b->label,
	    "\xe6\xb5\x8b\xe8\xaf\x95 r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80");
	assert_string_equal(br_bench_extra_get(b, "replacement"), "a\xef\xbf\xbd" "b");
	assert_string_equal(br_bench_extra_get(b, "lone_surrogate"), "x\xef\xbf\xbdy");
	br_bench_set_free(&s);
}

/* br_bench_parse_text on memory: JSONL with a blank line, trailing newline,
 * CRLF line ends, Infinity inside an indented object. */
static void
t_parse_text(void **state)
{
	const char *txt =
	    "{\"duration\": 1, \"completed\": 2, \"num_prompts\": 3}\r\n"
	    "\r\n"
	    "{\n  \"duration\": 2.5,\n  \"completed\": 4,\n  \"request_rate\": Infinity,\n"
	    "  \"burstiness\": -Infinity, \"max_concurrency\": NaN\n}\n";
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_parse_text("mem.jsonl", txt, strlen(txt), &s, &cause), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.runs[0].source_path, "mem.jsonl");
	assert_int_equal(s.runs[0].source_line, 1);
	assert_int_equal(s.runs[1].source_line, 3);
	assert_double_abs(s.runs[0].failed, 1, 0);      /* 3 - 2, derived */
	assert_true(isinf(s.runs[1].request_rate_rps) && s.runs[1].request_rate_rps > 0);
	assert_true(isinf(s.runs[1].burstiness) && s.runs[1].burstiness < 0);
	assert_nan(s.runs[1].max_concurrency);
	assert_nan(s.runs[1].failed);                   /* no failed, no num_prompts */
	br_bench_set_free(&s);

	/* an error inside a later object reports the line of the whole text */
	const char *bad = "{\"duration\": 1, \"completed\": 2}\n{\"duration\": 1,\n \"completed\": tru}\n";
	assert_int_equal(br_bench_parse_text("mem2.jsonl", bad, strlen(bad), &s, &cause), -1);
	assert_contains(cause, "mem2.jsonl:3:");
	free(cause);
	cause = NULL;

	/* garbage after an object */
	const char *junk = "{\"duration\": 1, \"completed\": 2}\nnot json\n";
	assert_int_equal(br_bench_parse_text("mem3", junk, strlen(junk), &s, &cause), -1);
	assert_contains(cause, "mem3:2:1: expected '{'");
	free(cause);
	cause = NULL;

	/* bare tokens must not be rewritten when glued to other text */
	const char *glued = "{\"duration\": 1, \"completed\": NaNx}";
	assert_int_equal(br_bench_parse_text("mem4", glued, strlen(glued), &s, &cause), -1);
	assert_contains(cause, "mem4:1:");
	assert_contains(cause, "malformed JSON");
	free(cause);
}

/* ---------- bad inputs ---------- */

/* Truncated: line 2 is 43 bytes long; jansson reaches end of input, the
 * position reported is just past the last byte: 2:44. */
static void
t_bad_truncated(void **state)
{
	char *c = load_bad("fixtures/bad/truncated.json");
	assert_contains(c, "truncated.json:2:44: ");
	assert_contains(c, "malformed JSON");
	free(c);
	/* JSONL whose 2nd object is cut: line 2, 31 bytes → 2:32 */
	c = load_bad("fixtures/bad/jsonl_truncated.jsonl");
	assert_contains(c, "jsonl_truncated.jsonl:2:32: ");
	free(c);
}

static void
t_bad_empty(void **state)
{
	char *c = load_bad("fixtures/bad/empty.json");
	assert_contains(c, "empty.json: empty file, expected a vLLM bench result JSON");
	free(c);
	c = load_bad("fixtures/bad/whitespace_only.json");
	assert_contains(c, "whitespace_only.json: empty file");
	free(c);
}

/* gzip bytes (NUL at offset 3 → 1:4) and Latin-1 text (0xe9 at offset 12 → 1:13). */
static void
t_bad_binary(void **state)
{
	char *c = load_bad("fixtures/bad/binary.json");
	assert_contains(c, "binary.json:1:4: ");
	assert_contains(c, "binary file");
	free(c);
	c = load_bad("fixtures/bad/latin1.json");
	assert_contains(c, "latin1.json:1:13: not UTF-8 text (byte 0xE9 at 1:13); expected a UTF-8 JSON file");
	assert_null(strstr(c, "binary"));
	free(c);
}

static void
t_bad_not_bench(void **state)
{
	char *c = load_bad("fixtures/bad/not_bench.json");
	assert_contains(c, "not_bench.json:1:1: ");
	assert_contains(c, "not a vllm bench serve result");
	free(c);
	c = load_bad("fixtures/bad/array_of_numbers.json");
	assert_contains(c, "array_of_numbers.json:1:2: expected a JSON object");
	free(c);
	char *p = br_test_src("fixtures/bad/not_bench.json");
	assert_int_equal(br_bench_looks_like(p), 0);
	free(p);
	p = br_test_src("fixtures/bench/metadata.json");
	assert_int_equal(br_bench_looks_like(p), 1);
	free(p);
	assert_int_equal(br_bench_looks_like("/nonexistent/x.json"), 0);
}

/* "ttfts" (line 4, col 2) has 2 entries, "input_lens" has 3. */
static void
t_bad_mismatched(void **state)
{
	char *c = load_bad("fixtures/bad/mismatched_arrays.json");
	assert_contains(c, "mismatched_arrays.json:4:2: ");
	assert_contains(c, "\"ttfts\" has 2 entries but \"input_lens\" has 3");
	free(c);
}

/* "completed": "sixteen" — the key is at line 3, col 5. */
static void
t_bad_wrong_type(void **state)
{
	char *c = load_bad("fixtures/bad/completed_string.json");
	assert_contains(c, "completed_string.json:3:5: \"completed\": expected a number");
	free(c);
}

/* Duplicated top-level key: "completed" again at line 4, col 2 (jansson's
 * JSON_REJECT_DUPLICATES, reworded); a nested duplicate is named too. */
static void
t_bad_dup_key(void **state)
{
	char *c = load_bad("fixtures/bad/bench_dup_key.json");
	assert_contains(c, "bench_dup_key.json:4:2: key \"completed\" appears twice");
	assert_null(strstr(c, "duplicate object key"));
	free(c);
	const char *t = "{\"duration\": 1, \"completed\": 1,\n \"x\": {\"a\\u0062\": 1, \"ab\": 2}}";
	br_bench_set s;
	c = NULL;
	assert_int_equal(br_bench_parse_text("dup.json", t, strlen(t), &s, &c), -1);
	/* "ab" (second spelling) starts at line 2, col 22: 1 blank, "x" 2-4, ": " 5-6,
	 * "{" 7, "a\\u0062" 8-16, ": 1, " 17-21 */
	assert_contains(c, "dup.json:2:22: key \"ab\" appears twice");
	free(c);
}

/* No jansson-internal word in any message: \u0000 in a string, a number
 * beyond a double, a too-big integer. */
static void
t_bad_jansson_words(void **state)
{
	char *c = load_bad("fixtures/bad/bench_nul_escape.json");
	assert_contains(c, "bench_nul_escape.json:2:");
	assert_contains(c, "\\u0000 (a NUL character) inside a string is not supported");
	assert_null(strstr(c, "JSON_"));
	free(c);
	const char *texts[] = {
		"{\"duration\": 1e400, \"completed\": 1}",
		"{\"duration\": 1, \"completed\": 123456789012345678901234567890}",
		"{\"duration\": 1, \"\\u0000\": 1}",
		"{\"duration\": NaN, \"completed\": 1, \"x\": [NaN NaN]}",
	};
	const char *want[] = { "number too large", "integer too large", "in a key", "malformed JSON" };
	for (int i = 0; i < 4; i++) {
		br_bench_set s;
		c = NULL;
		assert_int_equal(br_bench_parse_text("j.json", texts[i], strlen(texts[i]), &s, &c), -1);
		assert_contains(c, want[i]);
		assert_null(strstr(c, "JSON_"));
		assert_null(strchr(c, 0x7f));   /* no NaN sentinel byte */
		free(c);
	}
}

/* Per-request values of successful requests: -0.5 in ttfts[1] (line 4,
 * col 17) and NaN in itls[1][1] (line 5, col 18) are refused; the same
 * values in a failed request are accepted. */
static void
t_bad_request_values(void **state)
{
	char *c = load_bad("fixtures/bad/bench_negative_ttft.json");
	assert_contains(c, "bench_negative_ttft.json:4:17: \"ttfts\"[1]: -0.5 is negative for successful request 1");
	free(c);
	c = load_bad("fixtures/bad/bench_nan_itl.json");
	assert_contains(c, "bench_nan_itl.json:5:18: \"itls\"[1][1]: NaN for successful request 1");
	free(c);
	const char *bad[] = {
		"{\"duration\": 1, \"completed\": 1, \"latencies\": [Infinity], \"ttfts\": [0.1], \"output_lens\": [2]}",
		"{\"duration\": 1, \"completed\": 1, \"input_lens\": [-7], \"ttfts\": [0.1], \"output_lens\": [2]}",
		"{\"duration\": 1, \"completed\": 1, \"output_lens\": [\"-inf\"], \"ttfts\": [0.1]}",
	};
	const char *want[] = { "\"latencies\"[0]: Infinity", "\"input_lens\"[0]: -7 is negative",
		"\"output_lens\"[0]: -Infinity" };
	for (int i = 0; i < 3; i++) {
		br_bench_set s;
		c = NULL;
		assert_int_equal(br_bench_parse_text("r.json", bad[i], strlen(bad[i]), &s, &c), -1);
		assert_contains(c, want[i]);
		free(c);
	}
	/* request 1 failed (non-empty error): its -1 TTFT and NaN ITL are not checked;
	 * a null value is "absent" and allowed */
	const char *ok = "{\"duration\": 1, \"completed\": 1, \"failed\": 1, \"ttfts\": [null, -1],"
	    " \"itls\": [[0.5], [NaN]], \"output_lens\": [2, 0], \"errors\": [\"\", \"boom\"]}";
	br_bench_set s;
	c = NULL;
	if (br_bench_parse_text("ok.json", ok, strlen(ok), &s, &c) != 0)
		fail_msg("%s", c);
	assert_int_equal(s.runs[0].n_requests, 2);
	assert_nan(s.runs[0].requests[0].ttft_s);
	assert_double_abs(s.runs[0].requests[1].ttft_s, -1, 0);
	br_bench_set_free(&s);
}

/* Counts: negative completed (line 3, col 2), completed 1e308 (line 2,
 * col 2), completed 5 with 3 per-request entries (line 2, col 2). */
static void
t_bad_counts(void **state)
{
	char *c = load_bad("fixtures/bad/bench_negative_completed.json");
	assert_contains(c, "bench_negative_completed.json:3:2: \"completed\": -3 is negative");
	free(c);
	c = load_bad("fixtures/bad/bench_completed_huge.json");
	assert_contains(c, "bench_completed_huge.json:2:2: \"completed\": 1e+308: expected a whole number of requests");
	free(c);
	c = load_bad("fixtures/bad/bench_completed_gt_entries.json");
	assert_contains(c, "bench_completed_gt_entries.json:2:2: \"completed\": 5 but the per-request arrays hold only 3");
	free(c);
	const char *bad[] = {
		"{\"duration\": 1, \"completed\": 1, \"failed\": -1}",
		"{\"duration\": 1, \"completed\": 1, \"num_prompts\": -2}",
		"{\"duration\": 1, \"completed\": 1, \"total_input_tokens\": -100}",
		"{\"duration\": 1, \"completed\": 1, \"total_output_tokens\": Infinity}",
		"{\"duration\": 1, \"completed\": 2.5}",
	};
	const char *want[] = { "\"failed\": -1 is negative", "\"num_prompts\": -2 is negative",
		"\"total_input_tokens\": -100 is negative", "\"total_output_tokens\": inf: expected a whole number of tokens",
		"\"completed\": 2.5: expected a whole number of requests" };
	for (int i = 0; i < 5; i++) {
		br_bench_set s;
		c = NULL;
		assert_int_equal(br_bench_parse_text("n.json", bad[i], strlen(bad[i]), &s, &c), -1);
		assert_contains(c, want[i]);
		free(c);
	}
}

static void
t_missing_file(void **state)
{
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_load("/nonexistent/bench.json", &s, &cause), -1);
	assert_contains(cause, "/nonexistent/bench.json");
	free(cause);
	br_bench_set_free(NULL);
	br_bench_free(NULL);
	assert_nan(br_bench_file_stat(NULL, "ttft", "mean", NAN));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_real_stress),
		cmocka_unit_test(t_real_c4_detailed),
		cmocka_unit_test(t_real_batch1_detailed),
		cmocka_unit_test(t_real_opt125m_sorted),
		cmocka_unit_test(t_real_sweep),
		cmocka_unit_test(t_nan_inf),
		cmocka_unit_test(t_inf_strings),
		cmocka_unit_test(t_jsonl3),
		cmocka_unit_test(t_indented_sorted),
		cmocka_unit_test(t_goodput_colon),
		cmocka_unit_test(t_inthroughput_2024),
		cmocka_unit_test(t_percentiles),
		cmocka_unit_test(t_metadata),
		cmocka_unit_test(t_detailed_failed),
		cmocka_unit_test(t_unicode),
		cmocka_unit_test(t_parse_text),
		cmocka_unit_test(t_bad_truncated),
		cmocka_unit_test(t_bad_empty),
		cmocka_unit_test(t_bad_binary),
		cmocka_unit_test(t_bad_not_bench),
		cmocka_unit_test(t_bad_mismatched),
		cmocka_unit_test(t_bad_wrong_type),
		cmocka_unit_test(t_bad_dup_key),
		cmocka_unit_test(t_bad_jansson_words),
		cmocka_unit_test(t_bad_request_values),
		cmocka_unit_test(t_bad_counts),
		cmocka_unit_test(t_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

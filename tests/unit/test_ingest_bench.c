/*
 * Tests of the bench result parser (src/ingest/bench_json.c, bench_free.c).
 * Expected values come from the files themselves, read with Python's json
 * module (python3 -c "import json; d=json.load(open(F)); print(repr(d[K]))"),
 * or from the fixture text as written (fixtures/bench/ and fixtures/bad/).
 */
#include <dirent.h>
#include <unistd.h>
#include "br_test.h"
#include "benchreport/bench.h"
#include "benchreport/common.h"

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
		assert_null(b->requests[i].error);                  /* "" is kept as NULL */
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
	assert_double_abs(m, 150.0, 0);                                       /* "1.5e2" (a "-inf" latency is bad input: fixtures/bad) */
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
 * failed (20 - 18 = 2), no total_token_throughput: derived by vllm's own
 * formula (input + output tokens) / duration = (1800 + 900) / 10 = 270. */
static void
t_inthroughput_2024(void **state)
{
	br_bench_set s;
	load_src("fixtures/bench/inthroughput_2024.json", &s);
	br_bench *b = &s.runs[0];
	assert_string_equal(b->backend, "openai-chat");
	assert_double_abs(b->input_throughput_tps, 180.0, 0);
	assert_double_abs(b->total_token_throughput_tps, 270.0, 0);
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
	    "  \"burstiness\": Infinity, \"max_concurrency\": NaN\n}\n";
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(br_bench_parse_text("mem.jsonl", txt, strlen(txt), &s, &cause), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.runs[0].source_path, "mem.jsonl");
	assert_int_equal(s.runs[0].source_line, 1);
	assert_int_equal(s.runs[1].source_line, 3);
	assert_double_abs(s.runs[0].failed, 1, 0);      /* 3 - 2, derived */
	assert_true(isinf(s.runs[1].request_rate_rps) && s.runs[1].request_rate_rps > 0);
	assert_true(isinf(s.runs[1].burstiness) && s.runs[1].burstiness > 0);
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
		/* the header against the errors array (the breaker's edits of a real run) */
		"{\"duration\": 1, \"completed\": 3, \"failed\": 10, \"ttfts\": [0.1, 0.2, 0.3], \"errors\": [\"\", \"\", \"\"]}",
		"{\"duration\": 1, \"completed\": 2, \"ttfts\": [0.1, 0.2, 0.3], \"errors\": [\"\", null, \"\"]}",
		"{\"duration\": 1, \"completed\": 3, \"ttfts\": [0.1, 0.2, 0], \"errors\": [\"\", \"\", \"boom\"]}",
		/* the breaker's header edits of the demo's c16 run (columns counted by hand: 33 = after
		 * `{"duration": 1, "completed": 3, `, 35 with completed 128) */
		"{\"duration\": 1, \"completed\": 3, \"request_rate\": -2}",
		"{\"duration\": 1, \"completed\": 3, \"burstiness\": -1}",
		"{\"duration\": 1, \"completed\": 128, \"num_prompts\": 5}",
		"{\"duration\": 1, \"completed\": 128, \"num_prompts\": 128, \"failed\": 3}",
		"{\"duration\": 1, \"completed\": 3, \"date\": \"20261315-250000\"}",
		"{\"duration\": 1, \"completed\": 3, \"date\": \"20250229-120000\"}",
		"{\"duration\": 1, \"completed\": 3, \"output_throughput\": 1e9, \"total_token_throughput\": 3165.9}",
	};
	const char *want[] = { "\"failed\": -1 is negative", "\"num_prompts\": -2 is negative",
		"\"total_input_tokens\": -100 is negative", "\"total_output_tokens\": inf: expected a whole number of tokens",
		"\"completed\": 2.5: expected a whole number of requests",
		"n.json:1:33: \"failed\": 10 but 0 of the 3 per-request entries carry an error",
		"n.json:1:17: \"completed\": 2 but 3 of the 3 per-request entries have no error",
		"n.json:1:17: \"completed\": 3 but 2 of the 3 per-request entries have no error",
		"n.json:1:33: \"request_rate\": -2: expected the offered rate",
		"n.json:1:33: \"burstiness\": -1: expected the gamma shape",
		"n.json:1:35: \"num_prompts\": 5 but the run completed 128",
		"n.json:1:35: \"num_prompts\": 128 but the run completed 128 and failed more",
		"n.json:1:33: \"date\": \"20261315-250000\" is no time of day",
		"n.json:1:33: \"date\": \"20250229-120000\" is no time of day",
		"n.json:1:33: \"output_throughput\": 1e+09 tok/s is more than \"total_token_throughput\": 3165.9 tok/s" };
	for (int i = 0; i < (int)(sizeof want / sizeof want[0]); i++) {
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

/* ---------- fast path (numeric arrays read outside jansson) vs jansson only ---------- */

/* bits: the bit pattern of a double (so NaN, -0.0 and subnormals compare exactly). */
static uint64_t
bits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof u);
	return u;
}

#define assert_same_bits(a, b, what, ...) do { \
	double _x = (a), _y = (b); \
	if (bits(_x) != bits(_y)) \
		fail_msg("%s: " what ": fast %.17g (0x%016llx) != jansson %.17g (0x%016llx)", ctx, \
		    __VA_ARGS__, _x, (unsigned long long)bits(_x), _y, (unsigned long long)bits(_y)); \
} while (0)

/* assert_same_str: both NULL or equal. */
static void
assert_same_str(const char *ctx, const char *what, const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0))
		fail_msg("%s: %s: fast \"%s\" != jansson \"%s\"", ctx, what, a ? a : "(null)",
		    b ? b : "(null)");
}

/* assert_same_bench: every field of x (fast path) equals y's (jansson path),
 * numbers bitwise, every array element included. */
static void
assert_same_bench(const char *ctx, const br_bench *x, const br_bench *y)
{
	assert_same_str(ctx, "source_path", x->source_path, y->source_path);
	assert_int_equal(x->source_index, y->source_index);
	assert_int_equal(x->source_line, y->source_line);
	assert_same_str(ctx, "date", x->date, y->date);
	assert_same_str(ctx, "backend", x->backend, y->backend);
	assert_same_str(ctx, "label", x->label, y->label);
	assert_same_str(ctx, "model_id", x->model_id, y->model_id);
	assert_same_str(ctx, "tokenizer_id", x->tokenizer_id, y->tokenizer_id);
	/* the doubles from num_prompts to spec_decode_accepted_tokens */
	const struct { const char *name; size_t off; } nums[] = {
#define F(f) { #f, offsetof(br_bench, f) }
		F(num_prompts), F(request_rate_rps), F(burstiness), F(max_concurrency),
		F(run_number), F(duration_s), F(completed), F(failed), F(total_input_tokens),
		F(total_output_tokens), F(request_throughput_rps), F(request_goodput_rps),
		F(output_throughput_tps), F(total_token_throughput_tps), F(input_throughput_tps),
		F(max_output_tokens_per_s), F(max_concurrent_requests),
		F(spec_decode_acceptance_rate), F(spec_decode_acceptance_length),
		F(spec_decode_num_drafts), F(spec_decode_draft_tokens), F(spec_decode_accepted_tokens),
#undef F
	};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		assert_same_bits(*(const double *)((const char *)x + nums[i].off),
		    *(const double *)((const char *)y + nums[i].off), "%s", nums[i].name);
	assert_int_equal(x->failed_derived, y->failed_derived);
	assert_int_equal(x->n_stats, y->n_stats);
	for (size_t i = 0; i < x->n_stats; i++) {
		assert_string_equal(x->stats[i].key, y->stats[i].key);
		assert_string_equal(x->stats[i].metric, y->stats[i].metric);
		assert_string_equal(x->stats[i].stat, y->stats[i].stat);
		assert_same_bits(x->stats[i].percentile, y->stats[i].percentile, "stats[%zu].p", i);
		assert_same_bits(x->stats[i].value_ms, y->stats[i].value_ms, "stats[%zu]", i);
	}
	assert_int_equal(x->n_requests, y->n_requests);
	assert_int_equal(x->has_latencies, y->has_latencies);
	assert_int_equal(x->has_start_times, y->has_start_times);
	assert_int_equal(x->has_queue_times, y->has_queue_times);
	for (size_t i = 0; i < x->n_requests; i++) {
		const br_request *a = &x->requests[i], *b = &y->requests[i];
		assert_same_bits(a->input_len_tokens, b->input_len_tokens, "input_lens[%zu]", i);
		assert_same_bits(a->output_len_tokens, b->output_len_tokens, "output_lens[%zu]", i);
		assert_same_bits(a->ttft_s, b->ttft_s, "ttfts[%zu]", i);
		assert_same_bits(a->latency_s, b->latency_s, "latencies[%zu]", i);
		assert_same_bits(a->start_time_s, b->start_time_s, "start_times[%zu]", i);
		assert_same_bits(a->queue_time_s, b->queue_time_s, "queue_times[%zu]", i);
		assert_int_equal(a->n_itls, b->n_itls);
		assert_int_equal(a->itls_s == NULL, b->itls_s == NULL);
		for (size_t k = 0; k < a->n_itls; k++)
			assert_same_bits(a->itls_s[k], b->itls_s[k], "itls[%zu][%zu]", i, k);
		assert_same_str(ctx, "error", a->error, b->error);
		assert_int_equal(a->failed, b->failed);
	}
	assert_int_equal(x->n_extras, y->n_extras);
	for (size_t i = 0; i < x->n_extras; i++) {
		assert_same_str(ctx, "extra key", x->extras[i].key, y->extras[i].key);
		assert_same_str(ctx, "extra value", x->extras[i].value, y->extras[i].value);
	}
	assert_null(y->itls_block);   /* the jansson path mallocs each request's ITLs */
}

/* parse_mode: br_bench_load (text NULL) or br_bench_parse_text, with the fast
 * path on (fast = 1) or forced off (BR_BENCH_NO_FAST=1). */
static int
parse_mode(const char *path, const char *text, int fast, br_bench_set *s, char **cause)
{
	/* fast: 0 = jansson only, 1 = the fast path on the whole text, 2 = the
	 * fast path on the streamed compact text (files only) */
	if (fast)
		unsetenv("BR_BENCH_NO_FAST");
	else
		setenv("BR_BENCH_NO_FAST", "1", 1);
	setenv("BR_BENCH_STREAM", fast == 2 ? "1" : "0", 1);
	int rc = text ? br_bench_parse_text(path, text, strlen(text), s, cause)
	    : br_bench_load(path, s, cause);
	unsetenv("BR_BENCH_NO_FAST");
	unsetenv("BR_BENCH_STREAM");
	return rc;
}

/*
 * compare_paths: parse a file (text NULL) or a text both ways — and a file
 * a third way, streamed — : the same return code, then the same message or
 * the same values bitwise. Returns the number of runs whose ITLs came from
 * the fast path (itls_block set), or -1 when both failed.
 */
static int
compare_paths(const char *path, const char *text)
{
	br_bench_set a, b;
	char *ca = NULL, *cb = NULL;
	int rb = parse_mode(path, text, 0, &b, &cb);
	int fast_runs = 0;
	for (int mode = 1; mode <= (text ? 1 : 2); mode++) {
		int ra = parse_mode(path, text, mode, &a, &ca);
		if (ra != rb)
			fail_msg("%s: fast path (%s) rc %d (%s), jansson path rc %d (%s)", path,
			    mode == 2 ? "streamed" : "whole text", ra, ca ? ca : "", rb, cb ? cb : "");
		if (ra != 0) {
			assert_non_null(ca);
			assert_non_null(cb);
			if (strcmp(ca, cb) != 0)
				fail_msg("%s: messages differ:\n fast (%s): %s\n jansson: %s", path,
				    mode == 2 ? "streamed" : "whole text", ca, cb);
			free(ca);
			ca = NULL;
			continue;
		}
		assert_int_equal(a.n, b.n);
		int fr = 0;
		for (size_t i = 0; i < a.n; i++) {
			assert_same_bench(path, &a.runs[i], &b.runs[i]);
			fr += a.runs[i].itls_block != NULL;
		}
		if (mode == 1)
			fast_runs = fr;
		else if (fr != fast_runs)
			fail_msg("%s: streamed %d runs through the fast path, whole text %d", path, fr, fast_runs);
		br_bench_set_free(&a);
	}
	if (rb != 0) {
		free(cb);
		return -1;
	}
	br_bench_set_free(&b);
	return fast_runs;
}

/* compare_dir: compare_paths on every *.json / *.jsonl of a source-tree
 * folder; returns how many files there were. */
static int
compare_dir(const char *rel, int *n_ok, int *n_fast)
{
	char *dir = br_test_src(rel);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (!((l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) ||
		    (l > 6 && strcmp(e->d_name + l - 6, ".jsonl") == 0)))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		int r = compare_paths(path, NULL);
		if (r >= 0)
			(*n_ok)++;
		if (r > 0)
			(*n_fast)++;
		n++;
	}
	closedir(d);
	free(dir);
	return n;
}

/* Every fixture loads to the same values, or fails with the same message,
 * with and without the fast path. Counts from ls: fixtures/bench holds 12
 * .json/.jsonl files (all load; itls in detailed_failed.json and
 * tricky_numbers.json), fixtures/bad 29 (all fail: 17 before issue 8, 10 added
 * for it: ttft after latency, duration Infinity/-5/shorter than a request,
 * a 1e200 and a -inf statistic, a negative throughput, an HTML head,
 * input_lens that do not sum to total_input_tokens, a DEL beside a bare NaN;
 * then a negative max_concurrency, then a fractional input_lens entry): 29. */
static void
t_fast_fixtures(void **state)
{
	int ok = 0, fast = 0;
	assert_int_equal(compare_dir("fixtures/bench", &ok, &fast), 12);
	assert_int_equal(ok, 12);
	assert_int_equal(fast, 2);
	ok = fast = 0;
	assert_int_equal(compare_dir("fixtures/bad", &ok, &fast), 29);
	assert_int_equal(ok, 0);
}

/* The real files: the same values both ways; the two detailed files have
 * their ITLs read by the fast path. */
static void
t_fast_real(void **state)
{
	static const char *rel[] = {
		"bench/glm52-c4-detailed.json", "bench/glm52-batch1-detailed.json",
		"bench/opt125m-v0.25.1.json", SWEEP "run=0.json", SWEEP "run=1.json",
		SWEEP "summary.json", "runs/glm52-mtp3-c4-r2/stress.json",
	};
	int seen = 0;
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char *p = br_test_real(rel[i]);
		if (p == NULL)
			continue;
		seen++;
		int r = compare_paths(p, NULL);
		assert_int_equal(r, i < 2 ? 1 : 0);
		free(p);
	}
	if (seen == 0)
		skip();
}

/*
 * fixtures/bench/tricky_numbers.json: numbers whose reading is easy to get
 * wrong, whitespace and newlines inside the arrays, empty and null ITL
 * lists, NaN/Infinity/null entries (in failed request 3). Expected bit
 * patterns from python3: struct.pack('<d', float(x)) on json.load's values
 * (ints converted with float(), as jansson's int64 → double).
 */
static void
t_fast_tricky(void **state)
{
	char *p = br_test_src("fixtures/bench/tricky_numbers.json");
	assert_int_equal(compare_paths(p, NULL), 1);
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(parse_mode(p, NULL, 1, &s, &cause), 0);
	br_bench *b = &s.runs[0];
	assert_non_null(b->itls_block);
	assert_int_equal(b->n_requests, 4);
	const br_request *r = b->requests;
	static const uint64_t want[6][4] = {
		/* input_lens: 1E5, 1e+5, 9007199254740993 (2^53+1 → 2^53), 2^63-1 (→ 2^63) */
		{ 0x40f86a0000000000, 0x40f86a0000000000, 0x4340000000000000, 0x43e0000000000000 },
		/* output_lens: 12, 0, -0 (an integer: +0.0), 1.7976931348623157e308 (DBL_MAX) */
		{ 0x4028000000000000, 0x0000000000000000, 0x0000000000000000, 0x7fefffffffffffff },
		/* ttfts: 1e-310, 5e-324 (subnormals), 0.1, NaN */
		{ 0x000012688b70e62b, 0x0000000000000001, 0x3fb999999999999a, 0x7ff8000000000000 },
		/* latencies: 0.028562954999870266 (17 digits), 1.2345678901234567 (was
		 * 12345678901234567.0, longer than any run: now bad input),
		 * 1.0000000000000002, Infinity */
		{ 0x3f9d3f9b7667fffe, 0x3ff3c0ca428c59fb, 0x3ff0000000000001, 0x7ff0000000000000 },
		/* start_times: 9007199254740993.0 (a tie: to even 2^53), 2.2250738585072011e-308,
		 * 1e23 (inexact), -Infinity */
		{ 0x4340000000000000, 0x000fffffffffffff, 0x44b52d02c7e14af6, 0xfff0000000000000 },
		/* queue_times: null (NAN), 0.30000000000000004, 123456789012345678901234567890e-20, -1.5 */
		{ 0x7ff8000000000000, 0x3fd3333333333334, 0x41d26580b487e6b7, 0xbff8000000000000 },
	};
	for (size_t i = 0; i < 4; i++) {
		const double got[6] = { r[i].input_len_tokens, r[i].output_len_tokens, r[i].ttft_s,
			r[i].latency_s, r[i].start_time_s, r[i].queue_time_s };
		for (int a = 0; a < 6; a++)
			if (bits(got[a]) != want[a][i])
				fail_msg("array %d entry %zu: 0x%016llx, expected 0x%016llx", a, i,
				    (unsigned long long)bits(got[a]), (unsigned long long)want[a][i]);
	}
	/* itls[0]: 0.1, 5e-324, 1e-310, 17976931348623157e292 (DBL_MAX),
	 * 9007199254740995.0 (a tie: to even 2^53 + 4), and two 19-digit values
	 * whose quotient rounded to 64 bits lands exactly on a halfway point
	 * between two doubles although the exact value does not (found with
	 * python3 fractions: a double rounding trap) */
	static const uint64_t it0[7] = { 0x3fb999999999999a, 0x0000000000000001,
		0x000012688b70e62b, 0x7fefffffffffffff, 0x4340000000000002,
		0x408377377184b906, 0x40872e4c48674c95 };
	assert_int_equal(r[0].n_itls, 7);
	for (size_t k = 0; k < 7; k++)
		if (bits(r[0].itls_s[k]) != it0[k])
			fail_msg("itls[0][%zu]: 0x%016llx, expected 0x%016llx", k,
			    (unsigned long long)bits(r[0].itls_s[k]), (unsigned long long)it0[k]);
	assert_int_equal(r[1].n_itls, 0);     /* [] */
	assert_null(r[1].itls_s);
	assert_int_equal(r[2].n_itls, 0);     /* null */
	assert_null(r[2].itls_s);
	/* itls[3] (failed request): NaN, Infinity, -Infinity, null (NAN), -0.0, -2, 0 */
	static const uint64_t it3[7] = { 0x7ff8000000000000, 0x7ff0000000000000,
		0xfff0000000000000, 0x7ff8000000000000, 0x8000000000000000, 0xc000000000000000, 0 };
	assert_int_equal(r[3].n_itls, 7);
	for (size_t k = 0; k < 7; k++)
		assert_true(bits(r[3].itls_s[k]) == it3[k]);
	assert_int_equal(r[0].failed + r[1].failed + r[2].failed, 0);
	assert_int_equal(r[3].failed, 1);
	br_bench_set_free(&s);
	free(p);
}

/* xorshift64: a small deterministic generator for the number test. */
static uint64_t
xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * 40,000 generated numbers in many spellings (%.17g of random bit patterns,
 * %.Ne with N = 0..20, 1-20 digit mantissas with exponents -40..40, plain
 * integers up to 2^63-1), in itls of failed requests (so any value is
 * kept), one-line and with newlines, single object and JSONL: the fast path
 * gives exactly what the jansson path gives, and each value is what strtod
 * (a token with '.', 'e' or 'E') or strtoll (an integer token) gives.
 */
/*
 * Tokens JSON forbids but a decimal reader may take ("1.", ".5", "01",
 * "1.e5", "-.5", "+1", "1e", "1e+", "1.5.3", "-", "-inf", "0x10", "1e400"
 * overflowing): the fast path rejects each exactly where jansson does, with
 * jansson's message, parsed from a text and from a file (whole and
 * streamed); the same list with a valid neighbour ("0.5e-3", "-0", "1E5")
 * still parses.
 */
static void
t_fast_bad_tokens(void **state)
{
	(void)state;
	static const char *const bad[] = { "1.", ".5", "01", "1.e5", "-.5", "+1", "1e", "1e+", "1.5.3",
		"-", "-inf", "0x10", "1e400", "00.5", "-01", "1.5e", "1.5E-" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		for (int pos = 0; pos < 2; pos++) {
			char txt[256];
			snprintf(txt, sizeof txt, "{\"duration\": 1, \"completed\": 0, \"num_prompts\": 1, "
			    "\"itls\": [[%s%s%s]], \"errors\": [\"boom\"]}\n",
			    pos ? "0.5e-3, -0, 1E5, " : "", bad[i], pos ? ", 2" : "");
			assert_int_equal(compare_paths("bad.json", txt), -1);
			char path[] = "/tmp/br_bad_token.XXXXXX";
			int fd = mkstemp(path);
			assert_true(fd >= 0);
			assert_int_equal(write(fd, txt, strlen(txt)), (ssize_t)strlen(txt));
			close(fd);
			assert_int_equal(compare_paths(path, NULL), -1);
			unlink(path);
		}
	assert_int_equal(compare_paths("good.json", "{\"duration\": 1, \"completed\": 0, \"num_prompts\": 1, "
	    "\"itls\": [[0.5e-3, -0, 1E5, 2]], \"errors\": [\"boom\"]}\n"), 1);
}

static void
t_fast_generated(void **state)
{
	enum { NREQ = 200, PER = 200 };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t cap = (size_t)NREQ * PER * 40 + 4096, w = 0;
	char *txt = malloc(cap);
	char (*tok)[48] = malloc((size_t)NREQ * PER * sizeof *tok);
	w += (size_t)snprintf(txt + w, cap - w,
	    "{\"duration\": 1, \"completed\": 0, \"num_prompts\": %d, \"itls\": [", NREQ);
	for (int i = 0; i < NREQ; i++) {
		w += (size_t)snprintf(txt + w, cap - w, "%s[", i ? (i % 7 ? ", " : ",\n ") : "");
		for (int k = 0; k < PER; k++) {
			char *t = tok[i * PER + k];
			uint64_t r = xorshift64(&seed);
			double x;
			switch (r % 5) {
			case 0:     /* any finite double, shortest-ish */
				do {
					uint64_t u = xorshift64(&seed) >> 1;
					memcpy(&x, &u, sizeof x);
				} while (!isfinite(x));
				snprintf(t, 48, "%.17g", x);
				break;
			case 1:     /* scaled uniform, N significant digits */
				x = (double)(xorshift64(&seed) >> 11) / 9007199254740992.0 *
				    pow(10, (int)(xorshift64(&seed) % 61) - 30);
				snprintf(t, 48, "%.*e", (int)(xorshift64(&seed) % 21), x);
				break;
			case 2: {   /* a 1-20 digit mantissa and an exponent */
				int nd = 1 + (int)(xorshift64(&seed) % 20);
				int n = snprintf(t, 48, "%d", 1 + (int)(xorshift64(&seed) % 9));
				for (int d = 1; d < nd; d++)
					t[n++] = (char)('0' + xorshift64(&seed) % 10);
				snprintf(t + n, 48 - (size_t)n, "e%d", (int)(xorshift64(&seed) % 81) - 40);
				break;
			}
			case 3:     /* an integer */
				snprintf(t, 48, "%lld", (long long)(xorshift64(&seed) >>
				    (1 + xorshift64(&seed) % 63)));
				break;
			default:    /* a fixed-point decimal such as ITLs are written */
				snprintf(t, 48, "%.*f", (int)(xorshift64(&seed) % 19),
				    (double)(xorshift64(&seed) % 1000000) / 1e4);
				break;
			}
			if (isinf(strtod(t, NULL)))
				snprintf(t, 48, "%s", "1.5");     /* "%.0e" of DBL_MAX is 2e+308 */
			if (r % 3 == 0 && t[0] != '-' && strcmp(t, "0") != 0)
				memmove(t + 1, t, strlen(t) + 1), t[0] = '-';
			w += (size_t)snprintf(txt + w, cap - w, "%s%s", k ? (k % 11 ? ", " : " ,\n\t") : "", t);
		}
		w += (size_t)snprintf(txt + w, cap - w, "]");
	}
	w += (size_t)snprintf(txt + w, cap - w, "], \"errors\": [");
	for (int i = 0; i < NREQ; i++)
		w += (size_t)snprintf(txt + w, cap - w, "%s\"boom\"", i ? ", " : "");
	snprintf(txt + w, cap - w, "]}\n");
	assert_true(w + 4 < cap);

	assert_int_equal(compare_paths("gen.json", txt), 1);
	/* and streamed from a file (sr_list reads the lists straight from its
	 * buffer): the same values bitwise */
	char gen_path[] = "/tmp/br_gen_numbers.XXXXXX";
	int gfd = mkstemp(gen_path);
	assert_true(gfd >= 0);
	assert_int_equal(write(gfd, txt, strlen(txt)), (ssize_t)strlen(txt));
	close(gfd);
	assert_int_equal(compare_paths(gen_path, NULL), 1);
	unlink(gen_path);
	br_bench_set s;
	char *cause = NULL;
	assert_int_equal(parse_mode("gen.json", txt, 1, &s, &cause), 0);
	assert_int_equal(s.runs[0].n_requests, NREQ);
	size_t n_int = 0, n_real = 0;
	for (int i = 0; i < NREQ; i++) {
		const br_request *q = &s.runs[0].requests[i];
		assert_int_equal(q->n_itls, PER);
		for (int k = 0; k < PER; k++) {
			const char *t = tok[i * PER + k];
			double want;
			if (strpbrk(t, ".eE") != NULL) {
				want = strtod(t, NULL);
				n_real++;
			} else {
				want = (double)strtoll(t, NULL, 10);
				n_int++;
			}
			if (bits(q->itls_s[k]) != bits(want))
				fail_msg("\"%s\": got %.17g, expected %.17g", t, q->itls_s[k], want);
		}
	}
	assert_true(n_int > 5000 && n_real > 25000);
	br_bench_set_free(&s);

	/* the same arrays as JSONL of two objects, the second indented */
	size_t l = strlen(txt);
	char *two = malloc(2 * l + 64);
	memcpy(two, txt, l);
	memcpy(two + l, txt, l + 1);
	for (char *c = two + l; *c; c++)
		if (*c == ',' && c[1] == ' ')
			c[1] = '\n';
	assert_int_equal(compare_paths("gen2.jsonl", two), 2);
	free(two);
	free(txt);
	free(tok);
}

/*
 * Texts where the fast path must step aside: string numbers, booleans,
 * nested lists, bad number syntax, int64 and double overflow, a duplicated
 * array, arrays nested in another key, a top-level array of runs. Each gives
 * the same result or message both ways (messages checked for a few).
 */
/*
 * "generated_texts" and "errors" are counted, not built in jansson, when
 * every string is one jansson surely accepts (errors: only "" and null).
 * Each case is a file of 3 requests read three ways (compare_paths: the same
 * values or the same message) and the lists the fast path took, whole text
 * and streamed alike. Rows that fail carry jansson's own verdict on the
 * string (checked with python3 json.loads on the same bytes: \u0000 and bad
 * UTF-8 are refused by jansson, not by Python, which is why they go there).
 */
static void
t_fast_texts(void **state)
{
	(void)state;
	static const struct { const char *texts, *errors; int taken, loads; } cases[] = {
		{ "[\"plain\", \"caf\\u00e9 \\\" \\\\ \\/ \\b\\f\\n\\r\\t \\uD83D\\uDE00\", \"\xe4\xb8\xad \xf0\x9f\x98\x80 \xc3\xbc\"]",
		  "[\"\", null, \"\"]", 2, 1 },
		{ "[null, \"\", \"x\"]", "[\"\", \"timeout\", \"\"]", 1, 1 },   /* a failure: errors to jansson */
		{ "[\"a\", \"b\", \"c\"]", "[\"\", \" \", \"\"]", 1, 1 },
		{ "[\"lone \\udc80 surrogate\", \"\", \"\"]", NULL, 1, 1 },     /* sanitize makes it U+FFFD */
		{ "[\"raw DEL \x7f\", \"\", \"\"]", NULL, 0, 1 },
		{ "[\"escaped DEL \\u007f\", \"\", \"\"]", NULL, 0, 1 },
		{ "[1, \"\", \"\"]", NULL, 0, 1 },                              /* nothing checks the texts */
		{ "[\"tab\tinside\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"nul \\u0000\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"bad \\x escape\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"\xff\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"overlong \xc0\xaf\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"surrogate \xed\xa0\x80\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"past U+10FFFF \xf4\x90\x80\x80\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"cut \xe4\xb8\", \"\", \"\"]", NULL, 0, 0 },
		{ "[\"a\", \"b\"]", NULL, 0, 0 },                                /* 2 texts for 3 requests */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		/* requests whose error is not "" failed: completed counts the others */
		int n_ok = 3 - (cases[c].errors && strstr(cases[c].errors, "timeout")) -
		    (cases[c].errors && strstr(cases[c].errors, "\" \""));
		char *txt = br_xasprintf("{\"duration\": 3, \"completed\": %d, \"num_prompts\": 3,\n"
		    " \"ttfts\": [0.1, 0.2, 0.3], \"itls\": [[0.01], [0.02, 0.03], []],\n"
		    " \"generated_texts\": %s%s%s}\n", n_ok, cases[c].texts,
		    cases[c].errors ? ",\n \"errors\": " : "", cases[c].errors ? cases[c].errors : "");
		char path[] = "/tmp/br_texts.XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, txt, strlen(txt)), (ssize_t)strlen(txt));
		close(fd);
		size_t before = br_bench_text_lists_counted();
		int r = compare_paths(path, NULL);   /* jansson, whole text, streamed */
		size_t taken = br_bench_text_lists_counted() - before;
		/* (a file that fails is read again whole after the streamed try: counted only when it loads) */
		if ((r >= 0) != cases[c].loads || (cases[c].loads && taken != 2 * (size_t)cases[c].taken))
			fail_msg("case %zu: loads %d (want %d), lists taken %zu (want 2 x %d)", c, r >= 0,
			    cases[c].loads, taken, cases[c].taken);
		unlink(path);
		free(txt);
	}
}

/* A text longer than the streaming buffer (256 KiB), with 2-, 3- and 4-byte
 * characters across every refill, is counted streamed as well as whole. */
static void
t_fast_long_text(void **state)
{
	(void)state;
	static const char unit[] = "ab \xc3\xbc \xe4\xb8\xad \xf0\x9f\x98\x80 \\n \\u00e9 ";
	size_t reps = (1u << 20) / (sizeof unit - 1) + 1, w = 0;
	size_t cap = reps * (sizeof unit - 1) + 512;
	char *txt = br_xmalloc(cap);
	w += (size_t)snprintf(txt, cap, "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.1], "
	    "\"itls\": [[0.01]], \"generated_texts\": [\"");
	for (size_t i = 0; i < reps; i++) {
		memcpy(txt + w, unit, sizeof unit - 1);
		w += sizeof unit - 1;
	}
	w += (size_t)snprintf(txt + w, cap - w, "\"], \"errors\": [\"\"]}\n");
	char path[] = "/tmp/br_long_text.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, txt, w), (ssize_t)w);
	close(fd);
	size_t before = br_bench_text_lists_counted();
	assert_int_equal(compare_paths(path, NULL), 1);
	assert_int_equal(br_bench_text_lists_counted() - before, 4);   /* 2 lists x 2 fast modes */
	unlink(path);
	free(txt);
}

static void
t_fast_fallbacks(void **state)
{
	static const char *ok[] = {
		/* strings in an array: that array is read by jansson, the others fast */
		"{\"duration\": 2, \"completed\": 2, \"ttfts\": [\"0.5\", 0.25], \"input_lens\": [1, 2],"
		" \"output_lens\": [3, \"4\"], \"itls\": [[0.1, \"0.2\"], [0.3]], \"latencies\": [1, 2]}",
		/* keys with the names of the arrays but not at the top of the run */
		"{\"duration\": 1, \"completed\": 1, \"x\": {\"itls\": [[1, 2]]}, \"ttfts\": [0.5],"
		" \"y\": [{\"ttfts\": [3]}], \"z\": \"\\\"itls\\\": [[\", \"itls\": [[0.25]]}",
		/* a top-level array of two runs; escapes in a key spelling "itls" */
		"[{\"duration\": 1, \"completed\": 1, \"itls\": [[0.5, 1e-5]]},\n"
		" {\"duration\": 2, \"completed\": 1, \"it\\u006cs\": [[0.75]], \"ttfts\": [0.1]}]",
		/* JSONL, the first without arrays; -0 integer and -0.0 real in a failed request */
		"{\"duration\": 1, \"completed\": 0}\n{\"duration\": 1, \"completed\": 0,"
		" \"ttfts\": [-0, -0.0], \"output_lens\": [0, 0], \"itls\": [null, [-0]]}",
		/* NaN with nothing rewritten: a real DEL string is not a sentinel */
		"{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5], \"itls\": [[0.5]], \"x\": [\"\x7f\"]}",
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "ok%zu.json", i);
		if (compare_paths(name, ok[i]) < 0)
			fail_msg("%s should load", name);
	}
	static const struct { const char *text, *want; } bad[] = {
		{ "{\"duration\": 1, \"completed\": 1, \"itls\": [[0.5, [1]]]}",
		  "bad.json:1:33: \"itls\"[0][1]: expected a number, got an array" },
		{ "{\"duration\": 1, \"completed\": 1, \"itls\": [[0.5, true]]}",
		  "\"itls\"[0][1]: expected a number, got true" },
		{ "{\"duration\": 1, \"completed\": 1, \"itls\": [5]}",
		  "\"itls\"[0]: expected a list of numbers, got an integer" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [01]}", "bad.json:1:43: malformed JSON: invalid token near '0'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [1.]}", "bad.json:1:44: malformed JSON: invalid token near '1.'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [.5]}", "bad.json:1:43: malformed JSON: invalid token near '.'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [1e]}", "bad.json:1:44: malformed JSON: invalid token near '1e'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [-]}", "bad.json:1:43: malformed JSON: invalid token near '-'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [1,]}", "bad.json:1:45: malformed JSON: unexpected token near ']'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [1 2]}", "bad.json:1:45: malformed JSON: ']' expected near '2'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5x]}", "bad.json:1:46: malformed JSON: ']' expected near 'x'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [nul]}", "bad.json:1:45: malformed JSON: invalid token near 'nul'" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [1e400]}", "bad.json:1:47: malformed JSON: number too large for a double" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [9223372036854775808]}",
		  "bad.json:1:61: malformed JSON: integer too large" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [-9223372036854775809]}",
		  "bad.json:1:62: malformed JSON: too big negative integer" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5],\n \"ttfts\": [0.5]}",
		  "bad.json:2:2: key \"ttfts\" appears twice" },
		{ "{\"duration\": 1, \"completed\": 1, \"itls\": [[0.5], [0.5]],\n \"it\\u006cs\": []}",
		  "bad.json:2:2: key \"itls\" appears twice" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5, 0.5], \"output_lens\": [1]}",
		  "bad.json:1:33: \"ttfts\" has 2 entries but \"output_lens\" has 1" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5, \n -2]}",
		  "bad.json:2:2: \"ttfts\"[1]: -2 is negative for successful request 1" },
		{ "{\"duration\": 1, \"completed\": 1, \"itls\": [[0.5], [0.5,\n  null, NaN]]}",
		  "bad.json:2:9: \"itls\"[1][2]: NaN for successful request 1" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5]}\n{\"duration\": 1, \"completed\": 1,"
		  " \"ttfts\": [0.5] x}", "bad.json:2:48: malformed JSON: '}' expected near 'x'" },
		{ "[{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5]}, 7]",
		  "bad.json:1:51: expected a JSON object" },
		{ "{\"duration\": 1, \"completed\": 1, \"ttfts\": [0.5]}}", "bad.json:1:48: expected '{'" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(compare_paths("bad.json", bad[i].text), -1);
		br_bench_set s;
		char *c = NULL;
		assert_int_equal(parse_mode("bad.json", bad[i].text, 1, &s, &c), -1);
		if (strstr(c, bad[i].want) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, c, bad[i].want);
		free(c);
	}
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
		cmocka_unit_test(t_fast_fixtures),
		cmocka_unit_test(t_fast_real),
		cmocka_unit_test(t_fast_tricky),
		cmocka_unit_test(t_fast_generated),
		cmocka_unit_test(t_fast_bad_tokens),
		cmocka_unit_test(t_fast_fallbacks),
		cmocka_unit_test(t_fast_texts),
		cmocka_unit_test(t_fast_long_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

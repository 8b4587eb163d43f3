/*
 * libFuzzer target: br_bench_parse_text (src/ingest/bench_json.c).
 *
 * Every input is parsed twice: with the strict fast path (the default) and
 * with BR_BENCH_NO_FAST=1 (jansson only). The two results must be the same
 * field by field: the outcome, the error message, every scalar of every run,
 * the file's statistics, the extras, and every per-request value bit for bit
 * (two NaNs count as equal whatever their payload). Any difference aborts
 * with the name of the field, so libFuzzer saves the input.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/bench.h"
#include "fuzz_util.h"

/* The comparison below names every field; a new field must be added there
 * (then update these sizes, taken on x86-64). */
#if defined(__x86_64__)
_Static_assert(sizeof(br_bench) == 336, "br_bench changed: compare the new field in tests/fuzz/fuzz_bench_json.c");
_Static_assert(sizeof(br_request) == 80, "br_request changed: compare the new field in tests/fuzz/fuzz_bench_json.c");
_Static_assert(sizeof(br_file_stat) == 128, "br_file_stat changed: compare the new field in tests/fuzz/fuzz_bench_json.c");
#endif

static void __attribute__((noreturn, format(printf, 1, 2)))
differ(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "fuzz_bench_json: fast path and jansson path differ: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	abort();
}

/* same_d: bit for bit, or both NaN. */
static int
same_d(double a, double b)
{
	if (isnan(a) && isnan(b))
		return 1;
	return memcmp(&a, &b, sizeof a) == 0;
}

static int
same_s(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

#define CMP_D(run, field) do { \
	if (!same_d(x->field, y->field)) \
		differ("runs[%zu].%s: fast %.17g (0x%016llx) vs jansson %.17g (0x%016llx)", run, #field, \
		    x->field, (unsigned long long)bits(x->field), y->field, (unsigned long long)bits(y->field)); \
} while (0)
#define CMP_I(run, field) do { \
	if (x->field != y->field) \
		differ("runs[%zu].%s: fast %lld vs jansson %lld", run, #field, \
		    (long long)x->field, (long long)y->field); \
} while (0)
#define CMP_S(run, field) do { \
	if (!same_s(x->field, y->field)) \
		differ("runs[%zu].%s: fast \"%s\" vs jansson \"%s\"", run, #field, \
		    x->field ? x->field : "(null)", y->field ? y->field : "(null)"); \
} while (0)

static uint64_t
bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

static void
compare_request(size_t k, size_t i, const br_request *x, const br_request *y)
{
	char where[64];
	snprintf(where, sizeof where, "%zu].requests[%zu", k, i);
#define RQ_D(field) do { \
	if (!same_d(x->field, y->field)) \
		differ("runs[%s].%s: fast %.17g (0x%016llx) vs jansson %.17g (0x%016llx)", where, #field, \
		    x->field, (unsigned long long)bits(x->field), y->field, (unsigned long long)bits(y->field)); \
} while (0)
	RQ_D(input_len_tokens);
	RQ_D(output_len_tokens);
	RQ_D(ttft_s);
	RQ_D(latency_s);
	RQ_D(start_time_s);
	RQ_D(queue_time_s);
#undef RQ_D
	if (x->n_itls != y->n_itls)
		differ("runs[%s].n_itls: fast %zu vs jansson %zu", where, x->n_itls, y->n_itls);
	if ((x->itls_s == NULL) != (y->itls_s == NULL))
		differ("runs[%s].itls_s: fast %s vs jansson %s", where,
		    x->itls_s ? "set" : "NULL", y->itls_s ? "set" : "NULL");
	for (size_t j = 0; j < x->n_itls; j++)
		if (!same_d(x->itls_s[j], y->itls_s[j]))
			differ("runs[%s].itls_s[%zu]: fast %.17g (0x%016llx) vs jansson %.17g (0x%016llx)",
			    where, j, x->itls_s[j], (unsigned long long)bits(x->itls_s[j]),
			    y->itls_s[j], (unsigned long long)bits(y->itls_s[j]));
	if (!same_s(x->error, y->error))
		differ("runs[%s].error: fast \"%s\" vs jansson \"%s\"", where,
		    x->error ? x->error : "(null)", y->error ? y->error : "(null)");
	if (x->failed != y->failed)
		differ("runs[%s].failed: fast %d vs jansson %d", where, x->failed, y->failed);
}

static void
compare_run(size_t k, const br_bench *x, const br_bench *y)
{
	CMP_S(k, source_path);
	CMP_I(k, source_index);
	CMP_I(k, source_line);
	CMP_S(k, date);
	CMP_S(k, backend);
	CMP_S(k, endpoint_type);
	CMP_S(k, label);
	CMP_S(k, model_id);
	CMP_S(k, tokenizer_id);
	CMP_D(k, num_prompts);
	CMP_D(k, request_rate_rps);
	CMP_D(k, burstiness);
	CMP_D(k, max_concurrency);
	CMP_D(k, run_number);
	CMP_D(k, duration_s);
	CMP_D(k, completed);
	CMP_D(k, failed);
	CMP_I(k, failed_derived);
	CMP_D(k, total_input_tokens);
	CMP_D(k, total_output_tokens);
	CMP_D(k, request_throughput_rps);
	CMP_D(k, request_goodput_rps);
	CMP_D(k, output_throughput_tps);
	CMP_D(k, total_token_throughput_tps);
	CMP_D(k, input_throughput_tps);
	CMP_D(k, max_output_tokens_per_s);
	CMP_D(k, max_concurrent_requests);
	CMP_D(k, spec_decode_acceptance_rate);
	CMP_D(k, spec_decode_acceptance_length);
	CMP_D(k, spec_decode_num_drafts);
	CMP_D(k, spec_decode_draft_tokens);
	CMP_D(k, spec_decode_accepted_tokens);
	CMP_I(k, has_latencies);
	CMP_I(k, has_start_times);
	CMP_I(k, has_queue_times);
	CMP_I(k, has_errors);
	CMP_I(k, has_itls);
	CMP_I(k, itls_taken);   /* 0 from both loaders (only the latency analysis takes them) */

	CMP_I(k, n_stats);
	for (size_t i = 0; i < x->n_stats; i++) {
		const br_file_stat *a = &x->stats[i], *b = &y->stats[i];
		if (strcmp(a->metric, b->metric) != 0 || strcmp(a->stat, b->stat) != 0 ||
		    strcmp(a->key, b->key) != 0)
			differ("runs[%zu].stats[%zu]: fast %s/%s/%s vs jansson %s/%s/%s", k, i,
			    a->key, a->metric, a->stat, b->key, b->metric, b->stat);
		if (!same_d(a->percentile, b->percentile) || !same_d(a->value_ms, b->value_ms))
			differ("runs[%zu].stats[%zu] (%s): fast p%.17g = %.17g vs jansson p%.17g = %.17g",
			    k, i, a->key, a->percentile, a->value_ms, b->percentile, b->value_ms);
	}

	CMP_I(k, n_extras);
	for (size_t i = 0; i < x->n_extras; i++) {
		const br_bench_extra *a = &x->extras[i], *b = &y->extras[i];
		if (!same_s(a->key, b->key) || !same_s(a->value, b->value))
			differ("runs[%zu].extras[%zu]: fast \"%s\"=\"%s\" vs jansson \"%s\"=\"%s\"", k, i,
			    a->key ? a->key : "(null)", a->value ? a->value : "(null)",
			    b->key ? b->key : "(null)", b->value ? b->value : "(null)");
	}

	CMP_I(k, n_requests);
	for (size_t i = 0; i < x->n_requests; i++)
		compare_request(k, i, &x->requests[i], &y->requests[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	br_bench_set fast = { 0 }, slow = { 0 };
	char *cf = NULL, *cs = NULL;

	unsetenv("BR_BENCH_NO_FAST");
	int rf = br_bench_parse_text("fuzz.json", text, size, &fast, &cf);
	setenv("BR_BENCH_NO_FAST", "1", 1);
	int rs = br_bench_parse_text("fuzz.json", text, size, &slow, &cs);
	unsetenv("BR_BENCH_NO_FAST");

	br_fuzz_check_cause("br_bench_parse_text (fast path)", rf, cf);
	br_fuzz_check_cause("br_bench_parse_text (jansson path)", rs, cs);
	if (rf != rs)
		differ("outcome: fast %s vs jansson %s (fast: %s; jansson: %s)",
		    rf == 0 ? "ok" : "error", rs == 0 ? "ok" : "error",
		    cf ? cf : "no message", cs ? cs : "no message");
	if (!same_s(cf, cs))
		differ("error message: fast \"%s\" vs jansson \"%s\"", cf ? cf : "(null)", cs ? cs : "(null)");
	if (rf == 0) {
		if (fast.n == 0)
			differ("success with no run (n == 0): the loader promises n >= 1");
		if (fast.n != slow.n)
			differ("number of runs: fast %zu vs jansson %zu", fast.n, slow.n);
		for (size_t k = 0; k < fast.n; k++)
			compare_run(k, &fast.runs[k], &slow.runs[k]);
	}
	br_bench_set_free(&fast);
	br_bench_set_free(&slow);
	free(cf);
	free(cs);
	return 0;
}

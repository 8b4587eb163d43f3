/*
 * Bad simulator configs: every one is refused with a message naming the key
 * and why, and `simulate` exits 3 (BR_EXIT_INPUT); usage errors exit 2.
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/sim.h"
#include "sim/sim_internal.h"

static const char *BASE =
	"{\"seed\": 1,\n"
	" \"model\": {\"kv_bytes_per_token\": 57344, \"flops_per_token_c0\": 13.52e9, \"flops_per_token_c1\": 3.4e5},\n"
	" \"gpu\": {\"kv_pool_tokens\": POOL, \"fixed_s\": 0.015, \"per_prefill_token_s\": 9.85e-5,\n"
	"         \"per_decode_token_s\": 1.5e-4, \"per_context_token_s\": 5.7e-8},\n"
	" \"scheduler\": {\"max_num_seqs\": 128, SCHEDX\"max_model_len\": MML},\n"
	" \"workload\": {\"num_prompts\": 4, \"input_len\": INLEN, \"output_len\": 16, \"max_concurrency\": CONC}}\n";

/* subst: copy of s with the first occurrence of `from` replaced by `to`. */
static char *
subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	if (p == NULL)
		return br_xstrdup(s);
	return br_xasprintf("%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
}

static char tmpdir[64];

/* write_text: text into the file at path (created or replaced). */
static void
write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* make_cfg: write BASE with the given values to a temp file; returns its path. */
static char *
make_cfg(const char *name, const char *pool, const char *schedx, const char *mml,
    const char *inlen, const char *conc)
{
	char *a = subst(BASE, "POOL", pool);
	char *b = subst(a, "SCHEDX", schedx);
	char *c = subst(b, "MML", mml);
	char *d = subst(c, "INLEN", inlen);
	char *e = subst(d, "CONC", conc);
	char *path = br_xasprintf("%s/%s.json", tmpdir, name);
	write_text(path, e);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	return path;
}

/* expect_bad: br_sim_run fails with a cause holding every needle, and
 * `simulate` exits 3. */
static void
expect_bad(const char *path, const char *needle1, const char *needle2)
{
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(path, &r, &cause), -1);
	assert_non_null(cause);
	if (strstr(cause, needle1) == NULL || (needle2 && strstr(cause, needle2) == NULL))
		fail_msg("cause \"%s\" lacks \"%s\"/\"%s\"", cause, needle1, needle2 ? needle2 : "");
	assert_non_null(strstr(cause, path));   /* names the file */
	free(cause);
	char *out = br_xasprintf("%s/out", tmpdir);
	char *argv[] = { "simulate", (char *)path, "-o", out, NULL };
	assert_int_equal(br_sim_main(4, argv), BR_EXIT_INPUT);
	assert_false(br_is_dir(out));
	free(out);
}

static void
test_good_base(void **state)
{
	(void)state;
	/* the template itself is valid: 4 requests of 100/16 run to completion */
	char *p = make_cfg("good", "86864", "", "8192", "100", "2");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(p, &r, &cause), 0);
	assert_double_abs(r.completed, 4, 0);
	assert_double_abs(r.iteration_tokens_sum, 4.0 * (100 + 16), 0);
	br_sim_result_free(&r);
	free(p);
}

/* with_engine: the config file at path rewritten with a top-level "engine". */
static char *
with_engine(const char *path, const char *engine)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	assert_int_equal(br_read_file(path, &text, &len, &cause), 0);
	char *to = br_xasprintf("{\"engine\": \"%s\", \"seed\": 1,", engine);
	char *t2 = subst(text, "{\"seed\": 1,", to);
	char *out = br_xasprintf("%s.%s.json", path, engine);
	write_text(out, t2);
	free(text);
	free(to);
	free(t2);
	return out;
}

/* "engine": an unknown one is refused; llama.cpp's slots must each hold the
 * longest request (86,864 / 128 slots = 678.6, rounded down to whole 16-token blocks: 672 tokens < 6,144 + 16); a valid
 * llama.cpp config never preempts. */
static void
test_engine_key(void **state)
{
	(void)state;
	char *p = make_cfg("eng", "86864", "", "8192", "100", "2");
	char *bad = with_engine(p, "tgi");
	expect_bad(bad, "engine", "\"tgi\"");
	char *q = make_cfg("englong", "86864", "", "8192", "6144", "2");
	char *slots = with_engine(q, "llamacpp");
	expect_bad(slots, "scheduler.max_num_seqs", "672 tokens each");
	/* async scheduling is modelled for vLLM only */
	char *as = make_cfg("engasync", "86864", "\"async_scheduling\": false, ", "8192", "100", "2");
	char *as_sg = with_engine(as, "sglang");
	expect_bad(as_sg, "scheduler.async_scheduling", "engine \"vllm\" only");
	free(as);
	free(as_sg);
	char *good = with_engine(p, "llamacpp");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(good, &r, &cause), 0);
	assert_double_abs(r.completed, 4, 0);
	assert_int_equal(r.n_preemptions, 0);
	br_sim_result_free(&r);
	free(p);
	free(q);
	free(bad);
	free(slots);
	free(good);
}

static void
test_negative_pool(void **state)
{
	(void)state;
	char *p = make_cfg("negpool", "-5", "", "8192", "100", "2");
	expect_bad(p, "gpu.kv_pool_tokens", "must be > 0");
	free(p);
}

static void
test_pool_smaller_than_max_model_len(void **state)
{
	(void)state;
	char *p = make_cfg("smallpool", "4096", "", "8192", "100", "2");
	expect_bad(p, "gpu.kv_pool_tokens", "max_model_len");
	free(p);
}

static void
test_max_model_len_too_small(void **state)
{
	(void)state;
	/* 6144 + 16 > 4096 */
	char *p = make_cfg("mml", "86864", "", "4096", "6144", "2");
	expect_bad(p, "scheduler.max_model_len", "6144");
	free(p);
}

static void
test_zero_concurrency(void **state)
{
	(void)state;
	char *p = make_cfg("conc0", "86864", "", "8192", "100", "0");
	expect_bad(p, "workload.max_concurrency", ">= 1");
	free(p);
}

static void
test_wrong_type(void **state)
{
	(void)state;
	char *p = make_cfg("type", "86864", "", "8192", "\"long\"", "2");
	expect_bad(p, "workload.input_len", "got a string");
	free(p);
	p = make_cfg("type2", "86864", "\"chunked_prefill\": 1, ", "8192", "100", "2");
	expect_bad(p, "scheduler.chunked_prefill", "true or false");
	free(p);
	p = make_cfg("dist", "86864", "", "8192", "{\"dist\": \"zipf\"}", "2");
	expect_bad(p, "workload.input_len.dist", "zipf");
	free(p);
}

static void
test_unknown_key(void **state)
{
	(void)state;
	char *p = make_cfg("typo", "86864", "\"max_num_seq\": 10, ", "8192", "100", "2");
	expect_bad(p, "scheduler.max_num_seq", "unknown key");
	free(p);
	/* "_comment" keys are allowed anywhere */
	char *q = make_cfg("comment", "86864", "\"_comment\": \"x\", ", "8192", "100", "2");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(q, &r, &cause), 0);
	br_sim_result_free(&r);
	free(q);
}

static void
test_bad_json(void **state)
{
	(void)state;
	char *path = br_xasprintf("%s/broken.json", tmpdir);
	FILE *fp = fopen(path, "w");
	fputs("{\"seed\": 1,\n \"model\": {\n", fp);
	fclose(fp);
	/* jansson: premature end of input at line 3 */
	expect_bad(path, ":3:", NULL);
	free(path);
}

/*
 * Both gpu.kv_pool_tokens and gpu.kv_pool_gib: accepted when they agree within
 * 1% (kv_pool_tokens wins), refused naming both keys otherwise. Numbers
 * (python3): 4.64 GiB / (57344 B x 16) = 5430.1 → 5430 blocks = 86880 tokens,
 * 0.018% off 86864; 8 GiB → 9362 blocks = 149792 tokens, 72% off.
 */
static void
test_both_pool_keys(void **state)
{
	(void)state;
	char *p = make_cfg("both_ok", "86864, \"kv_pool_gib\": 4.64", "", "8192", "100", "2");
	br_sim_result r;
	char *cause = NULL;
	if (br_sim_run(p, &r, &cause) < 0)
		fail_msg("%s", cause);
	assert_double_abs(r.kv_pool_tokens, 86864, 0);
	br_sim_result_free(&r);
	free(p);
	p = make_cfg("both_bad", "86864, \"kv_pool_gib\": 8", "", "8192", "100", "2");
	expect_bad(p, "gpu.kv_pool_tokens", "gpu.kv_pool_gib");
	br_sim_result r2;
	assert_int_equal(br_sim_run(p, &r2, &cause), -1);
	assert_non_null(strstr(cause, "149792"));
	assert_non_null(strstr(cause, "give only one"));
	free(cause);
	free(p);
}

static void
test_usage(void **state)
{
	(void)state;
	char *argv1[] = { "simulate", NULL };
	assert_int_equal(br_sim_main(1, argv1), BR_EXIT_USAGE);
	char *argv2[] = { "simulate", "x.json", NULL };
	assert_int_equal(br_sim_main(2, argv2), BR_EXIT_USAGE);
	char *argv3[] = { "simulate", "x.json", "-o", "d", "--bogus", NULL };
	assert_int_equal(br_sim_main(5, argv3), BR_EXIT_USAGE);
	char *argv4[] = { "simulate", "/nonexistent/x.json", "-o", "/nonexistent/out", NULL };
	assert_int_equal(br_sim_main(4, argv4), BR_EXIT_INPUT);
}

/* write_raw: text (with `from` replaced by `to` when from is non-NULL) to
 * TMP/name.json; returns the path. */
static char *
write_raw(const char *name, const char *text, const char *from, const char *to)
{
	char *t = from ? subst(text, from, to) : br_xstrdup(text);
	if (from && strcmp(t, text) == 0)
		fail_msg("write_raw %s: \"%s\" not in the template", name, from);
	char *path = br_xasprintf("%s/%s.json", tmpdir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(t, fp);
	fclose(fp);
	free(t);
	return path;
}

/* with: make_cfg's text of the good base with `from` replaced by `to`. */
static char *
with(const char *name, const char *from, const char *to)
{
	char *base = make_cfg(name, "86864", "", "8192", "100", "2");
	char *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(base, &text, &len, NULL), 0);
	free(base);
	char *p = write_raw(name, text, from, to);
	free(text);
	return p;
}

/* with2: as with, two replacements. */
static char *
with2(const char *name, const char *f1, const char *t1, const char *f2, const char *t2)
{
	char *p1 = with(name, f1, t1);
	char *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(p1, &text, &len, NULL), 0);
	char *p = write_raw(name, text, f2, t2);
	free(text);
	free(p1);
	return p;
}

/*
 * Issue 1 (the tester's case): round1.json with request_rate 1e-9 would
 * spread 128 prompts over 1.28e11 s. Refused before any allocation, naming
 * the key, the 7-day limit and the smallest rate allowed:
 * 128 / 604800 = 2.1164e-4, rounded up to 3 digits = 0.000212 (python3).
 */
static void
test_tiny_rate(void **state)
{
	(void)state;
	char *r1 = br_test_src("fixtures/configs/round1.json");
	char *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(r1, &text, &len, NULL), 0);
	char *p = write_raw("rate1e-9", text, "\"max_concurrency\": 64,",
	    "\"max_concurrency\": 64, \"request_rate\": 1e-9,");
	expect_bad(p, "workload.request_rate", "604800 s (7 days)");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(p, &r, &cause), -1);
	assert_non_null(strstr(cause, "request_rate >= 0.000212"));
	free(cause);
	free(p);
	/* the suggested 0.000212 req/s passes the rate check (128 / 0.000212 =
	 * 603774 s <= 604800) and is then stopped by the metrics.csv rows limit,
	 * 603774 / 1 s > 200000, which names sample_interval_s: 603774 / 200000
	 * = 3.0189 → 3.02 */
	p = write_raw("rate212", text, "\"max_concurrency\": 64,",
	    "\"max_concurrency\": 64, \"request_rate\": 0.000212,");
	expect_bad(p, "sample_interval_s", "sample_interval_s >= 3.02");
	free(p);
	free(text);
	free(r1);
	/* 4 prompts at 1e-4 req/s: ~40000 s of arrivals; log_interval_s 0.1
	 * would need 400000 stats lines > 200000: at least 40000 / 200000 = 0.2 */
	p = with2("logiv", "\"max_concurrency\": 2", "\"request_rate\": 1e-4",
	    "{\"seed\": 1,", "{\"seed\": 1, \"log_interval_s\": 0.1,");
	expect_bad(p, "log_interval_s", "log_interval_s >= 0.2");
	free(p);
}

/*
 * Issue 1, limits checked while running (the span of a closed loop is not
 * known in advance): metrics.csv rows and 7 days of simulated time. The
 * first run has ~2 waves × 101 steps × 50 s = ~10,000 s, i.e. 1e6 rows at
 * sample_interval_s 0.01 > 200000; the second 2 × 4001 × 100 s = 800,200 s
 * > 604800 s with 1-hour samples (the first wave of 2 has finished at
 * 400,100 s, the second has not). Both stop with exit 3, and quickly.
 */
static void
test_runtime_caps(void **state)
{
	(void)state;
	char *p = with2("rows", "\"fixed_s\": 0.015", "\"fixed_s\": 50",
	    "{\"seed\": 1,", "{\"seed\": 1, \"sample_interval_s\": 0.01,");
	char *q = NULL;
	{
		char *text = NULL;
		size_t len;
		assert_int_equal(br_read_file(p, &text, &len, NULL), 0);
		q = write_raw("rows", text, "\"output_len\": 16", "\"output_len\": 100");
		free(text);
	}
	expect_bad(q, "sample_interval_s", "200000 rows");
	free(p);
	free(q);
	p = with2("span", "\"fixed_s\": 0.015", "\"fixed_s\": 100", "{\"seed\": 1,",
	    "{\"seed\": 1, \"sample_interval_s\": 3600, \"log_interval_s\": 3600,");
	{
		char *text = NULL;
		size_t len;
		assert_int_equal(br_read_file(p, &text, &len, NULL), 0);
		q = write_raw("span", text, "\"output_len\": 16", "\"output_len\": 4000");
		free(text);
	}
	expect_bad(q, "7 days", "only 2 of 4 requests");
	free(p);
	free(q);
}

/*
 * Issue 1, other keys that blow up memory or time, each refused naming the
 * key and the limit: output tokens (1e6 prompts × 100 = 1e8 > 2e7 kept
 * ITLs), num_prompts above 1e6, a near-zero step (0 + min(1e-9, 1e-9) s <
 * 1e-6 s), and a kv_pool_gib that converts to more than 1e10 tokens
 * (1e6 GiB × 2^30 / 57344 B = 1.87e10, python3).
 */
static void
test_other_limits(void **state)
{
	(void)state;
	char *p = with2("itls", "\"num_prompts\": 4", "\"num_prompts\": 1000000",
	    "\"output_len\": 16", "\"output_len\": 100");
	expect_bad(p, "workload.num_prompts", "at most 20000000");
	free(p);
	p = with("nprompts", "\"num_prompts\": 4", "\"num_prompts\": 2000000");
	expect_bad(p, "workload.num_prompts", "<= 1e+06");
	free(p);
	p = with2("step", "\"fixed_s\": 0.015", "\"fixed_s\": 0",
	    "\"per_prefill_token_s\": 9.85e-5", "\"per_prefill_token_s\": 1e-9");
	char *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(p, &text, &len, NULL), 0);
	char *q = write_raw("step", text, "\"per_decode_token_s\": 1.5e-4", "\"per_decode_token_s\": 1e-9");
	expect_bad(q, "gpu.fixed_s", "below the 1e-06 s");
	free(text);
	free(q);
	free(p);
	p = with("gib", "\"kv_pool_tokens\": 86864", "\"kv_pool_gib\": 1e6");
	expect_bad(p, "gpu.kv_pool_gib", "1.87e+10 tokens");
	free(p);
}

/*
 * Issue 3: a label with a control character would split server.log lines
 * (vllm_version is printed raw there): refused naming the key and the
 * character. Ordinary non-ASCII text (an en dash, ü) is fine.
 */
static void
test_control_chars(void **state)
{
	(void)state;
	struct { const char *json, *key, *what; } t[] = {
		{ "\"server\": {\"vllm_version\": \"0.27.1\\nINFO fake\"}", "server.vllm_version", "a newline" },
		{ "\"server\": {\"model_name\": \"Qwen\\r\"}", "server.model_name", "carriage return" },
		{ "\"server\": {\"gpu_name\": \"RTX\\u0085\"}", "server.gpu_name", "U+0085" },
		{ "\"name\": \"a\\tb\"", "name", "a tab" },
		{ "\"name\": \"a\\u2028b\"", "name", "line separator (U+2028)" },
		{ "\"server\": {\"gpu_name\": \"x\\u001b[31m\"}", "server.gpu_name", "0x1B" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char nm[16], *to = br_xasprintf("{\"seed\": 1, %s,", t[i].json);
		snprintf(nm, sizeof nm, "ctl%zu", i);
		char *p = with(nm, "{\"seed\": 1,", to);
		expect_bad(p, t[i].key, t[i].what);
		free(to);
		free(p);
	}
	char *p = with("utf8", "{\"seed\": 1,",
	    "{\"seed\": 1, \"name\": \"caf\\u00e9 \\u2013 run\", \"server\": {\"gpu_name\": \"RTX \\u00fc\"},");
	br_sim_result r;
	char *cause = NULL;
	if (br_sim_run(p, &r, &cause) < 0)
		fail_msg("%s", cause);
	br_sim_result_free(&r);
	free(p);
}

/*
 * Issue 4: chunked_prefill false with max_num_batched_tokens 64 < the
 * 100-token prompt: the message blames the per-step token budget, naming
 * both keys and both values, not the KV pool.
 */
static void
test_no_chunked_prefill_budget(void **state)
{
	(void)state;
	char *p = make_cfg("nochunk", "86864", "\"chunked_prefill\": false, \"max_num_batched_tokens\": 64, ",
	    "8192", "100", "2");
	expect_bad(p, "scheduler.max_num_batched_tokens: 64", "workload.input_len 100 tokens");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(p, &r, &cause), -1);
	assert_non_null(strstr(cause, "scheduler.chunked_prefill false"));
	assert_non_null(strstr(cause, "whole prompt"));
	assert_null(strstr(cause, "pool"));
	free(cause);
	free(p);
	/* a budget of exactly the prompt length is enough */
	p = make_cfg("nochunk_ok", "86864", "\"chunked_prefill\": false, \"max_num_batched_tokens\": 100, ",
	    "8192", "100", "2");
	if (br_sim_run(p, &r, &cause) < 0)
		fail_msg("%s", cause);
	assert_double_abs(r.completed, 4, 0);
	br_sim_result_free(&r);
	free(p);
}

/*
 * Issue 5: request_rate "inf" without max_concurrency sends every request at
 * t = 0, as vLLM's --request-rate inf without --max-concurrency; stress.json
 * then says "max_concurrency": null. Giving neither key is still refused.
 */
static void
test_rate_inf_uncapped(void **state)
{
	(void)state;
	char *p = with("inf", "\"max_concurrency\": 2", "\"request_rate\": \"inf\"");
	br_sim_result r;
	char *cause = NULL;
	if (br_sim_run(p, &r, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(r.run->n_req, 4);
	for (int i = 0; i < 4; i++)
		assert_double_abs(r.run->req[i].t_send, 0, 0);
	/* all 4 are admitted in the first step at t = 0 (4 × 100 = 400 tokens
	 * <= 2048, 4 <= max_num_seqs 128); with max_concurrency 2 the third
	 * would wait for a completion */
	for (int i = 0; i < 4; i++)
		assert_double_abs(r.run->req[i].t_first_sched, 0, 0);
	char *out = br_xasprintf("%s/inf_out", tmpdir);
	assert_int_equal(br_sim_write(&r, out, 0, &cause), 0);
	char *sj = br_path_join(out, "stress.json"), *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(sj, &text, &len, NULL), 0);
	assert_non_null(strstr(text, "\"request_rate\": \"inf\""));
	assert_non_null(strstr(text, "\"max_concurrency\": null"));
	free(text);
	free(sj);
	free(out);
	br_sim_result_free(&r);
	free(p);
	p = with("neither", "\"max_concurrency\": 2", "\"burstiness\": 1.0");
	expect_bad(p, "workload.max_concurrency", "missing");
	free(p);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/br_sim_cfg_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	char *cmd = br_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_base),
		cmocka_unit_test(test_engine_key),
		cmocka_unit_test(test_negative_pool),
		cmocka_unit_test(test_pool_smaller_than_max_model_len),
		cmocka_unit_test(test_max_model_len_too_small),
		cmocka_unit_test(test_zero_concurrency),
		cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_both_pool_keys),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_tiny_rate),
		cmocka_unit_test(test_runtime_caps),
		cmocka_unit_test(test_other_limits),
		cmocka_unit_test(test_control_chars),
		cmocka_unit_test(test_no_chunked_prefill_budget),
		cmocka_unit_test(test_rate_inf_uncapped),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * Bad simulator configs: every one is refused with a message naming the key
 * and why, and `simulate` exits 3 (BR_EXIT_INPUT); usage errors exit 2.
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/sim.h"

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
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(e, fp);
	fclose(fp);
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
		cmocka_unit_test(test_negative_pool),
		cmocka_unit_test(test_pool_smaller_than_max_model_len),
		cmocka_unit_test(test_max_model_len_too_small),
		cmocka_unit_test(test_zero_concurrency),
		cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_both_pool_keys),
		cmocka_unit_test(test_usage),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

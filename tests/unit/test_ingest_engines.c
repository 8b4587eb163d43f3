/*
 * SGLang and llama.cpp metrics read onto the engine-neutral roles
 * (src/model/roles.c, src/ingest/prom.c, metric_names.c).
 * The files are real (fixtures/engines/README.md says where from); every
 * expected number was read off the file with grep, e.g.
 *   grep -E '^sglang:num_running_reqs' fixtures/engines/sglang-production.prom  → 162.0
 */
#include "br_test.h"

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"

#include <glib.h>

static void
load_ok(const char *rel, br_series *s)
{
	char *path = br_test_src(rel), *cause = NULL;
	if (br_prom_load(path, s, &cause) != 0)
		fail_msg("%s: %s", path, cause ? cause : "(no cause)");
	free(path);
}

/* The value of `role` in row 0; fails when the role is absent. */
static double
role0(const br_series *s, br_role role)
{
	const double *c = br_role_col(s, role);
	if (c == NULL)
		fail_msg("role %s absent", br_role_key(role));
	return c[0];
}

/* The value of column `name` in row 0; fails when absent. */
static double
col0(const br_series *s, const char *name)
{
	const double *c = br_series_col(s, name);
	if (c == NULL)
		fail_msg("column %s absent", name);
	return c[0];
}

/* One row per (file, role): the name it resolves to and the value in row 0
 * (NAN: only the name is checked; name NULL: the role must be absent). */
static const struct role_case {
	const char *file;
	br_engine engine;
	br_role role;
	const char *name;
	double value;
} role_cases[] = {
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_RUNNING,
	  "sglang:num_running_reqs", 162 },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_WAITING,
	  "sglang:num_queue_reqs", 2826 },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_KV_USAGE_FRAC,
	  "sglang:token_usage", 0.28 },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_PROMPT_TOKENS,
	  "sglang:prompt_tokens_total", 8.128902e6 },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_GENERATION_TOKENS,
	  "sglang:generation_tokens_total", 7.557572e6 },
	/* histograms: name only (values below) */
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_TTFT_HIST,
	  "sglang:time_to_first_token_seconds", NAN },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_ITL_HIST,
	  "sglang:time_per_output_token_seconds", NAN },   /* the old name: this page predates the rename */
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_E2E_HIST,
	  "sglang:e2e_request_latency_seconds", NAN },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_QUEUE_HIST, NULL, NAN },
	{ "fixtures/engines/sglang-production.prom", BR_ENGINE_SGLANG, BR_ROLE_PREEMPTIONS, NULL, NAN },
	{ "fixtures/engines/llamacpp-msvc-nan.prom", BR_ENGINE_LLAMACPP, BR_ROLE_RUNNING,
	  "llamacpp:requests_processing", 0 },
	{ "fixtures/engines/llamacpp-msvc-nan.prom", BR_ENGINE_LLAMACPP, BR_ROLE_WAITING,
	  "llamacpp:requests_deferred", 0 },
	{ "fixtures/engines/llamacpp-msvc-nan.prom", BR_ENGINE_LLAMACPP, BR_ROLE_KV_USAGE_FRAC,
	  "llamacpp:kv_cache_usage_ratio", 0 },
	{ "fixtures/engines/llamacpp-msvc-nan.prom", BR_ENGINE_LLAMACPP, BR_ROLE_PREEMPTIONS, NULL, NAN },
	{ "fixtures/engines/llamacpp-2025-06.prom", BR_ENGINE_LLAMACPP, BR_ROLE_PROMPT_TOKENS,
	  "llamacpp:prompt_tokens_total", 143 },
	{ "fixtures/engines/llamacpp-2025-06.prom", BR_ENGINE_LLAMACPP, BR_ROLE_GENERATION_TOKENS,
	  "llamacpp:tokens_predicted_total", 673 },
	{ "fixtures/engines/llamacpp-2025-06.prom", BR_ENGINE_LLAMACPP, BR_ROLE_KV_USAGE_FRAC, NULL, NAN },
	{ "fixtures/engines/llamacpp-2025-06.prom", BR_ENGINE_LLAMACPP, BR_ROLE_RUNNING, NULL, NAN },
	/* 1.90511e+06: the server's 6-digit print, read as the number it says */
	{ "fixtures/engines/llamacpp-6digits.prom", BR_ENGINE_LLAMACPP, BR_ROLE_PROMPT_TOKENS,
	  "llamacpp:prompt_tokens_total", 1905110 },
	{ "fixtures/metrics/two-engines.prom", BR_ENGINE_VLLM, BR_ROLE_RUNNING,
	  "vllm:num_requests_running", NAN },
};

static void
test_roles_of_real_pages(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof role_cases / sizeof role_cases[0]; k++) {
		const struct role_case *c = &role_cases[k];
		br_series s;
		load_ok(c->file, &s);
		if (s.engine != (int)c->engine || br_series_engine(&s) != c->engine)
			fail_msg("%s: engine %d, expected %s", c->file, s.engine, br_engine_name(c->engine));
		const char *name = br_role_name(&s, c->role);
		if (c->name == NULL ? name != NULL : name == NULL || strcmp(name, c->name) != 0)
			fail_msg("%s: role %s -> %s, expected %s", c->file, br_role_key(c->role),
			    name ? name : "(absent)", c->name ? c->name : "(absent)");
		if (c->name != NULL && !isnan(c->value))
			assert_double_rel(role0(&s, c->role), c->value, 1e-12);
		br_series_free(&s);
	}
}

/* Histogram families and the sentences for what an engine lacks. */
static void
test_sglang_histograms_and_absent_roles(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/engines/sglang-production.prom", &s);
	/* grep '^sglang:time_to_first_token_seconds_(sum|count)' → 2.3518979474117756e+06, 11008.0 */
	assert_double_rel(col0(&s, "sglang:time_to_first_token_seconds_sum"), 2.3518979474117756e+06, 1e-15);
	assert_double_rel(col0(&s, "sglang:time_to_first_token_seconds_count"), 11008, 0);
	assert_double_rel(col0(&s, "sglang:time_per_output_token_seconds_count"), 7.400757e6, 0);
	/* the per-`le` buckets stay, ranks and model_name dropped */
	assert_double_rel(col0(&s, "sglang:time_to_first_token_seconds_bucket{le=\"30.0\"}"), 2513, 0);
	/* labels other than rank/model are kept: func_latency_seconds{name=...} */
	assert_double_rel(col0(&s, "sglang:func_latency_seconds_count{name=\"generate_request\"}"), 14007, 0);
	br_series_free(&s);

	assert_non_null(br_role_absent(BR_ENGINE_SGLANG, BR_ROLE_PREFILL_HIST));
	assert_null(br_role_absent(BR_ENGINE_SGLANG, BR_ROLE_PREEMPTIONS));   /* newer builds have it */
	assert_null(br_role_absent(BR_ENGINE_VLLM, BR_ROLE_PREEMPTIONS));
	const char *lc = br_role_absent(BR_ENGINE_LLAMACPP, BR_ROLE_PREEMPTIONS);
	assert_non_null(lc);
	assert_non_null(strstr(lc, "does not preempt"));
	assert_non_null(strstr(br_role_absent(BR_ENGINE_LLAMACPP, BR_ROLE_KV_USAGE_FRAC), "#13660"));
	assert_non_null(strstr(br_role_caveat(BR_ENGINE_LLAMACPP, BR_ROLE_GENERATION_TOKENS),
	    "finishes"));
}

/* -nan(ind) (MSVC's NaN) is a NaN sample, not a parse error. */
static void
test_llamacpp_msvc_nan(void **state)
{
	(void)state;
	br_series s;
	load_ok("fixtures/engines/llamacpp-msvc-nan.prom", &s);
	assert_nan(col0(&s, "llamacpp:n_busy_slots_per_decode"));
	assert_double_rel(col0(&s, "llamacpp:kv_cache_tokens"), 0, 0);
	assert_int_equal(s.n_warnings, 0);
	br_series_free(&s);
}

/* A body served as one JSON string (llama.cpp b7010..b7200, issue #17384)
 * reads as the page it quotes, with a warning saying so. */
static void
test_llamacpp_json_quoted_body(void **state)
{
	(void)state;
	char *path = br_test_src("fixtures/engines/llamacpp-2025-06.prom"), *text = NULL, *cause = NULL;
	size_t len = 0;
	assert_int_equal(br_read_file(path, &text, &len, &cause), 0);
	GString *q = g_string_new("\"");
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			g_string_append(q, "\\n");
		else if (text[i] == '"' || text[i] == '\\') {
			g_string_append_c(q, '\\');
			g_string_append_c(q, text[i]);
		} else
			g_string_append_c(q, text[i]);
	}
	g_string_append(q, "\"\n");
	br_series s;
	if (br_prom_parse_text("quoted", q->str, q->len, NAN, &s, &cause) != 0)
		fail_msg("%s", cause);
	assert_double_rel(col0(&s, "llamacpp:prompt_tokens_total"), 143, 0);
	assert_double_rel(col0(&s, "llamacpp:tokens_predicted_seconds_total"), 29.567, 1e-15);
	assert_int_equal(s.n_warnings, 1);
	assert_non_null(strstr(s.warnings[0], "#17384"));
	br_series_free(&s);
	/* a quoted string with a bad escape is not unquoted: refused as Prometheus text */
	static const char bad[] = "\"llamacpp:x 1\\q\"";
	assert_int_equal(br_prom_parse_text("bad", bad, sizeof bad - 1, NAN, &s, &cause), -1);
	assert_non_null(strstr(cause, "bad:1:1"));
	free(cause);
	g_string_free(q, TRUE);
	free(text);
	free(path);
}

/*
 * SGLang's rank labels: tensor-parallel rank 1 repeats rank 0 (skipped),
 * data-parallel ranks are summed, token usage averaged over them.
 * Worked by hand: running = 10 (dp0) + 7 (dp1) = 17; usage = (0.5 + 0.3) / 2.
 */
static void
test_sglang_ranks(void **state)
{
	(void)state;
	static const char page[] =
	    "sglang:num_running_reqs{dp_rank=\"0\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"0\"} 10\n"
	    "sglang:num_running_reqs{dp_rank=\"0\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"1\"} 10\n"
	    "sglang:num_running_reqs{dp_rank=\"1\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"0\"} 7\n"
	    "sglang:token_usage{dp_rank=\"0\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"0\"} 0.5\n"
	    "sglang:token_usage{dp_rank=\"0\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"1\"} 0.5\n"
	    "sglang:token_usage{dp_rank=\"1\",engine_type=\"unified\",model_name=\"m\",pp_rank=\"0\",tp_rank=\"0\"} 0.3\n";
	br_series s;
	char *cause = NULL;
	if (br_prom_parse_text("ranks", page, sizeof page - 1, NAN, &s, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(br_series_engine(&s), BR_ENGINE_SGLANG);
	assert_double_rel(role0(&s, BR_ROLE_RUNNING), 17, 0);
	assert_double_rel(role0(&s, BR_ROLE_KV_USAGE_FRAC), 0.4, 1e-15);
	assert_int_equal(s.n_cols, 2);
	br_series_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles_of_real_pages),
		cmocka_unit_test(test_sglang_histograms_and_absent_roles),
		cmocka_unit_test(test_llamacpp_msvc_nan),
		cmocka_unit_test(test_llamacpp_json_quoted_body),
		cmocka_unit_test(test_sglang_ranks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
#include "benchreport/serverlog.h"

#include <glib.h>
#include <stdlib.h>
#include <unistd.h>

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

/*
 * Server logs of SGLang and llama.cpp: capacity and what each request or
 * batch line says. Expected values read off the files, e.g.
 *   grep -n 'max_total_num_tokens' fixtures/engines/sglang-tp4.log   (line 11: 46611, 2049, 131072, 2048)
 *   grep -n 'KV Cache is allocated' …  (K 1.42 GB + V 1.42 GB = 2.84; tags TP0..TP3 → TP 4)
 *   grep -n 'size =' fixtures/engines/llama-server-b5489.log  (line 134: 448.00 MiB / 1024 = 0.4375 GiB, 4096 cells)
 *   llamacpp-2024-vulkan.log: no cell count, so the pool is n_ctx = 4096 (line 1); 192 MiB = 0.1875 GiB
 *   llamacpp-b9265-slots.log: no n_slots line; four "new slot, n_ctx = 1024" lines → 4 slots of 1024
 *   llamacpp-nseqmax.log: grep -n 'n_seq_max\|cells' → 4 sequences (line 122), 8192 cells (line 134)
 */
static const struct log_case {
	const char *file;
	br_engine engine;
	double pool_tokens, pool_gib, max_seqs, ctx_tokens, batched_tokens, tp;
	int pool_line, n_stats, n_requests;
	const char *version;
} log_cases[] = {
	{ "fixtures/engines/sglang-tp4.log", BR_ENGINE_SGLANG, 46611, 2.84, 2049, 131072, 2048, 4,
	  11, 7, 0, NULL },
	{ "fixtures/engines/llama-server-b5489.log", BR_ENGINE_LLAMACPP, 4096, 0.4375, 1, 4096, NAN,
	  NAN, 134, 0, 1, "b5489 (2d38b6e4)" },
	{ "fixtures/engines/llamacpp-2024-vulkan.log", BR_ENGINE_LLAMACPP, 4096, 0.1875, 1, 4096, NAN,
	  NAN, 1, 0, 0, NULL },
	/* "1/1 seqs" (n_seq_max / KV streams) and no slot line: one sequence, so one slot */
	{ "fixtures/engines/llamacpp-2025-hexagon.log", BR_ENGINE_LLAMACPP, 8192, 0.53125, 1, NAN,
	  NAN, NAN, 3, 0, 0, NULL },
	{ "fixtures/engines/llamacpp-b9265-slots.log", BR_ENGINE_LLAMACPP, NAN, NAN, 4, 1024, NAN,
	  NAN, 0, 0, 0, NULL },
	/* no n_slots or slot line: n_seq_max = 4 gives the slots, n_ctx_per_seq 2048 each; 8192 cells in 448 MiB */
	{ "fixtures/engines/llamacpp-nseqmax.log", BR_ENGINE_LLAMACPP, 8192, 0.4375, 4, 2048, NAN,
	  NAN, 134, 0, 1, "b5489 (2d38b6e4)" },
	/* era A: "-> Slot 0 - max context: 512" → one slot of 512; pool n_ctx 512 (line 1), 160 MiB */
	{ "fixtures/engines/llamacpp-2024-eraA.log", BR_ENGINE_LLAMACPP, 512, 0.15625, 1, 512, NAN,
	  NAN, 1, 0, 0, NULL },
	/* era B': the key=value build line alone */
	{ "fixtures/engines/llamacpp-2024-build3579.log", BR_ENGINE_LLAMACPP, NAN, NAN, NAN, NAN, NAN,
	  NAN, 0, 0, 0, "b3579 (fc4ca27b)" },
};

/* eq_or_nan: a == b to 1e-12 relative, or both NaN. */
static void
eq_or_nan(const char *file, const char *what, double a, double b)
{
	if (isnan(b) ? !isnan(a) : !(fabs(a - b) <= 1e-12 * fabs(b)))
		fail_msg("%s: %s = %.17g, expected %.17g", file, what, a, b);
}

static void
test_engine_logs(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof log_cases / sizeof log_cases[0]; k++) {
		const struct log_case *c = &log_cases[k];
		char *path = br_test_src(c->file), *cause = NULL;
		assert_int_equal(br_server_log_sniff_engine(path), c->engine);
		assert_int_equal(br_server_log_looks_like(path), 1);
		br_server_log l;
		if (br_server_log_load(path, &l, &cause) != 0)
			fail_msg("%s: %s", path, cause);
		assert_int_equal(l.engine_kind, c->engine);
		eq_or_nan(c->file, "kv_pool_tokens", l.kv_pool_tokens, c->pool_tokens);
		eq_or_nan(c->file, "kv_pool_gib", l.kv_pool_gib, c->pool_gib);
		eq_or_nan(c->file, "max_num_seqs", l.max_num_seqs, c->max_seqs);
		eq_or_nan(c->file, "max_model_len_tokens", l.max_model_len_tokens, c->ctx_tokens);
		eq_or_nan(c->file, "max_num_batched_tokens", l.max_num_batched_tokens, c->batched_tokens);
		eq_or_nan(c->file, "tensor_parallel_size", l.tensor_parallel_size, c->tp);
		assert_int_equal(l.kv_pool_line, c->pool_line);
		assert_int_equal(l.n_stats, c->n_stats);
		assert_int_equal(l.n_requests, c->n_requests);
		if (c->version != NULL)
			assert_string_equal(l.engine_version, c->version);
		br_server_log_free(&l);
		free(path);
	}
}

/*
 * SGLang start-ups, ranks and a cut log, on lines in SGLang's format
 * (fixtures/engines/sglang-tp4.log) with numbers chosen by hand:
 *   restart: a start-up serving 'old' with a 200,000-token pool, then one
 *     serving 'new' with 86,864: the last one counts, 2 start-ups;
 *   restart without a second ServerArgs: TP0 allocates twice;
 *   data parallel: DP0/DP1 × TP0/TP1 each 1,000 tokens → the server holds
 *     2 × 1,000 = 2,000, TP 2, DP 2, one start-up;
 *   a cut last line ("max_total_num_tokens=868" of 86864, no newline) is
 *     not read: no pool, cut_last_line 2;
 *   ServerArgs arguments (counted by hand): the restart keeps the second
 *     line's 2; values that hold commas, brackets and quotes ('a,b(c)',
 *     [1, 2, 4], '{"x": 1}', {'k': (1, 2)}) are one argument each, 7 in
 *     all; a line cut inside its list keeps the 2 whole ones before it and
 *     is not complete.
 */
static const struct sg_case {
	const char *text;
	double pool, tp, dp;
	int startups, cut;
	const char *model;
	size_t n_args;
	int args_complete;
	const char *arg, *arg_value;   /* one argument as printed, or NULL */
} sg_cases[] = {
	{ "[2026-01-14 08:59:00 TP0] server_args=ServerArgs(model_path='old', tp_size=1)\n"
	  "[2026-01-14 08:59:36 TP0] KV Cache is allocated. #tokens: 200000, K size: 5.34 GB, V size: 5.34 GB\n"
	  "[2026-01-14 08:59:48 TP0] max_total_num_tokens=200000, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=128, context_len=8192\n"
	  "[2026-01-15 08:59:00 TP0] server_args=ServerArgs(model_path='new', tp_size=1)\n"
	  "[2026-01-15 08:59:36 TP0] KV Cache is allocated. #tokens: 86864, K size: 2.32 GB, V size: 2.32 GB\n"
	  "[2026-01-15 08:59:48 TP0] max_total_num_tokens=86864, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=128, context_len=8192\n",
	  86864, 1, 1, 2, 0, "new", 2, 1, "model_path", "'new'" },
	{ "[2026-01-14 08:59:36 TP0] KV Cache is allocated. #tokens: 200000, K size: 5.34 GB, V size: 5.34 GB\n"
	  "[2026-01-14 08:59:48 TP0] max_total_num_tokens=200000, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=128, context_len=8192\n"
	  "[2026-01-15 08:59:36 TP0] KV Cache is allocated. #tokens: 86864, K size: 2.32 GB, V size: 2.32 GB\n"
	  "[2026-01-15 08:59:48 TP0] max_total_num_tokens=86864, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=128, context_len=8192\n",
	  86864, 1, 1, 2, 0, NULL, 0, 0, NULL, NULL },
	{ "[2026-01-15 08:59:36 DP0 TP0] KV Cache is allocated. #tokens: 1000, K size: 0.01 GB, V size: 0.01 GB\n"
	  "[2026-01-15 08:59:36 DP0 TP1] KV Cache is allocated. #tokens: 1000, K size: 0.01 GB, V size: 0.01 GB\n"
	  "[2026-01-15 08:59:36 DP1 TP0] KV Cache is allocated. #tokens: 1000, K size: 0.01 GB, V size: 0.01 GB\n"
	  "[2026-01-15 08:59:36 DP1 TP1] KV Cache is allocated. #tokens: 1000, K size: 0.01 GB, V size: 0.01 GB\n"
	  "[2026-01-15 08:59:48 DP0 TP0] max_total_num_tokens=1000, chunked_prefill_size=2048, max_prefill_tokens=16384, max_running_requests=8, context_len=4096\n",
	  2000, 2, 2, 1, 0, NULL, 0, 0, NULL, NULL },
	{ "[2026-01-15 08:59:36 TP0] KV Cache is allocated. #tokens: 86864, K size: 2.32 GB, V size: 2.32 GB\n"
	  "[2026-01-15 08:59:48 TP0] max_total_num_tokens=868",
	  NAN, 1, 1, 1, 2, NULL, 0, 0, NULL, NULL },
	{ "[2026-01-15 08:59:00] server_args=ServerArgs(model_path='a,b(c)', lora_paths=None, "
	  "cuda_graph_bs=[1, 2, 4], json_model_override_args='{\"x\": 1}', speculative_config={'k': (1, 2)}, "
	  "schedule_conservativeness=1.0, disable_radix_cache=False)\n"
	  "[2026-01-15 08:59:36 TP0] KV Cache is allocated. #tokens: 86864, K size: 2.32 GB, V size: 2.32 GB\n",
	  NAN, 1, 1, 1, 0, "a,b(c)", 7, 1, "cuda_graph_bs", "[1, 2, 4]" },
	{ "[2026-01-15 08:59:00] server_args=ServerArgs(model_path='m', tp_size=4, lora_paths=['a', 'b\n"
	  "[2026-01-15 08:59:36 TP0] KV Cache is allocated. #tokens: 86864, K size: 2.32 GB, V size: 2.32 GB\n",
	  NAN, 1, 1, 1, 0, "m", 3, 0, "tp_size", "4" },
};

static void
test_sglang_log_cases(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof sg_cases / sizeof sg_cases[0]; k++) {
		char path[] = "/tmp/br-sglang-logXXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		FILE *fp = fdopen(fd, "w");
		fputs(sg_cases[k].text, fp);
		fclose(fp);
		br_server_log l;
		char *cause = NULL;
		if (br_server_log_load(path, &l, &cause) != 0)
			fail_msg("case %zu: %s", k, cause);
		char what[32];
		snprintf(what, sizeof what, "case %zu", k);
		eq_or_nan(what, "kv_pool_tokens", l.kv_pool_tokens, sg_cases[k].pool);
		eq_or_nan(what, "tensor_parallel_size", l.tensor_parallel_size, sg_cases[k].tp);
		eq_or_nan(what, "data_parallel_size", l.data_parallel_size, sg_cases[k].dp);
		assert_int_equal(l.n_startups, sg_cases[k].startups);
		assert_int_equal(l.cut_last_line, sg_cases[k].cut);
		if (sg_cases[k].model != NULL)
			assert_string_equal(l.model, sg_cases[k].model);
		assert_int_equal(l.n_args, sg_cases[k].n_args);
		assert_int_equal(l.args_complete, sg_cases[k].args_complete);
		assert_int_equal(l.args_all, sg_cases[k].n_args > 0);
		if (sg_cases[k].arg != NULL) {
			const char *v = NULL;
			for (size_t i = 0; i < l.n_args; i++)
				if (strcmp(l.args[i].name, sg_cases[k].arg) == 0)
					v = l.args[i].value;
			assert_non_null(v);
			assert_string_equal(v, sg_cases[k].arg_value);
		}
		br_server_log_free(&l);
		unlink(path);
	}
}

/* The batch lines of SGLang and the timing lines of llama.cpp, value by value. */
static void
test_engine_log_lines(void **state)
{
	(void)state;
	char *path = br_test_src("fixtures/engines/sglang-tp4.log"), *cause = NULL;
	br_server_log l;
	assert_int_equal(br_server_log_load(path, &l, &cause), 0);
	/* line 20: [2025-03-08 12:29:30 TP0] Prefill batch. ... #running-req: 0, #queue-req: 0,
	 * 17 s after the first stamp 12:29:13; line 25: Decode batch. #running-req: 1, ...
	 * gen throughput (token/s): 84.20 */
	assert_int_equal(l.stats[0].line, 20);
	assert_double_rel(l.stats[0].t_s, 17, 0);
	assert_double_rel(l.stats[0].running, 0, 0);
	assert_nan(l.stats[0].gen_tput_tps);
	assert_int_equal(l.stats[3].line, 25);
	assert_double_rel(l.stats[3].running, 1, 0);
	assert_double_rel(l.stats[3].gen_tput_tps, 84.20, 1e-15);
	assert_double_rel(l.stats[3].kv_usage_frac, 0, 0);
	br_server_log_free(&l);
	free(path);

	path = br_test_src("fixtures/engines/llama-server-b5489.log");
	assert_int_equal(br_server_log_load(path, &l, &cause), 0);
	/* lines 246-248: slot print_timing: id  0 | task 0 | / prompt eval time = 410.44 ms / 4 tokens
	 * / eval time = 25055.10 ms / 128 tokens */
	assert_int_equal(l.requests[0].line, 247);
	assert_int_equal(l.requests[0].slot, 0);
	assert_int_equal(l.requests[0].task, 0);
	assert_double_rel(l.requests[0].prompt_ms, 410.44, 1e-15);
	assert_double_rel(l.requests[0].prompt_tokens, 4, 0);
	assert_double_rel(l.requests[0].eval_ms, 25055.10, 1e-15);
	assert_double_rel(l.requests[0].eval_tokens, 128, 0);
	br_server_log_free(&l);
	free(path);
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
		cmocka_unit_test(test_engine_logs),
		cmocka_unit_test(test_engine_log_lines),
		cmocka_unit_test(test_sglang_log_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Tests for src/ingest/server_log.c (include/benchreport/serverlog.h).
 *
 * Expected values were read off the files by hand / with grep (commands in
 * the comments), never from the parser's own output.
 */
#include "br_test.h"
#include <unistd.h>
#include "benchreport/common.h"
#include "benchreport/serverlog.h"

/* load: br_server_log_load that must succeed. */
static void
load_ok(const char *path, br_server_log *l)
{
	char *cause = NULL;
	int rc = br_server_log_load(path, l, &cause);
	if (rc != 0)
		fail_msg("%s: %s", path, cause ? cause : "(no cause)");
	assert_null(cause);
}

/* load_fail: br_server_log_load that must fail; returns the cause (caller frees). */
static char *
load_fail(const char *path)
{
	br_server_log l;
	char *cause = NULL;
	assert_int_equal(br_server_log_load(path, &l, &cause), -1);
	assert_non_null(cause);
	assert_null(l.vllm_version);
	assert_null(l.stats);
	assert_nan(l.kv_pool_tokens);
	br_server_log_free(&l);
	return cause;
}

/*
 * wrap_file: write `src` hard-wrapped at `width` bytes per line (a terminal
 * copy) to a temporary file; returns its path (caller unlinks and frees).
 */
static char *
wrap_file(const char *src, int width)
{
	FILE *in = fopen(src, "rb");
	assert_non_null(in);
	char *path = strdup("/tmp/br_test_ingest_log_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *out = fdopen(fd, "wb");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, in)) > 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (n == 0)
			fputc('\n', out);
		for (ssize_t i = 0; i < n; i += width) {
			fwrite(line + i, 1, (size_t)(n - i < width ? n - i : width), out);
			fputc('\n', out);
		}
	}
	free(line);
	fclose(in);
	fclose(out);
	return path;
}

/* same_log: everything but line numbers agrees (wrapped vs original). */
static void
same_log(const br_server_log *a, const br_server_log *b, int width)
{
	if ((a->vllm_version == NULL) != (b->vllm_version == NULL) ||
	    (a->vllm_version && strcmp(a->vllm_version, b->vllm_version) != 0))
		fail_msg("width %d: version %s vs %s", width, a->vllm_version, b->vllm_version);
	if ((a->model == NULL) != (b->model == NULL) || (a->model && strcmp(a->model, b->model) != 0))
		fail_msg("width %d: model %s vs %s", width, a->model, b->model);
#define SAME(f) do { double _x = (double)a->f, _y = (double)b->f; if (!(_x == _y || (isnan(_x) && isnan(_y)))) \
	fail_msg("width %d: " #f " %.17g vs %.17g", width, _x, _y); } while (0)
	SAME(max_model_len_tokens);
	SAME(max_num_seqs);
	SAME(max_num_batched_tokens);
	SAME(tensor_parallel_size);
	SAME(gpu_memory_utilization);
	SAME(block_size_tokens);
	SAME(kv_pool_tokens);
	SAME(kv_pool_gib);
	SAME(max_concurrency_x);
	SAME(max_concurrency_len_tokens);
	SAME(n_capacity_lines);
	SAME(n_stats);
	for (size_t i = 0; i < a->n_stats && i < b->n_stats; i++) {
		SAME(stats[i].engine);
		SAME(stats[i].t_s);
		SAME(stats[i].prompt_tput_tps);
		SAME(stats[i].gen_tput_tps);
		SAME(stats[i].running);
		SAME(stats[i].waiting);
		SAME(stats[i].preemptions);
		SAME(stats[i].kv_usage_frac);
		SAME(stats[i].prefix_hit_frac);
	}
#undef SAME
}

/* ------------------------------------------------------------ real files */

/*
 * glm52 server.log (vLLM 0.23.1 dev, TP 4). Values from:
 *   sed -n 4p   → banner "version 0.23.1rc1.dev1219+gffae5a399.d20260729"
 *   sed -n 8p   → non-default args: max_model_len 400000, tensor_parallel_size 4,
 *                 block_size 64, gpu_memory_utilization 0.85,
 *                 max_num_batched_tokens 8192, max_num_seqs 4
 *   line 22     → "Initializing a V1 LLM engine"
 *   line 295    → "Available KV cache memory: 13.52 GiB"
 *   line 298    → "GPU KV cache size: 1,600,255 tokens"
 *   line 299    → "Maximum concurrency for 400,000 tokens per request: 4.00x"
 *   grep -c 'Engine 000: Avg prompt' server.log → 9
 *   line 403    → 03:56:09, prompt 549.4, gen 62.3, running 4, waiting 0,
 *                 KV 0.4 %, prefix 0.0 %; first stamped line is line 1 at
 *                 03:48:50, so t = 7 min 19 s = 439 s.
 */
static void
test_real_glm52(void **state)
{
	(void)state;
	char *p = br_test_real("runs/glm52-mtp3-c4-r2/server.log");
	if (p == NULL)
		skip();
	br_server_log l;
	load_ok(p, &l);
	assert_string_equal(l.vllm_version, "0.23.1rc1.dev1219+gffae5a399.d20260729");
	assert_int_equal(l.version_line, 4);
	assert_string_equal(l.engine, "V1");
	assert_string_equal(l.model, "/data/user/models/GLM-5.2-AutoRound-W4G64-MTP-e1ba887");
	assert_string_equal(l.served_model_name, "glm52-w4a16-tiered");
	assert_double_abs(l.max_model_len_tokens, 400000, 0);
	assert_double_abs(l.max_num_seqs, 4, 0);
	assert_double_abs(l.max_num_batched_tokens, 8192, 0);
	assert_double_abs(l.tensor_parallel_size, 4, 0);
	assert_double_abs(l.block_size_tokens, 64, 0);
	assert_double_abs(l.gpu_memory_utilization, 0.85, 1e-12);
	assert_double_abs(l.kv_pool_tokens, 1600255, 0);
	assert_int_equal(l.kv_pool_line, 298);
	assert_double_abs(l.kv_pool_gib, 13.52, 1e-12);
	assert_int_equal(l.kv_mem_line, 295);
	assert_double_abs(l.max_concurrency_x, 4.00, 1e-12);
	assert_double_abs(l.max_concurrency_len_tokens, 400000, 0);
	assert_int_equal(l.max_conc_line, 299);
	assert_int_equal(l.n_capacity_lines, 1);
	assert_int_equal(l.did_not_start, 0);
	assert_null(l.failure_message);
	assert_nan(l.v0_cumulative_preemptions);
	assert_int_equal(l.n_stats, 9);
	const br_log_stat *s = &l.stats[2];
	assert_int_equal(s->line, 403);
	assert_int_equal(s->engine, 0);
	assert_string_equal(s->stamp, "08-01 03:56:09");
	assert_double_abs(s->t_s, 439, 1e-9);
	assert_double_abs(s->prompt_tput_tps, 549.4, 1e-9);
	assert_double_abs(s->gen_tput_tps, 62.3, 1e-9);
	assert_double_abs(s->running, 4, 0);
	assert_double_abs(s->waiting, 0, 0);
	assert_nan(s->preemptions); /* this build prints no "Preemptions:" */
	assert_double_abs(s->kv_usage_frac, 0.004, 1e-12);
	assert_double_abs(s->prefix_hit_frac, 0.0, 0);
	/* last stats line, 450: 03:57:09 → 499 s, gen 160.1 */
	assert_int_equal(l.stats[8].line, 450);
	assert_double_abs(l.stats[8].t_s, 499, 1e-9);
	assert_double_abs(l.stats[8].gen_tput_tps, 160.1, 1e-9);
	assert_int_equal(br_server_log_looks_like(p), 1);
	br_server_log_free(&l);
	free(p);
}

/*
 * The same log hard-wrapped at every width from 45 to 260 bytes must give
 * the same model (only line numbers move). Below ~44 bytes the wrap cuts the
 * logger time stamp itself, which is out of scope.
 */
static void
test_real_glm52_wrapped(void **state)
{
	(void)state;
	char *p = br_test_real("runs/glm52-mtp3-c4-r2/server.log");
	if (p == NULL)
		skip();
	br_server_log base;
	load_ok(p, &base);
	for (int w = 45; w <= 260; w++) {
		char *wp = wrap_file(p, w);
		br_server_log l;
		load_ok(wp, &l);
		same_log(&base, &l, w);
		br_server_log_free(&l);
		unlink(wp);
		free(wp);
	}
	br_server_log_free(&base);
	free(p);
}

/*
 * server.err.log is the same server's stderr: tqdm bars, c10d and Python
 * warnings, uvicorn "INFO:     ..." lines under process tags, but not one
 * line in vLLM's logger format and none of the messages the report reads
 * (grep -cE '(INFO|WARNING|ERROR|DEBUG) [0-9]{2}-[0-9]{2} ' → 0). Decision:
 * it is not a server log: load fails with "no vLLM log line found" and
 * looks_like says 0, so run discovery never picks it over server.log.
 */
static void
test_real_glm52_stderr(void **state)
{
	(void)state;
	char *p = br_test_real("runs/glm52-mtp3-c4-r2/server.err.log");
	if (p == NULL)
		skip();
	char *cause = load_fail(p);
	assert_non_null(strstr(cause, "expected a vLLM server log (no vLLM log line found)"));
	assert_non_null(strstr(cause, "server.err.log"));
	free(cause);
	assert_int_equal(br_server_log_looks_like(p), 0);
	free(p);
}

/*
 * vLLM 0.25.1 rejected max_model_len 999999: the log ends in a traceback
 * whose exception is line 58 "pydantic_core._pydantic_core.ValidationError:
 * 1 validation error for ModelConfig", detail on line 59 "Value error,
 * User-specified max_model_len (999999) is greater than ...". No KV lines.
 */
static void
test_real_rejected(void **state)
{
	(void)state;
	char *p = br_test_real("logs/vllm-0.25.1-max-model-len-rejected.log");
	if (p == NULL)
		skip();
	br_server_log l;
	load_ok(p, &l);
	assert_int_equal(l.did_not_start, 1);
	assert_int_equal(l.failure_line, 58);
	assert_non_null(l.failure_message);
	assert_true(strncmp(l.failure_message, "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig", 80) == 0);
	assert_non_null(strstr(l.failure_message, "User-specified max_model_len (999999)"));
	assert_true(strlen(l.failure_message) <= 303);
	assert_null(strstr(l.failure_message, "(APIServer")); /* prefix stripped */
	assert_string_equal(l.vllm_version, "0.25.1");
	assert_double_abs(l.max_model_len_tokens, 999999, 0);
	assert_string_equal(l.model, "facebook/opt-125m");
	assert_nan(l.kv_pool_tokens);
	assert_nan(l.max_concurrency_x);
	assert_int_equal(l.n_capacity_lines, 0);
	assert_int_equal(l.n_stats, 0);
	br_server_log_free(&l);
	free(p);
}

/* ------------------------------------------------------------- fixtures */

/*
 * fixtures/logs/v0-blocks.log (written for this test): V0 0.5.4,
 * "# GPU blocks: 5429" and no block_size anywhere → 5429 × 16 (vLLM's
 * default) = 86,864 tokens; "Maximum concurrency for 2048 tokens per
 * request: 42.41x" without separators; V0 stats with "Pending:"; two
 * preemption warnings, the last with total_num_cumulative_preemption=51.
 * Stats at 09:01:00 and 09:01:05, first stamp 09:00:00 → 60 s and 65 s.
 */
static void
test_v0_blocks(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/v0-blocks.log");
	br_server_log l;
	load_ok(p, &l);
	assert_string_equal(l.vllm_version, "0.5.4");
	assert_string_equal(l.engine, "V0");
	assert_string_equal(l.model, "facebook/opt-125m");
	assert_double_abs(l.kv_pool_tokens, 86864, 0);
	assert_int_equal(l.kv_pool_line, 5);
	assert_nan(l.block_size_tokens); /* the log does not say; 16 only used for the pool */
	assert_nan(l.kv_pool_gib);
	assert_double_abs(l.max_concurrency_len_tokens, 2048, 0);
	assert_double_abs(l.max_concurrency_x, 42.41, 1e-12);
	assert_double_abs(l.max_model_len_tokens, 2048, 0); /* from max_seq_len= of the config line */
	assert_double_abs(l.tensor_parallel_size, 1, 0);
	assert_int_equal(l.n_capacity_lines, 1);
	assert_double_abs(l.v0_cumulative_preemptions, 51, 0);
	assert_int_equal(l.n_stats, 2);
	assert_double_abs(l.stats[0].t_s, 60, 1e-9);
	assert_double_abs(l.stats[0].prompt_tput_tps, 1234.5, 1e-9);
	assert_double_abs(l.stats[0].running, 12, 0);
	assert_double_abs(l.stats[0].waiting, 3, 0);
	assert_double_abs(l.stats[0].kv_usage_frac, 0.973, 1e-12);
	assert_nan(l.stats[0].prefix_hit_frac);
	assert_nan(l.stats[0].preemptions);
	assert_double_abs(l.stats[1].t_s, 65, 1e-9);
	assert_double_abs(l.stats[1].gen_tput_tps, 412.7, 1e-9);
	assert_double_abs(l.stats[1].waiting, 4, 0);
	assert_int_equal(l.did_not_start, 0);
	br_server_log_free(&l);
	free(p);
}

/*
 * fixtures/logs/docker-ansi.log: `docker logs --timestamps` with ANSI colours
 * around the process tag, level and file; the block-letter banner; a
 * non-default args dict with an <Enum: 3>, a tuple enum, a nested dict whose
 * string holds "it's, {odd}", a list served_model_name, and None. The stats
 * lines cross New Year: first stamp 12-31 23:59:50, stats at 12-31 23:59:55
 * (5 s) and 01-01 00:00:05 (15 s).
 */
static void
test_docker_ansi(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/docker-ansi.log");
	br_server_log l;
	load_ok(p, &l);
	assert_string_equal(l.vllm_version, "0.27.1");
	assert_int_equal(l.version_line, 1);
	assert_string_equal(l.engine, "V1");
	assert_string_equal(l.model, "Qwen/Qwen3-8B");
	assert_string_equal(l.served_model_name, "qwen3");
	assert_double_abs(l.max_model_len_tokens, 32768, 0);
	assert_double_abs(l.max_num_seqs, 64, 0);
	assert_double_abs(l.gpu_memory_utilization, 0.9, 1e-12);
	assert_nan(l.max_num_batched_tokens);
	assert_nan(l.block_size_tokens);
	assert_double_abs(l.kv_pool_tokens, 86864, 0);
	assert_double_abs(l.kv_pool_gib, 4.64, 1e-12);
	assert_double_abs(l.max_concurrency_len_tokens, 32768, 0);
	assert_double_abs(l.max_concurrency_x, 2.65, 1e-12);
	assert_int_equal(l.n_stats, 2);
	assert_string_equal(l.stats[0].stamp, "12-31 23:59:55");
	assert_double_abs(l.stats[0].t_s, 5, 1e-9);
	assert_double_abs(l.stats[0].prefix_hit_frac, 0.5, 1e-12);
	assert_double_abs(l.stats[0].kv_usage_frac, 0.015, 1e-12);
	assert_string_equal(l.stats[1].stamp, "01-01 00:00:05");
	assert_double_abs(l.stats[1].t_s, 15, 1e-9);
	assert_double_abs(l.stats[1].gen_tput_tps, 40.25, 1e-12);
	assert_double_abs(l.stats[1].waiting, 5, 0);
	assert_double_abs(l.stats[1].kv_usage_frac, 0.125, 1e-12);
	assert_int_equal(br_server_log_looks_like(p), 1);
	br_server_log_free(&l);
	free(p);
}

/*
 * fixtures/logs/dp2-preemptions.log: data parallel 2 (EngineCore_DP0/DP1).
 * DP1 prints its capacity pair first (lines 7-8: 246,480 tokens, 30.09x),
 * DP0 second (246,800, 30.13x): each engine owns its pool, so the server
 * holds the sums: 493,280 tokens, 60.22x, 30.10 + 30.05 = 60.15 GiB (the
 * first line's number is still the one kept as kv_pool_line). Stats
 * for Engine 000 and 001 with "Preemptions: N"; one with a thousands
 * separator in the generation throughput (1,234.5).
 */
static void
test_dp2_preemptions(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/dp2-preemptions.log");
	br_server_log l;
	load_ok(p, &l);
	assert_string_equal(l.vllm_version, "0.26.0");
	assert_int_equal(l.n_capacity_lines, 2);
	assert_double_abs(l.kv_pool_tokens, 493280, 0);
	assert_double_abs(l.data_parallel_size, 2, 0);
	assert_int_equal(l.kv_pool_line, 7);
	assert_double_abs(l.max_concurrency_x, 60.22, 1e-12);
	assert_double_abs(l.max_concurrency_len_tokens, 8192, 0);
	assert_double_abs(l.kv_pool_gib, 60.15, 1e-12);
	assert_double_abs(l.max_num_batched_tokens, 4096, 0);
	assert_double_abs(l.tensor_parallel_size, 1, 0); /* from the config line */
	assert_int_equal(l.n_stats, 3);
	assert_int_equal(l.stats[0].engine, 0);
	assert_double_abs(l.stats[0].preemptions, 0, 0);
	assert_int_equal(l.stats[1].engine, 1);
	assert_double_abs(l.stats[1].preemptions, 3, 0);
	assert_double_abs(l.stats[1].waiting, 1, 0);
	assert_double_abs(l.stats[1].prefix_hit_frac, 0.025, 1e-12);
	assert_double_abs(l.stats[1].t_s, 120, 1e-9); /* 10:02:00 - 10:00:00 */
	assert_int_equal(l.stats[2].engine, 0);
	assert_double_abs(l.stats[2].t_s, 130, 1e-9);
	assert_double_abs(l.stats[2].gen_tput_tps, 1234.5, 1e-9);
	assert_double_abs(l.stats[2].running, 64, 0);
	assert_double_abs(l.stats[2].waiting, 17, 0);
	assert_double_abs(l.stats[2].preemptions, 3, 0);
	assert_double_abs(l.stats[2].kv_usage_frac, 0.998, 1e-12);
	br_server_log_free(&l);
	free(p);
}

/*
 * fixtures/logs/restart.log: the server started twice (banners at lines 1
 * and 9). Capacity and version come from the second start-up (lines 12-14:
 * 30.10 GiB, 246,480 tokens, 30.09x for 8,192), not the first (100,000
 * tokens); n_startups = 2. restart-nobanner.log: no banner, a capacity line
 * after stats (line 3) marks the restart. The other fixtures start once.
 */
static void
test_restart(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/restart.log");
	br_server_log l;
	load_ok(p, &l);
	assert_int_equal(l.n_startups, 2);
	assert_string_equal(l.vllm_version, "0.26.0");
	assert_int_equal(l.version_line, 9);
	assert_double_abs(l.kv_pool_tokens, 246480, 0);
	assert_int_equal(l.kv_pool_line, 13);
	assert_double_abs(l.kv_pool_gib, 30.10, 1e-12);
	assert_int_equal(l.kv_mem_line, 12);
	assert_double_abs(l.max_concurrency_x, 30.09, 1e-12);
	assert_int_equal(l.max_conc_line, 14);
	assert_int_equal(l.n_capacity_lines, 1);
	assert_int_equal(l.n_stats, 2);
	br_server_log_free(&l);
	free(p);

	p = br_test_src("fixtures/logs/restart-nobanner.log");
	load_ok(p, &l);
	assert_int_equal(l.n_startups, 2);
	assert_double_abs(l.kv_pool_tokens, 246480, 0);
	assert_int_equal(l.kv_pool_line, 3);
	assert_double_abs(l.max_concurrency_x, 30.09, 1e-12);
	assert_nan(l.kv_pool_gib);
	br_server_log_free(&l);
	free(p);

	const char *once[] = { "fixtures/logs/dp2-preemptions.log", "fixtures/logs/docker-ansi.log",
		"fixtures/logs/wrapped-80.log", "fixtures/logs/v0-blocks.log" };
	for (int i = 0; i < 4; i++) {
		p = br_test_src(once[i]);
		load_ok(p, &l);
		if (l.n_startups != 1)
			fail_msg("%s: n_startups %d, expected 1", once[i], l.n_startups);
		br_server_log_free(&l);
		free(p);
	}
}

/*
 * fixtures/logs/wrapped-80.log: a V1 log hard-wrapped at 80 columns. The
 * cuts fall inside "Available KV ca|che", "GPU KV cac|he size", "Maximu|m
 * concurrency", the banner version, the args dict (4 pieces), the stats
 * lines ("Runnin|g", "0.0|%", "Prefix c|ache").
 */
static void
test_wrapped_80(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/wrapped-80.log");
	br_server_log l;
	load_ok(p, &l);
	assert_string_equal(l.vllm_version, "0.23.1rc1.dev1219+gffae5a399.d20260729");
	assert_string_equal(l.model, "/data/user/models/GLM-5.2");
	assert_double_abs(l.max_model_len_tokens, 400000, 0);
	assert_double_abs(l.tensor_parallel_size, 4, 0);
	assert_double_abs(l.block_size_tokens, 64, 0);
	assert_double_abs(l.gpu_memory_utilization, 0.85, 1e-12);
	assert_double_abs(l.max_num_batched_tokens, 8192, 0);
	assert_double_abs(l.max_num_seqs, 4, 0);
	assert_double_abs(l.kv_pool_gib, 13.52, 1e-12);
	assert_double_abs(l.kv_pool_tokens, 1600255, 0);
	assert_int_equal(l.kv_pool_line, 9);
	assert_double_abs(l.max_concurrency_len_tokens, 400000, 0);
	assert_double_abs(l.max_concurrency_x, 4.00, 1e-12);
	assert_int_equal(l.n_stats, 2);
	assert_int_equal(l.stats[0].line, 13);
	assert_double_abs(l.stats[0].t_s, 439, 1e-9); /* 03:56:09 - 03:48:50 */
	assert_double_abs(l.stats[0].prompt_tput_tps, 549.4, 1e-9);
	assert_double_abs(l.stats[0].running, 4, 0);
	assert_double_abs(l.stats[0].kv_usage_frac, 0.004, 1e-12);
	assert_double_abs(l.stats[0].prefix_hit_frac, 0.0, 0);
	assert_double_abs(l.stats[1].preemptions, 12, 0);
	assert_double_abs(l.stats[1].gen_tput_tps, 151.9, 1e-9);
	br_server_log_free(&l);
	free(p);
}

/* The DP and Docker fixtures wrapped at 45..220 bytes give the same model. */
static void
test_fixtures_any_wrap(void **state)
{
	(void)state;
	const char *names[] = { "fixtures/logs/dp2-preemptions.log", "fixtures/logs/v0-blocks.log",
	                        "fixtures/logs/docker-ansi.log" };
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		char *p = br_test_src(names[k]);
		br_server_log base;
		load_ok(p, &base);
		/* Docker stamps + colour codes make prefixes ~100 bytes long */
		int from = k == 2 ? 110 : 45;
		for (int w = from; w <= 220; w++) {
			char *wp = wrap_file(p, w);
			br_server_log l;
			load_ok(wp, &l);
			same_log(&base, &l, w);
			br_server_log_free(&l);
			unlink(wp);
			free(wp);
		}
		br_server_log_free(&base);
		free(p);
	}
}

/*
 * fixtures/logs/engine-core-failed.log: the EngineCore traceback (ERROR
 * logger prefix on every line, an APIServer line interleaved) ends in
 * "ValueError: To serve at least one request ..." (line 8); the APIServer
 * then raises "RuntimeError: Engine core initialization failed. See root
 * cause above." (line 12): the root cause is reported. An "Available KV
 * cache memory" line alone is not a capacity line.
 */
static void
test_engine_core_failed(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/logs/engine-core-failed.log");
	br_server_log l;
	load_ok(p, &l);
	assert_int_equal(l.did_not_start, 1);
	assert_int_equal(l.failure_line, 8);
	assert_true(strncmp(l.failure_message, "ValueError: To serve at least one request", 41) == 0);
	assert_double_abs(l.kv_pool_gib, 0.50, 1e-12);
	assert_nan(l.kv_pool_tokens);
	br_server_log_free(&l);
	free(p);
}

/* ------------------------------------------------------------ bad input */

static void
test_bad_empty(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/bad/log-empty.log");
	char *cause = load_fail(p);
	char *want = br_xasprintf("%s: empty file, expected a vLLM server log", p);
	assert_string_equal(cause, want);
	assert_int_equal(br_server_log_looks_like(p), 0);
	free(want);
	free(cause);
	free(p);
}

/* NUL at byte 8 of line 1 (an ELF header), even though a vLLM line follows. */
static void
test_bad_binary(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/bad/log-binary.log");
	char *cause = load_fail(p);
	char *want = br_xasprintf("%s:1:8: expected a vLLM server log, found a NUL byte (binary file)", p);
	assert_true(strncmp(cause, want, strlen(want)) == 0);
	assert_int_equal(br_server_log_looks_like(p), 0);
	free(want);
	free(cause);
	free(p);
}

static void
test_bad_not_vllm(void **state)
{
	(void)state;
	char *p = br_test_src("fixtures/bad/log-not-vllm.log");
	char *cause = load_fail(p);
	char *want = br_xasprintf("%s: expected a vLLM server log (no vLLM log line found)", p);
	assert_string_equal(cause, want);
	assert_int_equal(br_server_log_looks_like(p), 0);
	free(want);
	free(cause);
	free(p);
}

static void
test_bad_missing(void **state)
{
	(void)state;
	char *cause = load_fail("/nonexistent/server.log");
	assert_non_null(strstr(cause, "/nonexistent/server.log: cannot open"));
	free(cause);
	assert_int_equal(br_server_log_looks_like("/nonexistent/server.log"), 0);
	/* a directory opens but cannot be read */
	cause = load_fail("/tmp");
	assert_non_null(strstr(cause, "/tmp"));
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_glm52),
		cmocka_unit_test(test_real_glm52_wrapped),
		cmocka_unit_test(test_real_glm52_stderr),
		cmocka_unit_test(test_real_rejected),
		cmocka_unit_test(test_v0_blocks),
		cmocka_unit_test(test_docker_ansi),
		cmocka_unit_test(test_dp2_preemptions),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_wrapped_80),
		cmocka_unit_test(test_fixtures_any_wrap),
		cmocka_unit_test(test_engine_core_failed),
		cmocka_unit_test(test_bad_empty),
		cmocka_unit_test(test_bad_binary),
		cmocka_unit_test(test_bad_not_vllm),
		cmocka_unit_test(test_bad_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * libFuzzer target: br_sim_run (src/sim/) on a config file: the config
 * validation and the engine. The input is written to one per-process
 * temporary file first (fuzz_util.h).
 *
 * Size caps. The simulator's own limits (src/sim/sim_internal.h) allow real
 * campaigns: a million prompts, 1e7-token lengths, ten million engine steps,
 * 200,000 metrics rows. A valid config near those limits legitimately runs
 * for seconds to minutes and hundreds of MB, which would turn every such
 * input into a libFuzzer timeout or OOM and the target into a crawl. So
 * before calling br_sim_run the harness parses the input with jansson (same
 * flags as the loader) and refuses (returns -1: not kept in the corpus) a
 * config whose workload is bigger than a small cap. The engine's logic is
 * the same at any size, so nothing is lost for finding bugs:
 *   workload.num_prompts <= 16, max_concurrency <= 64,
 *   every length (fixed, min, max, mean) <= 256 tokens, std <= 64,
 *   request_rate >= 0.1/s, burstiness >= 0.1, frontend_delay_s <= 10,
 *   gpu.fixed_s <= 0.1 s, per_*_token_s <= 1e-3 s, per_context_token_s <= 1e-6 s,
 *   sample_interval_s >= 0.5 s, log_interval_s >= 1 s.
 * With these a run simulates at most ~16 × 512 steps of <= ~0.4 s, i.e. a few
 * thousand metrics rows. Values of the wrong type pass through (the loader
 * must refuse them itself). Inputs jansson cannot parse go to br_sim_run as
 * they are (its error path is fuzzed too).
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/sim.h"
#include "fuzz_util.h"

/* num_over / num_under: obj[key] is a number above hi / below lo. */
static int
num_over(const json_t *obj, const char *key, double hi)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_number(v) && !(json_number_value(v) <= hi);
}

static int
num_under(const json_t *obj, const char *key, double lo)
{
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	return json_is_number(v) && !(json_number_value(v) >= lo);
}

/* len_too_big: a workload length (number or distribution) above the cap. */
static int
len_too_big(const json_t *work, const char *key)
{
	const json_t *v = json_is_object(work) ? json_object_get(work, key) : NULL;
	if (json_is_number(v))
		return !(json_number_value(v) <= 256);
	if (!json_is_object(v))
		return 0;
	return num_over(v, "min", 256) || num_over(v, "max", 256) || num_over(v, "mean", 256) ||
	    num_over(v, "std", 64);
}

/* too_big: 1 when the config asks for more than the caps above. */
static int
too_big(const uint8_t *data, size_t size)
{
	json_error_t err;
	json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
	if (root == NULL)
		return 0;
	const json_t *work = json_object_get(root, "workload");
	const json_t *gpu = json_object_get(root, "gpu");
	int big = num_over(work, "num_prompts", 16) || num_over(work, "max_concurrency", 64) ||
	    len_too_big(work, "input_len") || len_too_big(work, "output_len") ||
	    num_under(work, "request_rate", 0.1) || num_under(work, "burstiness", 0.1) ||
	    num_over(work, "frontend_delay_s", 10) ||
	    num_over(gpu, "fixed_s", 0.1) || num_over(gpu, "per_prefill_token_s", 1e-3) ||
	    num_over(gpu, "per_decode_token_s", 1e-3) || num_over(gpu, "per_context_token_s", 1e-6) ||
	    num_under(root, "sample_interval_s", 0.5) || num_under(root, "log_interval_s", 1);
	json_decref(root);
	return big;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (too_big(data, size))
		return -1;
	const char *path = br_fuzz_tmp_path("sim_config", ".json");
	br_fuzz_write(path, data, size);
	br_sim_result r;
	char *cause = NULL;
	int rc = br_sim_run(path, &r, &cause);
	br_fuzz_check_cause("br_sim_run", rc, cause);
	if (rc == 0) {
		if (!(r.completed + r.failed == r.num_prompts)) {
			fprintf(stderr, "fuzz_sim_config: completed %g + failed %g != num_prompts %g\n",
			    r.completed, r.failed, r.num_prompts);
			abort();
		}
		if (!(r.duration_s >= 0) || !isfinite(r.duration_s)) {
			fprintf(stderr, "fuzz_sim_config: duration_s %g\n", r.duration_s);
			abort();
		}
	}
	br_sim_result_free(&r);
	free(cause);
	return 0;
}

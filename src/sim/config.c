/*
 * Simulator configuration: load CONFIG.json with jansson and validate every
 * value (DESIGN.md §5). Unknown keys are errors (a typo must not silently
 * fall back to a default); keys starting with '_' are comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "sim_internal.h"

/* Fixed default epoch for the client's t = 0 so that output is
 * deterministic: 2026-01-15 09:00:00 UTC. */
#define BR_SIM_DEFAULT_EPOCH 1768467600.0

/*
 * fail: store "PATH: section.key: message" in *cause and return -1.
 */
static int __attribute__((format(printf, 5, 6)))
fail(char **cause, const char *path, const char *section, const char *key, const char *fmt, ...)
{
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = br_xvasprintf(fmt, ap);
		va_end(ap);
		if (key)
			*cause = br_xasprintf("%s: %s%s%s: %s", path, section ? section : "",
			    section ? "." : "", key, msg);
		else
			*cause = br_xasprintf("%s: %s: %s", path, section, msg);
		free(msg);
	}
	return -1;
}

/*
 * check_keys: every key of obj must be in allowed[] (NULL-terminated) or
 * start with '_'. Returns 0 or -1 naming the first unknown key.
 */
static int
check_keys(const json_t *obj, const char *const *allowed, const char *path,
    const char *section, char **cause)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		if (k[0] == '_')
			continue;
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(*a, k) == 0)
				ok = 1;
		if (!ok) {
			if (section)
				return fail(cause, path, section, k, "unknown key");
			return fail(cause, path, "(top level)", NULL, "unknown key \"%s\"", k);
		}
	}
	return 0;
}

static const char *
type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/*
 * get_num: read obj[key] as a number into *out. Absent: *out = def, or an
 * error when def is NAN (required). Checks lo <= x (lo_strict: lo < x) and
 * x <= hi, and integrality when integer is set. Returns 0 or -1.
 */
static int
get_num(const json_t *obj, const char *key, double def, double lo, int lo_strict,
    double hi, int integer, double *out, const char *path, const char *section, char **cause)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	if (v == NULL) {
		if (isnan(def))
			return fail(cause, path, section, key, "missing (required)");
		*out = def;
		return 0;
	}
	if (!json_is_number(v))
		return fail(cause, path, section, key, "expected a number, got %s", type_name(v));
	double x = json_number_value(v);
	if (!isfinite(x))
		return fail(cause, path, section, key, "expected a finite number");
	if (lo_strict ? !(x > lo) : !(x >= lo))
		return fail(cause, path, section, key, "must be %s %g (got %g)",
		    lo_strict ? ">" : ">=", lo, x);
	if (!(x <= hi))
		return fail(cause, path, section, key, "must be <= %g (got %g)", hi, x);
	if (integer && x != floor(x))
		return fail(cause, path, section, key, "expected a whole number (got %g)", x);
	*out = x;
	return 0;
}

/*
 * br_sim_ceil3: x rounded UP to 3 significant digits, so that a suggested minimum
 * printed with %.3g is never below the true one (x > 0).
 */
double
br_sim_ceil3(double x)
{
	double scale = pow(10.0, floor(log10(x)) - 2);
	return ceil(x / scale) * scale;
}

/* byte offset of the character control_char found (for the message) */
static size_t control_char_at;

/*
 * control_char: a description of the first control character in the UTF-8
 * string s (C0 controls including newline, carriage return and tab, DEL,
 * the C1 controls U+0080-U+009F, and the line/paragraph separators
 * U+2028/U+2029 that some readers split lines on), with its byte offset in
 * control_char_at; NULL when s has none.
 */
static const char *
control_char(const char *s)
{
	static char desc[48];
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; u[i]; i++) {
		control_char_at = i;
		if (u[i] == '\n')
			return "a newline";
		if (u[i] == '\r')
			return "a carriage return";
		if (u[i] == '\t')
			return "a tab";
		if (u[i] < 0x20 || u[i] == 0x7f) {
			snprintf(desc, sizeof desc, "a control character (0x%02X)", u[i]);
			return desc;
		}
		if (u[i] == 0xC2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F) {
			snprintf(desc, sizeof desc, "a control character (U+%04X)", u[i + 1]);
			return desc;
		}
		if (u[i] == 0xE2 && u[i + 1] == 0x80 && (u[i + 2] == 0xA8 || u[i + 2] == 0xA9)) {
			snprintf(desc, sizeof desc, "a %s separator (U+%04X)",
			    u[i + 2] == 0xA8 ? "line" : "paragraph", 0x2000 + u[i + 2] - 0x80);
			return desc;
		}
	}
	return NULL;
}

/* get_str: obj[key] as a malloc'd string, def when absent; a string with a
 * control character (see control_char) is an error naming the key. */
static int
get_str(const json_t *obj, const char *key, const char *def, char **out,
    const char *path, const char *section, char **cause)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	if (v == NULL) {
		*out = br_xstrdup(def);
		return 0;
	}
	if (!json_is_string(v))
		return fail(cause, path, section, key, "expected a string, got %s", type_name(v));
	const char *bad = control_char(json_string_value(v));
	if (bad)
		return fail(cause, path, section, key, "holds %s at byte %zu; it is written into server.log, "
		    "stress.json and run.json, where it would split or corrupt lines: remove it",
		    bad, control_char_at);
	*out = br_xstrdup(json_string_value(v));
	return 0;
}

/* get_bool: obj[key] as 0/1, def when absent; anything but true/false is an error. */
static int
get_bool(const json_t *obj, const char *key, int def, int *out, const char *path,
    const char *section, char **cause)
{
	json_t *v = json_object_get(obj, key);
	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (!json_is_boolean(v))
		return fail(cause, path, section, key, "expected true or false, got %s", type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* get_obj: obj[key] as an object (NULL when absent and optional). */
static int
get_obj(const json_t *root, const char *key, int required, json_t **out,
    const char *path, char **cause)
{
	json_t *v = json_object_get(root, key);
	if (v == NULL) {
		if (required)
			return fail(cause, path, key, NULL, "missing section (required object)");
		*out = NULL;
		return 0;
	}
	if (!json_is_object(v))
		return fail(cause, path, key, NULL, "expected an object, got %s", type_name(v));
	*out = v;
	return 0;
}

/*
 * get_dist: a length given as a whole number (fixed) or as
 * {"dist": "uniform", "min": a, "max": b} / {"dist": "normal", "mean": m,
 * "std": s[, "min": a][, "max": b]} (normal clipped to [min, max]; default
 * min 1, max mean + 4 std). Returns 0 or -1.
 */
static int
get_dist(const json_t *obj, const char *key, br_sim_dist *d, const char *path,
    const char *section, char **cause)
{
	json_t *v = json_object_get(obj, key);
	char where[64];
	snprintf(where, sizeof where, "%s.%s", section, key);
	memset(d, 0, sizeof *d);
	if (v == NULL)
		return fail(cause, path, section, key, "missing (required)");
	if (json_is_number(v)) {
		double x;
		if (get_num(obj, key, NAN, 1, 0, 1e7, 1, &x, path, section, cause) < 0)
			return -1;
		d->kind = BR_DIST_FIXED;
		d->value = d->min = d->max = d->mean = x;
		return 0;
	}
	if (!json_is_object(v))
		return fail(cause, path, section, key,
		    "expected a whole number or {\"dist\": \"uniform\"|\"normal\", ...}, got %s", type_name(v));
	static const char *const allowed[] = { "dist", "min", "max", "mean", "std", NULL };
	if (check_keys(v, allowed, path, where, cause) < 0)
		return -1;
	json_t *kind = json_object_get(v, "dist");
	if (!json_is_string(kind))
		return fail(cause, path, where, "dist", "expected \"uniform\" or \"normal\"");
	const char *k = json_string_value(kind);
	if (strcmp(k, "uniform") == 0) {
		d->kind = BR_DIST_UNIFORM;
		if (get_num(v, "min", NAN, 1, 0, 1e7, 1, &d->min, path, where, cause) < 0 ||
		    get_num(v, "max", NAN, d->min, 0, 1e7, 1, &d->max, path, where, cause) < 0)
			return -1;
		d->mean = (d->min + d->max) / 2;
	} else if (strcmp(k, "normal") == 0) {
		d->kind = BR_DIST_NORMAL;
		if (get_num(v, "mean", NAN, 1, 0, 1e7, 0, &d->mean, path, where, cause) < 0 ||
		    get_num(v, "std", NAN, 0, 0, 1e7, 0, &d->std, path, where, cause) < 0 ||
		    get_num(v, "min", 1, 1, 0, 1e7, 1, &d->min, path, where, cause) < 0 ||
		    get_num(v, "max", ceil(d->mean + 4 * d->std), d->min, 0, 1e7, 1, &d->max,
		        path, where, cause) < 0)
			return -1;
	} else
		return fail(cause, path, where, "dist", "expected \"uniform\" or \"normal\" (got \"%s\")", k);
	return 0;
}

/*
 * br_sim_config_load: parse and validate a simulator config (see
 * fixtures/configs/example-commented.json for every key). Returns 0, or -1
 * with *cause naming the key and why; cfg is then left freed.
 */
int
br_sim_config_load(const char *path, br_sim_config *cfg, char **cause)
{
	memset(cfg, 0, sizeof *cfg);
	json_t *root = br_json_load_file(path, JSON_REJECT_DUPLICATES, cause);
	if (root == NULL)
		return -1;
	int rc = -1;
	json_t *model = NULL, *gpu = NULL, *sched = NULL, *work = NULL, *server = NULL;
	double x;
	cfg->path = br_xstrdup(path);
	if (!json_is_object(root)) {
		fail(cause, path, "(top level)", NULL, "expected a JSON object");
		goto out;
	}
	static const char *const top[] = { "name", "role", "engine", "model", "gpu", "scheduler", "workload",
		"seed", "server", "start_epoch_s", "server_startup_s", "sample_interval_s", "log_interval_s",
		NULL };
	if (check_keys(root, top, path, NULL, cause) < 0 ||
	    get_obj(root, "model", 1, &model, path, cause) < 0 ||
	    get_obj(root, "gpu", 1, &gpu, path, cause) < 0 ||
	    get_obj(root, "scheduler", 1, &sched, path, cause) < 0 ||
	    get_obj(root, "workload", 1, &work, path, cause) < 0 ||
	    get_obj(root, "server", 0, &server, path, cause) < 0)
		goto out;

	/* model */
	static const char *const k_model[] = { "kv_bytes_per_token", "flops_per_token_c0",
		"flops_per_token_c1", NULL };
	if (check_keys(model, k_model, path, "model", cause) < 0 ||
	    get_num(model, "kv_bytes_per_token", NAN, 0, 1, 1e12, 0, &cfg->kv_bytes_per_token, path, "model", cause) < 0 ||
	    get_num(model, "flops_per_token_c0", NAN, 0, 0, 1e18, 0, &cfg->flops_c0, path, "model", cause) < 0 ||
	    get_num(model, "flops_per_token_c1", 0, 0, 0, 1e18, 0, &cfg->flops_c1, path, "model", cause) < 0)
		goto out;

	/* scheduler (before gpu: the pool is rounded to whole blocks) */
	static const char *const k_sched[] = { "max_num_seqs", "max_num_batched_tokens",
		"chunked_prefill", "block_size", "max_model_len", "watermark_frac", "reserve_full_isl",
		"async_scheduling", NULL };
	if (check_keys(sched, k_sched, path, "scheduler", cause) < 0)
		goto out;
	if (get_num(sched, "max_num_seqs", 256, 1, 0, 1e6, 1, &x, path, "scheduler", cause) < 0)
		goto out;
	cfg->max_num_seqs = (int)x;
	if (get_num(sched, "max_num_batched_tokens", 2048, 1, 0, 1e7, 1, &x, path, "scheduler", cause) < 0)
		goto out;
	cfg->max_num_batched_tokens = (int)x;
	if (get_num(sched, "block_size", 16, 1, 0, 4096, 1, &x, path, "scheduler", cause) < 0)
		goto out;
	cfg->block_size = (int)x;
	if (get_num(sched, "max_model_len", NAN, 2, 0, 1e8, 1, &x, path, "scheduler", cause) < 0)
		goto out;
	cfg->max_model_len = (int)x;
	if (get_num(sched, "watermark_frac", 0.0, 0, 0, 0.5, 0, &cfg->watermark_frac, path, "scheduler", cause) < 0)
		goto out;
	if (get_bool(sched, "chunked_prefill", 1, &cfg->chunked_prefill, path, "scheduler", cause) < 0 ||
	    get_bool(sched, "reserve_full_isl", 1, &cfg->reserve_full_isl, path, "scheduler", cause) < 0 ||
	    get_bool(sched, "async_scheduling", 1, &cfg->async_scheduling, path, "scheduler", cause) < 0)
		goto out;

	/* gpu */
	static const char *const k_gpu[] = { "kv_pool_tokens", "kv_pool_gib", "kv_pool_from_arg", "fixed_s",
		"per_prefill_token_s", "per_decode_token_s", "per_context_token_s", NULL };
	if (check_keys(gpu, k_gpu, path, "gpu", cause) < 0)
		goto out;
	if (json_object_get(gpu, "kv_pool_tokens") && json_object_get(gpu, "kv_pool_gib")) {
		/*
		 * Both given: accepted only when they describe the same pool,
		 * i.e. kv_pool_gib converted with model.kv_bytes_per_token (and
		 * rounded down to whole blocks) is within 1% of kv_pool_tokens;
		 * kv_pool_tokens is then used. Otherwise one of them is a stale
		 * edit and we cannot know which: refuse, naming both.
		 */
		double gib = NAN, tok = NAN;
		if (get_num(gpu, "kv_pool_tokens", NAN, 0, 1, 1e10, 1, &tok, path, "gpu", cause) < 0 ||
		    get_num(gpu, "kv_pool_gib", NAN, 0, 1, 1e6, 0, &gib, path, "gpu", cause) < 0)
			goto out;
		double from_gib = floor(gib * 1073741824.0 / (cfg->kv_bytes_per_token * cfg->block_size)) *
		    cfg->block_size;
		if (fabs(from_gib - tok) > 0.01 * tok) {
			fail(cause, path, "gpu", "kv_pool_tokens", "and gpu.kv_pool_gib are both given and disagree: "
			    "%.0f tokens vs %g GiB = %.0f tokens at model.kv_bytes_per_token %.0f; give only one of them",
			    tok, gib, from_gib, cfg->kv_bytes_per_token);
			goto out;
		}
	}
	if (json_object_get(gpu, "kv_pool_tokens")) {
		if (get_num(gpu, "kv_pool_tokens", NAN, 0, 1, 1e10, 1, &cfg->kv_pool_tokens, path, "gpu", cause) < 0)
			goto out;
		if (fmod(cfg->kv_pool_tokens, cfg->block_size) != 0) {
			fail(cause, path, "gpu", "kv_pool_tokens", "must be a multiple of scheduler.block_size %d (got %.0f)",
			    cfg->block_size, cfg->kv_pool_tokens);
			goto out;
		}
		cfg->kv_pool_gib = cfg->kv_pool_tokens * cfg->kv_bytes_per_token / 1073741824.0;
	} else if (json_object_get(gpu, "kv_pool_gib")) {
		if (get_num(gpu, "kv_pool_gib", NAN, 0, 1, 1e6, 0, &cfg->kv_pool_gib, path, "gpu", cause) < 0)
			goto out;
		/* vLLM: num_gpu_blocks = bytes // (block_size * bytes per token) */
		double blocks = floor(cfg->kv_pool_gib * 1073741824.0 / (cfg->kv_bytes_per_token * cfg->block_size));
		cfg->kv_pool_tokens = blocks * cfg->block_size;
		if (cfg->kv_pool_tokens > 1e10) {
			fail(cause, path, "gpu", "kv_pool_gib", "%g GiB at model.kv_bytes_per_token %g is %.3g tokens, "
			    "more than the 1e+10 the simulator allows (check both values)",
			    cfg->kv_pool_gib, cfg->kv_bytes_per_token, cfg->kv_pool_tokens);
			goto out;
		}
	} else {
		fail(cause, path, "gpu", "kv_pool_tokens", "missing (give kv_pool_tokens or kv_pool_gib)");
		goto out;
	}
	if (cfg->kv_pool_tokens < cfg->max_model_len) {
		/* vLLM refuses to start in this case too. */
		fail(cause, path, "gpu", "kv_pool_tokens", "pool of %.0f tokens cannot hold one request of "
		    "scheduler.max_model_len %d tokens", cfg->kv_pool_tokens, cfg->max_model_len);
		goto out;
	}
	if (get_bool(gpu, "kv_pool_from_arg", 0, &cfg->kv_pool_from_arg, path, "gpu", cause) < 0)
		goto out;
	if (get_num(gpu, "fixed_s", NAN, 0, 0, 100, 0, &cfg->fixed_s, path, "gpu", cause) < 0 ||
	    get_num(gpu, "per_prefill_token_s", NAN, 0, 0, 10, 0, &cfg->per_prefill_token_s, path, "gpu", cause) < 0 ||
	    get_num(gpu, "per_decode_token_s", NAN, 0, 0, 10, 0, &cfg->per_decode_token_s, path, "gpu", cause) < 0 ||
	    get_num(gpu, "per_context_token_s", 0, 0, 0, 10, 0, &cfg->per_context_token_s, path, "gpu", cause) < 0)
		goto out;
	{
		/* the shortest possible step: one prefill or one decode token */
		double one = cfg->fixed_s + fmin(cfg->per_prefill_token_s, cfg->per_decode_token_s);
		if (!(one >= BR_SIM_MIN_STEP_S)) {
			fail(cause, path, "gpu", "fixed_s", "the shortest engine step (fixed_s %g s + "
			    "min(per_prefill_token_s %g, per_decode_token_s %g) s = %g s) is below the %g s "
			    "the simulator allows (real steps take milliseconds): raise gpu.fixed_s",
			    cfg->fixed_s, cfg->per_prefill_token_s, cfg->per_decode_token_s, one, BR_SIM_MIN_STEP_S);
			goto out;
		}
	}

	/* workload */
	static const char *const k_work[] = { "num_prompts", "input_len", "output_len",
		"max_concurrency", "request_rate", "burstiness", "frontend_delay_s",
		"frontend_per_input_token_s", "frontend_cv", "frontend_inbound_share", NULL };
	if (check_keys(work, k_work, path, "workload", cause) < 0)
		goto out;
	if (get_num(work, "num_prompts", NAN, 1, 0, BR_SIM_MAX_PROMPTS, 1, &x, path, "workload", cause) < 0)
		goto out;
	cfg->num_prompts = (int)x;
	if (get_dist(work, "input_len", &cfg->input_len, path, "workload", cause) < 0 ||
	    get_dist(work, "output_len", &cfg->output_len, path, "workload", cause) < 0)
		goto out;
	if (cfg->input_len.max + cfg->output_len.max > cfg->max_model_len) {
		fail(cause, path, "scheduler", "max_model_len", "%d is smaller than the longest request "
		    "(input %.0f + output %.0f tokens)", cfg->max_model_len, cfg->input_len.max, cfg->output_len.max);
		goto out;
	}
	if ((double)cfg->num_prompts * cfg->output_len.mean > BR_SIM_MAX_ITLS) {
		/* stress.json keeps every inter-token gap: num_prompts × (output_len - 1) numbers */
		fail(cause, path, "workload", "num_prompts", "%d prompts × workload.output_len %g (mean) = %.3g "
		    "output tokens; the simulator allows at most %.0f (every inter-token latency is kept in "
		    "memory and in stress.json): lower num_prompts or output_len",
		    cfg->num_prompts, cfg->output_len.mean, (double)cfg->num_prompts * cfg->output_len.mean,
		    BR_SIM_MAX_ITLS);
		goto out;
	}
	if (!cfg->chunked_prefill && cfg->input_len.max > cfg->max_num_batched_tokens) {
		fail(cause, path, "scheduler", "max_num_batched_tokens", "%d is smaller than the longest prompt "
		    "(workload.input_len %s%.0f tokens): with scheduler.chunked_prefill false the whole prompt "
		    "must fit in one step's token budget; raise max_num_batched_tokens to at least %.0f or set "
		    "chunked_prefill to true", cfg->max_num_batched_tokens,
		    cfg->input_len.kind == BR_DIST_FIXED ? "" : "max ", cfg->input_len.max, cfg->input_len.max);
		goto out;
	}
	json_t *mc = json_object_get(work, "max_concurrency");
	if (mc && !json_is_null(mc)) {
		if (get_num(work, "max_concurrency", NAN, 1, 0, 1e7, 1, &x, path, "workload", cause) < 0)
			goto out;
		cfg->max_concurrency = (int)x;
	}
	cfg->request_rate = INFINITY;
	json_t *rr = json_object_get(work, "request_rate");
	if (rr && !(json_is_string(rr) && strcmp(json_string_value(rr), "inf") == 0)) {
		if (get_num(work, "request_rate", NAN, 0, 1, 1e9, 0, &cfg->request_rate, path, "workload", cause) < 0)
			goto out;
	}
	if (!mc && !rr) {
		/* "inf" given explicitly without a cap sends every request at t = 0,
		 * as `vllm bench serve --request-rate inf` without --max-concurrency */
		fail(cause, path, "workload", "max_concurrency", "missing: give max_concurrency (closed loop) "
		    "or request_rate (open loop; \"inf\" sends every request at once)");
		goto out;
	}
	if (isfinite(cfg->request_rate) && cfg->num_prompts / cfg->request_rate > BR_SIM_MAX_SPAN_S) {
		fail(cause, path, "workload", "request_rate", "%g requests/s spreads %d prompts over %.3g s "
		    "(num_prompts / request_rate); the simulator allows at most %.0f s (7 days): give "
		    "request_rate >= %.3g", cfg->request_rate, cfg->num_prompts,
		    cfg->num_prompts / cfg->request_rate, BR_SIM_MAX_SPAN_S,
		    br_sim_ceil3(cfg->num_prompts / BR_SIM_MAX_SPAN_S));
		goto out;
	}
	if (get_num(work, "burstiness", 1.0, 0, 1, 1e6, 0, &cfg->burstiness, path, "workload", cause) < 0 ||
	    get_num(work, "frontend_delay_s", 0.005, 0, 0, 3600, 0, &cfg->frontend_delay_s, path, "workload", cause) < 0 ||
	    get_num(work, "frontend_per_input_token_s", 0, 0, 0, 1, 0, &cfg->frontend_per_input_token_s, path,
		"workload", cause) < 0 ||
	    get_num(work, "frontend_cv", 0, 0, 0, 10, 0, &cfg->frontend_cv, path, "workload", cause) < 0 ||
	    get_num(work, "frontend_inbound_share", 0, 0, 0, 1, 0, &cfg->frontend_inbound_share, path,
		"workload", cause) < 0)
		goto out;

	/* seed, labels, clocks */
	if (get_num(root, "seed", 0, 0, 0, 9007199254740992.0, 1, &x, path, "(top level)", cause) < 0)
		goto out;
	cfg->seed = (uint64_t)x;
	static const char *const k_server[] = { "vllm_version", "engine_version", "model_name", "gpu_name",
		NULL };
	if (server && check_keys(server, k_server, path, "server", cause) < 0)
		goto out;
	if (get_str(root, "name", "simulated", &cfg->name, path, "(top level)", cause) < 0 ||
	    get_str(root, "role", NULL, &cfg->role, path, "(top level)", cause) < 0 ||
	    get_str(server, "vllm_version", "0.27.1", &cfg->vllm_version, path, "server", cause) < 0 ||
	    get_str(server, "model_name", "Qwen/Qwen2.5-7B-Instruct", &cfg->model_name, path, "server", cause) < 0 ||
	    get_str(server, "gpu_name", "NVIDIA GeForce RTX 4090", &cfg->gpu_name, path, "server", cause) < 0)
		goto out;
	/* the engine whose formats are written */
	char *engine = NULL;
	if (get_str(root, "engine", "vllm", &engine, path, "(top level)", cause) < 0)
		goto out;
	cfg->engine = strcmp(engine, "vllm") == 0 ? BR_ENGINE_VLLM : strcmp(engine, "sglang") == 0 ?
	    BR_ENGINE_SGLANG : strcmp(engine, "llamacpp") == 0 ? BR_ENGINE_LLAMACPP : BR_ENGINE_UNKNOWN;
	if (cfg->engine == BR_ENGINE_UNKNOWN) {
		fail(cause, path, "(top level)", "engine", "expected \"vllm\", \"sglang\" or \"llamacpp\", "
		    "found \"%s\"", engine);
		free(engine);
		goto out;
	}
	free(engine);
	if (cfg->engine != BR_ENGINE_VLLM) {
		/* the one-step-ahead scheduler is modelled for vLLM only (its
		 * SCHEDULED event feeds the queue and prefill histograms) */
		if (json_object_get(sched, "async_scheduling") != NULL) {
			fail(cause, path, "scheduler", "async_scheduling", "applies to engine \"vllm\" only; "
			    "remove it for engine \"%s\"", cfg->engine == BR_ENGINE_SGLANG ? "sglang" : "llamacpp");
			goto out;
		}
		cfg->async_scheduling = 0;
	}
	if (get_str(server, "engine_version", cfg->engine == BR_ENGINE_SGLANG ? "0.5.4" : "5489",
	    &cfg->engine_version, path, "server", cause) < 0)
		goto out;
	if (cfg->engine == BR_ENGINE_LLAMACPP && cfg->kv_pool_from_arg) {
		fail(cause, path, "gpu", "kv_pool_from_arg", "applies to engines \"vllm\" and \"sglang\": "
		    "llama-server's pool is always its -c argument (the log's n_ctx); remove the key");
		goto out;
	}
	if (cfg->engine == BR_ENGINE_LLAMACPP) {
		/* a slot server: each of the max_num_seqs slots owns its share of the cache
		 * and a request holds its slot, and its whole context, until it finishes */
		/* whole blocks per slot, so that the cache the log states is the pool simulated */
		double slot_ctx = floor(cfg->kv_pool_tokens / cfg->max_num_seqs / cfg->block_size) *
		    cfg->block_size;
		if (cfg->input_len.max + cfg->output_len.max > slot_ctx) {
			fail(cause, path, "scheduler", "max_num_seqs", "%d llama.cpp slots share gpu.kv_pool_tokens "
			    "%.0f as %.0f tokens each, fewer than the longest request (input %.0f + output %.0f "
			    "tokens): llama-server would cut it short; give fewer slots or a larger pool",
			    cfg->max_num_seqs, cfg->kv_pool_tokens, slot_ctx, cfg->input_len.max,
			    cfg->output_len.max);
			goto out;
		}
		cfg->reserve_full_isl = 1;
		cfg->watermark_frac = 0;
		cfg->max_model_len = (int)slot_ctx;
		/* the cache is the slots' contexts (n_ctx = n_slots × n_ctx_slot, as the log says) */
		cfg->kv_pool_tokens = slot_ctx * cfg->max_num_seqs;
		cfg->kv_pool_gib = cfg->kv_pool_tokens * cfg->kv_bytes_per_token / 1073741824.0;
	}
	if (get_num(root, "start_epoch_s", BR_SIM_DEFAULT_EPOCH, 0, 0, 4e9, 0, &cfg->start_epoch_s, path, "(top level)", cause) < 0 ||
	    get_num(root, "server_startup_s", 60, 0, 0, 86400, 0, &cfg->server_startup_s, path, "(top level)", cause) < 0 ||
	    get_num(root, "sample_interval_s", 1.0, 0.01, 0, 3600, 0, &cfg->sample_interval_s, path, "(top level)", cause) < 0 ||
	    get_num(root, "log_interval_s", 10.0, 0.1, 0, 3600, 0, &cfg->log_interval_s, path, "(top level)", cause) < 0)
		goto out;
	if (isfinite(cfg->request_rate)) {
		/* the arrivals alone last about num_prompts / request_rate seconds */
		double span = cfg->num_prompts / cfg->request_rate;
		if (span / cfg->sample_interval_s > BR_SIM_MAX_ROWS) {
			fail(cause, path, "(top level)", "sample_interval_s", "%g s over the ~%.0f s of arrivals "
			    "(workload.num_prompts / workload.request_rate) would need %.0f metrics.csv rows; the "
			    "limit is %d: give sample_interval_s >= %.3g or a shorter workload",
			    cfg->sample_interval_s, span, span / cfg->sample_interval_s, BR_SIM_MAX_ROWS,
			    br_sim_ceil3(span / BR_SIM_MAX_ROWS));
			goto out;
		}
		if (span / cfg->log_interval_s > BR_SIM_MAX_LOG_LINES) {
			fail(cause, path, "(top level)", "log_interval_s", "%g s over the ~%.0f s of arrivals "
			    "(workload.num_prompts / workload.request_rate) would need %.0f server.log stats lines; "
			    "the limit is %d: give log_interval_s >= %.3g or a shorter workload",
			    cfg->log_interval_s, span, span / cfg->log_interval_s, BR_SIM_MAX_LOG_LINES,
			    br_sim_ceil3(span / BR_SIM_MAX_LOG_LINES));
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0)
		br_sim_config_free(cfg);
	return rc;
}

/* br_sim_config_free: release the strings of a config (safe twice). */
void
br_sim_config_free(br_sim_config *cfg)
{
	free(cfg->path);
	free(cfg->name);
	free(cfg->role);
	free(cfg->vllm_version);
	free(cfg->engine_version);
	free(cfg->model_name);
	free(cfg->gpu_name);
	cfg->path = cfg->name = cfg->vllm_version = cfg->model_name = cfg->gpu_name = NULL;
	cfg->engine_version = NULL;
}

/*
 * Engine detection and the role table (model.h): each engine's metric
 * names for each role, what they mean differently, and what an engine
 * never exposes.
 *
 * Sources, per engine (../shared/ENGINES.md; re-checked at the code where
 * cited):
 *   vLLM: FORMATS.md §2, vllm/v1/metrics/loggers.py.
 *   SGLang: python/sglang/srt/metrics/collector.py @ 00ae9c15 (the listing in
 *     real/engines/sglang/metric-catalog.md), ENGINES.md §4.3-4.4.
 *   llama.cpp: tools/server/README.md @ 00dc8057 and server-context.cpp,
 *     ENGINES.md §1.1-1.2 (KV metrics removed by PR #13660, May 2025).
 */
#include <stddef.h>
#include <string.h>

#include "benchreport/model.h"

static const char *const engine_names[BR_N_ENGINES] = {
	"unknown engine", "vLLM", "SGLang", "llama.cpp"
};
static const char *const engine_keys[BR_N_ENGINES] = {
	"unknown", "vllm", "sglang", "llamacpp"
};
static const char *const engine_prefix[BR_N_ENGINES] = {
	NULL, "vllm:", "sglang:", "llamacpp:"
};

static const char *const role_keys[BR_N_ROLES] = {
	"running", "waiting", "kv_usage_frac", "preemptions", "prompt_tokens",
	"generation_tokens", "request_success", "scheduled_tokens", "flops",
	"spec_drafts", "spec_draft_tokens", "spec_accepted", "ttft_hist",
	"queue_hist", "prefill_hist", "decode_hist", "inference_hist", "e2e_hist",
	"itl_hist",
};

enum { MAX_NAMES = 2 };

/* One engine's view of one role: its names (first found wins; NULL-ended),
 * the caveat, and, when names[0] is NULL, why the engine has none. */
typedef struct role_map {
	const char *names[MAX_NAMES + 1];
	const char *caveat;
	const char *absent;
} role_map;

static const role_map vllm_map[BR_N_ROLES] = {
	[BR_ROLE_RUNNING] = { { "vllm:num_requests_running" }, NULL, NULL },
	[BR_ROLE_WAITING] = { { "vllm:num_requests_waiting" }, NULL, NULL },
	[BR_ROLE_KV_USAGE_FRAC] = { { "vllm:kv_cache_usage_perc" }, NULL, NULL },
	[BR_ROLE_PREEMPTIONS] = { { "vllm:num_preemptions_total" }, NULL, NULL },
	[BR_ROLE_PROMPT_TOKENS] = { { "vllm:prompt_tokens_total" }, NULL, NULL },
	[BR_ROLE_GENERATION_TOKENS] = { { "vllm:generation_tokens_total" }, NULL, NULL },
	[BR_ROLE_REQUEST_SUCCESS] = { { "vllm:request_success_total" }, NULL, NULL },
	[BR_ROLE_SCHEDULED_TOKENS] = { { "vllm:iteration_tokens_total_sum" }, NULL, NULL },
	[BR_ROLE_FLOPS] = { { "vllm:estimated_flops_per_gpu_total" }, NULL, NULL },
	[BR_ROLE_SPEC_DRAFTS] = { { "vllm:spec_decode_num_drafts_total" }, NULL, NULL },
	[BR_ROLE_SPEC_DRAFT_TOKENS] = { { "vllm:spec_decode_num_draft_tokens_total" }, NULL, NULL },
	[BR_ROLE_SPEC_ACCEPTED] = { { "vllm:spec_decode_num_accepted_tokens_total" }, NULL, NULL },
	[BR_ROLE_TTFT_HIST] = { { "vllm:time_to_first_token_seconds" }, NULL, NULL },
	[BR_ROLE_QUEUE_HIST] = { { "vllm:request_queue_time_seconds" }, NULL, NULL },
	[BR_ROLE_PREFILL_HIST] = { { "vllm:request_prefill_time_seconds" }, NULL, NULL },
	[BR_ROLE_DECODE_HIST] = { { "vllm:request_decode_time_seconds" }, NULL, NULL },
	[BR_ROLE_INFERENCE_HIST] = { { "vllm:request_inference_time_seconds" }, NULL, NULL },
	[BR_ROLE_E2E_HIST] = { { "vllm:e2e_request_latency_seconds" }, NULL, NULL },
	[BR_ROLE_ITL_HIST] = { { "vllm:inter_token_latency_seconds" }, NULL, NULL },
};


/* the same sentence for the three spec-decode counters SGLang lacks */
#define SG_SPEC_GAUGES { { NULL }, NULL, \
	"SGLang reports speculative decoding only as gauges (accept length and rate)" }

static const role_map sglang_map[BR_N_ROLES] = {
	[BR_ROLE_RUNNING] = { { "sglang:num_running_reqs" },
	    "SGLang refreshes its scheduler gauges only when the scheduler logs (each prefill "
	    "batch and every 40 decode steps), so 1 Hz samples can repeat a value", NULL },
	[BR_ROLE_WAITING] = { { "sglang:num_queue_reqs" }, NULL, NULL },
	[BR_ROLE_KV_USAGE_FRAC] = { { "sglang:token_usage" },
	    "sglang:token_usage is the share of max_total_num_tokens held by running requests; "
	    "the radix cache's evictable prefixes are not counted", NULL },
	[BR_ROLE_PREEMPTIONS] = { { "sglang:num_retracted_requests_total" },
	    "SGLang retracts decoding requests when the KV pool runs out (vLLM's preemption); "
	    "the counter is read, not the per-process num_retracted_reqs gauge", NULL },
	[BR_ROLE_PROMPT_TOKENS] = { { "sglang:prompt_tokens_total" },
	    "SGLang adds a request's prompt tokens when the request finishes", NULL },
	[BR_ROLE_GENERATION_TOKENS] = { { "sglang:generation_tokens_total" },
	    "SGLang adds a request's generated tokens when the request finishes", NULL },
	[BR_ROLE_REQUEST_SUCCESS] = { { "sglang:num_requests_total" },
	    "sglang:num_requests_total counts every request processed, aborted ones included",
	    NULL },
	[BR_ROLE_SCHEDULED_TOKENS] = { { NULL }, NULL,
	    "SGLang has no counter of the tokens scheduled per engine step" },
	[BR_ROLE_FLOPS] = { { NULL }, NULL, "SGLang has no FLOPs counter" },
	[BR_ROLE_SPEC_DRAFTS] = SG_SPEC_GAUGES,
	[BR_ROLE_SPEC_DRAFT_TOKENS] = SG_SPEC_GAUGES,
	[BR_ROLE_SPEC_ACCEPTED] = SG_SPEC_GAUGES,
	[BR_ROLE_TTFT_HIST] = { { "sglang:time_to_first_token_seconds" }, NULL, NULL },
	[BR_ROLE_QUEUE_HIST] = { { "sglang:queue_time_seconds" }, NULL, NULL },
	[BR_ROLE_PREFILL_HIST] = { { NULL }, NULL,
	    "benchreport reads no prefill-time histogram from SGLang (newer builds time request "
	    "stages in sglang:per_stage_req_latency_seconds{stage}, which it does not read yet)" },
	[BR_ROLE_DECODE_HIST] = { { NULL }, NULL,
	    "benchreport reads no decode-time histogram from SGLang (newer builds time request "
	    "stages in sglang:per_stage_req_latency_seconds{stage}, which it does not read yet)" },
	[BR_ROLE_INFERENCE_HIST] = { { NULL }, NULL,
	    "benchreport reads no inference-time histogram from SGLang (newer builds time request "
	    "stages in sglang:per_stage_req_latency_seconds{stage}, which it does not read yet)" },
	[BR_ROLE_E2E_HIST] = { { "sglang:e2e_request_latency_seconds" }, NULL, NULL },
	[BR_ROLE_ITL_HIST] = { { "sglang:inter_token_latency_seconds",
	    "sglang:time_per_output_token_seconds" }, NULL, NULL },
};

/* the same sentence for every latency histogram llama.cpp lacks */
#define LC_NO_HIST { { NULL }, NULL, LC_NO_HIST_TEXT }
#define LC_NO_HIST_TEXT \
	"llama.cpp's /metrics has no latency histograms (only summed prompt and generation seconds)"

static const role_map llamacpp_map[BR_N_ROLES] = {
	[BR_ROLE_RUNNING] = { { "llamacpp:requests_processing", "llamacpp_slots:busy" },
	    "llama.cpp counts busy slots: at most n_slots (--parallel) requests run at once", NULL },
	[BR_ROLE_WAITING] = { { "llamacpp:requests_deferred" },
	    "llama.cpp defers a request until a slot is free", NULL },
	[BR_ROLE_KV_USAGE_FRAC] = { { "llamacpp:kv_cache_usage_ratio" }, NULL,
	    "llama.cpp removed its KV cache metrics in May 2025 (PR #13660); since then its "
	    "/slots endpoint shows which slots are busy, not the KV cells they hold" },
	[BR_ROLE_PREEMPTIONS] = { { NULL }, NULL,
	    "llama.cpp does not preempt: a request keeps its slot and its context until it "
	    "finishes, and requests beyond the slots wait (requests_deferred)" },
	[BR_ROLE_PROMPT_TOKENS] = { { "llamacpp:prompt_tokens_total" },
	    "llama.cpp counts only the prompt tokens it evaluated: a prefix reused from its "
	    "cache is not counted", NULL },
	[BR_ROLE_GENERATION_TOKENS] = { { "llamacpp:tokens_predicted_total" },
	    "llama.cpp adds a request's generated tokens to tokens_predicted_total only when "
	    "the request finishes", NULL },
	[BR_ROLE_REQUEST_SUCCESS] = { { NULL }, NULL,
	    "llama.cpp has no counter of finished requests" },
	[BR_ROLE_SCHEDULED_TOKENS] = { { NULL }, NULL,
	    "llama.cpp counts llama_decode() calls (n_decode_total), not scheduled tokens" },
	[BR_ROLE_FLOPS] = { { NULL }, NULL, "llama.cpp has no FLOPs counter" },
	[BR_ROLE_SPEC_DRAFTS] = { { NULL }, NULL, "llama.cpp has no counter of drafts" },
	[BR_ROLE_SPEC_DRAFT_TOKENS] = { { "llamacpp:spec_decode_num_draft_tokens_total" }, NULL,
	    NULL },
	[BR_ROLE_SPEC_ACCEPTED] = { { "llamacpp:spec_decode_num_accepted_tokens_total" }, NULL,
	    NULL },
	[BR_ROLE_TTFT_HIST] = LC_NO_HIST,
	[BR_ROLE_QUEUE_HIST] = LC_NO_HIST,
	[BR_ROLE_PREFILL_HIST] = LC_NO_HIST,
	[BR_ROLE_DECODE_HIST] = LC_NO_HIST,
	[BR_ROLE_INFERENCE_HIST] = LC_NO_HIST,
	[BR_ROLE_E2E_HIST] = LC_NO_HIST,
	[BR_ROLE_ITL_HIST] = LC_NO_HIST,
};

/* map_of: the table of engine e (vLLM's for an unknown engine). */
static const role_map *
map_of(br_engine e)
{
	switch (e) {
	case BR_ENGINE_SGLANG: return sglang_map;
	case BR_ENGINE_LLAMACPP: return llamacpp_map;
	default: return vllm_map;
	}
}

static int
is_hist(br_role r)
{
	return r >= BR_ROLE_TTFT_HIST && r < BR_N_ROLES;
}

const char *
br_engine_name(br_engine e)
{
	return e >= 0 && e < BR_N_ENGINES ? engine_names[e] : engine_names[0];
}

const char *
br_engine_key(br_engine e)
{
	return e >= 0 && e < BR_N_ENGINES ? engine_keys[e] : engine_keys[0];
}

const char *
br_role_key(br_role r)
{
	return r >= 0 && r < BR_N_ROLES ? role_keys[r] : "unknown";
}

/*
 * has_name: 1 when s holds `name` as a role needs it: the column itself,
 * or for a histogram family its _sum and _count columns.
 */
static int
has_name(const br_series *s, const char *name, int hist)
{
	if (!hist)
		return br_series_col_index(s, name) >= 0;
	char buf[160];
	size_t n = strlen(name);
	if (n + 7 > sizeof buf)
		return 0;
	memcpy(buf, name, n);
	memcpy(buf + n, "_sum", 5);
	if (br_series_col_index(s, buf) < 0)
		return 0;
	memcpy(buf + n, "_count", 7);
	return br_series_col_index(s, buf) >= 0;
}

/*
 * br_series_detect_engine: see model.h. Counts, per engine, the role names
 * of its table that s holds (a few dozen lookups, each O(1) with the
 * series' name index); the engine with the most wins, ties going to the
 * lower enum value (vLLM first).
 */
br_engine
br_series_detect_engine(const br_series *s)
{
	if (s == NULL || s->n_cols == 0)
		return BR_ENGINE_UNKNOWN;
	br_engine best = BR_ENGINE_UNKNOWN;
	int best_n = 0;
	for (int e = BR_ENGINE_VLLM; e < BR_N_ENGINES; e++) {
		const role_map *m = map_of((br_engine)e);
		int n = 0;
		for (int r = 0; r < BR_N_ROLES; r++)
			for (size_t k = 0; k < MAX_NAMES && m[r].names[k] != NULL; k++)
				n += has_name(s, m[r].names[k], is_hist((br_role)r));
		if (n > best_n) {
			best_n = n;
			best = (br_engine)e;
		}
	}
	if (best != BR_ENGINE_UNKNOWN)
		return best;
	/* no role-mapped series at all: still name the engine by its prefix */
	for (int e = BR_ENGINE_VLLM; e < BR_N_ENGINES; e++)
		if (br_series_has_prefix(s, engine_prefix[e]))
			return (br_engine)e;
	return BR_ENGINE_UNKNOWN;
}

br_engine
br_series_engine(const br_series *s)
{
	if (s == NULL)
		return BR_ENGINE_UNKNOWN;
	if (s->engine > BR_ENGINE_UNKNOWN && s->engine < BR_N_ENGINES)
		return (br_engine)s->engine;
	return br_series_detect_engine(s);
}

const char *
br_role_name(const br_series *s, br_role role)
{
	if (s == NULL || role < 0 || role >= BR_N_ROLES)
		return NULL;
	const role_map *m = &map_of(br_series_engine(s))[role];
	for (size_t k = 0; k < MAX_NAMES && m->names[k] != NULL; k++)
		if (has_name(s, m->names[k], is_hist(role)))
			return m->names[k];
	return NULL;
}

const double *
br_role_col(const br_series *s, br_role role)
{
	if (is_hist(role))
		return NULL;
	const char *name = br_role_name(s, role);
	return name ? br_series_col(s, name) : NULL;
}

const char *
br_role_caveat(br_engine e, br_role role)
{
	if (role < 0 || role >= BR_N_ROLES || e == BR_ENGINE_UNKNOWN)
		return NULL;
	return map_of(e)[role].caveat;
}

const char *
br_role_absent(br_engine e, br_role role)
{
	if (role < 0 || role >= BR_N_ROLES || e == BR_ENGINE_UNKNOWN || e == BR_ENGINE_VLLM)
		return NULL;
	return map_of(e)[role].absent;
}

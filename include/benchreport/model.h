/*
 * The engine-neutral model of a server's metrics (issue 13): which engine
 * wrote a series, and the ROLES analyses and figures read instead of an
 * engine's own metric names.
 *
 * A br_series keeps the columns under the names the engine exposes
 * (canonical per metrics.h: "vllm:num_requests_running",
 * "sglang:num_running_reqs", "llamacpp:requests_processing"). Ingest maps
 * each engine's names onto roles with the table in src/model/roles.c (the
 * sources are ../shared/ENGINES.md §1, §3, §4.4); analysis and render ask
 * for a role and get the column, the name it came from (provenance) and,
 * for a role the engine does not expose, a sentence saying so. A role that
 * is absent is never zero.
 *
 * Ownership: every string returned here is static; nothing to free.
 */
#ifndef BENCHREPORT_MODEL_H
#define BENCHREPORT_MODEL_H

#include "benchreport/metrics.h"

typedef enum br_engine {
	BR_ENGINE_UNKNOWN = 0,   /* no series of a known engine (or a series built by hand) */
	BR_ENGINE_VLLM,
	BR_ENGINE_SGLANG,
	BR_ENGINE_LLAMACPP,
	BR_N_ENGINES
} br_engine;

typedef enum br_role {
	BR_ROLE_RUNNING,          /* gauge, requests being served (vLLM running, SGLang running,
	                             llama.cpp busy slots) */
	BR_ROLE_WAITING,          /* gauge, requests admitted by the HTTP server but not yet
	                             scheduled (vLLM waiting, SGLang queue, llama.cpp deferred) */
	BR_ROLE_KV_USAGE_FRAC,    /* gauge, KV cache in use as a fraction 0..1 of the pool */
	BR_ROLE_PREEMPTIONS,      /* counter, requests evicted from the KV cache to be recomputed
	                             (vLLM preemptions, SGLang retractions) */
	BR_ROLE_PROMPT_TOKENS,    /* counter, prompt tokens (tokens) */
	BR_ROLE_GENERATION_TOKENS,/* counter, generated tokens (tokens) */
	BR_ROLE_REQUEST_SUCCESS,  /* counter, requests finished (requests) */
	BR_ROLE_SCHEDULED_TOKENS, /* counter, tokens scheduled over all engine steps (tokens) */
	BR_ROLE_FLOPS,            /* counter, estimated FLOPs per GPU */
	BR_ROLE_SPEC_DRAFTS,      /* counter, speculative-decoding drafts */
	BR_ROLE_SPEC_DRAFT_TOKENS,/* counter, draft tokens proposed (tokens) */
	BR_ROLE_SPEC_ACCEPTED,    /* counter, draft tokens accepted (tokens) */
	BR_ROLE_TTFT_HIST,        /* histogram family, server-side TTFT (s) */
	BR_ROLE_QUEUE_HIST,       /* histogram family, time waiting for admission (s) */
	BR_ROLE_PREFILL_HIST,     /* histogram family, prefill time (s) */
	BR_ROLE_DECODE_HIST,      /* histogram family, decode time (s) */
	BR_ROLE_INFERENCE_HIST,   /* histogram family, prefill + decode time (s) */
	BR_ROLE_E2E_HIST,         /* histogram family, end-to-end request latency (s) */
	BR_ROLE_ITL_HIST,         /* histogram family, inter-token latency (s) */
	BR_N_ROLES
} br_role;

/* br_engine_name: "vLLM", "SGLang", "llama.cpp", or "unknown engine". */
const char *br_engine_name(br_engine e);

/* br_engine_key: "vllm", "sglang", "llamacpp" (summary.json, file prefixes), "unknown". */
const char *br_engine_key(br_engine e);

/* br_role_key: the role's summary.json key ("running", "kv_usage_frac", ...). */
const char *br_role_key(br_role r);

/*
 * br_series_detect_engine: the engine whose metric prefix ("vllm:",
 * "sglang:", "llamacpp:") most of s's role-mapped columns carry; UNKNOWN
 * when none. Readers store the answer in s->engine (metrics.h).
 */
br_engine br_series_detect_engine(const br_series *s);

/* br_series_engine: s->engine when set, else br_series_detect_engine(s); UNKNOWN for NULL. */
br_engine br_series_engine(const br_series *s);

/*
 * br_role_name: the name under which s holds `role` (a column for gauges and
 * counters, a histogram family for *_HIST roles: its `_sum` / `_count`
 * columns exist), the first of the engine's names for the role that s has.
 * NULL when s is NULL or has none of them. The returned name is static and
 * doubles as the role's provenance ("sglang:num_retracted_requests_total").
 * A series of an unknown engine is looked up under vLLM's names.
 */
const char *br_role_name(const br_series *s, br_role role);

/* br_role_col: the column of `role` in s (br_role_name), NULL when absent
 * or when the role is a histogram family. */
const double *br_role_col(const br_series *s, br_role role);

/*
 * br_role_caveat: what an engine's series for `role` means differently from
 * vLLM's, as a sentence for the report ("llama.cpp adds a request's generated
 * tokens to tokens_predicted_total only when the request finishes"), NULL
 * when nothing.
 */
const char *br_role_caveat(br_engine e, br_role role);

/*
 * br_role_absent: for a role missing from a series of engine e, a sentence
 * saying why when the engine does not expose it (at all, or no longer:
 * "llama.cpp does not preempt: a request keeps its slot until it
 * finishes"); NULL when e has such a series (this file just lacks it) and
 * for vLLM / unknown engines, whose callers keep their own wording.
 */
const char *br_role_absent(br_engine e, br_role role);

/*
 * br_run_engine (run_engine.c): the engine that served run r: its metrics'
 * engine, else its server log's, else SGLang when the bench result is
 * sglang.bench_serving's; UNKNOWN otherwise (also for NULL).
 */
struct br_run;
br_engine br_run_engine(const struct br_run *r);

/*
 * br_run_server_version (run_engine.c): the server's version as stated:
 * the log's (vLLM's version line, SGLang's / llama.cpp's engine_version),
 * else run.json's "server_version"; NULL when neither says. Owned by r.
 */
const char *br_run_server_version(const struct br_run *r);

#endif

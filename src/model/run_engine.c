/*
 * Which engine served a run (model.h br_run_engine).
 */
#include <string.h>

#include "benchreport/model.h"
#include "benchreport/run.h"

/*
 * br_run_engine: see model.h. The metrics decide when they name an engine
 * (their prefixes), then the server log (its lines), then the bench
 * result's backend ("sglang…" is SGLang's own client); a vLLM bench file
 * alone cannot tell which server answered it (`--backend openai` talks to
 * any of them): UNKNOWN.
 */
br_engine
br_run_engine(const br_run *r)
{
	if (r == NULL)
		return BR_ENGINE_UNKNOWN;
	br_engine e = br_series_engine(r->metrics);
	if (e != BR_ENGINE_UNKNOWN)
		return e;
	if (r->log != NULL && r->log->engine_kind > BR_ENGINE_UNKNOWN &&
	    r->log->engine_kind < BR_N_ENGINES)
		return (br_engine)r->log->engine_kind;
	if (r->bench.n > 0 && r->bench.runs[0].backend != NULL &&
	    strncmp(r->bench.runs[0].backend, "sglang", 6) == 0)
		return BR_ENGINE_SGLANG;
	return BR_ENGINE_UNKNOWN;
}

/*
 * br_run_server_version: see model.h. The log's own words first (vLLM's
 * version line, llama.cpp's build line); SGLang logs print no version, so
 * run.json's "server_version" (the user's statement) stands in, for every
 * engine whose log is silent.
 */
const char *
br_run_server_version(const br_run *r)
{
	if (r == NULL)
		return NULL;
	const br_server_log *l = r->log;
	const char *v = l == NULL ? NULL : l->engine_kind == BR_ENGINE_SGLANG ||
	    l->engine_kind == BR_ENGINE_LLAMACPP ? l->engine_version : l->vllm_version;
	return v != NULL ? v : r->server_version;
}

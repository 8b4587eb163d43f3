/*
 * Server logs of SGLang and llama.cpp's llama-server, read into the same
 * br_server_log as vLLM's (serverlog.h), with log->engine saying which.
 *
 * What is read, with the formats' sources (../shared/ENGINES.md §1.4-1.5
 * for llama.cpp, §3 and real/engines/sglang/server-log-excerpts.txt for
 * SGLang):
 *   SGLang   `max_total_num_tokens=N, chunked_prefill_size=N, max_prefill_tokens=N,
 *            max_running_requests=N, context_len=N` (KV pool in tokens, the
 *            running cap, the context limit); `KV Cache is allocated. #tokens: N,
 *            K size: X GB, V size: Y GB` (GB = 2^30 bytes in SGLang's code); the
 *            rank tags "[... TPn]" count the tensor-parallel ranks; `Prefill
 *            batch` / `Decode batch` lines (`.` or `,`) give running, queue and
 *            token usage, decode lines the generation throughput.
 *   llama.cpp `build: N (hash)`; `llama_context: n_ctx = N`, `n_ctx_per_seq` /
 *            `n_ctx_seq`, `kv_unified`; `initializing slots, n_slots = N`;
 *            `new slot[,] n_ctx[_slot] = N`; `llama_kv_cache[_unified]: size =
 *            X MiB (N cells, ...)` or the older `KV self size = X MiB`; the
 *            `prompt eval time` / `eval time` lines of each finished request.
 * Only the last start-up counts when a log holds several (a capacity line
 * after batch lines starts a new one).
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "benchreport/serverlog.h"
#include "pyrepr.h"

enum {
	ENGINE_SNIFF_LINES = 4000,  /* lines read to tell the engine */
	MAX_LINE = 1 << 16
};

/* the regular expressions, compiled once per load */
enum rx_id {
	RX_SG_CAP, RX_SG_KV, RX_SG_BATCH, RX_SG_STAMP, RX_SG_TP,
	RX_LC_BUILD, RX_LC_CTX, RX_LC_SLOTS, RX_LC_SLOT_CTX, RX_LC_KV, RX_LC_KV_OLD,
	RX_LC_PROMPT_EVAL, RX_LC_EVAL, RX_LC_TIMING_HDR, RX_LC_SLOT_2024, RX_LC_BUILD_KV, N_RX
};
static const char *const rx_src[N_RX] = {
	[RX_SG_CAP] = "max_total_num_tokens=([0-9]+)",
	[RX_SG_KV] = "KV Cache is allocated\\. #tokens: ([0-9]+), K size: ([0-9.]+) GB, V size: ([0-9.]+) GB",
	[RX_SG_BATCH] = "(Prefill|Decode) batch[.,] ",
	[RX_SG_STAMP] = "^\\[([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})",
	[RX_SG_TP] = "^\\[[^]]* TP([0-9]+)\\]",
	[RX_LC_BUILD] = "^build: ([0-9]+) \\(([0-9a-f]+)\\)",
	[RX_LC_CTX] = "^(llama_context|llama_new_context_with_model|llama_init_from_model): +"
	    "(n_seq_max|n_ctx|n_ctx_per_seq|n_ctx_seq|kv_unified) += +([0-9a-z]+)",
	[RX_LC_SLOTS] = "initializing slots, n_slots = ([0-9]+)",
	[RX_LC_SLOT_CTX] = "id +([0-9]+) \\| task -1 \\| new slot,? n_ctx(_slot)? = ([0-9]+)",
	[RX_LC_KV] = "llama_kv_cache(_unified)?: +size = +([0-9.]+) MiB \\( *([0-9]+) cells, +([0-9]+) layers, "
	    "+([0-9]+)(/([0-9]+))? seqs\\)",
	[RX_LC_KV_OLD] = "KV self size += +([0-9.]+) MiB",
	[RX_LC_PROMPT_EVAL] = "(^|\\| |print_timings[]:] *)prompt eval time += +([0-9.]+) ms / +([0-9]+) tokens",
	[RX_LC_EVAL] = "(^|\\| |print_timings[]:] *) +(generation )?eval time += +([0-9.]+) ms / +([0-9]+) (tokens|runs)",
	[RX_LC_TIMING_HDR] = "slot +print_timing: id +([0-9]+) \\| task ([0-9-]+) \\|",
	[RX_LC_SLOT_2024] = "-> Slot ([0-9]+) - max context: ([0-9]+)",
	[RX_LC_BUILD_KV] = "build=([0-9]+) commit=\"([0-9a-f]+)\"",
};

typedef struct rx_set {
	regex_t rx[N_RX];
	int ok;
} rx_set;

/* rx_init: compile every pattern; aborts on a bad one (a programming error). */
static void
rx_init(rx_set *r)
{
	for (int i = 0; i < N_RX; i++)
		if (regcomp(&r->rx[i], rx_src[i], REG_EXTENDED) != 0) {
			fprintf(stderr, "benchreport: internal error: bad regular expression %d: %s\n",
			    i, rx_src[i]);
			abort();
		}
	r->ok = 1;
}

static void
rx_free(rx_set *r)
{
	if (!r->ok)
		return;
	for (int i = 0; i < N_RX; i++)
		regfree(&r->rx[i]);
	r->ok = 0;
}

/* grp: group g of match m of line as a double (NAN when unmatched). */
static double
grp(const char *line, const regmatch_t *m, int g)
{
	if (m[g].rm_so < 0)
		return NAN;
	char buf[64];
	size_t n = (size_t)(m[g].rm_eo - m[g].rm_so);
	if (n == 0 || n >= sizeof buf)
		return NAN;
	memcpy(buf, line + m[g].rm_so, n);
	buf[n] = '\0';
	char *end = NULL;
	double v = strtod(buf, &end);
	return end == buf + n ? v : NAN;
}

/* field_after: the number after `key` ("#running-req: ") in line, NAN. */
static double
field_after(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	if (p == NULL)
		return NAN;
	p += strlen(key);
	char *end = NULL;
	double v = strtod(p, &end);
	return end == p ? NAN : v;
}

/*
 * br_server_log_sniff_engine: see serverlog.h. A line of SGLang's
 * scheduler ("max_total_num_tokens=", "KV Cache is allocated. #tokens",
 * "Prefill batch", "Decode batch") or of llama.cpp ("llama_context:",
 * "llama_kv_cache", "initializing slots", "slot print_timing",
 * "llama_model_loader:") among the first lines decides; a vLLM logger line
 * first ("vllm" in it) means vLLM.
 */
int
br_server_log_sniff_engine(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return BR_ENGINE_UNKNOWN;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int engine = BR_ENGINE_UNKNOWN;
	for (int k = 0; k < ENGINE_SNIFF_LINES && (n = getline(&line, &cap, fp)) > 0; k++) {
		if (memchr(line, '\0', (size_t)n) != NULL)
			continue;
		if (strstr(line, "max_total_num_tokens=") || strstr(line, "KV Cache is allocated. #tokens") ||
		    strstr(line, "Prefill batch") || strstr(line, "Decode batch") ||
		    strstr(line, "sglang.launch_server") || strstr(line, "sglang.srt")) {
			engine = BR_ENGINE_SGLANG;
			break;
		}
		if (strncmp(line, "llama_context:", 14) == 0 || strstr(line, "llama_kv_cache") ||
		    strstr(line, "initializing slots, n_slots") || strstr(line, "slot print_timing") ||
		    strstr(line, "| task -1 | new slot") || strstr(line, "] build info |") ||
		    strstr(line, " -> Slot 0 - max context:") ||
		    strncmp(line, "llama_model_loader:", 19) == 0 ||
		    strncmp(line, "llama_new_context_with_model:", 29) == 0) {
			engine = BR_ENGINE_LLAMACPP;
			break;
		}
		if (strstr(line, "vllm") != NULL || strstr(line, "vLLM") != NULL) {
			engine = BR_ENGINE_VLLM;
			break;
		}
	}
	free(line);
	fclose(fp);
	return engine;
}

/* stamp_s: seconds of a "[YYYY-MM-DD HH:MM:SS" prefix since the day count
 * of 2000-01-01 (only differences are used), NAN when the line has none. */
static double
stamp_s(const rx_set *r, const char *line, char stamp[32])
{
	regmatch_t m[7];
	stamp[0] = '\0';
	if (regexec(&r->rx[RX_SG_STAMP], line, 7, m, 0) != 0)
		return NAN;
	int y = (int)grp(line, m, 1), mo = (int)grp(line, m, 2), d = (int)grp(line, m, 3);
	double hh = grp(line, m, 4), mi = grp(line, m, 5), ss = grp(line, m, 6);
	snprintf(stamp, 32, "%02d-%02d %02d:%02d:%02d", mo, d, (int)hh, (int)mi, (int)ss);
	static const int cum[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334 };
	if (mo < 1 || mo > 12)
		return NAN;
	long days = (long)(y - 2000) * 365 + (y - 2000 + 3) / 4 + cum[mo - 1] + d - 1 +
	    (mo > 2 && y % 4 == 0 ? 1 : 0);
	return (double)days * 86400.0 + hh * 3600 + mi * 60 + ss;
}

typedef struct engine_scan {
	br_server_log *out;
	rx_set rx;
	double t0_s;               /* first stamp, NAN */
	int saw_batch;             /* batch lines since the last capacity line */
	unsigned tp_ranks;         /* bit k: a "TPk" tag on a KV allocation line (this start-up) */
	unsigned dp_ranks;         /* bit k: a "DPk" tag on a KV allocation line */
	unsigned tp_by_dp[32];     /* bit t of [d]: rank DPd TPt allocated in this start-up */
	int saw_serverargs;        /* this start-up printed its ServerArgs line */
	int n_ctx_line;            /* line of llama.cpp's `n_ctx =` */
	unsigned long long slot_ids; /* bit k: llama.cpp printed "id k | task -1 | new slot" */
	double n_seq_max;          /* llama.cpp's `n_seq_max = N` (llama_context: the parallel
	                              sequences, one per slot), NAN when not printed */
	size_t stats_cap;
	int any;                   /* a line of the engine was recognised */
	int timing_slot, timing_task;
	double pending_prompt_ms, pending_prompt_tokens;
	int pending_line;
} engine_scan;

/*
 * start_over: a new server start-up begins at lineno: forget the capacity,
 * model and rank tags of the earlier one (the run came after the last
 * start-up), keep the batch and timing lines. The first start-up only
 * counts itself.
 */
static void
start_over(engine_scan *e, int lineno, const char *stamp)
{
	br_server_log *o = e->out;
	o->n_startups++;
	o->last_startup_line = lineno;
	snprintf(o->last_startup_stamp, sizeof o->last_startup_stamp, "%s", stamp);
	o->n_capacity_lines = 0;
	o->kv_pool_tokens = o->kv_pool_gib = o->max_num_seqs = NAN;
	o->max_model_len_tokens = o->max_num_batched_tokens = NAN;
	o->n_ctx_tokens = o->ctx_per_slot_tokens = NAN;
	o->kv_unified = -1;
	o->kv_pool_line = o->kv_mem_line = 0;
	e->tp_ranks = 0;
	e->dp_ranks = 0;
	memset(e->tp_by_dp, 0, sizeof e->tp_by_dp);
	e->slot_ids = 0;
	e->n_seq_max = NAN;
	e->saw_batch = 0;
	e->saw_serverargs = 0;
	br_log_args_clear(o);
}

/*
 * sglang_server_args: every `name=value` of `ServerArgs(...)` in line
 * (lineno) into o->args (values as printed, clipped at 200 bytes), with
 * args_all = 1 (SGLang prints all of them, defaults included) and
 * args_complete = 1 when the closing ')' was reached (a line cut short
 * leaves the rest unknown). Values are Python reprs: quoted strings (commas
 * inside), None, True, lists, dicts and nested reprs are skipped whole by
 * br_py_skip_value.
 */
static void
sglang_server_args(br_server_log *o, const char *line, int lineno)
{
	const char *p = strstr(line, "ServerArgs(");
	if (p == NULL)
		return;
	const char *end = line + strlen(line);
	while (end > p && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	br_log_kwargs_args(o, p + strlen("ServerArgs("), end, lineno, NULL, NULL);
}

/* new_startup_if_after_batches: a capacity line before any start-up, or
 * after batch or timing lines (a restart without another banner), starts one. */
static void
new_startup_if_after_batches(engine_scan *e, int lineno, const char *stamp)
{
	if (e->out->n_startups == 0 || e->saw_batch)
		start_over(e, lineno, stamp);
}

static br_log_stat *
add_stat(engine_scan *e, int lineno, double t_abs, const char *stamp)
{
	br_server_log *o = e->out;
	if (o->n_stats == e->stats_cap) {
		e->stats_cap = e->stats_cap ? 2 * e->stats_cap : 64;
		o->stats = br_xrealloc(o->stats, e->stats_cap * sizeof *o->stats);
	}
	br_log_stat *st = &o->stats[o->n_stats++];
	memset(st, 0, sizeof *st);
	st->line = lineno;
	if (br_isnum(t_abs) && !br_isnum(e->t0_s))
		e->t0_s = t_abs;
	st->t_s = br_isnum(t_abs) ? t_abs - e->t0_s : NAN;
	snprintf(st->stamp, sizeof st->stamp, "%s", stamp);
	st->prompt_tput_tps = st->gen_tput_tps = st->running = st->waiting = NAN;
	st->preemptions = st->kv_usage_frac = st->prefix_hit_frac = NAN;
	return st;
}

/*
 * quoted_after: a copy of the text between `key` (ending in a quote) and
 * the next `q` in line, NULL when absent or empty (malloc'd).
 */
static char *
quoted_after(const char *line, const char *key, char q)
{
	const char *p = strstr(line, key);
	if (p == NULL)
		return NULL;
	p += strlen(key);
	const char *e = strchr(p, q);
	if (e == NULL || e == p || e - p > 1000)
		return NULL;
	return br_xstrndup(p, (size_t)(e - p));
}

/* sglang_line: one line of an SGLang log. */
static void
sglang_line(engine_scan *e, const char *line, int lineno)
{
	br_server_log *o = e->out;
	regmatch_t m[8];
	char stamp[32];
	double t_abs = stamp_s(&e->rx, line, stamp);
	if (br_isnum(t_abs) && !br_isnum(e->t0_s)) {
		e->t0_s = t_abs;
		o->stats_epoch0_s = t_abs + 946684800.0;   /* stamp_s counts from 2000-01-01 00:00 */
	}
	if (strstr(line, "ServerArgs(") != NULL) {
		/* server_args=ServerArgs(model_path='...', ..., served_model_name='...', ...): each
		 * start-up prints it once (per rank: a second one before any capacity line is
		 * the same start-up) */
		e->any = 1;
		if (o->n_startups == 0 || o->n_capacity_lines > 0 || o->kv_mem_line > 0 || e->saw_batch)
			start_over(e, lineno, stamp);
		if (!e->saw_serverargs) {
			free(o->model);
			free(o->served_model_name);
			o->model = quoted_after(line, "model_path='", '\'');
			o->served_model_name = quoted_after(line, "served_model_name='", '\'');
			sglang_server_args(o, line, lineno);
			br_log_args_dedupe(o);
			e->saw_serverargs = 1;
		}
		return;
	}
	if (regexec(&e->rx.rx[RX_SG_KV], line, 4, m, 0) == 0) {
		e->any = 1;
		new_startup_if_after_batches(e, lineno, stamp);
		int tp = -1, dp = 0;
		if (regexec(&e->rx.rx[RX_SG_TP], line, 2, m + 4, 0) == 0) {
			double x = grp(line, m + 4, 1);
			tp = x >= 0 && x < 32 ? (int)x : -1;
		}
		const char *dpt = strstr(line, " DP"), *close = strchr(line, ']');
		if (dpt != NULL && close != NULL && dpt < close && isdigit((unsigned char)dpt[3]))
			dp = atoi(dpt + 3) < 32 ? atoi(dpt + 3) : 0;
		/* the same rank allocating again: the server started over (a restart whose
		 * ServerArgs line, if any, was not in the log) */
		if (tp >= 0 && (e->tp_by_dp[dp] & (1u << tp)) && !e->saw_batch)
			start_over(e, lineno, stamp);
		if (tp >= 0) {
			e->tp_ranks |= 1u << tp;
			e->tp_by_dp[dp] |= 1u << tp;
		}
		e->dp_ranks |= 1u << dp;
		if (o->kv_mem_line == 0) {
			o->kv_pool_gib = grp(line, m, 2) + grp(line, m, 3);
			o->kv_mem_line = lineno;
		}
		return;
	}
	if (regexec(&e->rx.rx[RX_SG_CAP], line, 2, m, 0) == 0) {
		e->any = 1;
		new_startup_if_after_batches(e, lineno, stamp);
		o->n_capacity_lines++;
		if (o->kv_pool_line == 0) {
			o->kv_pool_tokens = grp(line, m, 1);
			o->kv_pool_line = lineno;
			o->max_num_seqs = field_after(line, "max_running_requests=");
			o->max_model_len_tokens = field_after(line, "context_len=");
			double chunk = field_after(line, "chunked_prefill_size=");
			o->max_num_batched_tokens = chunk > 0 ? chunk : NAN;   /* -1 = chunking off */
		}
		return;
	}
	if (regexec(&e->rx.rx[RX_SG_BATCH], line, 2, m, 0) == 0 ||
	    (strstr(line, "#running-req:") && strstr(line, "token usage:"))) {
		e->any = 1;
		e->saw_batch = 1;
		br_log_stat *st = add_stat(e, lineno, t_abs, stamp);
		st->running = field_after(line, "#running-req: ");
		st->waiting = field_after(line, "#queue-req: ");
		st->kv_usage_frac = field_after(line, " token usage: ");
		if (!br_isnum(st->kv_usage_frac))
			st->kv_usage_frac = field_after(line, "full token usage: ");
		st->gen_tput_tps = field_after(line, "gen throughput (token/s): ");
		st->prompt_tput_tps = field_after(line, "input throughput (token/s): ");
	}
}

/* slot_line: one slot announced at start-up (any era): its id and context. */
static void
slot_line(engine_scan *e, double id, double ctx_tokens, int lineno)
{
	e->any = 1;
	new_startup_if_after_batches(e, lineno, "");
	e->out->ctx_per_slot_tokens = ctx_tokens;
	if (id >= 0 && id < 64)
		e->slot_ids |= 1ull << (int)id;
}

/* bits_set: how many ranks or slots a bit mask names. */
static int
bits_set(unsigned long long b)
{
	return __builtin_popcountll(b);
}

/* llamacpp_line: one line of a llama-server log. */
static void
llamacpp_line(engine_scan *e, const char *line, int lineno)
{
	br_server_log *o = e->out;
	regmatch_t m[8];
	if (regexec(&e->rx.rx[RX_LC_BUILD], line, 3, m, 0) == 0 ||
	    regexec(&e->rx.rx[RX_LC_BUILD_KV], line, 3, m, 0) == 0) {
		e->any = 1;
		free(o->engine_version);
		o->engine_version = br_xasprintf("b%.0f (%.*s)", grp(line, m, 1),
		    (int)(m[2].rm_eo - m[2].rm_so), line + m[2].rm_so);
		o->version_line = lineno;
		return;
	}
	if (strstr(line, "load_model: loading model '") != NULL) {
		/* the model file (the client's "model" field is not checked against it) */
		free(o->model);
		o->model = quoted_after(line, "loading model '", '\'');
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_CTX], line, 4, m, 0) == 0) {
		e->any = 1;
		const char *key = line + m[2].rm_so;
		size_t kl = (size_t)(m[2].rm_eo - m[2].rm_so);
		double v = grp(line, m, 3);
		new_startup_if_after_batches(e, lineno, "");
		if (kl == 5 && strncmp(key, "n_ctx", 5) == 0) {
			o->n_ctx_tokens = v;
			e->n_ctx_line = lineno;
		} else if ((kl == 13 && strncmp(key, "n_ctx_per_seq", 13) == 0) ||
		    (kl == 9 && strncmp(key, "n_ctx_seq", 9) == 0))
			o->ctx_per_slot_tokens = v;
		else if (kl == 9 && strncmp(key, "n_seq_max", 9) == 0)
			e->n_seq_max = v;
		else if (kl == 10 && strncmp(key, "kv_unified", 10) == 0)
			o->kv_unified = strncmp(line + m[3].rm_so, "true", 4) == 0 ? 1 : 0;
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_SLOTS], line, 2, m, 0) == 0) {
		e->any = 1;
		new_startup_if_after_batches(e, lineno, "");
		o->max_num_seqs = grp(line, m, 1);
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_SLOT_2024], line, 3, m, 0) == 0) {
		/* early 2024: "Available slots:" then " -> Slot N - max context: M" per slot */
		slot_line(e, grp(line, m, 1), grp(line, m, 2), lineno);
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_SLOT_CTX], line, 4, m, 0) == 0) {
		slot_line(e, grp(line, m, 1), grp(line, m, 3), lineno);
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_KV], line, 8, m, 0) == 0) {
		e->any = 1;
		new_startup_if_after_batches(e, lineno, "");
		o->n_capacity_lines++;
		o->kv_pool_tokens = grp(line, m, 3);
		o->kv_pool_gib = grp(line, m, 2) / 1024.0;
		o->kv_pool_line = o->kv_mem_line = lineno;
		/* "( 8192 cells, 16 layers, 1/1 seqs)": n_seq_max first (then the
		 * KV streams); older builds print "N seqs". The sequences the
		 * cache holds at once bound the slots when no line states them
		 * (thirty-second audit: a 1-sequence server read as ~7 resident) */
		if (!br_isnum(e->n_seq_max) && br_isnum(grp(line, m, 5)) && grp(line, m, 5) >= 1)
			e->n_seq_max = grp(line, m, 5);
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_KV_OLD], line, 2, m, 0) == 0) {
		e->any = 1;
		new_startup_if_after_batches(e, lineno, "");
		o->n_capacity_lines++;
		o->kv_pool_gib = grp(line, m, 1) / 1024.0;
		o->kv_mem_line = lineno;
		return;
	}
	if (regexec(&e->rx.rx[RX_LC_TIMING_HDR], line, 3, m, 0) == 0) {
		e->timing_slot = (int)grp(line, m, 1);
		e->timing_task = (int)grp(line, m, 2);
	}
	if (regexec(&e->rx.rx[RX_LC_PROMPT_EVAL], line, 4, m, 0) == 0) {
		e->any = 1;
		e->pending_prompt_ms = grp(line, m, 2);
		e->pending_prompt_tokens = grp(line, m, 3);
		e->pending_line = lineno;
		return;
	}
	if (e->pending_line > 0 && regexec(&e->rx.rx[RX_LC_EVAL], line, 5, m, 0) == 0) {
		e->saw_batch = 1;
		br_log_request *rq = br_server_log_add_request(o);
		rq->line = e->pending_line;
		rq->slot = e->timing_slot;
		rq->task = e->timing_task;
		rq->prompt_ms = e->pending_prompt_ms;
		rq->prompt_tokens = e->pending_prompt_tokens;
		rq->eval_ms = grp(line, m, 3);
		rq->eval_tokens = grp(line, m, 4);
		e->pending_line = 0;
		e->timing_slot = e->timing_task = -1;
	}
}

/*
 * br_server_log_load_engine: see serverlog.h.
 */
int
br_server_log_load_engine(const char *path, int engine, FILE *fp, br_server_log *out,
    char **cause)
{
	engine_scan e;
	memset(&e, 0, sizeof e);
	e.out = out;
	e.t0_s = NAN;
	e.timing_slot = e.timing_task = -1;
	e.n_seq_max = NAN;
	out->engine_kind = engine;
	rx_init(&e.rx);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0;
	while ((n = getline(&line, &cap, fp)) > 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)n) != NULL) {
			out->binary_bytes += n;
			if (out->first_binary_line == 0)
				out->first_binary_line = lineno;
			continue;
		}
		if (line[n - 1] != '\n') {
			/* a last line without its newline: cut off while written ("…=868" of
			 * "86864"), so its numbers cannot be trusted */
			out->cut_last_line = lineno;
			break;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > MAX_LINE)
			line[MAX_LINE] = '\0';
		if (engine == BR_ENGINE_SGLANG)
			sglang_line(&e, line, lineno);
		else
			llamacpp_line(&e, line, lineno);
	}
	free(line);
	rx_free(&e.rx);
	if (!e.any) {
		if (cause)
			*cause = br_xasprintf("%s: expected a %s server log (no capacity, batch or timing "
			    "line found)", path, br_engine_name(engine));
		return -1;
	}
	if (engine == BR_ENGINE_SGLANG && e.tp_ranks != 0) {
		out->tensor_parallel_size = bits_set(e.tp_ranks);
	}
	if (engine == BR_ENGINE_SGLANG && e.dp_ranks != 0) {
		/* each data-parallel rank is a scheduler with its own pool of
		 * max_total_num_tokens: the server holds their sum */
		int k = bits_set(e.dp_ranks);
		out->data_parallel_size = k;
		if (k > 1 && br_isnum(out->kv_pool_tokens))
			out->kv_pool_tokens *= k;
		if (k > 1 && br_isnum(out->kv_pool_gib))
			out->kv_pool_gib *= k;
	}
	if (engine == BR_ENGINE_LLAMACPP) {
		/* the per-slot context: the slot line, else n_ctx_seq, else n_ctx split over the
		 * slots when the cache is not unified (ENGINES.md §1.4) */
		if (!br_isnum(out->max_num_seqs) && br_isnum(e.n_seq_max) && e.n_seq_max >= 1)
			out->max_num_seqs = e.n_seq_max;   /* no `n_slots =` line: one slot per sequence */
		if (!br_isnum(out->ctx_per_slot_tokens) && br_isnum(out->n_ctx_tokens) &&
		    br_isnum(out->max_num_seqs) && out->max_num_seqs > 0 && out->kv_unified == 0)
			out->ctx_per_slot_tokens = floor(out->n_ctx_tokens / out->max_num_seqs);
		if (!br_isnum(out->max_num_seqs) && e.slot_ids != 0) {
			/* no `n_slots =` line (2026 builds print the slot lines only): count them */
			out->max_num_seqs = bits_set(e.slot_ids);
		}
		out->max_model_len_tokens = out->ctx_per_slot_tokens;
		if (!br_isnum(out->kv_pool_tokens) && br_isnum(out->n_ctx_tokens)) {
			/* builds before mid 2025 print no cell count: the cache holds n_ctx cells */
			out->kv_pool_tokens = out->n_ctx_tokens;
			out->kv_pool_line = e.n_ctx_line;
		}
	}
	return 0;
}

/* br_log_arg_incidental: see serverlog.h. */
int
br_log_arg_incidental(int engine_kind, const char *name)
{
	static const char *const any[] = { "host", "port", "model", "model_tag", "served_model_name" };
	/* model_path and tokenizer_path are settings (another model, another tokenizer) */
	static const char *const sglang[] = { "random_seed", "nccl_port", "dist_init_addr" };
	/* a credential says who may call the server, not how it runs */
	static const char *const credential[] = { "api_key", "admin_api_key", "hf_token", "token" };
	for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
		if (strcmp(name, any[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof credential / sizeof credential[0]; i++)
		if (strcmp(name, credential[i]) == 0)
			return 1;
	if (strstr(name, "password") != NULL || strstr(name, "secret") != NULL || strstr(name, "credential") != NULL)
		return 1;
	if (engine_kind == BR_ENGINE_SGLANG)
		for (size_t i = 0; i < sizeof sglang / sizeof sglang[0]; i++)
			if (strcmp(name, sglang[i]) == 0)
				return 1;
	return 0;
}

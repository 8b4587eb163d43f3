/*
 * Provenance: is each input file of a run folder really from this run?
 *
 * A run folder is often assembled by hand: a server.log kept from another
 * attempt, a metrics dump of yesterday's server, a log of a server that never
 * started. Numbers from such a file would be printed as this run's ("0
 * preemptions during the run", a KV pool of another model). The checks here
 * set such a file aside: it stays in the input table (marked "not used") but
 * its data is dropped, so every section that needs it is removed, and the
 * reason is kept in br_run.set_aside for the report to state.
 *
 * Rules (issue 9, "nothing from another server, another model or another
 * time"):
 *  - metrics whose time span does not overlap the bench run (the bench
 *    `date` is client local time without a zone: the run's end in UTC lies
 *    within [date − 14 h, date + 12 h]);
 *  - a log or metrics whose model differs from the bench's model: names
 *    compared by their last path component, case-insensitively, one
 *    containing the other counting as the same (the bench's model_id and
 *    tokenizer_id against the log's model and served_model_name, and the
 *    metrics' model_name labels against those of the bench and of a log
 *    that matched); a side that names no model is not compared;
 *  - a log of a server that failed at start-up while the bench completed
 *    requests: that server cannot have served them;
 *  - a metrics series with several busy periods is cut to the one that
 *    matches the bench (pick_busy_period).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "benchreport/common.h"
#include <glib.h>
#include "benchreport/run.h"
#include "benchreport/model.h"
#include "ingest/metrics_priv.h"
#include "benchreport/metrics.h"

/* A small set of model names (normalised), at most 8 kept. */
typedef struct names {
	char *v[8];       /* normalised (model_key) */
	char *orig[8];    /* as written, for messages */
	size_t n;
} names;

/* model_key: the last path component of s, lower case, trailing '/' ignored. */
static char *
model_key(const char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && s[b - 1] != '/')
		b--;
	char *k = br_xstrndup(s + b, n - b);
	for (char *p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return k;
}

static void
names_add(names *ns, const char *s)
{
	if (s == NULL || *s == '\0' || ns->n == 8)
		return;
	char *k = model_key(s);
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i], k) == 0) {
			free(k);
			return;
		}
	if (*k == '\0') {
		free(k);
		return;
	}
	ns->orig[ns->n] = br_xstrdup(s);
	ns->v[ns->n++] = k;
}

static void
names_free(names *ns)
{
	for (size_t i = 0; i < ns->n; i++) {
		free(ns->v[i]);
		free(ns->orig[i]);
	}
	ns->n = 0;
}

/* same_name: 1 when a name of one set equals one of the other (after
 * model_key: last path component, lower case). A name that merely contains
 * another is another model: "Qwen2.5-7B" (the base model), "-AWQ",
 * "-GPTQ-Int4", "-1M" or "-GGUF" variants are different weights, and a vLLM
 * server answers 404 for any name it does not serve, so a bench that
 * completed requests sent one of the server's own names. */
static int
same_name(const names *a, const names *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (strcmp(a->v[i], b->v[j]) == 0)
				return 1;
	return 0;
}

/* joined: "a, b" of a name set (malloc'd). */
static char *
joined(const names *ns)
{
	size_t len = 1;
	for (size_t i = 0; i < ns->n; i++)
		len += strlen(ns->orig[i]) + 2;
	char *o = br_xmalloc(len), *p = o;
	*p = '\0';
	for (size_t i = 0; i < ns->n; i++)
		p += sprintf(p, "%s%s", i ? ", " : "", ns->orig[i]);
	return o;
}

/* metrics_models: the model_name label values the metrics reader saw. */
static void
metrics_models(const br_series *m, names *out)
{
	for (size_t i = 0; i < m->n_model_names; i++)
		names_add(out, m->model_names[i]);
}

/*
 * set_aside: record that the input with `role` (first input whose role
 * starts with it) is not used, with the reason; the caller drops the data.
 */
static void
set_aside(br_run *r, const char *role_prefix, const char *what, char *reason)
{
	const char *path = NULL, *last = NULL, *first = NULL;
	GString *files = g_string_new(NULL);   /* every file set aside but the last: a pair is two */
	size_t n_files = 0;
	for (size_t i = 0; i < r->n_inputs; i++)
		if (strncmp(r->inputs[i].role, role_prefix, strlen(role_prefix)) == 0 &&
		    strstr(r->inputs[i].role, "not used") == NULL) {
			char *role = br_xasprintf("%s (not used)", r->inputs[i].role);
			free(r->inputs[i].role);
			r->inputs[i].role = role;
			if (path == NULL)
				path = r->inputs[i].path;
			if (last != NULL)
				g_string_append_printf(files, "%s%s", files->len ? ", " : "", last);
			last = br_basename(r->inputs[i].path);
			if (first == NULL)
				first = last;
			n_files++;
		}
	r->set_aside = br_xrealloc(r->set_aside, (r->n_set_aside + 1) * sizeof *r->set_aside);
	r->set_aside[r->n_set_aside++] = (br_set_aside){ br_xstrdup(path ? path : what),
		n_files >= 2 ? br_xasprintf("%s and %s", files->str, last) : NULL, br_xstrdup(what), reason };
	/* the files as separate arguments, so the Chinese phrase joins them
	 * with its own word ("a.prom and b.prom" → "a.prom 和 b.prom") */
	if (n_files > 3)   /* hundreds of snapshots: the first and last name, not every one */
		br_run_add_warning(r, "%zu files, %s to %s (%s), are not used: %s", n_files, first, last, what, reason);
	else if (n_files >= 2)
		br_run_add_warning(r, "%s and %s (%s) are not used: %s", files->str, last, what, reason);
	else
		br_run_add_warning(r, "%s (%s) is not used: %s", last ? last : what, what, reason);
	g_string_free(files, TRUE);
}

/* drop_warnings: remove the warnings that start with prefix (they described
 * an input that is now set aside). */
static void
drop_warnings(br_run *r, const char *prefix)
{
	size_t k = 0;
	for (size_t i = 0; i < r->n_warnings; i++) {
		if (strncmp(r->warnings[i], prefix, strlen(prefix)) == 0)
			free(r->warnings[i]);
		else
			r->warnings[k++] = r->warnings[i];
	}
	r->n_warnings = k;
}

static void
drop_metrics(br_run *r)
{
	drop_warnings(r, "metrics are a before/after snapshot pair");
	drop_warnings(r, "one metrics snapshot only");
	br_series_free(r->metrics);
	free(r->metrics);
	r->metrics = NULL;
	r->metrics_kind = BR_METRICS_NONE;
	r->metrics_cut = 0;
}

static void
drop_log(br_run *r)
{
	drop_warnings(r, "server did not start:");
	/* the log's own notes ("server.log shows 2 server start-ups; the capacity
	 * lines of the last one are used") describe what is no longer used */
	if (r->log != NULL && r->log->source_path != NULL) {
		char *pre = br_xasprintf("%s shows ", br_basename(r->log->source_path));
		drop_warnings(r, pre);
		free(pre);
	}
	br_server_log_free(r->log);
	free(r->log);
	r->log = NULL;
}

/* client_in_flight_max: the most requests the bench's closed loop could
 * have in flight: max_concurrency, or num_prompts when fewer (the caller
 * checked max_concurrency is a positive number). */
static double
client_in_flight_max(const br_bench *b)
{
	double c = b->max_concurrency;
	return br_isnum(b->num_prompts) && b->num_prompts > 0 && b->num_prompts < c ? b->num_prompts : c;
}

static void series_beyond_bench(br_run *r, const br_bench *b);
static void clock_disagrees(br_run *r, const br_bench *b);

/* utc: "YYYY-MM-DD HH:MM:SS" of epoch seconds t into buf[32]. */
static const char *
utc(double t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

/* busy_row: running + waiting > 0 at row r (br_rows_in_flight). */
static int
busy_row(const double *run, const double *wait, size_t r)
{
	return br_rows_in_flight(run, wait, r) > 0;
}

/* trim_rows: keep rows [a, b] of the series (inclusive). */
static void
trim_rows(br_series *m, size_t a, size_t b)
{
	size_t n = b - a + 1;
	memmove(m->t_s, m->t_s + a, n * sizeof *m->t_s);
	for (size_t c = 0; c < m->n_cols; c++)
		memmove(m->cols[c], m->cols[c] + a, n * sizeof *m->cols[c]);
	m->n_rows = n;
}

/*
 * busy_edges: the first and last busy rows of series m (running + waiting
 * > 0; rows whose running cell is empty, missed scrapes, are skipped) in
 * *first and *last, and whether the capture shows where the load began
 * (ended): *cut_start (*cut_end) is 0 when a known idle sample lies within
 * 2.5 sampling steps before the first (after the last) busy row, 1 when no
 * known sample lies before (after) it at all (the capture began busy), 2
 * when the nearest known idle sample is further away: scrapes that failed
 * around the load's start (end) hide it, as when only unanswered rows lie
 * before (after) it (twenty-second breaker: a 14 s outage at the start read
 * as "idle before", so the series was called another run's). Returns 0 when
 * no row is busy (or m has no running role).
 */
static int
busy_edges(const br_series *m, size_t *first, size_t *last, int *cut_start, int *cut_end)
{
	const double *run = br_role_col(m, BR_ROLE_RUNNING);
	const double *wait = br_role_col(m, BR_ROLE_WAITING);
	if (run == NULL || m->n_rows == 0)
		return 0;
	size_t f = m->n_rows, l = 0, idle_before = m->n_rows, idle_after = m->n_rows;
	for (size_t i = 0; i < m->n_rows; i++) {
		int known = isfinite(run[i]) || (wait && isfinite(wait[i]));
		if (busy_row(run, wait, i)) {
			if (f == m->n_rows)
				f = i;
			l = i;
			idle_after = m->n_rows;
		} else if (known) {
			if (f == m->n_rows)
				idle_before = i;
			if (idle_after == m->n_rows)
				idle_after = i;
		}
	}
	if (f == m->n_rows)
		return 0;
	*first = f;
	*last = l;
	double step = m->t_s != NULL && m->n_rows > 1 ?
	    (m->t_s[m->n_rows - 1] - m->t_s[0]) / (double)(m->n_rows - 1) : NAN;
	/* a known idle sample this far from the busy edge does not show the edge */
	int far_before = idle_before < m->n_rows && isfinite(step) && m->t_s[f] - m->t_s[idle_before] > 2.5 * step;
	int far_after = idle_after < m->n_rows && isfinite(step) && m->t_s[idle_after] - m->t_s[l] > 2.5 * step;
	/* rows with no answer beyond the busy edge are failed scrapes, not the
	 * capture's own start or end (twenty-ninth breaker: a server that went
	 * silent 14 s in read as "the capture ended before the load did") */
	*cut_start = idle_before == m->n_rows ? (f > 0 ? 2 : 1) : far_before ? 2 : 0;
	*cut_end = idle_after == m->n_rows ? (l + 1 < m->n_rows ? 2 : 1) : far_after ? 2 : 0;
	return 1;
}

/* last_known_before / first_known_after: the time of the last (first) row
 * before f (after l) with a known running or waiting value; NAN when none. */
static double
last_known_before(const br_series *m, size_t f)
{
	const double *run = br_role_col(m, BR_ROLE_RUNNING), *wait = br_role_col(m, BR_ROLE_WAITING);
	for (size_t i = f; i-- > 0;)
		if ((run && isfinite(run[i])) || (wait && isfinite(wait[i])))
			return m->t_s[i];
	return NAN;
}

static double
first_known_after(const br_series *m, size_t l)
{
	const double *run = br_role_col(m, BR_ROLE_RUNNING), *wait = br_role_col(m, BR_ROLE_WAITING);
	for (size_t i = l + 1; i < m->n_rows; i++)
		if ((run && isfinite(run[i])) || (wait && isfinite(wait[i])))
			return m->t_s[i];
	return NAN;
}

/* in_flight: running + waiting at row i of m (br_rows_in_flight). */
static double
in_flight(const br_series *m, size_t i)
{
	return br_rows_in_flight(br_role_col(m, BR_ROLE_RUNNING), br_role_col(m, BR_ROLE_WAITING), i);
}

/*
 * check_brackets: for the /slots snapshots standing in for metrics, a
 * capture whose first (last) snapshot already (still) shows busy slots
 * began after the load started (ended before it stopped): said.
 */
static void
check_brackets(br_run *r)
{
	size_t f, l;
	int cs, ce;
	const br_series *m = r->metrics;
	if (m == NULL || m->t_s == NULL || m->n_rows < 2 || !busy_edges(m, &f, &l, &cs, &ce))
		return;
	char at[32];
	if (cs == 1)
		br_run_add_warning(r, "slots.jsonl: its first sample (%s UTC) already shows %.0f busy slots: the "
		    "capture began after the load had started, so what the run did before it is not in it",
		    utc(m->t_s[f], at), in_flight(m, f));
	if (ce == 1)
		br_run_add_warning(r, "slots.jsonl: its last sample (%s UTC) still shows %.0f busy slots: the "
		    "capture ended before the load did, so the rest of the run is not in it",
		    utc(m->t_s[l], at), in_flight(m, l));
}

/* closed_loop_all_ok: the bench was a closed loop (max_concurrency, every
 * request sent at once) in which no request failed: it kept requests in the
 * server for its whole duration (series_misfit, log_busy_short). */
static int
closed_loop_all_ok(const br_bench *b)
{
	return br_isnum(b->max_concurrency) && b->max_concurrency > 0 && isinf(b->request_rate_rps) &&
	    br_isnum(b->failed) && b->failed == 0;
}

/*
 * series_misfit: whether a metrics series (after pick_busy_period) can be
 * this run's record; the reason (malloc'd) when it cannot:
 *   - the bench completed no request, yet the series shows requests in the
 *     server: another client's load;
 *   - its busy span (first to last busy sample) is longer than twice the
 *     bench's duration + 10 s + 3 sampling steps: more load than this run;
 *   - it begins or ends busy and its busy span plus one sampling step is
 *     under 90% of the bench's duration: it missed part of the run, and
 *     counter deltas, residency and preemptions would describe that part
 *     as the whole;
 *   - idle at both ends, its busy span plus two steps is under 75% of the
 *     bench's duration: a shorter load than this run; for a closed loop
 *     without failures, under 90% of it less 5 s;
 *   - no sample shows a request in the server (or none holds a value)
 *     while the bench completed requests over three sampling steps or more.
 * A series that begins or ends busy but covers 90% or more is kept: *cut
 * gets 1 (start) | 2 (end) and the warning says what it misses.
 */
static char *
series_misfit(br_run *r, const br_bench *b, int *cut)
{
	*cut = 0;
	const br_series *m = r->metrics;
	size_t f, l;
	int cs, ce;
	if (m == NULL || m->t_s == NULL || m->n_rows < 2)
		return NULL;
	double step = (m->t_s[m->n_rows - 1] - m->t_s[0]) / (double)(m->n_rows - 1);
	if (!busy_edges(m, &f, &l, &cs, &ce)) {
		/* no request in the server at any sample, while the bench completed
		 * requests over at least three sampling steps */
		const double *run = br_role_col(m, BR_ROLE_RUNNING);
		size_t known = 0;
		for (size_t i = 0; run != NULL && i < m->n_rows; i++)
			known += isfinite(run[i]);
		if (run == NULL || !(br_isnum(b->completed) && b->completed > 0))
			return NULL;
		if (known == 0)
			return br_xasprintf("none of its %zu samples holds a value for running requests, so it "
			    "records nothing of the run", m->n_rows);
		if (br_isnum(b->duration_s) && isfinite(step) && b->duration_s >= 3 * step)
			return br_xasprintf("running + waiting is 0 at every one of its %zu samples, yet the bench "
			    "completed %.0f requests in %.1f s: it is not this server's record of the run (a stuck "
			    "exporter, another server, or a capture outside the run)", known, b->completed, b->duration_s);
		return NULL;
	}
	char a[32], c[32];
	if (br_isnum(b->completed) && b->completed == 0) {
		double peak = 0;
		for (size_t i = f; i <= l; i++)
			peak = fmax(peak, in_flight(m, i));
		return br_xasprintf("the bench completed no request, yet the series shows up to %.0f requests "
		    "running or waiting (%s to %s UTC): another client's load, not this run's", peak,
		    utc(m->t_s[f], a), utc(m->t_s[l], c) + 11);
	}
	if (!(br_isnum(b->duration_s) && b->duration_s > 0))
		return NULL;
	double span = m->t_s[l] - m->t_s[f], dur = b->duration_s;
	if (!isfinite(step) || !isfinite(span))
		return NULL;
	if (span > 2 * dur + 10 + 3 * step)
		return br_xasprintf("its busy period lasts %.0f s (%s to %s UTC), the bench run %.1f s: it holds "
		    "more load than this run (another test's, or several), so its counters and gauges are not "
		    "this run's", span, utc(m->t_s[f], a), utc(m->t_s[l], c) + 11, dur);
	if ((cs || ce) && span + step < 0.9 * dur) {
		/* how each edge was missed: the capture began (ended) inside the
		 * load (1), or its scrapes failed around the edge (2; busy_edges);
		 * whole messages with numbers only in their holes, so that they
		 * translate as phrases */
		if (cs == 2 && !ce && !isfinite(last_known_before(m, f)))
			return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: no scrape answered "
			    "from the capture's start to its first busy sample, %.0f s later, so the capture lost the load's "
			    "start, and its counters, residency and preemptions would describe part of the run as the whole",
			    span + step, dur, m->t_s[f] - m->t_s[0]);
		if (cs == 2 && !ce)
			return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: no scrape answered in "
			    "the %.0f s before its first busy sample, so the capture lost the load's start, and its counters, "
			    "residency and preemptions would describe part of the run as the whole", span + step, dur,
			    m->t_s[f] - last_known_before(m, f));
		if (ce == 2 && !cs && !isfinite(first_known_after(m, l)))
			return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: the server's metrics "
			    "stopped answering after its last busy sample and did not answer again in the %.0f s the "
			    "capture went on, so the capture lost the load's end, and its counters, residency and "
			    "preemptions would describe part of the run as the whole", span + step, dur,
			    m->t_s[m->n_rows - 1] - m->t_s[l]);
		if (ce == 2 && !cs)
			return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: no scrape answered in "
			    "the %.0f s after its last busy sample, so the capture lost the load's end, and its counters, "
			    "residency and preemptions would describe part of the run as the whole", span + step, dur,
			    first_known_after(m, l) - m->t_s[l]);
		if (cs == 2 || ce == 2)
			return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: the capture misses both "
			    "the load's start and its end (scrapes that failed, or a capture inside the load), so its "
			    "counters, residency and preemptions would describe part of the run as the whole", span + step,
			    dur);
		return br_xasprintf("its busy samples span %.0f s of the bench's %.1f s run: the capture %s, so its "
		    "counters, residency and preemptions would describe part of the run as the whole", span + step,
		    dur, cs && ce ? "began after the load had started and ended before it did" :
		    cs ? "began after the load had started" : "ended before the load did");
	}
	if (!cs && !ce && span + 2 * step < 0.75 * dur)
		return br_xasprintf("its busy samples span %.0f s (%s to %s UTC), idle before and after, but the bench "
		    "ran %.1f s: it records a shorter load than this run (another run's, such as a neighbouring "
		    "sweep point's)", span, utc(m->t_s[f], a), utc(m->t_s[l], c) + 11, dur);
	/* a closed loop (max_concurrency, every request sent at once) keeps
	 * requests in the server from its first request to its last answer:
	 * the whole duration but a frontend time at each end. A series idle
	 * at both ends whose busy span falls clearly short of that is another
	 * run's (twenty-first breaker: round 2's 481 s beside round 1's 593.9 s
	 * bench, 81%, passed the 75% rule; simulated and real closed loops span
	 * 95.5-115% of their duration). Failed requests may end without
	 * reaching the engine, so a run with failures is left to the 75% rule. */
	if (!cs && !ce && closed_loop_all_ok(b) && span + 2 * step + 5 < 0.9 * dur)
		return br_xasprintf("its busy samples span %.0f s (%s to %s UTC), idle before and after, but the bench's "
		    "closed loop (max_concurrency %.0f, every request sent at once) kept requests in the server for "
		    "its whole %.1f s run: it records a shorter load than this run (another run's)", span,
		    utc(m->t_s[f], a), utc(m->t_s[l], c) + 11, b->max_concurrency, dur);
	*cut = (cs ? 1 : 0) | (ce ? 2 : 0);
	if (cs == 1)
		br_run_add_warning(r, "the metrics series: its first sample (%s UTC) already shows %.0f requests "
		    "running or waiting: the capture began after the load had started, so counts from it (such as "
		    "preemptions) are lower bounds", utc(m->t_s[f], a), in_flight(m, f));
	if (ce == 1)
		br_run_add_warning(r, "the metrics series: its last sample (%s UTC) still shows %.0f requests "
		    "running or waiting: the capture ended before the load did, so counts from it (such as "
		    "preemptions) are lower bounds", utc(m->t_s[l], a), in_flight(m, l));
	return NULL;
}

/*
 * pair_misfit: a before/after pair whose counters (requests finished,
 * generated tokens) did not move while the bench b completed requests, or
 * whose "before" already shows requests in the server (taken after the
 * load started) or whose "after" still does (taken before it ended): the
 * reason (malloc'd); else NULL.
 */
static char *
pair_misfit(const br_series *m, const br_bench *b)
{
	if (m == NULL || m->n_rows != 2)
		return NULL;
	/* counters that stand still while the client completed requests: the
	 * pair was not taken around this run (both before it, both after it,
	 * or another server's), whatever its gauges say */
	static const int moved[2] = { BR_ROLE_REQUEST_SUCCESS, BR_ROLE_GENERATION_TOKENS };
	int n_still = 0, n_known = 0;
	GString *still = g_string_new(NULL);
	for (int k = 0; k < 2; k++) {
		const double *c = br_role_col(m, moved[k]);
		if (c == NULL || !isfinite(c[0]) || !isfinite(c[1]))
			continue;
		n_known++;
		if (c[1] == c[0]) {
			n_still++;
			g_string_append_printf(still, "%s%s", still->len ? ", " : "", br_role_name(m, moved[k]));
		}
	}
	if (n_known > 0 && n_still == n_known && br_isnum(b->completed) && b->completed > 0) {
		char *why = br_xasprintf("its counters did not move between the two snapshots (%s: +0) while the "
		    "bench completed %.0f requests: the pair was not taken around this run", still->str, b->completed);
		g_string_free(still, TRUE);
		return why;
	}
	g_string_free(still, TRUE);
	if (br_role_col(m, BR_ROLE_RUNNING) == NULL)
		return NULL;
	double nb = in_flight(m, 0), na = in_flight(m, 1);
	if (nb > 0)
		return br_xasprintf("the \"before\" snapshot already shows %.0f requests running or waiting: it was "
		    "taken after the load had started, so the counter deltas miss the run's start", nb);
	if (na > 0)
		return br_xasprintf("the \"after\" snapshot still shows %.0f requests running or waiting: it was "
		    "taken before the load ended, so the counter deltas miss the rest of the run", na);
	return NULL;
}

/*
 * pick_busy_period: a metrics series that holds several busy periods
 * (running + waiting > 0, split by at least 3 idle samples; a missed scrape,
 * whose running cell is empty, is neither busy nor idle) spans other
 * tests too: its counters would credit their preemptions and tokens to this
 * run. The period, or run of consecutive periods fitting in the bench's
 * duration (a low-rate run idles between its own requests), that matches
 * the bench is kept (its length closest to the
 * bench duration, plus, when the bench has a date, how far its end is from
 * the date shifted by a whole time zone of 15-minute steps within
 * −14 h … +12 h), one idle sample on each side; the others are cut with a
 * warning naming them.
 */
static void
pick_busy_period(br_run *r, const br_bench *b)
{
	br_series *m = r->metrics;
	if (m == NULL || m->n_rows < 4 || m->t_s == NULL || !isfinite(b->duration_s) ||
	    (r->metrics_kind != BR_METRICS_CSV && r->metrics_kind != BR_METRICS_SNAPSHOTS))
		return;
	const double *run = br_role_col(m, BR_ROLE_RUNNING);
	const double *wait = br_role_col(m, BR_ROLE_WAITING);
	if (run == NULL)
		return;
	enum { MAXP = 64 };
	size_t ps[MAXP], pe[MAXP], np = 0, idle = 0;
	int in = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (!isfinite(run[i]) && !(wait && isfinite(wait[i]) && wait[i] > 0))
			continue;   /* a missed scrape (empty cells): neither busy nor idle */
		if (busy_row(run, wait, i)) {
			if (!in) {
				if (np > 0 && idle < 3)
					np--;             /* a short idle gap: the same period goes on */
				else if (np == MAXP)
					return;
				else
					ps[np] = i;
				np++;
				in = 1;
			}
			pe[np - 1] = i;
			idle = 0;
		} else {
			in = 0;
			idle++;
		}
	}
	if (np < 2)
		return;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	double end_local = NAN;
	if (b->date && strptime(b->date, "%Y%m%d-%H%M%S", &tm) != NULL)
		end_local = (double)timegm(&tm);
	/* candidates: runs of consecutive periods [ka, kb] that fit in the
	 * bench's duration (+ 5 s + 3 sampling steps): an open-loop run at a low
	 * rate idles between its own requests, and those periods are all its */
	double step = (m->t_s[m->n_rows - 1] - m->t_s[0]) / (double)(m->n_rows - 1);
	double fit = b->duration_s + 5 + 3 * (isfinite(step) ? step : 0);
	size_t ka_best = 0, kb_best = 0;
	double best_score = INFINITY;
	for (size_t ka = 0; ka < np; ka++)
		for (size_t kb = ka; kb < np; kb++) {
			double len = m->t_s[pe[kb]] - m->t_s[ps[ka]];
			if (kb > ka && len > fit)
				break;
			double score = fabs(len - b->duration_s);
			if (isfinite(end_local)) {
				double off = m->t_s[pe[kb]] - end_local;     /* = −(UTC offset) when it matches */
				if (off < -12 * 3600.0 - 60 || off > 14 * 3600.0 + 60)
					score += 1e9;
				else
					score += fabs(off - 900.0 * round(off / 900.0));
			}
			if (score < best_score) {
				best_score = score;
				ka_best = ka;
				kb_best = kb;
			}
		}
	if (ka_best == 0 && kb_best == np - 1)
		return;   /* every period is this run's */
	GString *cut = g_string_new(NULL);
	for (size_t k = 0; k < np; k++)
		if (k < ka_best || k > kb_best) {
			char a[32], c[32];
			g_string_append_printf(cut, "%s%s–%s", cut->len ? ", " : "", utc(m->t_s[ps[k]], a),
			    utc(m->t_s[pe[k]], c) + 11);
		}
	char a[32], c[32];
	if (ka_best == kb_best)
		br_run_add_warning(r, "the metrics series holds %zu busy periods (running + waiting > 0); the one "
		    "matching the bench result (%s–%s UTC, for a run of %.1f s) is used and the others (%s UTC) "
		    "are left out, so another test's preemptions and tokens are not counted as this run's", np,
		    utc(m->t_s[ps[ka_best]], a), utc(m->t_s[pe[kb_best]], c) + 11, b->duration_s, cut->str);
	else
		br_run_add_warning(r, "the metrics series holds %zu busy periods (running + waiting > 0); the %zu "
		    "matching the bench result (%s–%s UTC, for a run of %.1f s; the server idled between its "
		    "requests) are used and the others (%s UTC) are left out, so another test's preemptions and "
		    "tokens are not counted as this run's", np, kb_best - ka_best + 1, utc(m->t_s[ps[ka_best]], a),
		    utc(m->t_s[pe[kb_best]], c) + 11, b->duration_s, cut->str);
	g_string_free(cut, TRUE);
	size_t best = ka_best;
	pe[best] = pe[kb_best];
	size_t lo = ps[best] > 0 ? ps[best] - 1 : 0;
	size_t hi = pe[best] + 1 < m->n_rows ? pe[best] + 1 : m->n_rows - 1;
	trim_rows(m, lo, hi);
}

/* stamp_epoch: "MM-DD HH:MM:SS" (a vLLM log stamp, local time, no year) in
 * the year of bench_end (timegm of the bench date, local clock); NAN when
 * unparsable. A stamp in late December against a January date is put in
 * the year before. */
static double
stamp_epoch(const char *stamp, double bench_end)
{
	int mo, d, h, mi, se;
	if (stamp == NULL || sscanf(stamp, "%d-%d %d:%d:%d", &mo, &d, &h, &mi, &se) != 5)
		return NAN;
	time_t be = (time_t)bench_end;
	struct tm bt;
	gmtime_r(&be, &bt);
	struct tm tm = { .tm_year = bt.tm_year, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
		.tm_min = mi, .tm_sec = se };
	double t = (double)timegm(&tm);
	if (t - bench_end > 180 * 86400.0) {
		tm.tm_year--;
		t = (double)timegm(&tm);
	}
	return t;
}

/*
 * v0_preemptions_in_run: the log's V0 preemption warnings stamped inside
 * the bench run (end = the bench date, start = end − duration, ± 2 s; the
 * log's local clock taken as the client's, as later_startup does): their
 * number into l->n_v0_in_run and the fewest preemptions they prove into
 * l->v0_in_run_bound. Totals rise within one server life: a warning with
 * total N proves preemptions first..N of its rise happened in the run
 * (N − first + 1); a total lower than the one before is a restart and
 * starts a new rise. Nothing when the bench has no date or duration, or no
 * warning falls inside (a log of another time zone proves nothing, and
 * nothing is claimed).
 */
static void
v0_preemptions_in_run(br_server_log *l, const br_bench *b)
{
	l->n_v0_in_run = 0;
	l->v0_in_run_bound = NAN;
	if (l->n_v0_preemptions == 0 || b->date == NULL || !isfinite(b->duration_s))
		return;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (strptime(b->date, "%Y%m%d-%H%M%S", &tm) == NULL)
		return;
	double end = (double)timegm(&tm), start = end - b->duration_s;
	double bound = 0, first = NAN, last = NAN;
	for (size_t i = 0; i < l->n_v0_preemptions; i++) {
		const br_log_v0_preemption *v = &l->v0_preemptions[i];
		double t = stamp_epoch(v->stamp, end);
		if (!isfinite(t) || t < start - 2 || t > end + 2 || !isfinite(v->cumulative))
			continue;
		if (isfinite(last) && v->cumulative < last) {   /* a restart: a new rise */
			bound += last - first + 1;
			first = NAN;
		}
		if (!isfinite(first))
			first = v->cumulative;
		last = v->cumulative;
		l->n_v0_in_run++;
	}
	if (l->n_v0_in_run > 0)
		l->v0_in_run_bound = bound + last - first + 1;
}

/*
 * startup_after_end: the epoch s of the log's last start-up and of the
 * bench run's end (its "date", read as UTC like the log's stamp) into
 * *start_t and *end; 0, or -1 when the log has no start-up stamp or the
 * bench no date.
 */
static int
startup_after_end(const br_server_log *l, const br_bench *b, double *start_t, double *end)
{
	if (l->n_startups < 1 || l->last_startup_stamp[0] == '\0' || b->date == NULL)
		return -1;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (strptime(b->date, "%Y%m%d-%H%M%S", &tm) == NULL)
		return -1;
	*end = (double)timegm(&tm);
	*start_t = stamp_epoch(l->last_startup_stamp, *end);
	return isfinite(*start_t) ? 0 : -1;
}

/*
 * later_startup: 1 when the log's last start-up began after the bench run
 * ended while an earlier start-up was serving requests during the run (a
 * stats line before the last start-up, running > 0, stamped within the run
 * ± 60 s): the capacity and arguments kept (the last start-up's) are then
 * not those of the server that served the run. Compares the log's local
 * clock with the bench's (the same host's time zone); the stats-line
 * condition guards against a zone mismatch.
 */
static int
later_startup(const br_server_log *l, const br_bench *b, char *why, size_t whylen)
{
	double end, start_t, dur = isfinite(b->duration_s) ? b->duration_s : 0;
	if (l->n_startups < 2 || startup_after_end(l, b, &start_t, &end) != 0 || start_t <= end + 5)
		return 0;
	size_t before = 0;
	for (size_t i = 0; i < l->n_stats; i++)
		before += l->stats[i].line < l->last_startup_line;
	if (before == 0) {
		/* no periodic stats line before the restart: nothing shows which
		 * start-up served the run, and the kept one began after it ended */
		snprintf(why, whylen, "it holds %d start-ups and the last (line %d, %s) began after the bench "
		    "run ended (%.4s-%.2s-%.2s %.2s:%.2s:%.2s, if the log and the client share a time zone); "
		    "no periodic stats line shows which start-up served the run, and the log is read for "
		    "its last start-up's capacity lines and arguments only", l->n_startups, l->last_startup_line,
		    l->last_startup_stamp, b->date, b->date + 4, b->date + 6, b->date + 9, b->date + 11,
		    b->date + 13);
		return 1;
	}
	for (size_t i = 0; i < l->n_stats; i++) {
		const br_log_stat *st = &l->stats[i];
		if (st->line >= l->last_startup_line || !(st->running > 0))
			continue;
		double t = stamp_epoch(st->stamp, end);
		if (isfinite(t) && t >= end - dur - 60 && t <= end + 60) {
			snprintf(why, whylen, "its last start-up (line %d, %s) began after the bench run ended "
			    "(%.4s-%.2s-%.2s %.2s:%.2s:%.2s), while an earlier start-up was serving requests "
			    "during the run (line %d, %s: %.0f running); the log is read for its last start-up's "
			    "capacity lines and arguments only, and those are the later server's, not the one that served the run", l->last_startup_line, l->last_startup_stamp, b->date,
			    b->date + 4, b->date + 6, b->date + 9, b->date + 11, b->date + 13, st->line, st->stamp,
			    st->running);
			return 1;
		}
	}
	return 0;
}

/*
 * started_after_bench: 1 when the log's (last) start-up is stamped more
 * than 14 h after the bench run ended: later than any time-zone gap
 * between the client's and the server's clocks (−14 h to +12 h), so the
 * server it shows started after the run and did not serve it (thirty-fifth
 * audit: a log starting 16 h after the bench's end was read as this run's
 * version, arguments, speculative decoding and KV pool). The year of the
 * log's "MM-DD HH:MM:SS" is taken nearest the bench date.
 */
static int
started_after_bench(const br_server_log *l, const br_bench *b, char *why, size_t whylen)
{
	double end, start_t;
	if (startup_after_end(l, b, &start_t, &end) != 0 || start_t <= end + 14 * 3600.0 + 60)
		return 0;
	snprintf(why, whylen, "its server started at %s (line %d), %.1f h after the bench run ended "
	    "(%.4s-%.2s-%.2s %.2s:%.2s:%.2s), later than any time-zone difference between the two clocks: it is "
	    "the log of a later server, and its version, arguments and capacity are not this run's",
	    l->last_startup_stamp, l->last_startup_line, (start_t - end) / 3600.0, b->date, b->date + 4,
	    b->date + 6, b->date + 9, b->date + 11, b->date + 13);
	return 1;
}

/*
 * misses_bench: when the times of series m (epoch s) cannot overlap the
 * bench run (its end date in client local time, any zone from −14 h to
 * +12 h, minus its duration), the reason (malloc'd); else NULL.
 */
static char *
misses_span(int batch_lines, double t0, double t1, const br_bench *b);

static char *
misses_bench(const br_series *m, const br_bench *b)
{
	if (m == NULL || m->n_rows < 2 || m->t_s == NULL)
		return NULL;
	return misses_span(0, m->t_s[0], m->t_s[m->n_rows - 1], b);
}

/* misses_span: misses_bench for the span [t0, t1] (epoch s) of a metrics
 * series, or with batch_lines of a log's stamped batch lines. */
static char *
misses_span(int batch_lines, double t0, double t1, const br_bench *b)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (b->date == NULL || strptime(b->date, "%Y%m%d-%H%M%S", &tm) == NULL || !isfinite(t0) || !isfinite(t1))
		return NULL;
	double end_local = (double)timegm(&tm);
	double dur = isfinite(b->duration_s) ? b->duration_s : 0;
	double lo = end_local - 14 * 3600.0 - dur, hi = end_local + 12 * 3600.0;
	if (!(t1 < lo || t0 > hi))
		return NULL;
	char a[32], c[32];
	if (batch_lines)   /* two sentences, each its own translation */
		return br_xasprintf("its batch lines cover %s to %s UTC but the bench result ended "
		    "%.4s-%.2s-%.2s %.2s:%.2s:%.2s (client local time, any time zone): they do not overlap, so the "
		    "log did not see this run and its KV pool and arguments may be another server's", utc(t0, a),
		    utc(t1, c), b->date, b->date + 4, b->date + 6, b->date + 9, b->date + 11, b->date + 13);
	return br_xasprintf("its samples cover %s to %s UTC but the bench result ended "
	    "%.4s-%.2s-%.2s %.2s:%.2s:%.2s (client local time, any time zone): they do not overlap, so it "
	    "describes another run", utc(t0, a), utc(t1, c), b->date, b->date + 4, b->date + 6,
	    b->date + 9, b->date + 11, b->date + 13);
}

/*
 * version_agrees: a user's version label (run.json server_version: "0.10.1",
 * "v0.10.1", "b5489") names the version a log states ("0.10.1", "b5489
 * (2d38b6e4)") when, without a leading "v", it is the log's text or its
 * start up to a character that is not a letter or digit ("0.10" names
 * "0.10.1", "5489" names "b5489 (2d38b6e4)"; "0.1" does not name "0.10.1").
 */
static int
version_agrees(const char *label, const char *logged)
{
	if ((label[0] == 'v' || label[0] == 'V') && label[1] >= '0' && label[1] <= '9')
		label++;
	if ((logged[0] == 'v' || logged[0] == 'b') && logged[1] >= '0' && logged[1] <= '9' &&
	    label[0] >= '0' && label[0] <= '9')
		logged++;   /* "5489" names llama.cpp's "b5489 (...)" */
	size_t n = strlen(label);
	if (strncmp(label, logged, n) != 0)
		return 0;
	unsigned char next = (unsigned char)logged[n];
	return next == '\0' || !(isalnum(next));
}

/* set_aside_other_model: the metrics, whose model_name labels mm do not
 * name the bench's model (names bench), are another server's: set aside. */
static void
set_aside_other_model(br_run *r, const names *bench, const names *mm)
{
	char *bn = joined(bench), *mn = joined(mm);
	set_aside(r, "metrics", "the server metrics", br_xasprintf("its model_name label is %s, the bench "
	    "ran against %s: it is another server's counters", mn, bn));
	free(bn);
	free(mn);
	drop_metrics(r);
}

/*
 * log_busy_short: a closed-loop bench without failures keeps requests in
 * the server for its whole duration (series_misfit). When the periodic
 * "Running: N reqs, Waiting: M reqs" lines after the log's last start-up
 * hold at least 3 busy lines and even their longest busy period (lines
 * with requests, split at an idle line or a gap of over 3.5 logging
 * intervals) plus two intervals and 5 s falls under 90% of a bench of 60 s
 * or more, the log saw another, shorter load: the reason (malloc'd), else
 * NULL (twenty-first breaker: round 2's log, busy 480 s, gave its 120,064-
 * token pool to round 1's 593.9 s bench). Logs print a line about every
 * 10 s and none while idle in recent versions, so shorter runs are never
 * judged.
 */
static char *
log_busy_short(const br_server_log *l, const br_bench *b)
{
	double dur = b->duration_s;
	if (!closed_loop_all_ok(b) || !br_isnum(dur) || dur < 60 || l->n_stats < 3)
		return NULL;
	/* the logging interval: the median gap between consecutive stamped lines */
	double *gap = br_xmalloc(l->n_stats * sizeof *gap);
	size_t ng = 0, n_busy = 0;
	for (size_t i = 0; i < l->n_stats; i++) {
		const br_log_stat *s = &l->stats[i];
		if (s->line < l->last_startup_line)
			continue;
		n_busy += s->running + s->waiting > 0;
		if (i > 0 && l->stats[i - 1].line >= l->last_startup_line && isfinite(s->t_s) &&
		    isfinite(l->stats[i - 1].t_s) && s->t_s > l->stats[i - 1].t_s)
			gap[ng++] = s->t_s - l->stats[i - 1].t_s;
	}
	double interval = br_median_inplace(gap, ng);
	free(gap);
	if (n_busy < 3 || !isfinite(interval))
		return NULL;
	double longest = NAN, t_first = NAN, t_last = NAN;
	for (size_t i = 0; i < l->n_stats; i++) {
		const br_log_stat *s = &l->stats[i];
		if (s->line < l->last_startup_line || !isfinite(s->t_s))
			continue;
		int busy = s->running + s->waiting > 0;
		if (!busy || (isfinite(t_last) && s->t_s - t_last > 3.5 * interval))
			t_first = t_last = NAN;   /* the period ends */
		if (!busy)
			continue;
		if (!isfinite(t_first))
			t_first = s->t_s;
		t_last = s->t_s;
		if (!(t_last - t_first <= longest))   /* NAN at first: taken */
			longest = t_last - t_first;
	}
	if (!isfinite(longest) || longest + 2 * interval + 5 >= 0.9 * dur)
		return NULL;
	return br_xasprintf("its periodic lines (about every %.0f s) show the server busy for at most %.0f s at a "
	    "stretch, but the bench's closed loop (max_concurrency %.0f, every request sent at once) kept "
	    "requests in the server for its whole %.1f s run: the log saw another, shorter load, so its "
	    "capacity and arguments may not be this run's server's", interval, longest,
	    b->max_concurrency, dur);
}

/*
 * br_run_check_provenance: see run.h.
 */
void
br_run_check_provenance(br_run *r)
{
	if (r == NULL || r->bench.n == 0)
		return;
	const br_bench *b = &r->bench.runs[0];
	/* the name the client sent: model_id; the tokenizer only when the file
	 * names no model (a fine-tune keeps its base model's tokenizer, so the
	 * tokenizer does not vouch for a server's model) */
	names bench = { 0 };
	names_add(&bench, b->model_id);
	if (bench.n == 0)
		names_add(&bench, b->tokenizer_id);

	/* 1. a log of a server that never started cannot have served completed requests */
	if (r->log != NULL && r->log->did_not_start && br_isnum(b->completed) && b->completed > 0) {
		char *why = br_xasprintf("it is the log of a server that failed at start-up (line %d: %s), "
		    "yet the bench completed %.0f requests, so another server served them; its "
		    "capacity, version and arguments are not this run's", r->log->failure_line,
		    r->log->failure_message ? r->log->failure_message : "an error", b->completed);
		set_aside(r, "server log", "the server log", why);
		drop_log(r);
	}

	/* 1b. a restart after the run: the kept capacity is the later server's */
	char why[640];
	if (r->log != NULL && later_startup(r->log, b, why, sizeof why)) {
		set_aside(r, "server log", "the server log", br_xstrdup(why));
		drop_log(r);
	}
	/* 1b''. the only (or last) start-up long after the run ended */
	if (r->log != NULL && started_after_bench(r->log, b, why, sizeof why)) {
		set_aside(r, "server log", "the server log", br_xstrdup(why));
		drop_log(r);
	}

	/* 1b'. an SGLang log (full dates) whose stamped batch lines all lie
	 * outside the bench run did not see it: neither its capacity nor the
	 * series its lines would give are this run's */
	if (r->log != NULL && r->log->engine_kind == BR_ENGINE_SGLANG && isfinite(r->log->stats_epoch0_s) &&
	    r->log->n_stats > 0 && isfinite(r->log->stats[0].t_s) &&
	    isfinite(r->log->stats[r->log->n_stats - 1].t_s)) {
		char *off = misses_span(1, r->log->stats_epoch0_s + r->log->stats[0].t_s,
		    r->log->stats_epoch0_s + r->log->stats[r->log->n_stats - 1].t_s, b);
		if (off != NULL) {
			set_aside(r, "server log", "the server log", off);
			drop_log(r);
		}
	}

	/* 1b''. a vLLM log whose periodic lines show only shorter loads than a
	 * closed-loop bench: another run's server (log_busy_short) */
	if (r->log != NULL && r->log->engine_kind == BR_ENGINE_VLLM) {
		char *short_why = log_busy_short(r->log, b);
		if (short_why != NULL) {
			set_aside(r, "server log", "the server log", short_why);
			drop_log(r);
		}
	}

	/* 1c'. metrics holding series of two engines: read as one, said so */
	if (r->metrics != NULL) {
		static const char *const pre[] = { NULL, "vllm:", "sglang:", "llamacpp:" };
		br_engine me = br_series_engine(r->metrics);
		for (int e = BR_ENGINE_VLLM; e < BR_N_ENGINES && me != BR_ENGINE_UNKNOWN; e++)
			if (e != (int)me && br_series_has_prefix(r->metrics, pre[e]))
				br_run_add_warning(r, "the metrics hold series of both %s and %s; they are read as "
				    "%s's (most of the series the analyses use), the %s series are not used",
				    br_engine_name(me), br_engine_name((br_engine)e), br_engine_name(me),
				    br_engine_name((br_engine)e));
	}

	/* 1c. the log of another engine than the metrics' (a vLLM log beside
	 * llama.cpp series): its capacity lines describe another server */
	if (r->log != NULL && r->metrics != NULL) {
		br_engine me = br_series_engine(r->metrics);
		br_engine le = (br_engine)r->log->engine_kind;
		if (me != BR_ENGINE_UNKNOWN && le != BR_ENGINE_UNKNOWN && me != le) {
			/* a log naming the bench's model keeps its place against metrics
			 * that name another model, or (the log naming exactly the bench's
			 * model) none: a llama-server page has no model label. A stray
			 * page must not take the log of this run's model with it;
			 * otherwise the log goes */
			names mm = { 0 }, lg = { 0 };
			metrics_models(r->metrics, &mm);
			names_add(&lg, r->log->model);
			names_add(&lg, r->log->served_model_name);
			int log_is_benchs = bench.n > 0 && lg.n > 0 && same_name(&bench, &lg);
			if (log_is_benchs && mm.n > 0 && !same_name(&bench, &mm))
				set_aside_other_model(r, &bench, &mm);
			else if (log_is_benchs && mm.n == 0 && same_name(&bench, &lg)) {
				char *bn = joined(&bench);
				set_aside(r, "metrics", "the server metrics", br_xasprintf("they are %s's and name no "
				    "model, while the server log is %s's and names the bench's model %s: they are "
				    "another server's counters", br_engine_name(me), br_engine_name(le), bn));
				free(bn);
				drop_metrics(r);
			} else {
				set_aside(r, "server log", "the server log", br_xasprintf("it was written by %s while "
				    "the metrics are %s's: its capacity lines belong to another server",
				    br_engine_name(le), br_engine_name(me)));
				drop_log(r);
			}
			names_free(&mm);
			names_free(&lg);
		}
	}

	/* 2'. llama-server runs at most n_slots requests at once, and a request
	 * holds its slot from its first to its last token at least: when the
	 * successful requests' decode time (E2E latency − TTFT) adds up to more
	 * than n_slots × the run's duration, the bench was not served by the
	 * server of this log (another model's log names nothing we could check) */
	if (r->log != NULL && r->log->engine_kind == BR_ENGINE_LLAMACPP && br_isnum(r->log->max_num_seqs) &&
	    r->log->max_num_seqs >= 1 && br_isnum(b->duration_s) && b->duration_s > 0) {
		double busy_s = 0;
		for (size_t i = 0; i < b->n_requests; i++) {
			const br_request *q = &b->requests[i];
			if (!q->failed && isfinite(q->latency_s) && isfinite(q->ttft_s) && q->latency_s > q->ttft_s)
				busy_s += q->latency_s - q->ttft_s;
		}
		double at_once = busy_s / b->duration_s;
		if (at_once > 1.05 * r->log->max_num_seqs + 0.5) {
			set_aside(r, "server log", "the server log", br_xasprintf("it is of a llama-server with %.0f "
			    "slot%s, but the bench's successful requests spent %.1f s between their first and last "
			    "tokens in a run of %.1f s, so at least %.1f were served at once: another server served "
			    "this run", r->log->max_num_seqs, r->log->max_num_seqs == 1 ? "" : "s", busy_s,
			    b->duration_s, at_once));
			drop_log(r);
		}
	}

	/* 2. the log's model (not for llama-server: it names a model file and
	 * answers whatever model name a client sends, so names prove nothing) */
	if (r->log != NULL && bench.n > 0 && r->log->engine_kind != BR_ENGINE_LLAMACPP) {
		names log = { 0 };
		names_add(&log, r->log->model);
		names_add(&log, r->log->served_model_name);
		if (log.n > 0 && !same_name(&bench, &log)) {
			char *bn = joined(&bench), *ln = joined(&log);
			set_aside(r, "server log", "the server log", br_xasprintf("it serves model %s, "
			    "the bench ran against %s: its KV pool and arguments belong to another "
			    "server", ln, bn));
			free(bn);
			free(ln);
			drop_log(r);
		}
		names_free(&log);
	}

	/* 3. the metrics' model (model_name is the served name, an alias the
	 * bench file may not state: a log of this model vouches for its names) */
	if (r->log != NULL) {
		names_add(&bench, r->log->model);
		names_add(&bench, r->log->served_model_name);
	}
	/* the metrics */
	if (r->metrics != NULL && bench.n > 0) {
		names mm = { 0 };
		metrics_models(r->metrics, &mm);
		if (mm.n > 0 && !same_name(&bench, &mm))
			set_aside_other_model(r, &bench, &mm);
		names_free(&mm);
	}

	/* 3b. snapshots that saw more requests in flight than the bench's closed
	 * loop could have had: scraped while other load ran (another run, a
	 * shared server), so neither their gauges nor their counter deltas are
	 * this run's. A 1 Hz series is cut to its busy period instead. */
	if (r->metrics != NULL && (r->metrics_kind == BR_METRICS_SNAPSHOT || r->metrics_kind == BR_METRICS_PAIR) &&
	    br_isnum(b->max_concurrency) && b->max_concurrency > 0) {
		double c_eff = client_in_flight_max(b);
		const double *run = br_role_col(r->metrics, BR_ROLE_RUNNING);
		const double *wait = br_role_col(r->metrics, BR_ROLE_WAITING);
		for (size_t i = 0; run != NULL && i < r->metrics->n_rows; i++) {
			double nr = isfinite(run[i]) ? run[i] : 0, nw = wait && isfinite(wait[i]) ? wait[i] : 0;
			if (nr + nw > c_eff) {
				set_aside(r, "metrics", "the server metrics", br_xasprintf("%s shows %.0f running "
				    "and %.0f waiting requests, more than the bench's %.0f concurrent requests could "
				    "have in flight: it was scraped while other load ran on the server, so its "
				    "gauges and counters are not this run's alone",
				    r->metrics->n_rows > 1 ? (i == 0 ? "its first snapshot" : "its last snapshot") :
				    "the snapshot", nr, nw, c_eff));
				drop_metrics(r);
				break;
			}
		}
	}

	/* 4. the metrics' time span against the bench's end (client local time) */
	char *off_time = NULL;
	if (r->metrics != NULL && (r->metrics_kind == BR_METRICS_CSV || r->metrics_kind == BR_METRICS_SNAPSHOTS) &&
	    (off_time = misses_bench(r->metrics, b)) != NULL) {
		set_aside(r, "metrics", "the server metrics", off_time);
		drop_metrics(r);
	}
	/* 4b. a recorded run: the bench result cannot have run longer than the
	 * load client that `benchreport record` ran */
	if (isfinite(r->recorded_client_start_s) && isfinite(b->duration_s)) {
		double span = r->recorded_client_end_s - r->recorded_client_start_s;
		if (b->duration_s > span + fmax(2.0, 0.05 * span))
			br_run_add_warning(r, "the bench result says the benchmark ran %.1f s, but the load client "
			    "that benchreport record ran lasted %.1f s (run.json): the result may be another run's, "
			    "and the metrics cover only the recorded %.1f s", b->duration_s, span, span);
	}
	/* 5. the log's KV pool against the metrics' vllm:cache_config_info (the
	 * same number on the same server start): metrics that passed the checks
	 * above are this run's, so a log stating another pool is another start's */
	br_cache_config cc;
	if (r->log != NULL && r->metrics != NULL && br_isnum(r->log->kv_pool_tokens) && r->log->kv_pool_tokens > 0 &&
	    br_series_cache_config(r->metrics, &cc) && br_isnum(cc.kv_cache_size_tokens) && cc.kv_cache_size_tokens > 0 &&
	    fabs(cc.kv_cache_size_tokens - r->log->kv_pool_tokens) > 0.01 * cc.kv_cache_size_tokens) {
		char lp[32], mp[32];
		set_aside(r, "server log", "the server log", br_xasprintf("it states a KV pool of %s tokens (GPU KV "
		    "cache size, line %d), but the metrics' vllm:cache_config_info says kv_cache_size_tokens = %s: "
		    "the log is of another server start, so its capacity, version and arguments are not this run's",
		    br_format_count(r->log->kv_pool_tokens, lp), r->log->kv_pool_line, br_format_count(cc.kv_cache_size_tokens, mp)));
		drop_log(r);
	}
	/* 6. run.json's server_version against the log's own version (the log wins) */
	const char *lv = r->log == NULL ? NULL : r->log->engine_kind == BR_ENGINE_SGLANG ||
	    r->log->engine_kind == BR_ENGINE_LLAMACPP ? r->log->engine_version : r->log->vllm_version;
	if (lv != NULL && r->server_version != NULL && r->server_version[0] != '\0' &&
	    !version_agrees(r->server_version, lv))
		br_run_add_warning(r, "run.json says server_version \"%s\", but the server log states %s (line %d): "
		    "the log's version is used; check which server this run met", r->server_version, lv,
		    r->log->version_line);
	if (r->metrics != NULL)
		pick_busy_period(r, b);
	/* 7. a series that cannot be this run's whole record, or a pair taken
	 * while requests were in the server */
	char *misfit = NULL;
	if (r->metrics != NULL && (r->metrics_kind == BR_METRICS_CSV || r->metrics_kind == BR_METRICS_SNAPSHOTS))
		misfit = series_misfit(r, b, &r->metrics_cut);
	else if (r->metrics != NULL && r->metrics_kind == BR_METRICS_PAIR)
		misfit = pair_misfit(r->metrics, b);
	if (misfit != NULL) {
		set_aside(r, "metrics", "the server metrics", misfit);
		drop_metrics(r);
	}
	if (r->metrics != NULL && (r->metrics_kind == BR_METRICS_CSV || r->metrics_kind == BR_METRICS_SNAPSHOTS)) {
		series_beyond_bench(r, b);
		clock_disagrees(r, b);
	}
	if (r->log != NULL)
		v0_preemptions_in_run(r->log, b);
	names_free(&bench);
}

/*
 * clock_disagrees: the bench's `date` is its end in client local time with
 * no zone, and a 1 Hz series is stamped in UTC, so the series' last busy
 * sample minus that date is −(the client's UTC offset), a whole number of
 * 15-minute steps, give or take the bench's save delay and one sampling
 * step. When no whole zone brings the two within 2 min + 2 steps, either
 * the client's and the server's clocks disagree or the series is another
 * run's of the same length; its span fits the bench, so it is used, with a
 * warning that states the residue. Nothing when the bench has no date, the
 * capture ended busy (its last busy sample is not the load's end), or the
 * series has no busy sample.
 */
static void
clock_disagrees(br_run *r, const br_bench *b)
{
	const br_series *m = r->metrics;
	struct tm tm;
	size_t f, l;
	int cs, ce;
	memset(&tm, 0, sizeof tm);
	if (m == NULL || m->t_s == NULL || m->n_rows < 2 || b->date == NULL ||
	    strptime(b->date, "%Y%m%d-%H%M%S", &tm) == NULL || !busy_edges(m, &f, &l, &cs, &ce) || ce)
		return;
	double step = (m->t_s[m->n_rows - 1] - m->t_s[0]) / (double)(m->n_rows - 1);
	double off = m->t_s[l] - (double)timegm(&tm);
	double residue = off - 900.0 * round(off / 900.0);
	if (!isfinite(step) || !isfinite(residue) || fabs(residue) <= 120 + 2 * step)
		return;
	char at[32];
	br_run_add_warning(r, "the metrics series' load ends at %s UTC, but no whole time zone (15-minute steps) "
	    "brings that within 2 min of the bench result's end date %.4s-%.2s-%.2s %.2s:%.2s:%.2s (client "
	    "local time): the nearest is %.0f min %02.0f s off. The client's and the server's clocks disagree, or "
	    "the series is of another run of the same length; it is used as this run's because its busy span "
	    "fits the bench's", utc(m->t_s[l], at), b->date, b->date + 4, b->date + 6, b->date + 9, b->date + 11,
	    b->date + 13, floor(rint(fabs(residue)) / 60), fmod(rint(fabs(residue)), 60));
}

/*
 * series_beyond_bench: a 1 Hz series whose samples show more requests
 * running than the bench's client could have had in flight
 * (max_concurrency, or num_prompts when fewer; 5% + 1 request of slack for
 * a request the client gave up on that the server still finishes). The
 * waiting gauge is not held to the bound: a request the client aborted can
 * sit in the queue until the scheduler next looks at it. At most 3 such
 * samples, and at most 1% of the rows: corrupted or stray samples, whose
 * running and waiting cells are set to NaN with a note (an impossible peak
 * would reach the headline); more: other load ran on the server, and the
 * series is set aside. Open loop (no cap): nothing.
 */
static void
series_beyond_bench(br_run *r, const br_bench *b)
{
	if (!(br_isnum(b->max_concurrency) && b->max_concurrency > 0))
		return;
	double c_eff = client_in_flight_max(b);
	double limit = 1.05 * c_eff + 1;
	br_series *m = r->metrics;
	const char *rn = br_role_name(m, BR_ROLE_RUNNING), *wn = br_role_name(m, BR_ROLE_WAITING);
	long rc = rn ? br_series_col_index(m, rn) : -1, wc = wn ? br_series_col_index(m, wn) : -1;
	if (rc < 0)
		return;
	size_t n_over = 0, first = 0;
	double worst = 0;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (!(m->cols[rc][i] > limit))
			continue;
		if (n_over++ == 0)
			first = i;
		worst = fmax(worst, m->cols[rc][i]);
	}
	if (n_over == 0)
		return;
	char at[32];
	if (n_over <= 3 && (double)n_over <= 0.01 * (double)m->n_rows) {
		for (size_t i = 0; i < m->n_rows; i++)
			if (m->cols[rc][i] > limit) {
				m->cols[rc][i] = NAN;
				if (wc >= 0)
					m->cols[wc][i] = NAN;
			}
		br_run_add_warning(r, "the metrics series: %zu of its %zu samples (the first at %s UTC) show up to "
		    "%.0f requests running, more than the bench's %.0f concurrent requests could have had in "
		    "flight: corrupted or another client's samples, so their running and waiting counts are left out",
		    n_over, m->n_rows, utc(m->t_s[first], at), worst, c_eff);
		return;
	}
	set_aside(r, "metrics", "the server metrics", br_xasprintf("%zu of its %zu samples (the first at %s UTC) "
	    "show up to %.0f requests running, more than the bench's %.0f concurrent requests could have had "
	    "in flight: other load ran on the server, so its gauges and counters are not this run's alone",
	    n_over, m->n_rows, utc(m->t_s[first], at), worst, c_eff));
	drop_metrics(r);
}

/*
 * busy_beyond_bench: when a /slots snapshot shows more busy slots than the
 * bench's closed loop could keep in flight (max_concurrency, or num_prompts
 * when fewer), the reason they are not this run's alone (malloc'd); else NULL.
 */
static char *
busy_beyond_bench(const br_series *sl, const br_bench *b)
{
	if (!(br_isnum(b->max_concurrency) && b->max_concurrency > 0))
		return NULL;
	double c_eff = client_in_flight_max(b);
	const double *busy = br_series_col(sl, "llamacpp_slots:busy");
	for (size_t i = 0; busy != NULL && i < sl->n_rows; i++)
		if (isfinite(busy[i]) && busy[i] > c_eff)
			return br_xasprintf("snapshot %zu shows %.0f busy slots, more than the bench's %.0f concurrent "
			    "requests could occupy: other load ran on the server, so they are not this run's alone",
			    i + 1, busy[i], c_eff);
	return NULL;
}

/*
 * br_run_attach_slots: see run.h. The snapshots are this run's only when
 * nothing says otherwise: the log (if any) is llama-server's, the metrics
 * (if any) are llama.cpp's, their times overlap the bench run, the slot
 * count matches the log's n_slots, and beside /metrics their busy slots
 * agree with llamacpp:requests_processing at the samples they share.
 */
void
br_run_attach_slots(br_run *r, br_series *sl, size_t no_metrics_note_at)
{
	const char *what = "the /slots snapshots", *role = "llama-server /slots";
	const br_bench *b = r->bench.n > 0 ? &r->bench.runs[0] : NULL;
	br_engine le = r->log ? (br_engine)r->log->engine_kind : BR_ENGINE_UNKNOWN;
	br_engine me = r->metrics ? br_series_engine(r->metrics) : BR_ENGINE_UNKNOWN;
	const double *total = br_series_col(sl, "llamacpp_slots:total");
	double n_slots = 0;
	for (size_t i = 0; total != NULL && i < sl->n_rows; i++)
		n_slots = isfinite(total[i]) && total[i] > n_slots ? total[i] : n_slots;
	char *why = NULL;
	size_t n_cmp = 0, n_diff = 0;
	if (le != BR_ENGINE_UNKNOWN && le != BR_ENGINE_LLAMACPP)
		why = br_xasprintf("they are llama-server's, while the server log is %s's", br_engine_name(le));
	else if (me != BR_ENGINE_UNKNOWN && me != BR_ENGINE_LLAMACPP)
		why = br_xasprintf("they are llama-server's, while the metrics are %s's", br_engine_name(me));
	else if (b != NULL && (why = misses_bench(sl, b)) != NULL)
		;
	else if (b != NULL && (why = busy_beyond_bench(sl, b)) != NULL)
		;
	else if (r->log != NULL && br_isnum(r->log->max_num_seqs) && n_slots != r->log->max_num_seqs)
		why = br_xasprintf("they list %.0f slots, while the log's llama-server has n_slots = %.0f: "
		    "another server's", n_slots, r->log->max_num_seqs);
	else if (r->metrics != NULL && !br_metrics_is_series(r->metrics_kind))
		why = br_xstrdup("they are not merged with a metrics snapshot or before/after pair (a 1 Hz "
		    "metrics.csv takes them)");
	else if (r->metrics != NULL && br_slots_merge(r->metrics, sl, 1, &n_cmp, &n_diff) > 0 &&
	    n_diff > n_cmp / 10)
		why = br_xasprintf("their busy slots differ from llamacpp:requests_processing at %zu of the %zu "
		    "samples both have: another server's", n_diff, n_cmp);
	if (why != NULL) {
		set_aside(r, role, what, why);
		br_series_free(sl);
		free(sl);
		return;
	}
	if (r->metrics == NULL) {
		r->metrics = sl;
		r->metrics_kind = BR_METRICS_SLOTS;
		check_brackets(r);
		char *note = br_xasprintf("no /metrics: busy slots come from the %zu /slots snapshots of "
		    "slots.jsonl instead (llama-server's slots in use, as the running role); /slots holds no "
		    "counters and does not show requests waiting for a slot, so the ledgers stay removed and "
		    "the queue is unknown", sl->n_rows);
		if (no_metrics_note_at < r->n_warnings) {
			free(r->warnings[no_metrics_note_at]);
			r->warnings[no_metrics_note_at] = note;   /* in place of "no server metrics" */
		} else {
			br_run_add_warning(r, "%s", note);
			free(note);
		}
		return;
	}
	if (br_slots_merge(r->metrics, sl, 0, NULL, NULL) == 0)
		br_run_add_warning(r, "slots.jsonl: none of its %zu /slots snapshots lies within half a sampling "
		    "step of a metrics sample; its columns stay empty", sl->n_rows);
	br_series_free(sl);
	free(sl);
}

/* br_run_metrics_set_aside: see run.h. */
const char *
br_run_metrics_set_aside(const br_run *r)
{
	if (r == NULL || r->metrics != NULL || !br_run_set_aside_has(r, "the server metrics"))
		return NULL;
	return "the server metrics were set aside as not this run's whole record (the notes say why)";
}

/* br_run_set_aside_metrics: see run.h. */
void
br_run_set_aside_metrics(br_run *r, char *reason)
{
	if (r == NULL || r->metrics == NULL) {
		free(reason);
		return;
	}
	set_aside(r, "metrics", "the server metrics", reason);
	drop_metrics(r);
}

/* br_run_bench_sha256: see run.h. */
const char *
br_run_bench_sha256(const br_run *r)
{
	for (size_t i = 0; r != NULL && i < r->n_inputs; i++)
		if (strcmp(r->inputs[i].role, "bench result") == 0 && r->inputs[i].sha256[0] != '\0')
			return r->inputs[i].sha256;
	return NULL;
}

/* same_double: bit-equal doubles (a NaN equals the same NaN). */
static int
same_double(double x, double y)
{
	return memcmp(&x, &y, sizeof x) == 0;
}

/* same_stats: both results without per-request arrays state the same
 * duration, counts, throughputs and every *_ms statistic, bit for bit, at
 * least 4 of them: a run's duration to 16 digits with its statistics does
 * not recur in another run. */
static int
same_stats(const br_bench *x, const br_bench *y)
{
	if (x->n_requests != 0 || y->n_requests != 0 || x->n_stats < 4 || x->n_stats != y->n_stats ||
	    !isfinite(x->duration_s) || !same_double(x->duration_s, y->duration_s) ||
	    !same_double(x->completed, y->completed) || !same_double(x->total_output_tokens, y->total_output_tokens) ||
	    !same_double(x->output_throughput_tps, y->output_throughput_tps))
		return 0;
	for (size_t i = 0; i < x->n_stats; i++)
		if (strcmp(x->stats[i].key, y->stats[i].key) != 0 || !same_double(x->stats[i].value_ms, y->stats[i].value_ms))
			return 0;
	return 1;
}

/* same_timings: 1 when both bench results state the same end date,
 * backend and per-request timings (TTFT, E2E latency, start time, lengths, every
 * ITL, bit for bit) for at least one request; 2 when, without per-request
 * arrays on either side, they state the same duration and statistics
 * (same_stats); 0 otherwise. */
static int
same_timings(const br_run *a, const br_run *b)
{
	/* a file of more results than the other is not a copy of it, though its
	 * newest result is (twentieth breaker: a sweep's failing older result
	 * was skipped with the folder, and the campaign gate passed) */
	if (a == NULL || b == NULL || a->bench.n == 0 || b->bench.n == 0 || a->bench.n != b->bench.n)
		return 0;
	const br_bench *x = &a->bench.runs[0], *y = &b->bench.runs[0];
	/* the same backend too: the simulator times both engines' requests alike */
	if (x->date == NULL || y->date == NULL || strcmp(x->date, y->date) != 0 ||
	    (x->backend != NULL) != (y->backend != NULL) || (x->backend && strcmp(x->backend, y->backend) != 0))
		return 0;
	if (same_stats(x, y))
		return 2;
	if (x->n_requests == 0 || x->n_requests != y->n_requests || x->requests == NULL || y->requests == NULL)
		return 0;
	for (size_t i = 0; i < x->n_requests; i++) {
		const br_request *p = &x->requests[i], *q = &y->requests[i];
		if (!same_double(p->ttft_s, q->ttft_s) || !same_double(p->latency_s, q->latency_s) ||
		    !same_double(p->start_time_s, q->start_time_s) ||
		    !same_double(p->input_len_tokens, q->input_len_tokens) ||
		    !same_double(p->output_len_tokens, q->output_len_tokens) || p->n_itls != q->n_itls ||
		    (p->n_itls > 0 && (p->itls_s == NULL || q->itls_s == NULL ||
		    memcmp(p->itls_s, q->itls_s, p->n_itls * sizeof *p->itls_s) != 0)))
			return 0;
	}
	return 1;
}

/* br_run_same_bench: see run.h. */
int
br_run_same_bench(const br_run *a, const br_run *b)
{
	const char *ha = br_run_bench_sha256(a), *hb = br_run_bench_sha256(b);
	if (ha != NULL && hb != NULL && strcmp(ha, hb) == 0)
		return 1;
	int t = same_timings(a, b);
	return t == 2 ? 3 : t ? 2 : 0;
}

/* br_run_set_aside_has: see run.h. */
int
br_run_set_aside_has(const br_run *r, const char *what)
{
	for (size_t i = 0; r != NULL && i < r->n_set_aside; i++)
		if (r->set_aside[i].what && strcmp(r->set_aside[i].what, what) == 0)
			return 1;
	return 0;
}

/*
 * The /metrics sampler (include/benchreport/capture.h): libcurl with one
 * keep-alive handle, ticks on CLOCK_MONOTONIC, the project's Prometheus
 * parser (br_prom_scan_text), one flushed CSV row per tick.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include "curl_lib.h"
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/stats.h"
#include "benchreport/capture.h"
#include "capture_priv.h"

#define MAX_BODY_BYTES (64u << 20)

static void note(const br_sample_opts *o, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* br_sample_global_init: see capture.h. */
int
br_sample_global_init(char **cause)
{
	return br_curl_load(cause);
}

/* br_parse_duration_s: see capture.h. */
int
br_parse_duration_s(const char *text, double *out_s)
{
	if (text == NULL || *text == '\0')
		return -1;
	char *end = NULL;
	double v = g_ascii_strtod(text, &end);
	if (end == text || !isfinite(v) || v < 0)
		return -1;
	double scale;
	if (*end == '\0' || strcmp(end, "s") == 0)
		scale = 1;
	else if (strcmp(end, "ms") == 0)
		scale = 1e-3;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		scale = 60;
	else if (strcmp(end, "h") == 0)
		scale = 3600;
	else
		return -1;
	*out_s = v * scale;
	return 0;
}

static double
cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* sleep_until: sleep to monotonic time t; returns early when *stop is set
 * (a signal interrupts the sleep). */
static void
sleep_until(double t, volatile sig_atomic_t *stop)
{
	struct timespec ts;
	ts.tv_sec = (time_t)floor(t);
	ts.tv_nsec = (long)((t - floor(t)) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		if (stop != NULL && *stop)
			return;
}

/* ------------------------------------------------------------ scrape */

typedef br_body_buf body_buf;

/* br_body_buf_write: see capture_priv.h. */
size_t
br_body_buf_write(char *ptr, size_t size, size_t nmemb, void *user)
{
	br_body_buf *b = user;
	size_t n = size * nmemb;
	if (b->text->len + n > b->max_bytes) {
		b->too_big = 1;
		return 0;
	}
	g_string_append_len(b->text, ptr, (gssize)n);
	return n;
}

static int
on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	volatile sig_atomic_t *stop = user;
	return stop != NULL && *stop ? 1 : 0;
}

/* One scrape's samples in page order (series strings owned). */
typedef struct page {
	char **series;
	double *value;
	size_t n, cap;
} page;

static void
page_add(void *user, const char *series, double value)
{
	page *p = user;
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->series = br_xrealloc(p->series, p->cap * sizeof *p->series);
		p->value = br_xrealloc(p->value, p->cap * sizeof *p->value);
	}
	p->series[p->n] = br_xstrdup(series);
	p->value[p->n] = value;
	p->n++;
}

static void
page_clear(page *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->series[i]);
	p->n = 0;
}

/*
 * scrape: GET the URL into pg. Returns 0; -1 when no answer came, with err
 * (a short reason: "connection refused", "timeout after 800 ms"); -2 when
 * the server answered with something unusable ("HTTP 500", "bad exposition
 * at LINE:COL").
 */
static int
scrape(CURL *h, body_buf *b, page *pg, char *err, size_t errsz)
{
	g_string_truncate(b->text, 0);
	b->too_big = 0;
	CURLcode rc = br_curl.easy_perform(h);
	if (rc != CURLE_OK) {
		if (b->too_big)
			snprintf(err, errsz, "response larger than %u MiB", MAX_BODY_BYTES >> 20);
		else
			snprintf(err, errsz, "%s", br_curl.easy_strerror(rc));
		return -1;
	}
	long code = 0;
	br_curl.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		snprintf(err, errsz, "HTTP %ld", code);
		return -2;
	}
	char *cause = NULL;
	page_clear(pg);
	if (br_prom_scan_text("response", b->text->str, b->text->len, page_add, pg, &cause) != 0) {
		snprintf(err, errsz, "bad exposition: %s", cause);
		free(cause);
		page_clear(pg);
		return -2;
	}
	return 0;
}

/* ------------------------------------------------------------ CSV */

/* append_num: the shortest of %.15g / %.17g that reads back as v. */
static void
append_num(GString *g, double v)
{
	char buf[40];
	if (isnan(v)) {
		g_string_append(g, "NaN");
		return;
	}
	if (isinf(v)) {
		g_string_append(g, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	g_ascii_formatd(buf, sizeof buf, "%.15g", v);
	if (g_ascii_strtod(buf, NULL) != v)
		g_ascii_formatd(buf, sizeof buf, "%.17g", v);
	g_string_append(g, buf);
}

/* series_base: length of the metric name part of a series identity. */
static size_t
series_base(const char *series)
{
	const char *b = strchr(series, '{');
	return b ? (size_t)(b - series) : strlen(series);
}

static int
has_suffix_n(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);
	return n >= m && memcmp(s + n - m, suf, m) == 0;
}

/* is_monotone: a series that only rises while the server lives. */
static int
is_monotone(const char *series)
{
	size_t n = series_base(series);
	return has_suffix_n(series, n, "_total") || has_suffix_n(series, n, "_count") ||
	    has_suffix_n(series, n, "_bucket");
}

/* base_in: 1 when the series' name without labels is one of names[0..n). */
static int
base_in(const char *series, const char *const *names, size_t n_names)
{
	size_t n = series_base(series);
	for (size_t i = 0; i < n_names; i++)
		if (strlen(names[i]) == n && memcmp(series, names[i], n) == 0)
			return 1;
	return 0;
}

/* is_ledger: the engine's own token and request counters (vLLM, SGLang,
 * llama-server). They count from the process's start and nothing else
 * resets them, so one of them falling is a restart whatever other counters
 * do (a fake or a proxy may keep some rising). */
static int
is_ledger(const char *series)
{
	static const char *const names[] = {
		"vllm:prompt_tokens_total", "vllm:generation_tokens_total", "vllm:request_success_total",
		"sglang:prompt_tokens_total", "sglang:generation_tokens_total", "sglang:num_requests_total",
		"llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total",
	};
	return base_in(series, names, sizeof names / sizeof names[0]);
}

/* is_load_series: running / waiting gauges of the engines benchreport reads. */
static int
is_load_series(const char *series)
{
	static const char *const names[] = {
		"vllm:num_requests_running", "vllm:num_requests_waiting",
		"sglang:num_running_reqs", "sglang:num_queue_reqs",
		"llamacpp:requests_processing", "llamacpp:requests_deferred",
	};
	return base_in(series, names, sizeof names / sizeof names[0]);
}

typedef struct sampler {
	const br_sample_opts *o;
	br_sample_stats *st;
	FILE *csv, *side;
	char *side_path;
	GHashTable *col;            /* series (owned by names) → column + 1 */
	char **names;
	size_t n_cols;
	double *prev;               /* previous answered values per column (NAN = none) */
	double *row;                /* this row's values */
	unsigned char *in_page;     /* this row: 1 when the page held the series (its value may be NaN) */
	double prev_start_time;     /* process_start_time_seconds of the last answered scrape */
	char restart_why[320];      /* take_page: what showed the last restart ("" when none) */
	int restart_same_start;     /* take_page: that restart was a counter falling while
	                               process_start_time_seconds stayed the same */
	char lone_fall[320];        /* take_page: a counter that fell while the others rose, not a
	                               restart ("" when none): said, and left to the report */
	double *pending_t;          /* failed ticks before the header existed */
	size_t n_pending;
	int header_done;
	GHashTable *new_series;     /* series written to the side file (owned keys) */
} sampler;

static int
write_or_fail(FILE *fp, const GString *g, const char *path, char **cause)
{
	if (fwrite(g->str, 1, g->len, fp) != g->len || fflush(fp) != 0) {
		*cause = br_xasprintf("%s: cannot write (%s)", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* write_row: one row; ok = 0 leaves the series cells empty, as it leaves a
 * series the page did not hold; a series the server wrote as NaN is "NaN". */
static int
write_row(sampler *s, double t_wall, int ok, int restart, char **cause)
{
	GString *g = g_string_sized_new(16 + s->n_cols * 12);
	g_string_append_printf(g, "%.3f", t_wall);
	for (size_t c = 0; c < s->n_cols; c++) {
		g_string_append_c(g, ',');
		if (ok && s->in_page[c])
			append_num(g, s->row[c]);
	}
	g_string_append_printf(g, ",%d,%d\n", ok, restart);
	int rc = write_or_fail(s->csv, g, s->o->out_path, cause);
	g_string_free(g, TRUE);
	s->st->n_rows++;
	return rc;
}

static int
write_header(sampler *s, const page *pg, char **cause)
{
	s->csv = fopen(s->o->out_path, "w");
	if (s->csv == NULL) {
		*cause = br_xasprintf("%s: cannot create (%s)", s->o->out_path, strerror(errno));
		return -1;
	}
	GString *g = g_string_new("timestamp");
	for (size_t i = 0; i < pg->n; i++) {
		if (g_hash_table_contains(s->col, pg->series[i]))
			continue;
		s->names = br_xrealloc(s->names, (s->n_cols + 1) * sizeof *s->names);
		s->names[s->n_cols] = br_xstrdup(pg->series[i]);
		g_hash_table_insert(s->col, s->names[s->n_cols], GSIZE_TO_POINTER(s->n_cols + 1));
		s->n_cols++;
		g_string_append_c(g, ',');
		br_csv_append_cell(g, pg->series[i]);
	}
	g_string_append(g, ",benchreport:scrape_ok,benchreport:server_restart\n");
	int rc = write_or_fail(s->csv, g, s->o->out_path, cause);
	g_string_free(g, TRUE);
	s->prev = br_xcalloc(s->n_cols, sizeof *s->prev);
	s->row = br_xcalloc(s->n_cols, sizeof *s->row);
	s->in_page = br_xcalloc(s->n_cols, sizeof *s->in_page);
	for (size_t c = 0; c < s->n_cols; c++)
		s->prev[c] = NAN;
	s->header_done = 1;
	s->st->n_columns = s->n_cols;
	return rc;
}

/* New series named one by one on the log; the rest are counted. */
#define NEW_SERIES_NOTES 10

/* side_add: a series the header lacks, to STEM.new-series.csv. */
static int
side_add(sampler *s, double t_wall, const char *series, double v, char **cause)
{
	if (s->side == NULL) {
		s->side = fopen(s->side_path, "w");
		if (s->side == NULL) {
			*cause = br_xasprintf("%s: cannot create (%s)", s->side_path, strerror(errno));
			return -1;
		}
		fputs("timestamp,series,value\n", s->side);
	}
	if (!g_hash_table_contains(s->new_series, series)) {
		g_hash_table_add(s->new_series, br_xstrdup(series));
		s->st->n_new_series++;
		/* a note per series for the first few: label churn (a series per
		 * LoRA adapter set) once printed 300,000 lines (twenty-second breaker) */
		if (s->st->n_new_series <= NEW_SERIES_NOTES)
			note(s->o, "new series %s after the header was written: kept in %s", series, s->side_path);
		else if (s->st->n_new_series == NEW_SERIES_NOTES + 1)
			note(s->o, "more new series after the header: kept in %s without a note each (run.json counts "
			    "them)", s->side_path);
	}
	GString *g = g_string_new(NULL);
	g_string_append_printf(g, "%.3f,", t_wall);
	br_csv_append_cell(g, series);
	g_string_append_c(g, ',');
	append_num(g, v);
	g_string_append_c(g, '\n');
	int rc = write_or_fail(s->side, g, s->side_path, cause);
	g_string_free(g, TRUE);
	return rc;
}

/*
 * take_page: an answered scrape into s->row, with restart detection and
 * new series to the side file. Returns the restart flag, or -1 with *cause.
 */
static int
take_page(sampler *s, const page *pg, double t_wall, char **cause)
{
	for (size_t c = 0; c < s->n_cols; c++) {
		s->row[c] = NAN;
		s->in_page[c] = 0;
	}
	double start_time = NAN;
	for (size_t i = 0; i < pg->n; i++) {
		size_t c = GPOINTER_TO_SIZE(g_hash_table_lookup(s->col, pg->series[i]));
		if (strncmp(pg->series[i], "process_start_time_seconds", 26) == 0 &&
		    (pg->series[i][26] == '\0' || pg->series[i][26] == '{'))
			start_time = pg->value[i];
		if (c == 0) {
			if (!g_hash_table_contains(s->col, pg->series[i])) {
				if (side_add(s, t_wall, pg->series[i], pg->value[i], cause) != 0)
					return -1;
			}
			continue;
		}
		s->row[c - 1] = pg->value[i];
		s->in_page[c - 1] = 1;
	}
	int restart = 0;
	s->restart_why[0] = '\0';
	s->restart_same_start = 0;
	s->lone_fall[0] = '\0';
	if (!isnan(start_time) && !isnan(s->prev_start_time) && start_time != s->prev_start_time) {
		restart = 1;
		snprintf(s->restart_why, sizeof s->restart_why, "process_start_time_seconds changed from %.15g to %.15g",
		    s->prev_start_time, start_time);
	}
	size_t fell = 0, rose_or_kept = 0, ledger = (size_t)-1, first = (size_t)-1;
	for (size_t c = 0; c < s->n_cols; c++) {
		if (!is_monotone(s->names[c]) || isnan(s->row[c]) || isnan(s->prev[c]))
			continue;
		if (s->row[c] < s->prev[c]) {
			fell++;
			if (first == (size_t)-1)
				first = c;
			if (ledger == (size_t)-1 && is_ledger(s->names[c]))
				ledger = c;
		} else if (s->row[c] > 0)
			rose_or_kept++;
	}
	/* one counter falling while the rest rise is that counter's problem (the
	 * report says so); most counters falling together, or one of the
	 * engine's token or request ledgers falling, is a new process */
	if (fell > 0 && (fell >= rose_or_kept || ledger != (size_t)-1)) {
		size_t c = ledger != (size_t)-1 ? ledger : first;
		if (!restart) {
			snprintf(s->restart_why, sizeof s->restart_why, "%.200s fell from %.15g to %.15g%s", s->names[c],
			    s->prev[c], s->row[c], fell > 1 ? " (and other counters with it)" : "");
			/* the same process by its start time: marked, but said as what it
			 * may also be (twenty-ninth breaker) */
			s->restart_same_start = !isnan(start_time) && !isnan(s->prev_start_time) &&
			    start_time == s->prev_start_time;
		}
		restart = 1;
	} else if (fell > 0 && !restart) {
		snprintf(s->lone_fall, sizeof s->lone_fall, "%.200s fell from %.15g to %.15g%s", s->names[first],
		    s->prev[first], s->row[first], fell > 1 ? " (and other counters with it)" : "");
	}
	if (!isnan(start_time))
		s->prev_start_time = start_time;
	for (size_t c = 0; c < s->n_cols; c++)
		if (!isnan(s->row[c]))
			s->prev[c] = s->row[c];
	return restart;
}

/* page_has_prefix: 1 when a series of the page starts with prefix. */
static int
page_has_prefix(const page *pg, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < pg->n; i++)
		if (strncmp(pg->series[i], prefix, n) == 0)
			return 1;
	return 0;
}

/* load_now: running + waiting over the engines in this page; NAN when the page has neither. */
static double
load_now(const page *pg)
{
	double sum = NAN;
	for (size_t i = 0; i < pg->n; i++)
		if (is_load_series(pg->series[i]) && !isnan(pg->value[i]))
			sum = (isnan(sum) ? 0 : sum) + pg->value[i];
	return sum;
}

static char *
side_path_for(const char *out)
{
	size_t n = strlen(out);
	if (n > 4 && strcmp(out + n - 4, ".csv") == 0)
		n -= 4;
	return br_xasprintf("%.*s.new-series.csv", (int)n, out);
}

static void
note(const br_sample_opts *o, const char *fmt, ...)
{
	if (o->log == NULL)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("benchreport sample: ", o->log);
	vfprintf(o->log, fmt, ap);
	fputc('\n', o->log);
	fflush(o->log);
	va_end(ap);
}

/* br_sample_run: see capture.h. */
int
br_sample_run(const br_sample_opts *o, br_sample_stats *st, char **cause)
{
	memset(st, 0, sizeof *st);
	st->first_ok_wall_s = NAN;
	st->jitter_p50_ms = st->jitter_p99_ms = st->jitter_max_ms = NAN;
	st->scrape_p50_ms = st->scrape_p99_ms = NAN;
	double interval = o->interval_s > 0 ? o->interval_s : 1.0;
	struct stat sb;
	if (!o->force && stat(o->out_path, &sb) == 0) {
		*cause = br_xasprintf("%s: exists; choose another -o or pass --force to replace it", o->out_path);
		return -1;
	}
	if (br_sample_global_init(cause) != 0)
		return -1;
	if (o->force)
		br_slots_drop_stale(o->out_path, o->log);
	sampler s = { .o = o, .st = st, .prev_start_time = NAN };
	s.col = g_hash_table_new(g_str_hash, g_str_equal);
	s.new_series = g_hash_table_new_full(g_str_hash, g_str_equal, free, NULL);
	s.side_path = side_path_for(o->out_path);
	CURL *h = br_curl.easy_init();
	body_buf body = { .text = g_string_new(NULL), .max_bytes = MAX_BODY_BYTES };
	page pg = { 0 };
	char err[320] = "";
	br_curl.easy_setopt(h, CURLOPT_URL, o->url);
	br_curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, br_body_buf_write);
	br_curl.easy_setopt(h, CURLOPT_WRITEDATA, &body);
	br_curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	br_curl.easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	br_curl.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	br_curl.easy_setopt(h, CURLOPT_XFERINFODATA, (void *)o->stop);
	br_curl.easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	br_curl.easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	br_curl.easy_setopt(h, CURLOPT_USERAGENT, "benchreport-sample/0.1.0");
	/* vLLM servers that mount the Prometheus app answer /metrics with a 307
	 * to /metrics/ (vllm-project/vllm#4511): followed, and said once */
	br_curl.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	br_curl.easy_setopt(h, CURLOPT_MAXREDIRS, 3L);
	long total_ms = (long)(interval * 800), conn_ms = (long)(interval * 400);
	if (total_ms < 50) total_ms = 50;
	if (conn_ms < 25) conn_ms = 25;
	if (conn_ms > 2000) conn_ms = 2000;
	br_curl.easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms);
	br_curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, conn_ms);
	struct curl_slist *hdrs = br_curl.slist_append(NULL,
	    "Accept: text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5");
	br_curl.easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);

	br_gpu_monitor *gpu = NULL;
	if (o->gpu && br_gpu_query_available()) {
		char *why = NULL;
		gpu = br_gpu_monitor_start(interval, &why);
		if (gpu == NULL) {
			note(o, "no GPU telemetry: %s", why);
			free(why);
		} else
			note(o, "GPU telemetry from nvidia-smi at the same ticks");
	}
	/* /slots beside the CSV: decided at the first answered page (auto: a llama-server's) */
	br_slots_poll *slots = NULL;
	int slots_undecided = o->slots != 0;
	char slots_err[200] = "";
	double *jitter = NULL, *dur = NULL;
	size_t n_jit = 0, n_dur = 0, cap_jit = 0, cap_dur = 0;
	double cpu0 = cpu_s(), t0 = br_clock_mono_s(), idle_since = NAN;
	int seen_load = 0, rc = 0, redirect_noted = 0;
	char *tmp_cause = NULL;
	for (uint64_t k = 0;; k++) {
		double target = t0 + (double)k * interval;
		if (!isnan(o->duration_s) && (double)k * interval >= o->duration_s - 1e-9 && k > 0)
			break;
		sleep_until(target, o->stop);
		if (o->stop != NULL && *o->stop)
			break;
		double start = br_clock_mono_s();
		/* too late for this tick already (the process was stopped or starved):
		 * it is written empty and counted, so row k stays at tick k */
		if (start - target > interval) {
			st->n_missed_ticks++;
			if (s.header_done) {
				if (write_row(&s, br_clock_wall_s(), 0, 0, &tmp_cause) != 0)
					goto io_fail;
			} else {
				s.pending_t = br_xrealloc(s.pending_t, (s.n_pending + 1) * sizeof *s.pending_t);
				s.pending_t[s.n_pending++] = br_clock_wall_s();
			}
			continue;
		}
		if (n_jit == cap_jit) {
			cap_jit = cap_jit ? cap_jit * 2 : 1024;
			jitter = br_xrealloc(jitter, cap_jit * sizeof *jitter);
		}
		jitter[n_jit++] = (start - target) * 1e3;
		double t_ask = br_clock_wall_s();
		int src = scrape(h, &body, &pg, err, sizeof err), ok = src == 0;
		/* an answer is stamped when it arrived; a failure when it was asked for */
		double t_wall = ok ? br_clock_wall_s() : t_ask;
		if (o->stop != NULL && *o->stop && !ok)
			break;   /* the transfer was aborted by the stop: no half row */
		if (ok && gpu != NULL)
			br_gpu_monitor_add(gpu, 2 * interval + 0.5, page_add, &pg);
		if (ok) {
			if (n_dur == cap_dur) {
				cap_dur = cap_dur ? cap_dur * 2 : 1024;
				dur = br_xrealloc(dur, cap_dur * sizeof *dur);
			}
			dur[n_dur++] = (br_clock_mono_s() - start) * 1e3;
			st->n_ok++;
			if (isnan(st->first_ok_wall_s))
				st->first_ok_wall_s = t_wall;
			long n_redirects = 0;
			char *where = NULL;
			if (!redirect_noted && br_curl.easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &n_redirects) == CURLE_OK &&
			    n_redirects > 0 && br_curl.easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &where) == CURLE_OK && where) {
				note(o, "%s redirects to %s: followed (give that URL to save the extra request)", o->url, where);
				redirect_noted = 1;
			}
			if (!s.header_done) {
				if (write_header(&s, &pg, &tmp_cause) != 0)
					goto io_fail;
				for (size_t i = 0; i < s.n_pending; i++)
					if (write_row(&s, s.pending_t[i], 0, 0, &tmp_cause) != 0)
						goto io_fail;
				note(o, "%s answered: %zu series%s", o->url, s.n_cols,
				    s.n_pending ? "; the earlier failed ticks are written as empty rows" : "");
			}
			int restart = take_page(&s, &pg, t_wall, &tmp_cause);
			if (restart < 0)
				goto io_fail;
			if (restart) {
				st->n_restarts++;
				if (s.restart_same_start)
					note(o, "a restart before %.3f? %s while process_start_time_seconds stayed the same: "
					    "marked a restart (the engine's counters cannot fall while it runs); if the counter "
					    "comes back to where it was, the report reads it as a scrape that missed it instead",
					    t_wall, s.restart_why);
				else
					note(o, "the server restarted before %.3f: %s", t_wall, s.restart_why);
			} else if (s.lone_fall[0] != '\0') {
				note(o, "%s before %.3f while the other counters rose: not marked a restart (the "
				    "process and its token and request counters carried on); the report treats that "
				    "counter's values as suspect", s.lone_fall, t_wall);
			}
			if (write_row(&s, t_wall, 1, restart, &tmp_cause) != 0)
				goto io_fail;
			if (slots_undecided) {
				slots_undecided = 0;
				int llama = page_has_prefix(&pg, "llamacpp:");
				if (o->slots == 1 || llama) {
					char *why = NULL;
					slots = br_slots_poll_open(o->url, o->out_path, o->force, total_ms / 2000.0, &why);
					if (slots == NULL) {
						note(o, "no /slots snapshots: %s", why);
						free(why);
					} else
						note(o, "%spolling /slots at the same ticks into %s", llama ? "llama-server: " :
						    "--slots: ", br_slots_poll_path(slots));
				}
			}
			if (slots != NULL) {
				char e2[200];
				/* what is left of this tick's 0.8 × interval after /metrics */
				double left = 0.8 * interval - (br_clock_mono_s() - start);
				int sr = br_slots_poll_tick(slots, left, br_clock_wall_s, e2, sizeof e2, &tmp_cause);
				if (sr == -2)
					goto io_fail;
				if (sr == 1)
					st->n_slots_ok++;
				else if (sr == -1) {
					st->n_slots_failed++;
					if (strcmp(e2, slots_err) != 0)
						note(o, "/slots poll failed: %s", e2);
					snprintf(slots_err, sizeof slots_err, "%s", e2);
				}
			}
			double load = load_now(&pg);
			if (load > 0)
				seen_load = 1;
			/* with a load client (record), idle counts only once it has ended: a
			 * pause between its phases is not the end of the run */
			int may_stop = o->load_done != NULL ? *o->load_done != 0 : seen_load;
			if (!isnan(o->until_idle_s) && may_stop) {
				if (load == 0) {
					if (isnan(idle_since))
						idle_since = t_wall;
					if (t_wall - idle_since >= o->until_idle_s - 1e-9)
						break;
				} else
					idle_since = NAN;
			}
		} else {
			st->n_failed++;
			if (src == -2)
				st->n_unusable++;
			if (strcmp(err, st->last_error) != 0)
				note(o, "scrape failed: %s", err);
			snprintf(st->last_error, sizeof st->last_error, "%.*s", (int)sizeof st->last_error - 1, err);   /* cut to fit */
			if (s.header_done) {
				if (write_row(&s, t_wall, 0, 0, &tmp_cause) != 0)
					goto io_fail;
			} else {
				s.pending_t = br_xrealloc(s.pending_t, (s.n_pending + 1) * sizeof *s.pending_t);
				s.pending_t[s.n_pending++] = t_wall;
			}
		}
	}
	goto done;
io_fail:
	rc = -1;
	*cause = tmp_cause;
	tmp_cause = NULL;
done:
	st->cpu_s = cpu_s() - cpu0;
	st->wall_s = br_clock_mono_s() - t0;
	if (n_jit > 0) {
		br_sort_doubles(jitter, n_jit);
		st->jitter_p50_ms = br_percentile_sorted(jitter, n_jit, 50);
		st->jitter_p99_ms = br_percentile_sorted(jitter, n_jit, 99);
		st->jitter_max_ms = jitter[n_jit - 1];
	}
	if (n_dur > 0) {
		br_sort_doubles(dur, n_dur);
		st->scrape_p50_ms = br_percentile_sorted(dur, n_dur, 50);
		st->scrape_p99_ms = br_percentile_sorted(dur, n_dur, 99);
	}
	if (rc == 0 && st->n_ok == 0) {
		rc = BR_SAMPLE_NEVER_ANSWERED;
		/* a server that answered, but never with a page of Prometheus
		 * text, is not said to have been silent */
		if (st->n_unusable > 0)
			*cause = br_xasprintf("%s never gave a usable page: %zu attempt%s over %.1f s, %zu answered "
			    "with an HTTP error or a page that is not Prometheus text%s%s", o->url,
			    st->n_failed, st->n_failed == 1 ? "" : "s", st->wall_s, st->n_unusable,
			    st->last_error[0] ? "; last error: " : "", st->last_error);
		else
			*cause = br_xasprintf("%s never answered: %zu attempt%s over %.1f s%s%s", o->url,
			    st->n_failed, st->n_failed == 1 ? "" : "s", st->wall_s,
			    st->last_error[0] ? "; last error: " : "", st->last_error);
	}
	br_gpu_monitor_stop(gpu);
	br_slots_poll_close(slots);
	free(jitter);
	free(dur);
	if (s.csv != NULL)
		fclose(s.csv);
	if (s.side != NULL)
		fclose(s.side);
	br_curl.slist_free_all(hdrs);
	br_curl.easy_cleanup(h);
	page_clear(&pg);
	free(pg.series);
	free(pg.value);
	g_string_free(body.text, TRUE);
	for (size_t c = 0; c < s.n_cols; c++)
		free(s.names[c]);
	free(s.names);
	free(s.prev);
	free(s.row);
	free(s.in_page);
	free(s.pending_t);
	free(s.side_path);
	g_hash_table_destroy(s.col);
	g_hash_table_destroy(s.new_series);
	return rc;
}

/*
 * Run-folder discovery (DESIGN.md §1): find and parse the bench result, the
 * metrics (CSV series, snapshot pair, snapshot folder), the server log and
 * run.json of one run folder. First match wins; --bench/--metrics/--log/
 * --meta override.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <strings.h>
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/run.h"
#include "benchreport/model.h"

/* A sorted list of the regular files in dir (names only). */
typedef struct name_list {
	char **v;
	size_t n;
} name_list;

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* link_nowhere: when path is a symbolic link that leads to no file (its
 * target is missing, or a loop), the message saying so and what was
 * `expected` (malloc'd); else NULL. */
static char *
link_nowhere(const char *path, const char *expected)
{
	struct stat lst, st;
	if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode) || stat(path, &st) == 0)
		return NULL;
	int loop = errno == ELOOP;
	char target[512];
	ssize_t tn = readlink(path, target, sizeof target - 1);
	target[tn > 0 ? tn : 0] = '\0';
	return br_xasprintf(loop ? "%s: a symbolic link loop (-> %s leads back to itself); expected %s" :
	    "%s: a symbolic link to %s, which does not exist; expected %s", path, target, expected);
}

static void name_list_free(name_list *l);

/* br_run_input_name: see run.h. */
int
br_run_input_name(const char *n)
{
	static const char *const exact[] = { "stress.json", "metrics.csv", "server.log", "run.json", "slots.jsonl" };
	for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
		if (strcmp(n, exact[i]) == 0)
			return 1;
	size_t len = strlen(n);
	return len > 5 && strcmp(n + len - 5, ".prom") == 0;
}

/*
 * list_files: the regular files of dir, sorted by name, hidden files and
 * our own temporaries skipped. Returns 0 or -1 with *cause.
 */
static int
list_files(const char *dir, name_list *out, char **cause)
{
	DIR *d = opendir(dir);
	memset(out, 0, sizeof *out);
	if (d == NULL) {
		*cause = br_xasprintf("%s: cannot open folder: %s", dir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.") != NULL)
			continue;
		char *p = br_path_join(dir, e->d_name);
		int is_file = br_is_file(p);
		/* a link to a file that is gone: an input the user meant to give,
		 * not an absent one ("no server metrics" would be false) */
		if (!is_file && br_run_input_name(e->d_name) && (*cause = link_nowhere(p, "the file it names, or no link")) != NULL) {
			free(p);
			closedir(d);
			name_list_free(out);
			return -1;
		}
		free(p);
		if (!is_file)
			continue;
		out->v = br_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		out->v[out->n++] = br_xstrdup(e->d_name);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_str);
	return 0;
}

static void
name_list_free(name_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static int
has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

void
br_run_add_warning(br_run *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = br_xvasprintf(fmt, ap);
	va_end(ap);
	r->warnings = br_xrealloc(r->warnings, (r->n_warnings + 1) * sizeof *r->warnings);
	r->warnings[r->n_warnings++] = msg;
}

/*
 * SHA-256 of inputs of 4 MiB or more run on their own thread while the
 * run goes on loading (a 108 MB bench result takes 0.1 s to hash, as long
 * as parsing its metrics and log); join_hashes collects them before
 * br_run_load returns. Each job writes only its own record.
 */
#define HASH_ASYNC_BYTES (4LL << 20)
#define NO_INPUT ((size_t)-1)     /* a job started before its file became an input */

typedef struct br_hash_job {
	struct br_hash_job *next;
	GThread *thread;
	size_t input;             /* index in r->inputs */
	char *path;
	char sha256[65];
	long long size_bytes;
	char *cause;
	int rc;
} br_hash_job;

static gpointer
hash_run(gpointer data)
{
	br_hash_job *j = data;
	struct timespec c0, c1;   /* this thread's CPU time, for BR_TIMING (bench/) */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	j->rc = br_sha256_file(j->path, j->sha256, &j->size_bytes, &j->cause);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	const char *t = getenv("BR_TIMING");
	if (t != NULL && *t != '\0')
		fprintf(stderr, "benchreport: timing sha256 of %s: CPU %.1f ms\n", j->path,
		    (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6);
	return NULL;
}

/* join_hashes: wait for every hashing thread and copy its result into
 * r->inputs. Returns 0, or -1 with *cause (when not NULL and still NULL)
 * from the first input that could not be read. */
static int
join_hashes(br_run *r, char **cause)
{
	int rc = 0;
	while (r->hashing != NULL) {
		br_hash_job *j = r->hashing;
		r->hashing = j->next;
		if (j->thread)
			g_thread_join(j->thread);
		else if (j->input != NO_INPUT)
			hash_run(j);
		if (j->input == NO_INPUT) {
			;   /* started early for a file that did not become an input */
		} else if (j->rc == 0) {
			memcpy(r->inputs[j->input].sha256, j->sha256, sizeof j->sha256);
			r->inputs[j->input].size_bytes = j->size_bytes;
		} else if (rc == 0 && cause != NULL && *cause == NULL) {
			*cause = j->cause;
			j->cause = NULL;
			rc = -1;
		} else {
			rc = -1;
		}
		free(j->cause);
		free(j->path);
		free(j);
	}
	return rc;
}

/* add_input: record an input file with its size and SHA-256 (hashed on a
 * thread when large; see join_hashes). */
static int
add_input(br_run *r, const char *path, const char *role, char **cause)
{
	br_input_file f;
	memset(&f, 0, sizeof f);
	struct stat st;
	int async = stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= HASH_ASYNC_BYTES;
	if (!async && br_sha256_file(path, f.sha256, &f.size_bytes, cause) != 0)
		return -1;
	f.path = br_xstrdup(path);
	f.role = br_xstrdup(role);
	r->inputs = br_xrealloc(r->inputs, (r->n_inputs + 1) * sizeof *r->inputs);
	r->inputs[r->n_inputs++] = f;
	if (async) {
		/* a job started early on this very path (hash_early) takes it */
		for (br_hash_job *e = r->hashing; e != NULL; e = e->next)
			if (e->input == NO_INPUT && strcmp(e->path, path) == 0) {
				e->input = r->n_inputs - 1;
				if (e->thread == NULL)
					hash_run(e);   /* no thread could be started: hashed now */
				return 0;
			}
		br_hash_job *j = br_xcalloc(1, sizeof *j);
		j->input = r->n_inputs - 1;
		j->path = br_xstrdup(path);
		j->next = r->hashing;
		r->hashing = j;
		j->thread = g_thread_try_new("br-sha256", hash_run, j, NULL);   /* NULL: hashed at the join */
	}
	return 0;
}

/* hash_early: start hashing a large file that is about to be parsed (the
 * bench result), so its SHA-256 runs beside the parse instead of after it
 * (108 MB: 0.1 s that the end of br_run_load waited for). add_input takes
 * the job when the file becomes an input; join_hashes drops it otherwise. */
static void
hash_early(br_run *r, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < HASH_ASYNC_BYTES)
		return;
	br_hash_job *j = br_xcalloc(1, sizeof *j);
	j->input = NO_INPUT;
	j->path = br_xstrdup(path);
	j->next = r->hashing;
	r->hashing = j;
	j->thread = g_thread_try_new("br-sha256", hash_run, j, NULL);
}

/* input_to: move the newest input to index pos (the ones from pos on
 * shift up by one), keeping the hashing jobs' indices right. */
static void
input_to(br_run *r, size_t pos)
{
	size_t last = r->n_inputs - 1;
	if (r->n_inputs == 0 || pos >= last)
		return;
	br_input_file f = r->inputs[last];
	memmove(&r->inputs[pos + 1], &r->inputs[pos], (last - pos) * sizeof f);
	r->inputs[pos] = f;
	for (br_hash_job *j = r->hashing; j != NULL; j = j->next)
		if (j->input != NO_INPUT)
			j->input = j->input == last ? pos : j->input >= pos ? j->input + 1 : j->input;
}

/* name_in: 1 when name is one of the files. */
static int
name_in(const name_list *files, const char *name)
{
	for (size_t i = 0; i < files->n; i++)
		if (strcmp(files->v[i], name) == 0)
			return 1;
	return 0;
}

/*
 * find_bench: stress.json, else the one *.json / *.jsonl (not run.json) that
 * parses as a bench result; the parsed set is handed back in *set so large
 * files are read once. Two candidates → error asking for --bench. When no
 * candidate parses, the message quotes why the first one failed.
 * Returns a malloc'd path, or NULL with *cause.
 */
static char *
find_bench(const char *dir, const name_list *files, br_bench_set *set, char **cause)
{
	char *p = br_path_join(dir, "stress.json");
	/* a symlink that leads nowhere: say so instead of "no bench result" */
	if ((*cause = link_nowhere(p, "the bench result file")) != NULL) {
		free(p);
		return NULL;
	}
	if (br_path_exists(p)) {      /* a FIFO or device of that name is refused by name */
		if (br_bench_load(p, set, cause) != 0) {
			free(p);
			return NULL;
		}
		return p;
	}
	free(p);
	char *found = NULL, *first_failure = NULL;
	for (size_t i = 0; i < files->n; i++) {
		const char *n = files->v[i];
		if (!has_suffix(n, ".json") && !has_suffix(n, ".jsonl"))
			continue;
		if (strcmp(n, "run.json") == 0 || strcmp(n, "campaign.json") == 0)   /* labels and the plan, not results */
			continue;
		/* a `vllm bench sweep` folder: summary.json holds every run=N.json */
		if (strncmp(n, "run=", 4) == 0 && name_in(files, "summary.json"))
			continue;
		char *cand = br_path_join(dir, n);
		br_bench_set s;
		char *why = NULL;
		if (br_bench_load(cand, &s, &why) != 0) {
			if (first_failure == NULL)
				first_failure = why;
			else
				free(why);
			free(cand);
			continue;
		}
		if (found != NULL) {
			*cause = br_xasprintf("%s: two files look like bench results (%s and %s); "
			    "name one with --bench", dir, br_basename(found), n);
			free(found);
			free(cand);
			br_bench_set_free(&s);
			br_bench_set_free(set);
			free(first_failure);
			return NULL;
		}
		found = cand;
		*set = s;
	}
	if (found == NULL) {
		if (first_failure != NULL)
			*cause = br_xasprintf("%s: no bench result found: no stress.json, and the one "
			    "candidate that failed first says: %s", dir, first_failure);
		else
			*cause = br_xasprintf("%s: no bench result found: expected stress.json or a *.json "
			    "written by `vllm bench serve --save-result` (or name it with --bench)", dir);
	}
	free(first_failure);
	return found;
}

/* snapshot_time: epoch seconds from a snapshot file name such as
 * "1722480000.prom" or "metrics-1722480000.5.txt"; NAN when none. A
 * number of 1e11 or more is no time in seconds (year 5138 on): 13 digits
 * are milliseconds (date +%s%3N), 16 microseconds, 19 nanoseconds. */
static double
snapshot_time(const char *name)
{
	for (const char *s = name; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			char *end;
			double t = strtod(s, &end);
			if (end - s >= 9 && t > 1e8) {
				static const double unit[] = { 1, 1e3, 1e6, 1e9 };
				for (int k = 0; k < 4; k++)
					if (t / unit[k] < 1e11)
						return t / unit[k];
				return NAN;
			}
			s = end - 1;
		}
	}
	return NAN;
}

/* load_snapshot_into: parse one .prom file, stamp its time, append it. */
static int
load_snapshot_into(br_run *r, const char *path, double t_s, const char *role, char **cause)
{
	br_series one;
	memset(&one, 0, sizeof one);
	if (br_prom_load(path, &one, cause) != 0)
		return -1;
	if (one.n_rows > 0 && one.t_s != NULL)
		one.t_s[0] = t_s;
	if (r->metrics == NULL) {
		r->metrics = br_xcalloc(1, sizeof *r->metrics);
	}
	br_series_append_rows(r->metrics, &one);
	br_series_free(&one);
	return add_input(r, path, role, cause);
}

static int
is_snapshot_name(const char *n)
{
	return has_suffix(n, ".prom") || (has_suffix(n, ".txt") && strstr(n, "metrics") != NULL);
}

/*
 * find_metrics: --metrics (a CSV, a .prom, or a folder of snapshots), else
 * metrics.csv, else *.prom / *metrics*.txt (one = snapshot, two = before/
 * after pair, the one named "before" or sorting first is row 0), else a
 * metrics/ folder of snapshots.
 */
static int
load_metrics(br_run *r, const char *dir, const name_list *files, const char *override, char **cause)
{
	if (override != NULL) {
		if (br_is_dir(override)) {
			name_list sub;
			if (list_files(override, &sub, cause) != 0)
				return -1;
			for (size_t i = 0; i < sub.n; i++) {
				if (!is_snapshot_name(sub.v[i]))
					continue;
				char *p = br_path_join(override, sub.v[i]);
				double t_s = snapshot_time(sub.v[i]);
				if (!isfinite(t_s)) {
					/* no time, no place in the series (it read as samples 0 s
					 * apart and "no activity") */
					br_run_add_warning(r, "%s: its name holds no epoch time (expected e.g. 1793275200.prom), "
					    "so it has no place in the series of snapshots; left out", p);
					free(p);
					continue;
				}
				int rc = load_snapshot_into(r, p, t_s, "metrics snapshot", cause);
				free(p);
				if (rc != 0) {
					name_list_free(&sub);
					return -1;
				}
			}
			name_list_free(&sub);
			r->metrics_kind = BR_METRICS_SNAPSHOTS;
			return 0;
		}
		if (has_suffix(override, ".csv")) {
			r->metrics = br_xcalloc(1, sizeof *r->metrics);
			if (br_metrics_csv_load(override, BR_METRICS_NO_BUCKETS, r->metrics, cause) != 0)
				return -1;
			r->metrics_kind = BR_METRICS_CSV;
			char *side = br_metrics_side_path(override);
			int rc = add_input(r, override, "metrics CSV", cause);
			if (rc == 0 && side != NULL && br_path_exists(side))
				rc = add_input(r, side, "metrics CSV, later series", cause);
			free(side);
			return rc;
		}
		r->metrics_kind = BR_METRICS_SNAPSHOT;
		return load_snapshot_into(r, override, NAN, "metrics snapshot", cause);
	}

	char *csv = br_path_join(dir, "metrics.csv");
	if (br_path_exists(csv)) {
		r->metrics = br_xcalloc(1, sizeof *r->metrics);
		int rc = br_metrics_csv_load(csv, BR_METRICS_NO_BUCKETS, r->metrics, cause);
		if (rc == 0) {
			r->metrics_kind = BR_METRICS_CSV;
			rc = add_input(r, csv, "metrics CSV", cause);
		}
		char *side = br_metrics_side_path(csv);   /* joined by br_metrics_csv_load */
		if (rc == 0 && side != NULL && br_path_exists(side))
			rc = add_input(r, side, "metrics CSV, later series", cause);
		free(side);
		free(csv);
		return rc;
	}
	free(csv);

	const char *snaps[2];
	size_t n_snaps = 0, n_all = 0;
	for (size_t i = 0; i < files->n; i++) {
		if (!is_snapshot_name(files->v[i]))
			continue;
		if (n_snaps < 2)
			snaps[n_snaps++] = files->v[i];
		n_all++;
	}
	if (n_all > 2) {
		*cause = br_xasprintf("%s: %zu Prometheus snapshots in the run folder; expected one, "
		    "a before/after pair, or a metrics/ folder for a series", dir, n_all);
		return -1;
	}
	if (n_snaps == 2 && strstr(snaps[1], "before") != NULL) {
		const char *t = snaps[0];
		snaps[0] = snaps[1];
		snaps[1] = t;
	}
	for (size_t i = 0; i < n_snaps; i++) {
		char *p = br_path_join(dir, snaps[i]);
		const char *role = n_snaps == 1 ? "metrics snapshot" : i == 0 ? "metrics before" : "metrics after";
		int rc = load_snapshot_into(r, p, snapshot_time(snaps[i]), role, cause);
		free(p);
		if (rc != 0)
			return -1;
	}
	if (n_snaps > 0) {
		r->metrics_kind = n_snaps == 2 ? BR_METRICS_PAIR : BR_METRICS_SNAPSHOT;
		return 0;
	}


	char *mdir = br_path_join(dir, "metrics");
	int rc = 0;
	if (br_is_dir(mdir))
		rc = load_metrics(r, dir, files, mdir, cause);
	free(mdir);
	return rc;
}

/*
 * fix_reversed_pair: a before/after pair whose counters all went down (and
 * none up) was almost certainly named the wrong way round: swap the rows
 * and say so, instead of reading every counter as a server restart.
 */
static void
fix_reversed_pair(br_run *r)
{
	br_series *m = r->metrics;
	if (m == NULL || m->n_rows != 2)
		return;
	size_t up = 0, down = 0;
	for (size_t c = 0; c < m->n_cols; c++) {
		const char *n = m->names[c];
		size_t len = strlen(n);
		int counter = (len > 6 && strcmp(n + len - 6, "_total") == 0) ||
		    (len > 4 && strcmp(n + len - 4, "_sum") == 0) ||
		    (len > 6 && strcmp(n + len - 6, "_count") == 0);
		if (!counter)
			continue;
		double a = m->cols[c][0], b = m->cols[c][1];
		if (!isfinite(a) || !isfinite(b))
			continue;
		if (b > a)
			up++;
		else if (b < a)
			down++;
	}
	if (down == 0 || up > 0)
		return;
	for (size_t c = 0; c < m->n_cols; c++) {
		double t = m->cols[c][0];
		m->cols[c][0] = m->cols[c][1];
		m->cols[c][1] = t;
	}
	if (m->t_s != NULL) {
		double t = m->t_s[0];
		m->t_s[0] = m->t_s[1];
		m->t_s[1] = t;
	}
	br_run_add_warning(r, "every counter in the \"after\" snapshot is lower than in the \"before\" "
	    "one (%zu counters): the two files look swapped, so they were read the other way round", down);
}

/*
 * note_empty_itls: a warning when the bench result has per-request arrays
 * but no "itls" array, or an "itls" list per request and every one empty,
 * although successful requests streamed 2+ tokens (an edited or cut file):
 * ITL is then not recomputed (the analysis takes the file's own ITL
 * statistics, if any).
 */
static void
note_empty_itls(br_run *r, const char *bench)
{
	const br_bench *b = r->bench.n > 0 ? &r->bench.runs[0] : NULL;
	if (b == NULL || b->n_requests == 0 || b->requests == NULL)
		return;
	double max_out = 0;
	for (size_t i = 0; i < b->n_requests; i++) {
		const br_request *q = &b->requests[i];
		if (q->n_itls > 0)
			return;
		if (!q->failed && br_isnum(q->output_len_tokens) && q->output_len_tokens > max_out)
			max_out = q->output_len_tokens;
	}
	if (max_out > 1 && !b->has_itls)
		br_run_add_warning(r, "%s: the per-request arrays have no \"itls\" array (one list of gaps per "
		    "request), although the successful requests produced up to %.0f output tokens each: ITL is "
		    "not recomputed; the ITL figures are the file's own statistics (median_itl_ms ...), where it "
		    "states them", br_basename(bench), max_out);
	else if (max_out > 1)
		br_run_add_warning(r, "%s: every request's \"itls\" list is empty although the successful "
		    "requests produced up to %.0f output tokens each: ITL is not recomputed; the ITL figures are "
		    "the file's own statistics (median_itl_ms ...), where it states them", br_basename(bench),
		    max_out);
}

/* is_counter: 1 for a column that only rises while the server runs. */
static int
is_counter(const char *name)
{
	size_t n = strlen(name);
	const char *brace = strchr(name, '{');
	size_t base = brace ? (size_t)(brace - name) : n;
	static const char *const ends[] = { "_total", "_sum", "_count", "_bucket" };
	for (size_t k = 0; k < 4; k++) {
		size_t l = strlen(ends[k]);
		if (base >= l && strncmp(name + base - l, ends[k], l) == 0)
			return 1;
	}
	return 0;
}

/*
 * read_slots: dir/slots.jsonl (llama-server /slots snapshots), if any, into
 * *out (br_slots_load; NULL when there is none) and the input table; a
 * malformed file fails the run. Where they go is decided after the other
 * inputs (br_run_attach_slots). Returns 0 or -1 with *cause.
 */
static int
read_slots(br_run *r, const char *dir, br_series **out, char **cause)
{
	*out = NULL;
	char *path = br_path_join(dir, "slots.jsonl");
	struct stat st;
	if (lstat(path, &st) != 0) {
		free(path);
		return 0;
	}
	br_series *sl = br_xcalloc(1, sizeof *sl);
	int rc = br_slots_load(path, sl, cause);
	if (rc == 1) {
		/* empty: said, and the run goes on without it */
		br_run_add_warning(r, "%s; ignored", *cause);
		free(*cause);
		*cause = NULL;
		free(sl);
		free(path);
		return 0;
	}
	if (rc != 0 || add_input(r, path, "llama-server /slots snapshots", cause) != 0) {
		br_series_free(sl);
		free(sl);
		free(path);
		return -1;
	}
	free(path);
	*out = sl;
	return 0;
}

/*
 * log_series: with no metrics, an SGLang log's Prefill/Decode batch lines
 * (br_log_stat: #running-req, #queue-req, token usage) become the run's
 * series (BR_METRICS_LOG): one row per line at its stamp (epoch s, read as
 * UTC), columns under SGLang's gauge names so the roles find them. Needs 3
 * stamped lines in time order. Returns 1 when the series was built.
 */
static int
log_series(br_run *r)
{
	const br_server_log *l = r->log;
	if (r->metrics != NULL || l == NULL || l->engine_kind != BR_ENGINE_SGLANG || l->n_stats < 3 ||
	    !isfinite(l->stats_epoch0_s))
		return 0;
	for (size_t i = 0; i < l->n_stats; i++)
		if (!isfinite(l->stats[i].t_s) || (i > 0 && l->stats[i].t_s < l->stats[i - 1].t_s))
			return 0;
	/* a bench result without a date (SGLang's JSONL states none) cannot pick
	 * its own lines out of a longer log (provenance checks the dated ones):
	 * the lines stand in only when they span about the run, and when the
	 * requests they show in the system agree with the bench's own Little's
	 * law (L = completed / duration × mean E2EL) within a factor of 3 */
	const br_bench *b = r->bench.n > 0 ? &r->bench.runs[0] : NULL;
	if (b != NULL && b->date == NULL && br_isnum(b->duration_s) && b->duration_s > 0) {
		double t0 = l->stats_epoch0_s + l->stats[0].t_s, t1 = l->stats_epoch0_s + l->stats[l->n_stats - 1].t_s;
		char a[32], c[32];
		time_t tt0 = (time_t)t0, tt1 = (time_t)t1;
		struct tm tm0, tm1;
		gmtime_r(&tt0, &tm0);
		gmtime_r(&tt1, &tm1);
		strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", &tm0);
		strftime(c, sizeof c, "%Y-%m-%d %H:%M:%S", &tm1);
		if (t1 - t0 > 2 * b->duration_s + 120) {
			br_run_add_warning(r, "%s: its %zu batch lines cover %s to %s UTC, far longer than the "
			    "bench's %.0f s run, and the bench result states no date to pick this run's lines by: "
			    "they are not used as the run's series", br_basename(l->source_path), l->n_stats, a, c,
			    b->duration_s);
			return 0;
		}
		double e2el_ms = br_bench_file_stat(b, "e2el", "mean", NAN);
		double L = br_isnum(b->completed) && br_isnum(e2el_ms) ? b->completed / b->duration_s * e2el_ms / 1000 : NAN;
		double sum = 0;
		for (size_t i = 0; i < l->n_stats; i++)
			sum += (br_isnum(l->stats[i].running) ? l->stats[i].running : 0) +
			    (br_isnum(l->stats[i].waiting) ? l->stats[i].waiting : 0);
		double seen = sum / (double)l->n_stats;
		if (br_isnum(L) && L >= 2 && (seen < L / 3 || seen > 3 * L)) {
			br_run_add_warning(r, "%s: its %zu batch lines (%s to %s UTC) show %.1f requests in the "
			    "system on average, where the bench's own Little's law gives %.1f (%.4g req/s × %.3f s "
			    "mean E2EL), and the bench result states no date to tie them to this run: they are not "
			    "used as the run's series", br_basename(l->source_path), l->n_stats, a, c, seen, L,
			    b->completed / b->duration_s, e2el_ms / 1000);
			return 0;
		}
	}
	br_series *s = br_xcalloc(1, sizeof *s);
	size_t c_run = br_series_add_col(s, "sglang:num_running_reqs");
	size_t c_wait = br_series_add_col(s, "sglang:num_queue_reqs");
	size_t c_kv = br_series_add_col(s, "sglang:token_usage");
	for (size_t i = 0; i < l->n_stats; i++) {
		size_t row = br_series_add_row(s, l->stats_epoch0_s + l->stats[i].t_s);
		s->cols[c_run][row] = l->stats[i].running;
		s->cols[c_wait][row] = l->stats[i].waiting;
		s->cols[c_kv][row] = l->stats[i].kv_usage_frac;
	}
	s->source_path = br_xstrdup(l->source_path);
	s->engine = BR_ENGINE_SGLANG;
	r->metrics = s;
	r->metrics_kind = BR_METRICS_LOG;
	return 1;
}

/* comes_back: the first row from `from` on where column c holds a number
 * >= level (a counter back where it was before a fall), else n_rows. */
static size_t
comes_back(const br_series *s, size_t c, size_t from, double level)
{
	size_t j = from;
	while (j < s->n_rows && !(isfinite(s->cols[c][j]) && s->cols[c][j] >= level))
		j++;
	return j;
}

/*
 * check_process_restarts: process_start_time_seconds changing between two
 * samples (missed scrapes between them or not) is a server restart even
 * when no counter falls: the new process counted past the old one's values
 * (thirty-second breaker: a before/after pair across a restart read
 * 8 - 5 = 3 preemptions, and a series with the restart hidden in missed
 * scrapes read 50 of at least 53). Every counter column is rebased from the
 * restart on by its last value before it, so a delta counts what the new
 * process counted from 0; the row is marked in the
 * benchreport:server_restart column (added when absent), which makes the
 * counts lower bounds (what the old process counted after its last sample
 * is lost). A start time that moves by under 1 s is float noise, not a
 * restart.
 */
static void
check_process_restarts(br_run *r)
{
	br_series *s = r->metrics;
	if (s == NULL || s->n_rows < 2 || (r->metrics_kind != BR_METRICS_CSV &&
	    r->metrics_kind != BR_METRICS_SNAPSHOTS && r->metrics_kind != BR_METRICS_PAIR))
		return;
	long sc = br_series_col_index(s, "process_start_time_seconds");
	if (sc < 0)
		return;
	double *last = br_xmalloc((s->n_cols + 1) * sizeof *last), *off = br_xcalloc(s->n_cols + 1, sizeof *off);
	/* one slot more: the marker column may be added below (not a counter) */
	char *counter = br_xcalloc(s->n_cols + 1, 1);
	last[s->n_cols] = NAN;
	for (size_t c = 0; c < s->n_cols; c++) {
		last[c] = NAN;
		counter[c] = (char)is_counter(s->names[c]);
	}
	double prev_start = NAN;
	size_t n = 0, first = 0;
	long mk = -1;
	for (size_t i = 0; i < s->n_rows; i++) {
		double st = s->cols[sc][i];
		int restart = isfinite(st) && isfinite(prev_start) && fabs(st - prev_start) >= 1.0;
		if (isfinite(st))
			prev_start = st;
		if (restart) {
			if (n++ == 0)
				first = i;
			if (mk < 0)
				mk = (long)br_series_add_col(s, "benchreport:server_restart");
			s->cols[mk][i] = 1;
			for (size_t c = 0; c < s->n_cols; c++)
				if (counter[c] && isfinite(last[c]))
					off[c] += last[c];
		}
		for (size_t c = 0; c < s->n_cols; c++) {
			if (!counter[c] || !isfinite(s->cols[c][i]))
				continue;
			last[c] = s->cols[c][i];
			s->cols[c][i] += off[c];
		}
	}
	if (n > 0) {
		char when[64] = "between the before and after snapshots";
		if (r->metrics_kind != BR_METRICS_PAIR && s->t_s != NULL)
			snprintf(when, sizeof when, "%.0f s after the first sample", s->t_s[first] - s->t_s[0]);
		br_run_add_warning(r, "process_start_time_seconds changes %zu time%s (first %s): the server "
		    "restarted, so counter deltas count from 0 after each restart and are lower bounds (what the old "
		    "process counted after its last sample is lost)", n, n == 1 ? "" : "s", when);
	}
	free(last);
	free(off);
	free(counter);
}

/*
 * check_counter_resets: a counter that falls between two samples is read
 * as a restart from 0 by the deltas (window.c). When most counters fall at
 * that sample the server did restart: say when. When one falls while the
 * others keep rising, it is not a restart: say that this counter's value is
 * suspect, instead of letting the report count its falls silently.
 */
static void
check_counter_resets(br_run *r)
{
	const br_series *s = r->metrics;
	if (s == NULL || s->n_rows < 2 || (r->metrics_kind != BR_METRICS_CSV &&
	    r->metrics_kind != BR_METRICS_SNAPSHOTS))
		return;
	size_t *lone = br_xcalloc(s->n_cols + 1, sizeof *lone), *first = br_xcalloc(s->n_cols + 1, sizeof *first);
	size_t restarts = 0, first_restart = 0;
	const double *start = br_series_col(s, "process_start_time_seconds");
	long mk = br_series_col_index(s, "benchreport:server_restart");
	double *marker = mk >= 0 ? s->cols[mk] : NULL;
	/* a labelled series beside its own sum ("..._total{finished_reason=...}"
	 * and "..._total") is one counter, not two votes */
	char *vote = br_xcalloc(s->n_cols + 1, 1);
	for (size_t c = 0; c < s->n_cols; c++) {
		const char *brace = strchr(s->names[c], '{');
		int dup = 0;
		if (brace != NULL)
			for (size_t k = 0; k < s->n_cols && !dup; k++)
				dup = k != c && strlen(s->names[k]) == (size_t)(brace - s->names[c]) &&
				    strncmp(s->names[k], s->names[c], (size_t)(brace - s->names[c])) == 0;
		vote[c] = is_counter(s->names[c]) && !dup;
	}
	for (size_t i = 1; i < s->n_rows; i++) {
		size_t fell = 0, comparable = 0;
		for (size_t c = 0; c < s->n_cols; c++) {
			double a = s->cols[c][i - 1], b = s->cols[c][i];
			if (!vote[c] || !isfinite(a) || !isfinite(b) || a <= 0)
				continue;
			comparable++;
			fell += b < a;
		}
		/* the same process start time on both sides, and every counter that
		 * fell later comes back to where it was (17 -> 0 -> 0 -> 23): a scrape
		 * that missed the series for a moment, not a restart (sixteenth
		 * breaker); a fall that stays down is a restart even then (the
		 * engine's counters reset under a living API server) */
		int same_process = start != NULL && isfinite(start[i - 1]) && start[i - 1] == start[i];
		int all_dip = fell > 0 && same_process;
		for (size_t c = 0; all_dip && c < s->n_cols; c++) {
			double a = s->cols[c][i - 1], b = s->cols[c][i];
			if (!is_counter(s->names[c]) || !isfinite(a) || !isfinite(b) || !(b < a))
				continue;
			all_dip = comes_back(s, c, i + 1, a) < s->n_rows;
		}
		int restart = fell > 0 && 2 * fell >= comparable && !all_dip;
		if (all_dip && marker != NULL && marker[i] == 1)
			marker[i] = 0;   /* the sampler marked it from one falling ledger counter */
		if (restart && restarts++ == 0)
			first_restart = i;
		if (restart || fell == 0)
			continue;
		for (size_t c = 0; c < s->n_cols; c++) {
			double a = s->cols[c][i - 1], b = s->cols[c][i];
			if (is_counter(s->names[c]) && isfinite(a) && isfinite(b) && b < a && lone[c]++ == 0)
				first[c] = i;
		}
	}
	double t0 = s->t_s[0];
	if (restarts > 0)
		br_run_add_warning(r, "the metrics series shows %zu server restart%s (most counters fall at "
		    "once; the first %.0f s after the first sample): counter deltas count from 0 after each",
		    restarts, restarts == 1 ? "" : "s", s->t_s[first_restart] - t0);
	for (size_t c = 0; c < s->n_cols; c++)
		if (lone[c] > 0) {
			size_t i = first[c];
			double before = s->cols[c][i - 1], after = s->cols[c][i];
			/* a dip that comes back to where the counter was (17 -> 0 -> 0 -> 23:
			 * a scrape that missed the series' children) is a glitch: its
			 * samples are left out, so the delta runs 17 -> 23, not 17 + 23 */
			size_t back = comes_back(s, c, i, before);
			int dip = back < s->n_rows && lone[c] == 1;
			if (dip)
				for (size_t j = i; j < back; j++)
					s->cols[c][j] = NAN;
			if (!vote[c])
				continue;   /* a labelled child of a counter said once, under its sum */
			/* the preemption counter is suspect when it fell and stayed
			 * down; a single dip that came back is left out like any other
			 * (twenty-second breaker: 2 -> 0 -> 2 dropped the count) */
			const char *pre_name = br_role_name(s, BR_ROLE_PREEMPTIONS);
			int is_pre = pre_name != NULL && strcmp(s->names[c], pre_name) == 0;
			if (is_pre && !dip)
				r->preemptions_suspect = 1;
			if (dip)
				br_run_add_warning(r, "%s dips once while the other counters keep rising (%.0f s after the "
				    "first sample, %g → %g) and comes back to its earlier value: a scrape that missed it, not "
				    "a server restart; the samples of the dip are left out", s->names[c], s->t_s[i] - t0,
				    before, after);
			else
				br_run_add_warning(r, "%s falls %zu time%s while the other counters keep rising (first "
				    "%.0f s after the first sample, %g → %g): not a server restart, so this counter's "
				    "values are suspect; %s", s->names[c],
				    lone[c], lone[c] == 1 ? "" : "s", s->t_s[i] - t0, before, after, is_pre ?
				    "the preemption count and events are left out of the report" :
				    "its deltas count each fall as a restart from 0");
		}
	free(vote);
	free(lone);
	free(first);
}

/*
 * check_preemption_counter: vllm:num_preemptions_total (the preemptions
 * role, any engine) counts whole preemptions and never reaches 2^53 (a
 * server preempting a million times a second would need 285 years): a value
 * with a fraction, or beyond that, is not a count. Then the count and its
 * events are left out (preemptions_suspect = 2), with a warning naming the
 * first such value.
 */
static void
check_preemption_counter(br_run *r)
{
	const br_series *s = r->metrics;
	const double *pre = s ? br_role_col(s, BR_ROLE_PREEMPTIONS) : NULL;
	if (pre == NULL || r->preemptions_suspect)
		return;
	for (size_t i = 0; i < s->n_rows; i++) {
		double v = pre[i];
		if (!isfinite(v) || (v == floor(v) && v >= 0 && v <= 9007199254740992.0))
			continue;
		r->preemptions_suspect = 2;
		br_run_add_warning(r, "%s holds %.17g (%s %zu of %zu): %s, so the preemption count and events are "
		    "left out of the report", br_role_name(s, BR_ROLE_PREEMPTIONS), v,
		    r->metrics_kind == BR_METRICS_CSV ? "row" : "snapshot", i + 1, s->n_rows,
		    v != floor(v) ? "not a whole number of preemptions" : v < 0 ? "a counter never goes below 0" :
		    "beyond any count a server reaches (2^53)");
		return;
	}
}

/*
 * check_series_time: for a metrics series, warn when samples are missing
 * (gaps longer than 3 median intervals). A missed scrape (a row whose
 * running cell is empty, as `benchreport sample` writes it) counts as
 * missing, like a dropped row. A series that misses the bench run
 * altogether is set aside by br_run_check_provenance.
 */
static void
check_series_time(br_run *r)
{
	const br_series *m = r->metrics;
	if (m == NULL || m->n_rows < 3 || m->t_s == NULL ||
	    (r->metrics_kind != BR_METRICS_CSV && r->metrics_kind != BR_METRICS_SNAPSHOTS))
		return;
	const double *running = br_role_col(m, BR_ROLE_RUNNING);
	double *d = br_xmalloc((m->n_rows - 1) * sizeof *d);
	size_t nd = 0, last = (size_t)-1;
	for (size_t i = 0; i < m->n_rows; i++) {
		if (!isfinite(m->t_s[i]) || (running != NULL && !isfinite(running[i])))
			continue;
		if (last != (size_t)-1)
			d[nd++] = m->t_s[i] - m->t_s[last];
		last = i;
	}
	if (nd >= 2) {
		double *sorted = br_xmalloc(nd * sizeof *sorted);
		memcpy(sorted, d, nd * sizeof *d);
		for (size_t i = 1; i < nd; i++)      /* insertion sort is fine: called once */
			for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
				double t = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
		double med = sorted[nd / 2];
		free(sorted);
		size_t gaps = 0;
		double missing = 0, longest = 0;
		for (size_t i = 0; i < nd; i++)
			if (med > 0 && d[i] > 3 * med) {
				gaps++;
				missing += d[i] - med;
				if (d[i] > longest)
					longest = d[i];
			}
		if (gaps > 0)
			br_run_add_warning(r, "the metrics series has %zu gap%s (samples every %.3g s, "
			    "longest gap %.0f s, %.0f s missing in all): residency and preemption "
			    "timing there are unknown", gaps, gaps == 1 ? "" : "s", med, longest, missing);
	}
	free(d);
}

/* find_log: --log, else server.log, else the first .log, .out or .err file
 * (names sorted) that holds vLLM lines, preferring names without "err". */
static char *
find_log(const char *dir, const name_list *files)
{
	char *p = br_path_join(dir, "server.log");
	if (br_path_exists(p))
		return p;
	free(p);
	char *second = NULL;
	for (size_t i = 0; i < files->n; i++) {
		const char *n = files->v[i];
		if (!has_suffix(n, ".log") && !has_suffix(n, ".out") && !has_suffix(n, ".err"))
			continue;
		char *cand = br_path_join(dir, n);
		if (!br_server_log_looks_like(cand)) {
			free(cand);
			continue;
		}
		if (strstr(n, "err") == NULL) {
			free(second);
			return cand;
		}
		if (second == NULL)
			second = cand;
		else
			free(cand);
	}
	return second;
}

/*
 * meta_str: the string label `key` of run.json into *dst (malloc'd; NULL
 * when absent or null). A non-string value is an error naming its place.
 */
static int
meta_str(json_t *root, const char *key, char **dst, const char *path,
    const char *text, size_t len, char **cause)
{
	json_t *v = json_object_get(root, key);
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		char *where = br_json_key_where(path, text, len, key);
		*cause = br_xasprintf("%s: \"%s\": expected a string label", where, key);
		free(where);
		return -1;
	}
	/* an empty label states nothing: it stays unknown ("n/a"), not blank */
	const char *t = json_string_value(v);
	while (*t == ' ' || *t == '\t')
		t++;
	if (*t == '\0')
		return 0;
	/* surrounding blanks are not part of a label ("0.5.4 " is 0.5.4) */
	size_t n = strlen(t);
	while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	free(*dst);
	*dst = br_xstrndup(t, n);
	return 0;
}

/* load_meta: run.json labels and overrides. Errors name file:line:col. */
static int
load_meta(br_run *r, const char *path, char **cause)
{
	char *text = NULL;
	size_t len = 0;
	if (br_read_file(path, &text, &len, cause) != 0)
		return -1;
	json_error_t err;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	int rc = -1;
	if (root == NULL) {
		*cause = br_xasprintf("%s:%d:%d: expected a JSON object of run labels (%s)",
		    path, err.line, err.column, err.text);
		goto out;
	}
	if (!json_is_object(root)) {
		*cause = br_xasprintf("%s:1:1: expected a JSON object of run labels (name, gpu, ...)", path);
		goto out;
	}
	/* a key run.json does not hold (a typo of one it does) is said, not
	 * silently ignored; "_..." keys are comments */
	static const char *const known[] = { "name", "gpu", "driver", "cuda", "notes", "server_version",
		"role", "expect", "kv_pool_tokens", "record", "simulator", NULL };
	const char *key;
	json_t *val;
	json_object_foreach(root, key, val) {
		(void)val;
		int ok = key[0] == '_';
		for (size_t k = 0; !ok && known[k]; k++)
			ok = strcmp(key, known[k]) == 0;
		if (!ok) {
			char *where = br_json_key_where(path, text, len, key);
			br_run_add_warning(r, "%s: unknown key \"%s\" ignored; run.json holds name, gpu, driver, cuda, "
			    "notes, server_version, role, expect, kv_pool_tokens (and \"_...\" comments)", where, key);
			free(where);
		}
	}
	if (meta_str(root, "name", &r->name, path, text, len, cause) != 0 ||
	    meta_str(root, "gpu", &r->gpu, path, text, len, cause) != 0 ||
	    meta_str(root, "driver", &r->driver, path, text, len, cause) != 0 ||
	    meta_str(root, "cuda", &r->cuda, path, text, len, cause) != 0 ||
	    meta_str(root, "notes", &r->notes, path, text, len, cause) != 0 ||
	    meta_str(root, "server_version", &r->server_version, path, text, len, cause) != 0 ||
	    meta_str(root, "role", &r->role, path, text, len, cause) != 0 ||
	    br_plan_parse(root, path, text, len, &r->plan, &r->n_plan, cause) != 0)
		goto out;
	if (r->role != NULL && strcasecmp(r->role, "calibration") != 0) {
		/* a typo ("calibraton") would silently keep a calibration run
		 * among the others */
		char *where = br_json_key_where(path, text, len, "role");
		br_run_add_warning(r, "%s: \"role\": \"%s\" is a label only; the one role benchreport acts on is "
		    "\"calibration\" (a run made for the FLOPs calibration), so this run counts as an ordinary run",
		    where, r->role);
		free(where);
	}
	json_t *pool = json_object_get(root, "kv_pool_tokens");
	if (pool != NULL && !json_is_null(pool)) {
		double v = json_is_number(pool) ? json_number_value(pool) : NAN;
		if (!(v >= 1 && v <= 1e12 && v == floor(v))) {
			char *where = br_json_key_where(path, text, len, "kv_pool_tokens");
			*cause = br_xasprintf("%s: \"kv_pool_tokens\": expected a whole number of tokens from 1 to 1e12", where);
			free(where);
			goto out;
		}
		r->kv_pool_tokens_override = v;
	}
	/* `benchreport record` wrote when the load client ran (epoch s) */
	json_t *rec = json_object_get(root, "record");
	json_t *cs = json_object_get(rec, "client_start_unix_s"), *ce = json_object_get(rec, "client_end_unix_s");
	if (json_is_number(cs) && json_is_number(ce) && json_number_value(ce) >= json_number_value(cs)) {
		r->recorded_client_start_s = json_number_value(cs);
		r->recorded_client_end_s = json_number_value(ce);
	}
	/* the load command's own failure, which the bench result may not show
	 * (twenty-ninth breaker: a client that exited 7 after writing a clean
	 * result read as a clean run) */
	json_t *ec = json_object_get(rec, "exit_code");
	if (json_is_integer(ec) && json_integer_value(ec) != 0)
		br_run_add_warning(r, "%s: the load command benchreport record ran exited with status %lld: the "
		    "bench result may be incomplete or its client may have failed after writing it (its stderr is in "
		    "client-stderr.txt when record kept it)", br_basename(path), (long long)json_integer_value(ec));
	if (json_is_true(json_object_get(rec, "interrupted")))
		br_run_add_warning(r, "%s: the recording was interrupted (Ctrl-C, SIGTERM or SIGHUP): the load "
		    "command was stopped, so the bench result may hold part of the run", br_basename(path));
	rc = add_input(r, path, "run labels", cause);
out:
	json_decref(root);
	free(text);
	return rc;
}

/* note_null_ttfts: a successful request of b without its TTFT (null in
 * the array) leaves the TTFT statistics silently; say so, naming file. */
static void
note_null_ttfts(br_run *r, const br_bench *b, const char *file)
{
	size_t n_ok = 0, n_null = 0, first = 0;
	for (size_t i = 0; b->requests != NULL && i < b->n_requests; i++) {
		if (b->requests[i].failed)
			continue;
		n_ok++;
		if (!br_isnum(b->requests[i].ttft_s) && n_null++ == 0)
			first = i;
	}
	if (n_null > 0 && n_null < n_ok)
		br_run_add_warning(r, "%s: %zu of %zu successful requests have no TTFT (\"ttfts\" holds null, first "
		    "at index %zu): the TTFT statistics rest on the other %zu", br_basename(file), n_null, n_ok,
		    first, n_ok - n_null);
}

/* note_stale_rates: vllm bench serve writes request_throughput =
 * completed / duration and output_throughput = total_output_tokens /
 * duration; a rate more than 1% off its counts (a file whose counts were
 * edited, its rates left) is printed as the file states it, so say so. */
static void
note_stale_rates(br_run *r, const br_bench *b, const char *file)
{
	if (!br_isnum(b->duration_s) || b->duration_s <= 0)
		return;
	const struct { double stated, count; const char *rate, *what, *unit; } t[] = {
		{ b->request_throughput_rps, b->completed, "request_throughput", "completed", "req/s" },
		{ b->output_throughput_tps, b->total_output_tokens, "output_throughput", "total_output_tokens", "tok/s" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double want = t[i].count / b->duration_s;
		if (!br_isnum(t[i].stated) || !br_isnum(want) || fabs(t[i].stated - want) <= 0.01 * fabs(want))
			continue;
		char cnt[32];
		br_run_add_warning(r, "%s: %s is %.4g %s but %s / duration = %s / %.2f s = %.4g %s: the file's "
		    "rates do not follow from its counts (an edited file?); the report prints the rate as the "
		    "file states it", br_basename(file), t[i].rate, t[i].stated, t[i].unit, t[i].what,
		    br_format_count(t[i].count, cnt), b->duration_s, want, t[i].unit);
	}
}

int
br_run_load(const char *dir, const br_run_opts *opts, br_run *out, char **cause)
{
	static const br_run_opts none;
	br_run *r = out;
	name_list files;
	char *bench = NULL, *log = NULL;
	br_series *slots = NULL;     /* slots.jsonl until br_run_attach_slots takes it */

	if (opts == NULL)
		opts = &none;
	memset(r, 0, sizeof *r);
	r->kv_pool_tokens_override = NAN;
	r->recorded_client_start_s = r->recorded_client_end_s = NAN;
	if (!br_is_dir(dir)) {
		if (br_is_file(dir))
			*cause = br_xasprintf("%s: is a file; expected a run folder holding stress.json "
			    "(or use --bench FILE with a folder)", dir);
		else
			*cause = br_xasprintf("%s: no such folder; expected a run folder holding stress.json", dir);
		return -1;
	}
	if (list_files(dir, &files, cause) != 0)
		return -1;
	r->dir = br_xstrdup(dir);
	{
		/* folder name without trailing slashes */
		char *tmp = br_xstrdup(dir);
		size_t n = strlen(tmp);
		while (n > 1 && tmp[n - 1] == '/')
			tmp[--n] = '\0';
		r->name = br_xstrdup(br_basename(tmp));
		free(tmp);
	}

	/* the metrics are read before the bench result: their parse buffers are
	 * gone before millions of ITLs arrive (a 108 MB result beside a 4.5 MB
	 * metrics.csv: 62 MB at the peak, not 73). A bench error still comes
	 * first, and the bench result stays first among the inputs. */
	if (opts->bench_path == NULL) {
		char *sj = br_path_join(dir, "stress.json");
		hash_early(r, sj);
		free(sj);
	} else
		hash_early(r, opts->bench_path);
	size_t metrics_at = r->n_inputs;
	char *metrics_cause = NULL;
	int metrics_rc = load_metrics(r, dir, &files, opts->metrics_path, &metrics_cause);
	if (metrics_rc == 0)
		br_series_drop_buckets(r->metrics);   /* snapshots' (a CSV is read without) */
	if (opts->bench_path != NULL) {
		bench = br_xstrdup(opts->bench_path);
		if (br_bench_load(bench, &r->bench, cause) != 0) {
			free(metrics_cause);
			goto fail;
		}
	} else if ((bench = find_bench(dir, &files, &r->bench, cause)) == NULL) {
		free(metrics_cause);
		goto fail;
	}
	if (add_input(r, bench, "bench result", cause) != 0) {
		free(metrics_cause);
		goto fail;
	}
	input_to(r, metrics_at);
	note_null_ttfts(r, &r->bench.runs[r->bench.n - 1], bench);
	note_stale_rates(r, &r->bench.runs[r->bench.n - 1], bench);
	if (metrics_rc != 0) {
		*cause = metrics_cause;
		goto fail;
	}
	if (r->bench.n > 1) {
		/* --append-result appends: the newest result is the last. The
		 * report covers it (runs[0] is the run reported). */
		br_bench last = r->bench.runs[r->bench.n - 1];
		memmove(&r->bench.runs[1], &r->bench.runs[0], (r->bench.n - 1) * sizeof last);
		r->bench.runs[0] = last;
		br_run_add_warning(r, "%s holds %zu bench results; this report covers the last one "
		    "(line %d: appended results, and a sweep's summary, list the newest last); benchreport knee and "
		    "benchreport compare take several", br_basename(bench), r->bench.n,
		    r->bench.runs[0].source_line);
	}

	note_empty_itls(r, bench);
	if (r->metrics_kind == BR_METRICS_PAIR)
		fix_reversed_pair(r);
	for (size_t i = 0; r->metrics != NULL && i < r->metrics->n_warnings; i++)
		br_run_add_warning(r, "%s", r->metrics->warnings[i]);
	check_series_time(r);
	check_process_restarts(r);
	check_counter_resets(r);
	check_preemption_counter(r);
	if (r->metrics_kind == BR_METRICS_SNAPSHOTS && (r->metrics == NULL || r->metrics->n_rows == 0)) {
		br_run_add_warning(r, "the metrics/ folder holds no Prometheus snapshot (*.prom)");
		r->metrics_kind = BR_METRICS_NONE;
	}
	if (read_slots(r, dir, &slots, cause) != 0)
		goto fail;
	/* without metrics the note waits for the log: an SGLang log's batch lines
	 * may stand in (log_series); it keeps its place among the notes */
	size_t no_metrics_note_at = r->metrics_kind == BR_METRICS_NONE ? r->n_warnings : (size_t)-1;
	if (r->metrics_kind == BR_METRICS_NONE)
		br_run_add_warning(r, "no server metrics (metrics.csv or *.prom snapshots): "
		    "counter ledgers, residency and KV sections removed");
	else if (r->metrics_kind == BR_METRICS_SNAPSHOT)
		br_run_add_warning(r, "one metrics snapshot only: deltas need a before/after pair or a series");
	else if (r->metrics_kind == BR_METRICS_PAIR)
		br_run_add_warning(r, "metrics are a before/after snapshot pair: residency, KV usage "
		    "and preemption timing need a 1 Hz metrics series (metrics.csv)");

	log = opts->log_path ? br_xstrdup(opts->log_path) : find_log(dir, &files);
	if (log != NULL) {
		r->log = br_xcalloc(1, sizeof *r->log);
		if (br_server_log_load(log, r->log, cause) != 0)
			goto fail;
		if (add_input(r, log, "server log", cause) != 0)
			goto fail;
		if (r->log->cut_last_line > 0)
			br_run_add_warning(r, "%s: its last line (line %d) ends without a newline, as a log cut "
			    "off while being written; it was not read", br_basename(log), r->log->cut_last_line);
		if (r->log->binary_bytes > 0)
			br_run_add_warning(r, r->log->binary_bytes >= 104858 ? "%s: %.1f MiB of binary data (lines "
			    "holding NUL bytes, from line %d on) was skipped: a crash's zero padding, or another file "
			    "appended" : "%s: %.0f bytes of binary data (lines holding NUL bytes, from line %d on) "
			    "were skipped: a crash's zero padding, or another file appended", br_basename(log),
			    r->log->binary_bytes >= 104858 ? (double)r->log->binary_bytes / (1 << 20) :
			    (double)r->log->binary_bytes, r->log->first_binary_line);
		if (r->log->n_startups > 1)
			br_run_add_warning(r, "%s shows %d server start-ups; the capacity lines of the last "
			    "one are used", br_basename(log), r->log->n_startups);
		if (r->log->did_not_start)
			br_run_add_warning(r, "server did not start: %s ends in an error before the KV cache "
			    "was allocated (%s)", br_basename(log),
			    r->log->failure_message ? r->log->failure_message : "see the log");
	}

	{
		char *meta = opts->meta_path ? br_xstrdup(opts->meta_path) : br_path_join(dir, "run.json");
		int rc = 0;
		if (opts->meta_path != NULL || br_path_exists(meta))
			rc = load_meta(r, meta, cause);
		free(meta);
		if (rc != 0)
			goto fail;
	}
	/* GPU from the bench file when run.json does not name it: `vllm bench
	 * serve --metadata gpu=H100` (or hardware=...) lands as a top-level key */
	if (r->gpu == NULL && r->bench.n > 0) {
		static const char *const keys[] = { "gpu", "hardware", "gpu_name", "device", NULL };
		for (size_t k = 0; keys[k] && r->gpu == NULL; k++) {
			const char *v = br_bench_extra_get(&r->bench.runs[0], keys[k]);
			if (v != NULL && *v != '\0' && strcmp(v, "null") != 0)
				r->gpu = br_xstrdup(v);
		}
	}
	br_run_check_provenance(r);
	if (slots != NULL) {
		br_run_attach_slots(r, slots, no_metrics_note_at);   /* owns them now */
		slots = NULL;
		if (r->metrics_kind == BR_METRICS_SLOTS)
			no_metrics_note_at = (size_t)-1;   /* replaced by the slots' note */
	}
	if (no_metrics_note_at != (size_t)-1 && log_series(r)) {
		/* the series stands in: say what it is instead of "removed" */
		free(r->warnings[no_metrics_note_at]);
		r->warnings[no_metrics_note_at] = br_xasprintf("no server metrics (metrics.csv or *.prom "
		    "snapshots): running, queue and token usage come from the SGLang log's %zu batch lines "
		    "instead, a coarse series (SGLang logs each prefill batch and every 40 decode steps; "
		    "its stamps read as UTC); the counter ledgers stay removed", r->log->n_stats);
	}
	if (r->log == NULL && !br_run_set_aside_has(r, "the server log")) {
		/* said after provenance: a set-aside metrics page no longer gives the pool */
		br_cache_config cc;
		if (isfinite(r->kv_pool_tokens_override))
			br_run_add_warning(r, "no server log (server.log): the KV pool is run.json's kv_pool_tokens; "
			    "the server's arguments and start-up lines are unknown");
		else if (br_series_cache_config(r->metrics, &cc) &&
		    (isfinite(cc.kv_cache_size_tokens) || (isfinite(cc.num_gpu_blocks) && isfinite(cc.block_size))))
			br_run_add_warning(r, "no server log (server.log): the KV pool is read from the metrics' "
			    "vllm:cache_config_info; the server's arguments and start-up lines are unknown");
		else
			br_run_add_warning(r, "no server log (server.log): capacity arithmetic "
			    "(KV pool, max concurrency) removed");
	}
	if (isfinite(r->kv_pool_tokens_override) && r->log != NULL &&
	    isfinite(r->log->kv_pool_tokens) && r->log->kv_pool_tokens != r->kv_pool_tokens_override)
		br_run_add_warning(r, "run.json says kv_pool_tokens %.0f, but the server log states a KV pool of %.0f "
		    "tokens (line %d): the log's pool is used; check which server this run met",
		    r->kv_pool_tokens_override, r->log->kv_pool_tokens, r->log->kv_pool_line);
	if (join_hashes(r, cause) != 0)
		goto fail;
	free(bench);
	free(log);
	name_list_free(&files);
	return 0;
fail:
	join_hashes(r, NULL);
	br_series_free(slots);
	free(slots);
	free(bench);
	free(log);
	name_list_free(&files);
	br_run_free(r);
	return -1;
}

void
br_run_free(br_run *r)
{
	if (r == NULL)
		return;
	free(r->dir);
	free(r->name);
	br_bench_set_free(&r->bench);
	if (r->metrics) {
		br_series_free(r->metrics);
		free(r->metrics);
	}
	if (r->log) {
		br_server_log_free(r->log);
		free(r->log);
	}
	free(r->gpu);
	free(r->driver);
	free(r->cuda);
	free(r->notes);
	free(r->server_version);
	free(r->role);
	br_plan_free(r->plan, r->n_plan);
	for (size_t i = 0; i < r->n_inputs; i++) {
		free(r->inputs[i].path);
		free(r->inputs[i].role);
	}
	free(r->inputs);
	for (size_t i = 0; i < r->n_set_aside; i++) {
		free(r->set_aside[i].path);
		free(r->set_aside[i].files);
		free(r->set_aside[i].what);
		free(r->set_aside[i].reason);
	}
	free(r->set_aside);
	for (size_t i = 0; i < r->n_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	memset(r, 0, sizeof *r);
}

/*
 * The /slots poller beside the /metrics sampler (capture.h): on each
 * answered tick of a llama-server, GET /slots and append one line
 * {"t_unix_s": arrival epoch s, "slots": [the answer, compacted]} to
 * slots.jsonl, the file br_slots_load (src/ingest/slots.c) reads.
 * llama-server answers /slots by default (ENGINES.md §1.3); started with
 * --no-slots it answers HTTP 501, and then polling stops for the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "curl_lib.h"
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"
#include "capture_priv.h"

#define SLOTS_MAX_BODY (16u << 20)
#define SLOTS_SIGNATURE "{\"t_unix_s\""   /* how every line benchreport writes begins */

struct br_slots_poll {
	CURL *h;
	br_body_buf body;         /* the answer, capped at SLOTS_MAX_BODY */
	FILE *out;
	char *url, *path;
	int stopped;              /* 1 after an answer that says the server has no /slots */
	size_t n_written;         /* snapshot lines written */
};

/* br_slots_url: see capture.h. */
char *
br_slots_url(const char *metrics_url)
{
	const char *q = strchr(metrics_url, '?');
	size_t n = q ? (size_t)(q - metrics_url) : strlen(metrics_url);
	while (n > 0 && metrics_url[n - 1] == '/')
		n--;
	if (n >= 8 && memcmp(metrics_url + n - 8, "/metrics", 8) == 0)
		n -= 8;
	/* a query (?model=... in router mode) applies to /slots too */
	return br_xasprintf("%.*s/slots%s", (int)n, metrics_url, q ? q : "");
}

/* br_slots_path_for: see capture.h. */
char *
br_slots_path_for(const char *csv_path)
{
	const char *base = strrchr(csv_path, '/');
	base = base ? base + 1 : csv_path;
	size_t dir_len = (size_t)(base - csv_path), n = strlen(base);
	if (strcmp(base, "metrics.csv") == 0)
		return br_xasprintf("%.*sslots.jsonl", (int)dir_len, csv_path);
	if (n > 4 && strcmp(base + n - 4, ".csv") == 0)
		n -= 4;
	return br_xasprintf("%.*s%.*s.slots.jsonl", (int)dir_len, csv_path, (int)n, base);
}

/* br_slots_poll_open: see capture.h. */
br_slots_poll *
br_slots_poll_open(const char *metrics_url, const char *csv_path, int force, double timeout_s, char **cause)
{
	char *path = br_slots_path_for(csv_path);
	char *why = NULL;
	if (br_output_replaceable(path, SLOTS_SIGNATURE, &why) != 0) {
		*cause = why;   /* a file of the user's under that name is never replaced */
		free(path);
		return NULL;
	}
	FILE *fp = fopen(path, force ? "w" : "wx");
	if (fp == NULL) {
		*cause = br_xasprintf("%s: %s", path, errno == EEXIST ? "exists (an earlier capture's snapshots); "
		    "/slots not polled (pass --force to replace it)" : strerror(errno));
		free(path);
		return NULL;
	}
	br_slots_poll *p = br_xcalloc(1, sizeof *p);
	p->out = fp;
	p->path = path;
	p->url = br_slots_url(metrics_url);
	p->body = (br_body_buf){ .text = g_string_new(NULL), .max_bytes = SLOTS_MAX_BODY };
	p->h = br_curl.easy_init();
	long ms = (long)(timeout_s * 1000);
	br_curl.easy_setopt(p->h, CURLOPT_URL, p->url);
	br_curl.easy_setopt(p->h, CURLOPT_WRITEFUNCTION, br_body_buf_write);
	br_curl.easy_setopt(p->h, CURLOPT_WRITEDATA, &p->body);
	br_curl.easy_setopt(p->h, CURLOPT_NOSIGNAL, 1L);
	br_curl.easy_setopt(p->h, CURLOPT_TCP_KEEPALIVE, 1L);
	br_curl.easy_setopt(p->h, CURLOPT_ACCEPT_ENCODING, "");
	br_curl.easy_setopt(p->h, CURLOPT_USERAGENT, "benchreport-sample/0.1.0");
	br_curl.easy_setopt(p->h, CURLOPT_FOLLOWLOCATION, 1L);   /* as the /metrics scrape */
	br_curl.easy_setopt(p->h, CURLOPT_MAXREDIRS, 3L);
	br_curl.easy_setopt(p->h, CURLOPT_TIMEOUT_MS, ms < 50 ? 50L : ms);
	return p;
}

/* br_slots_drop_stale: see capture.h. */
void
br_slots_drop_stale(const char *csv_path, FILE *log)
{
	char *path = br_slots_path_for(csv_path), *why = NULL;
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (br_output_replaceable(path, SLOTS_SIGNATURE, &why) == 0)
			unlink(path);
		else if (log != NULL)
			fprintf(log, "benchreport sample: %s is not a benchreport /slots file; left as it is\n", path);
		free(why);
	}
	free(path);
}

/* br_slots_poll_tick: see capture.h. */
int
br_slots_poll_tick(br_slots_poll *p, double timeout_s, double (*wall_s)(void), char *err, size_t errsz,
    char **cause)
{
	if (p == NULL || p->stopped)
		return 0;
	long ms = (long)(timeout_s * 1000);
	br_curl.easy_setopt(p->h, CURLOPT_TIMEOUT_MS, ms < 50 ? 50L : ms);
	g_string_truncate(p->body.text, 0);
	p->body.too_big = 0;
	CURLcode rc = br_curl.easy_perform(p->h);
	double t = wall_s();
	if (rc != CURLE_OK) {
		snprintf(err, errsz, "%s", p->body.too_big ? "answer larger than 16 MiB" : br_curl.easy_strerror(rc));
		return -1;
	}
	long code = 0;
	br_curl.easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, &code);
	if (code == 501 || code == 404) {
		/* --no-slots (501), or a server without the endpoint: nothing to poll */
		p->stopped = 1;
		snprintf(err, errsz, "HTTP %ld (the server has no /slots, e.g. started with --no-slots); "
		    "not polled any more", code);
		return -1;
	}
	if (code != 200) {
		snprintf(err, errsz, "HTTP %ld", code);
		return -1;
	}
	json_error_t je;
	json_t *root = json_loadb(p->body.text->str, p->body.text->len, 0, &je);
	if (!json_is_array(root)) {
		snprintf(err, errsz, root ? "expected a JSON array of slots" : "not JSON (%d:%d: %s)", je.line,
		    je.column, je.text);
		json_decref(root);
		return -1;
	}
	char *compact = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (compact == NULL) {
		fputs("benchreport: out of memory\n", stderr);
		abort();
	}
	int bad = fprintf(p->out, "{\"t_unix_s\": %.3f, \"slots\": %s}\n", t, compact) < 0 || fflush(p->out) != 0;
	free(compact);
	p->n_written += !bad;
	if (bad) {
		*cause = br_xasprintf("%s: cannot write (%s)", p->path, strerror(errno));
		return -2;
	}
	return 1;
}

/* br_slots_poll_close: see capture.h. */
void
br_slots_poll_close(br_slots_poll *p)
{
	if (p == NULL)
		return;
	br_curl.easy_cleanup(p->h);
	g_string_free(p->body.text, TRUE);
	if (p->out != NULL)
		fclose(p->out);
	/* no snapshot at all (a server without /slots): no empty file left for a
	 * run folder's reader to refuse */
	if (p->n_written == 0)
		unlink(p->path);
	free(p->url);
	free(p->path);
	free(p);
}

/* br_slots_poll_path: see capture.h. */
const char *
br_slots_poll_path(const br_slots_poll *p)
{
	return p ? p->path : NULL;
}

/*
 * Pieces of `benchreport record` that are not the sampler: the server-log
 * excerpt of a run and the GPU identity from nvidia-smi
 * (include/benchreport/capture.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"

/* Lines that open a server's start-up block, and the one that closes it. */
static const char *const startup_marks[] = {
	"vLLM API server version", "non-default args", "server_args=", "system_info:",
	"main: loading model", NULL
};
#define STARTUP_DONE "Application startup complete"
/* lines of a server at work: the start-up block ends before the first one */
static const char *const work_marks[] = {
	"Avg prompt throughput", "Decode batch", "Prefill batch", "POST /v1/", "slot launch_slot_",
	"all slots are idle", NULL
};
#define STARTUP_MAX_LINES 2000

static int
line_has(const char *line, size_t n, const char *const *marks)
{
	for (size_t k = 0; marks[k]; k++)
		if (memmem(line, n, marks[k], strlen(marks[k])) != NULL)
			return 1;
	return 0;
}

/*
 * startup_block: [*b0, *b1) of data[0, off): the last start-up block, its
 * first line the earliest mark of a run of marks with no line of a server
 * at work between them (one start-up prints several marks; a restart after
 * a run is a new block), its end "Application startup complete", the
 * first line of work, or STARTUP_MAX_LINES lines. Returns 0 when found.
 */
static int
startup_block(const char *data, size_t off, size_t *b0, size_t *b1)
{
	size_t *mark_off = NULL, *mark_work = NULL, n_marks = 0, work = 0;
	for (size_t p = 0; p < off;) {
		const char *nl = memchr(data + p, '\n', off - p);
		size_t e = nl ? (size_t)(nl - data) : off;
		/* llama-server opens with "build: 5489 (hash) ..." (system_info
		 * follows in a real log, but not in every excerpt of one) */
		int build_line = e - p > 8 && memcmp(data + p, "build: ", 7) == 0 && data[p + 7] >= '0' &&
		    data[p + 7] <= '9';
		if (build_line || line_has(data + p, e - p, startup_marks)) {
			mark_off = br_xrealloc(mark_off, (n_marks + 1) * sizeof *mark_off);
			mark_work = br_xrealloc(mark_work, (n_marks + 1) * sizeof *mark_work);
			mark_off[n_marks] = p;
			mark_work[n_marks++] = work;
		} else if (line_has(data + p, e - p, work_marks))
			work++;
		p = e + 1;
	}
	if (n_marks == 0)
		return -1;
	size_t k = n_marks - 1;
	while (k > 0 && mark_work[k - 1] == mark_work[k])
		k--;
	*b0 = mark_off[k];
	free(mark_off);
	free(mark_work);
	size_t lines = 0, end = *b0;
	for (size_t p = *b0; p < off && lines < STARTUP_MAX_LINES;) {
		const char *nl = memchr(data + p, '\n', off - p);
		size_t e = nl ? (size_t)(nl - data) + 1 : off;
		if (lines > 0 && line_has(data + p, e - p, work_marks))
			break;
		lines++;
		end = e;
		if (memmem(data + p, e - p, STARTUP_DONE, strlen(STARTUP_DONE)) != NULL)
			break;
		p = e;
	}
	*b1 = end;
	return 0;
}

/* br_log_startup_block: see capture.h. */
char *
br_log_startup_block(const char *src, long long *size_out, char **cause)
{
	char *data = NULL;
	size_t len = 0, b0, b1;
	*size_out = 0;
	if (br_read_file(src, &data, &len, cause) != 0)
		return NULL;
	*size_out = (long long)len;
	char *block = NULL;
	if (startup_block(data, len, &b0, &b1) == 0 && b1 > b0) {
		block = br_xstrndup(data + b0, b1 - b0);
		if (block[b1 - b0 - 1] != '\n') {
			char *t = br_xasprintf("%s\n", block);
			free(block);
			block = t;
		}
	}
	free(data);
	if (block == NULL)
		*cause = NULL;
	return block;
}

/* br_log_write_run: see capture.h. */
long long
br_log_write_run(const char *src, long long start_size, const char *startup, const char *dst,
    int *rotated, char **cause)
{
	char *data = NULL;
	size_t len = 0;
	*rotated = 0;
	if (br_read_file(src, &data, &len, cause) != 0)
		return -1;
	size_t off;
	if (start_size > 0 && (size_t)start_size <= len) {
		off = (size_t)start_size;
		/* whole lines only */
		if (data[off - 1] != '\n') {
			char *nl = memchr(data + off, '\n', len - off);
			off = nl ? (size_t)(nl - data) + 1 : len;
		}
	} else {
		off = 0;
		*rotated = start_size > 0;   /* it shrank: rotated or truncated during the run */
	}
	FILE *fp = fopen(dst, "wb");
	if (fp == NULL) {
		*cause = br_xasprintf("%s: cannot create (%s)", dst, strerror(errno));
		free(data);
		return -1;
	}
	size_t sl = startup ? strlen(startup) : 0;
	int ok = fwrite(startup ? startup : "", 1, sl, fp) == sl;
	ok &= fwrite(data + off, 1, len - off, fp) == len - off;
	ok &= fclose(fp) == 0;
	free(data);
	if (!ok) {
		*cause = br_xasprintf("%s: cannot write (%s)", dst, strerror(errno));
		return -1;
	}
	return (long long)(sl + len - off);
}

/* run_capture: the stdout of `cmd` (run without a shell) when it exits 0,
 * else NULL. g_free the result. */
static char *
run_capture(const char *cmd)
{
	char *out = NULL, *err = NULL;
	int status = 0;
	gboolean ran = g_spawn_command_line_sync(cmd, &out, &err, &status, NULL);
	g_free(err);   /* nvidia-smi's complaints are not ours to print */
	if (!ran || status != 0) {
		g_free(out);
		return NULL;
	}
	return out;
}

/* trim_dup: [s, s+n) without surrounding blanks, malloc'd; NULL when empty. */
static char *
trim_dup(const char *s, size_t n)
{
	char *t = g_strstrip(br_xstrndup(s, n));   /* strips in place: t is the copy */
	if (*t == '\0') {
		free(t);
		return NULL;
	}
	return t;
}

/* br_gpu_identity_query: see capture.h. */
int
br_gpu_identity_query(br_gpu_identity *out)
{
	memset(out, 0, sizeof *out);
	if (!br_gpu_query_available())
		return -1;
	char *q = run_capture("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader");
	if (q == NULL)
		return -1;
	char *first_name = NULL;
	int n = 0, same = 1;
	for (char *line = q, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		size_t ll = nl ? (size_t)(nl - line) : strlen(line);
		char *comma = memchr(line, ',', ll);
		if (comma == NULL)
			continue;
		char *name = trim_dup(line, (size_t)(comma - line));
		if (name == NULL)
			continue;
		n++;
		if (first_name == NULL) {
			first_name = name;
			out->driver = trim_dup(comma + 1, ll - (size_t)(comma + 1 - line));
		} else {
			same &= strcmp(name, first_name) == 0;
			free(name);
		}
	}
	g_free(q);
	if (first_name == NULL)
		return -1;
	out->n_gpus = n;
	if (n > 1 && same)
		out->gpu = br_xasprintf("%d × %s", n, first_name);
	else if (n > 1)
		out->gpu = br_xasprintf("%s and %d other GPU%s", first_name, n - 1, n == 2 ? "" : "s");
	else
		out->gpu = br_xstrdup(first_name);
	free(first_name);
	char *full = run_capture("nvidia-smi");
	const char *cv = full ? strstr(full, "CUDA Version:") : NULL;
	if (cv != NULL) {
		cv += strlen("CUDA Version:");
		while (*cv == ' ')
			cv++;
		size_t k = 0;
		while (cv[k] && (cv[k] == '.' || (cv[k] >= '0' && cv[k] <= '9')))
			k++;
		out->cuda = k ? br_xstrndup(cv, k) : NULL;
	}
	g_free(full);
	return 0;
}

void
br_gpu_identity_free(br_gpu_identity *g)
{
	free(g->gpu);
	free(g->driver);
	free(g->cuda);
	memset(g, 0, sizeof *g);
}

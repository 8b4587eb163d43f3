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
#include "benchreport/common.h"
#include "benchreport/capture.h"

/* Lines that open a server's start-up block, and the one that closes it. */
static const char *const startup_marks[] = {
	"vLLM API server version", "non-default args", "server_args=", "system_info:", NULL
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

/* br_log_copy_run: see capture.h. */
long long
br_log_copy_run(const char *src, long long start_offset, const char *dst, int *startup_found, char **cause)
{
	char *data = NULL;
	size_t len = 0;
	*startup_found = 0;
	if (br_read_file(src, &data, &len, cause) != 0)
		return -1;
	size_t off = start_offset > 0 && (size_t)start_offset <= len ? (size_t)start_offset : 0;
	/* the whole lines written since the run started */
	if (off > 0 && data[off - 1] != '\n') {
		char *nl = memchr(data + off, '\n', len - off);
		off = nl ? (size_t)(nl - data) + 1 : len;
	}
	/* the last start-up block that began before the run: the last mark line,
	 * moved back over earlier marks less than 50 lines before it (one
	 * start-up prints several) */
	size_t blk = (size_t)-1, line_no = 0;
	size_t *mark_off = NULL, *mark_line = NULL, n_marks = 0;
	for (size_t p = 0; p < off; line_no++) {
		char *nl = memchr(data + p, '\n', off - p);
		size_t e = nl ? (size_t)(nl - data) : off;
		if (line_has(data + p, e - p, startup_marks)) {
			mark_off = br_xrealloc(mark_off, (n_marks + 1) * sizeof *mark_off);
			mark_line = br_xrealloc(mark_line, (n_marks + 1) * sizeof *mark_line);
			mark_off[n_marks] = p;
			mark_line[n_marks++] = line_no;
		}
		p = e + 1;
	}
	if (n_marks > 0) {
		size_t k = n_marks - 1;
		while (k > 0 && mark_line[k] - mark_line[k - 1] < 50)
			k--;
		blk = mark_off[k];
	}
	free(mark_off);
	free(mark_line);
	size_t blk_end = blk;
	if (blk != (size_t)-1) {
		*startup_found = 1;
		size_t lines = 0;
		for (size_t p = blk; p < off && lines < STARTUP_MAX_LINES;) {
			char *nl = memchr(data + p, '\n', off - p);
			size_t e = nl ? (size_t)(nl - data) + 1 : off;
			if (lines > 0 && line_has(data + p, e - p, work_marks))
				break;
			lines++;
			blk_end = e;
			if (memmem(data + p, e - p, STARTUP_DONE, strlen(STARTUP_DONE)) != NULL)
				break;
			p = e;
		}
	}
	FILE *fp = fopen(dst, "wb");
	if (fp == NULL) {
		*cause = br_xasprintf("%s: cannot create (%s)", dst, strerror(errno));
		free(data);
		return -1;
	}
	size_t written = 0;
	int ok = 1;
	if (blk != (size_t)-1 && blk_end > blk) {
		ok &= fwrite(data + blk, 1, blk_end - blk, fp) == blk_end - blk;
		written += blk_end - blk;
		if (blk_end < off && data[blk_end - 1] != '\n')
			ok &= fputc('\n', fp) != EOF;
	}
	size_t from = off > blk_end || blk == (size_t)-1 ? off : blk_end;
	ok &= fwrite(data + from, 1, len - from, fp) == len - from;
	written += len - from;
	ok &= fclose(fp) == 0;
	free(data);
	if (!ok) {
		*cause = br_xasprintf("%s: cannot write (%s)", dst, strerror(errno));
		return -1;
	}
	return (long long)written;
}

/* run_capture: the first line of `cmd`'s stdout (or all with all=1); NULL on failure. */
static char *
run_capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (p == NULL)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = br_xrealloc(buf, cap);
		}
		memcpy(buf + len, chunk, n);
		len += n;
		buf[len] = '\0';
	}
	int st = pclose(p);
	if (st != 0 || buf == NULL) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *
trim_dup(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	return n ? br_xstrndup(s, n) : NULL;
}

/* br_gpu_identity_query: see capture.h. */
int
br_gpu_identity_query(br_gpu_identity *out)
{
	memset(out, 0, sizeof *out);
	if (!br_gpu_query_available())
		return -1;
	char *q = run_capture("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null");
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
	free(q);
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
	char *full = run_capture("nvidia-smi 2>/dev/null");
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
	free(full);
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

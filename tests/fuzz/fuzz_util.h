/*
 * Helpers shared by the libFuzzer targets in tests/fuzz/ (header only).
 *
 * The loaders that only take a path get the input through one temporary
 * file per process and target: /dev/shm when writable (no disk I/O), else
 * $TMPDIR, else /tmp. The same name is reused for every input and removed
 * at exit.
 */
#ifndef BR_FUZZ_UTIL_H
#define BR_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char br_fuzz_path_buf[4096];

static void __attribute__((unused))
br_fuzz_unlink(void)
{
	if (br_fuzz_path_buf[0])
		unlink(br_fuzz_path_buf);
}

/* br_fuzz_tmp_path: the per-process temporary file name for this target,
 * e.g. /dev/shm/br-fuzz-metrics_csv-1234.csv. */
static const char * __attribute__((unused))
br_fuzz_tmp_path(const char *tag, const char *ext)
{
	if (br_fuzz_path_buf[0])
		return br_fuzz_path_buf;
	const char *dir = "/dev/shm";
	if (access(dir, W_OK) != 0) {
		dir = getenv("TMPDIR");
		if (dir == NULL || *dir == '\0' || access(dir, W_OK) != 0)
			dir = "/tmp";
	}
	snprintf(br_fuzz_path_buf, sizeof br_fuzz_path_buf, "%s/br-fuzz-%s-%ld%s",
	    dir, tag, (long)getpid(), ext);
	atexit(br_fuzz_unlink);
	return br_fuzz_path_buf;
}

/* br_fuzz_write: the input becomes the whole content of path. A failure
 * here is the harness's, not the project's: report and abort. */
static void __attribute__((unused))
br_fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		abort();
	}
	size_t done = 0;
	while (done < size) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			perror(path);
			abort();
		}
		done += (size_t)w;
	}
	close(fd);
}

/* br_fuzz_check_cause: the error convention (common.h): -1 comes with a
 * message, 0 without one. BR_FUZZ_VERBOSE=1 prints the message (to see
 * why a seed is refused: ./fuzz_x seed_file). */
static void __attribute__((unused))
br_fuzz_check_cause(const char *target, int rc, const char *cause)
{
	const char *verbose = getenv("BR_FUZZ_VERBOSE");
	if (verbose != NULL && verbose[0] != '\0' && strcmp(verbose, "0") != 0)
		fprintf(stderr, "%s: %s%s\n", target, rc == 0 ? "ok" : "error: ", cause ? cause : "");
	if (rc != 0 && rc != -1) {
		fprintf(stderr, "%s: returned %d, expected 0 or -1\n", target, rc);
		abort();
	}
	if (rc == -1 && (cause == NULL || cause[0] == '\0')) {
		fprintf(stderr, "%s: returned -1 without a message in *cause\n", target);
		abort();
	}
	if (rc == 0 && cause != NULL) {
		fprintf(stderr, "%s: returned 0 but set *cause: %s\n", target, cause);
		abort();
	}
}

static int
br_fuzz_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* br_fuzz_check_unique_names: a series' column names are distinct (columns
 * are looked up by name; a duplicate would hide one of them). */
static void __attribute__((unused))
br_fuzz_check_unique_names(const char *target, char *const *names, size_t n)
{
	if (n < 2)
		return;
	const char **v = malloc(n * sizeof *v);
	if (v == NULL)
		abort();
	memcpy(v, names, n * sizeof *v);
	qsort(v, n, sizeof *v, br_fuzz_strptr_cmp);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i - 1], v[i]) == 0) {
			fprintf(stderr, "%s: column name \"%s\" appears twice in the series\n", target, v[i]);
			abort();
		}
	free(v);
}

#endif

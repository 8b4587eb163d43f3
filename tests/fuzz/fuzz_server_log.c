/*
 * libFuzzer target: br_server_log_load (src/ingest/server_log.c), and
 * br_server_log_looks_like on the same file. The loader takes a path, so
 * each input is written to one per-process temporary file first.
 *
 * -max_len is 64 KB for this target (scripts/fuzz.sh): hard-wrap joining was
 * quadratic in the joined length before ebf8c20 (now linear, 64 KiB cap).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchreport/serverlog.h"
#include "fuzz_util.h"

static void __attribute__((noreturn))
bad(const char *what)
{
	fprintf(stderr, "fuzz_server_log: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = br_fuzz_tmp_path("server_log", ".log");
	br_fuzz_write(path, data, size);
	br_server_log l;
	char *cause = NULL;
	int rc = br_server_log_load(path, &l, &cause);
	br_fuzz_check_cause("br_server_log_load", rc, cause);
	int looks = br_server_log_looks_like(path);
	if (rc == 0) {
		if (!looks)
			bad("br_server_log_load accepted a file br_server_log_looks_like refuses");
		if (l.n_stats > 0 && l.stats == NULL)
			bad("n_stats > 0 with stats NULL");
		for (size_t i = 0; i < l.n_stats; i++)
			if (l.stats[i].line < 1 || (i > 0 && l.stats[i].line < l.stats[i - 1].line))
				bad("stats lines must be 1-based and in file order");
		if (l.did_not_start && l.failure_message == NULL)
			bad("did_not_start without a failure_message");
	}
	br_server_log_free(&l);
	free(cause);
	return 0;
}

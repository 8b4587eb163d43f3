/*
 * libFuzzer target: br_slots_load (src/ingest/slots.c), llama-server /slots
 * snapshots one JSON object per line. The loader takes a path, so each
 * input is written to a per-process temporary file first. Besides the
 * sanitizers it checks the promises of metrics.h on success: at least one
 * row, times finite, in order and not all equal, the four columns, busy
 * slots between 0 and the slots listed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "benchreport/metrics.h"
#include "fuzz_util.h"

static void __attribute__((noreturn))
bad(const char *what)
{
	fprintf(stderr, "fuzz_slots: %s\n", what);
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = br_fuzz_tmp_path("slots", ".jsonl");
	br_fuzz_write(path, data, size);
	br_series s;
	char *cause = NULL;
	int rc = br_slots_load(path, &s, &cause);
	if (rc == 1) {
		/* an empty file: a message, no rows */
		if (cause == NULL || s.n_rows != 0)
			bad("an empty file returned 1 without a message or with rows");
		free(cause);
		return 0;
	}
	br_fuzz_check_cause("br_slots_load", rc, cause);
	if (rc == 0) {
		if (s.n_rows == 0 || s.n_cols != 4)
			bad("success without a row or without its four columns");
		const double *total = br_series_col(&s, "llamacpp_slots:total");
		const double *busy = br_series_col(&s, "llamacpp_slots:busy");
		if (total == NULL || busy == NULL)
			bad("the total or busy column is missing");
		for (size_t i = 0; i < s.n_rows; i++) {
			if (!isfinite(s.t_s[i]) || (i > 0 && s.t_s[i] < s.t_s[i - 1]))
				bad("snapshot times must be finite and in order");
			if (!(busy[i] >= 0 && busy[i] <= total[i]))
				bad("busy slots outside 0 .. the slots listed");
		}
		if (s.n_rows > 1 && s.t_s[0] == s.t_s[s.n_rows - 1])
			bad("several snapshots of one instant accepted");
	}
	br_series_free(&s);
	free(cause);
	return 0;
}

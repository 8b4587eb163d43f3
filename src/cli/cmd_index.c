/*
 * `benchreport index DIR|summary.json... [-o FILE] [--jsonl] [--skip-bad]`:
 * one row per archived run (src/report/archive_index.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/report.h"
#include "cli/cmd.h"

int
br_cmd_index(int argc, char **argv)
{
	const char *out = NULL;
	int jsonl = 0, skip_bad = 0, quiet = 0;
	const char **inputs = br_xcalloc((size_t)argc + 1, sizeof *inputs);
	size_t n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
			if (i + 1 >= argc || argv[i + 1][0] == '\0' || out != NULL) {
				fprintf(stderr, "benchreport index: %s needs one non-empty FILE\n", a);
				free(inputs);
				return BR_EXIT_USAGE;
			}
			out = argv[++i];
		} else if (strcmp(a, "--jsonl") == 0)
			jsonl = 1;
		else if (strcmp(a, "--skip-bad") == 0)
			skip_bad = 1;
		else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
			quiet = 1;
		else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "benchreport index: unknown option '%s' (usage: benchreport index "
			    "DIR... [-o FILE] [--jsonl] [--skip-bad])\n", a);
			free(inputs);
			return BR_EXIT_USAGE;
		} else
			inputs[n++] = a;
	}
	if (n == 0) {
		fprintf(stderr, "benchreport index: name at least one folder of reports "
		    "(usage: benchreport index DIR... [-o FILE] [--jsonl] [--skip-bad])\n");
		free(inputs);
		return BR_EXIT_USAGE;
	}
	char *cause = NULL;
	size_t rows = 0;
	/* an index benchreport wrote is replaced whichever form it had (a CSV
	 * index by a JSONL one and back), as the README says */
	char *other = NULL;
	if (out != NULL && br_output_replaceable(out, jsonl ? "{\"summary_path\"" : "summary_path,report_kind,",
	    &cause) != 0 && br_output_replaceable(out, jsonl ? "summary_path,report_kind," : "{\"summary_path\"",
	    &other) != 0) {
		free(other);
		fprintf(stderr, "benchreport index: -o %s\n", cause);
		free(cause);
		free(inputs);
		return BR_EXIT_USAGE;
	}
	free(cause);   /* the first form's refusal, when the other form matched */
	cause = NULL;
	free(other);
	other = NULL;
	if (out != NULL && br_archive_index_replaceable(out, &cause) != 0) {
		fprintf(stderr, "benchreport index: -o %s\n", cause);
		free(cause);
		free(inputs);
		return BR_EXIT_USAGE;
	}
	int rc = br_archive_index(inputs, n, out, jsonl, skip_bad, stderr, &rows, &cause);
	if (rc != 0) {
		fprintf(stderr, "benchreport index: %s\n", cause);
		free(cause);
		free(inputs);
		return rc == -2 ? BR_EXIT_ANALYSIS : BR_EXIT_INPUT;
	}
	if (rows == 0 && !quiet)   /* an empty index is valid, but say why it is empty */
		fprintf(stderr, "benchreport index: no summary.json of a benchreport report under %s%s: the "
		    "index holds its header only\n", inputs[0], n > 1 ? " and the other folders named" : "");
	free(inputs);
	if (!quiet && out != NULL)
		fprintf(stderr, "benchreport index: %zu run%s written to %s\n", rows, rows == 1 ? "" : "s", out);
	return BR_EXIT_OK;
}

/*
 * A campaign (DESIGN.md §1): a folder whose sub-folders are runs — one
 * round of tests over several configurations. Every run is loaded and
 * analysed; zero-preemption runs with the FLOPs counter calibrate the FLOPs
 * model (§3.8); the focus run (most preemptions, or --focus NAME) gets the
 * detailed chapters.
 *
 * Ownership: br_campaign owns its runs, analyses and calibration;
 * br_campaign_free releases everything.
 */
#ifndef BENCHREPORT_CAMPAIGN_H
#define BENCHREPORT_CAMPAIGN_H

#include <stddef.h>
#include "benchreport/run.h"
#include "benchreport/analysis.h"

typedef struct br_campaign {
	char *dir;
	char *name;                 /* folder name */
	br_run *runs;               /* n_runs, sorted by name */
	br_analysis *analyses;      /* one per run, analyses[i].run == &runs[i] */
	size_t n_runs;
	size_t focus;               /* index of the focus run */
	const char *focus_reason;   /* "most preemptions", "--focus" */
	br_run *calibration_runs;   /* extra runs from --calibration DIR... (owned) */
	size_t n_calibration_runs;
	int has_calibration;        /* calibration fitted (>= 2 usable runs) */
	char *calibration_missing;  /* why not, when !has_calibration (malloc'd) */
	br_flops_calibration calibration;
	char **warnings;
	size_t n_warnings;
} br_campaign;

/* br_campaign_looks_like: 1 when dir holds no bench result of its own but
 * at least one sub-folder that does. */
int br_campaign_looks_like(const char *dir);

/*
 * br_campaign_load: load and analyse every run sub-folder of dir (folders
 * without a bench result are skipped with a warning; a bad input in any run
 * fails the whole load with its file:line:col cause). focus_name (NULL =
 * the run with the most preemptions; ties → the first by name) picks the
 * focus run. calib_dirs (may be NULL/0): extra run folders or campaigns
 * used only for the FLOPs calibration, added to the campaign's own
 * zero-preemption runs. Returns 0 or -1 with *cause.
 */
int br_campaign_load(const char *dir, const char *focus_name,
    const char *const *calib_dirs, size_t n_calib, br_campaign *out, char **cause);

void br_campaign_free(br_campaign *c);

#endif

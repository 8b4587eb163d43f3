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
#include "benchreport/stats.h"

/* Per-measurement values compared across repeats (units in the names). */
enum {
	BR_REPEAT_OUT_TPS,      /* output tokens/s */
	BR_REPEAT_TOTAL_TPS,    /* total tokens/s */
	BR_REPEAT_TTFT_P50,     /* ms */
	BR_REPEAT_TTFT_P99,     /* ms */
	BR_REPEAT_ITL_P50,      /* ms */
	BR_REPEAT_E2EL_P50,     /* ms */
	BR_REPEAT_ITL_P99,      /* ms */
	BR_REPEAT_PREEMPTIONS,  /* count over the run window (the analysed result only) */
	BR_REPEAT_N_METRICS
};
extern const char *const br_repeat_metric_name[BR_REPEAT_N_METRICS]; /* summary.json keys */

/* One bench result of a campaign run (a folder may hold several). */
typedef struct br_measurement {
	size_t run;             /* index into br_campaign.runs */
	size_t result;          /* index into runs[run].bench.runs (0 = the one analysed) */
	size_t group;           /* index into br_campaign.groups */
	char *name;             /* run name, "NAME run=N" / "NAME #k" for one of several results */
	double value[BR_REPEAT_N_METRICS];  /* NAN when absent */
} br_measurement;

/* Measurements with identical settings (src/analysis/repeats.c says which). */
typedef struct br_config_group {
	char *key;              /* settings fingerprint */
	char *label;            /* shared name stem of the members ("c64" for c64-r1, c64-r2), else the first name */
	size_t *members;        /* indices into br_campaign.measurements, in load order */
	size_t n;               /* repeats */
	br_mean_ci stat[BR_REPEAT_N_METRICS];
	size_t n_all_failed;    /* members whose every request failed (their latencies absent,
	                           so a statistic's own n can be below the group's n) */
	size_t first_run;       /* (added) the member run first: the earliest bench date when
	                           every member states one, else members[0] (index into members) */
	int warmup_suspect;     /* the first run's TTFT p99 > 3 × the median of the others' */
	double warmup_ratio;    /* that ratio */
	double warmup_rest_p99_ms; /* the others' median TTFT p99, ms */
} br_config_group;

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
	char **no_bench_runs;       /* (added) sub-folders that look like runs (server.log,
	                               metrics.csv, metrics/, run.json or a .prom file) but hold no
	                               bench result: a load client that died. Not runs, but a CI
	                               gate must not pass over them. Owned */
	size_t n_no_bench_runs;
	/* repeats (br_campaign_group_repeats, called by br_campaign_load) */
	br_measurement *measurements;
	size_t n_measurements;
	br_config_group *groups;
	size_t n_groups;
	size_t max_repeats;         /* largest n of a group; 1 = no configuration was repeated */
	/* the campaign's experiment plan: campaign.json "expect" in the folder (owned; NULL, 0 = none) */
	br_plan_item *plan;
	size_t n_plan;
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
 * zero-preemption runs. Returns 0, -1 with *cause (an input), or -2 with
 * *cause (focus_name names no run: a usage error).
 */
int br_campaign_load(const char *dir, const char *focus_name,
    const char *const *calib_dirs, size_t n_calib, br_campaign *out, char **cause);

/*
 * br_campaign_read (src/ingest/campaign_read.c): the disk half of
 * br_campaign_load: dir, name, campaign.json's plan, every run sub-folder
 * (br_run_load), the --calibration folders, and the warnings about them.
 * No analysis. Returns 0, or -1 with *cause (out zeroed).
 */
int br_campaign_read(const char *dir, const char *const *calib_dirs, size_t n_calib,
    br_campaign *out, char **cause);

/* br_campaign_inputs_free (src/ingest/campaign_read.c): free what
 * br_campaign_read filled (runs, calibration runs, plan, warnings, dir,
 * name) and zero c; br_campaign_free calls it after the analysis half. */
void br_campaign_inputs_free(br_campaign *c);

/*
 * br_campaign_analyze (src/analysis/campaign.c): the analysis half: every
 * run analysed, repeats grouped, the focus picked (focus_name, else the
 * most preemptions), the FLOPs calibration fitted on the zero-preemption
 * runs plus the calibration runs. Returns 0, or -2 with *cause (an unknown
 * --focus, listing the runs); the caller frees c with br_campaign_free
 * either way.
 */
int br_campaign_analyze(br_campaign *c, const char *focus_name, char **cause);

void br_campaign_free(br_campaign *c);

/*
 * br_campaign_group_repeats: split the campaign's bench results into
 * measurements and group those with identical settings (fingerprint in
 * src/analysis/repeats.c) into configurations with mean ± sd and 95%
 * interval per metric. Replaces nothing the caller holds; freed by
 * br_campaign_free.
 */
void br_campaign_group_repeats(br_campaign *c);

/*
 * br_run_name_stem: run name `name` without a repeat suffix ("-r2", "_r10",
 * ".r3", "-rep2", "-run2", " run=1", " #2"): "c64" for "c64-r2"; the name
 * itself when it has none (or is only digits). The configuration label of
 * repeats that share it. Returns a new string (caller frees).
 */
char *br_run_name_stem(const char *name);

/* br_campaign_group_of_run: the configuration of run i's reported result. */
const br_config_group *br_campaign_group_of_run(const br_campaign *c, size_t run);

void br_campaign_repeats_free(br_campaign *c);

#endif

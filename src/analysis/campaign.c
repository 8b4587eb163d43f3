/*
 * Campaign analysis (DESIGN.md §1, §3.8): every run read by
 * br_campaign_read (src/ingest/campaign_read.c) is analysed;
 * zero-preemption runs that carry the FLOPs counter (plus the --calibration
 * runs) calibrate the FLOPs model; the run with the most preemptions (or
 * --focus) is the focus of the detailed chapters. Nothing here reads a file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/campaign.h"

/*
 * br_campaign_analyze: see campaign.h.
 */
int
br_campaign_analyze(br_campaign *c, const char *focus_name, char **cause)
{
	const char *dir = c->dir;
	c->analyses = br_xcalloc(c->n_runs ? c->n_runs : 1, sizeof *c->analyses);
	for (size_t i = 0; i < c->n_runs; i++)
		br_analyze(&c->runs[i], &c->analyses[i]);
	br_campaign_group_repeats(c);
	/* focus: --focus by run name or folder name, else most preemptions */
	if (focus_name != NULL) {
		size_t i;
		for (i = 0; i < c->n_runs; i++)
			if (strcmp(c->runs[i].name, focus_name) == 0 ||
			    strcmp(br_basename(c->runs[i].dir), focus_name) == 0)
				break;
		if (i == c->n_runs) {
			GString *names = g_string_new(NULL);
			for (size_t k = 0; k < c->n_runs && k < 12; k++)
				g_string_append_printf(names, "%s%s", k ? ", " : "", c->runs[k].name);
			if (c->n_runs > 12)
				g_string_append_printf(names, " and %zu more", c->n_runs - 12);
			*cause = br_xasprintf("--focus %s: no run of that name in %s (runs: %s)", focus_name, dir,
			    names->str);
			g_string_free(names, TRUE);
			return -2;
		}
		c->focus = i;
		c->focus_reason = "--focus";
	} else {
		double best = -1;
		for (size_t i = 0; i < c->n_runs; i++) {
			const br_preemptions *p = &c->analyses[i].preemptions;
			double n = p->count_available ? p->n_preemptions : -1;
			if (n > best) {
				best = n;
				c->focus = i;
			}
		}
		/* best: -1 no run counts preemptions, 0 every counted run had none */
		c->focus_reason = best > 0 ? "most preemptions" : best == 0 ?
		    "name order among the runs whose metrics count preemptions, none of which had any" :
		    "name order, as no run's metrics count preemptions";
	}

	/* FLOPs calibration: the campaign's runs plus the --calibration folders' */
	size_t n_cal = c->n_runs + c->n_calibration_runs;
	const br_run **cal_runs = br_xcalloc(n_cal, sizeof *cal_runs);
	for (size_t i = 0; i < c->n_runs; i++)
		cal_runs[i] = &c->runs[i];
	for (size_t i = 0; i < c->n_calibration_runs; i++)
		cal_runs[c->n_runs + i] = &c->calibration_runs[i];
	char *why = NULL;
	if (br_flops_calibrate_ref(cal_runs, n_cal, &c->runs[c->focus], &c->calibration, &why) == 0) {
		c->has_calibration = 1;
		for (size_t i = 0; i < c->n_runs; i++)
			br_analysis_calibrate(&c->analyses[i], &c->calibration);
	} else
		c->calibration_missing = why;
	free(cal_runs);
	return 0;
}


/* br_campaign_load: see campaign.h (read, then analyse). */
int
br_campaign_load(const char *dir, const char *focus_name,
    const char *const *calib_dirs, size_t n_calib, br_campaign *out, char **cause)
{
	if (br_campaign_read(dir, calib_dirs, n_calib, out, cause) != 0)
		return -1;
	int rc = br_campaign_analyze(out, focus_name, cause);
	if (rc != 0)
		br_campaign_free(out);
	return rc;
}

void
br_campaign_free(br_campaign *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; c->analyses && i < c->n_runs; i++)
		br_analysis_free(&c->analyses[i]);
	free(c->analyses);
	br_flops_calibration_free(&c->calibration);
	br_campaign_repeats_free(c);
	free(c->calibration_missing);
	br_campaign_inputs_free(c);   /* runs, calibration runs, plan, warnings, names; zeroes c */
}

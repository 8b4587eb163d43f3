/*
 * Figures (DESIGN.md §4). Each figure is drawn once into a display list
 * (benchreport/drawing.h; text measured by pango) that is replayed to a
 * 300 dpi opaque RGB PNG and an SVG with cairo, and kept for the PDF, which
 * draws it as vectors; the data behind it is written as CSV. Files:
 * OUT_DIR/figN-name.{png,svg,csv}.
 *
 * Ownership: br_figure strings and its drawing are owned by the figure;
 * br_figure_free.
 */
#ifndef BENCHREPORT_RENDER_H
#define BENCHREPORT_RENDER_H

#include <stddef.h>
#include "benchreport/analysis.h"
#include "benchreport/campaign.h"
#include "benchreport/drawing.h"
#include "benchreport/template.h"

typedef struct br_figure {
	char *id;              /* "fig2-waveform", "figL-latency-cdf" */
	char *title;           /* one line, shown above the figure in the report */
	char *caption;         /* what to read in it, with units */
	char *png_path, *svg_path, *csv_path;
	double width_pt, height_pt;  /* drawn size in PostScript points (1/72 in) */
	br_drawing *drawing;   /* (added) the figure's display list, for the PDF's vector copy */
	size_t n_not_drawn;    /* (added) points of line, step, scatter and area series whose x or
	                          y is missing or not finite, so not drawn (bars say "n/a"
	                          themselves); the report counts them in the caption */
	char *caption_note;    /* (added) a sentence the drawing decided and a template cannot know
	                          (figure 4: where its zoomed axes start), already in `caption`;
	                          the report appends it to a template's own caption. NULL = none */
} br_figure;

/*
 * br_render_figures: draw every figure the analysis has data for into
 * out_dir (created if needed; the PNG and SVG files are finished in the
 * background: br_render_wait). The latency CDFs need per-request arrays; the
 * waveform (figure 2) and residency (figure 3) need a metrics series; the
 * preemption loop and staircase (figures 4, 5) need preemption events; the
 * wall-clock budget (figure 9) needs the budget's decode part. Out: *figs (array, caller frees
 * with br_figures_free), *n_figs. Returns 0 or -1 with *cause on an I/O
 * error. t: the report's template (templates/report.LANG.json); every text
 * of the figures is its "figtext.fig*" keys (see src/render/figure_io.h);
 * NULL draws "[key]" placeholders.
 */
int br_render_figures(const br_analysis *a, const br_template *t, const char *out_dir,
    br_figure **figs, size_t *n_figs, char **cause);

void br_figure_free(br_figure *f);

/*
 * br_render_campaign_figures: the figures across the configurations of a
 * campaign (one category per run, in campaign order): fig1-kv-demand
 * (requested concurrency and peak running; demand / pool on a log axis),
 * fig6-configs (output tok/s, p99 ITL, preemptions), fig7-ttft-split
 * (queue, prefill, frontend on a log axis), fig8-flops-calibration (needs
 * c->has_calibration). Each only when at least one run has its data.
 * Same outputs, errors and template t (figtext.fig1-kv-demand,
 * figtext.fig6-configs, figtext.fig7-ttft-split, figtext.fig8-flops-calibration,
 * figtext.campaign) as br_render_figures. Added by the figures helper.
 */
int br_render_campaign_figures(const br_campaign *c, const br_template *t, const char *out_dir,
    br_figure **figs, size_t *n_figs, char **cause);

/*
 * br_render_wait: the PNG and SVG files of the figures drawn so far are
 * written by those threads; wait until they are on disk. Returns 0, or -1
 * with *cause (when *cause is NULL) naming the first file that could not be
 * written (the caller then discards its staging folder). Call it before
 * the figure files are used or the output folder is committed.
 * br_figure_free also waits, so a drawing is never freed under a writer.
 */
int br_render_wait(char **cause);

/*
 * br_render_shutdown: release the process-wide font caches of pango,
 * fontconfig and cairo (otherwise reported as leaks by LeakSanitizer).
 * Optional; call once at exit, after the last drawing (the PDF writer too
 * if it uses pango). Added by the render helper.
 */
void br_render_shutdown(void);
void br_figures_free(br_figure *figs, size_t n);

#endif

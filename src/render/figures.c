/*
 * br_render_figures: every figure the analysis has data for, in figure
 * order (fig2 waveform, figG GPU telemetry, fig3 residency, fig4 preemption loop, fig5
 * preemption staircase, fig9 budget, then the latency CDFs). A figure without data is
 * not produced at all, so *n_figs may be smaller than the list.
 */
#include "benchreport/render.h"

#include <stdlib.h>
#include <string.h>
#include <cairo.h>
#include <pango/pangocairo.h>

#include "benchreport/common.h"
#include "benchreport/model.h"
#include "render/figure_io.h"

typedef int (*fig_fn)(const br_analysis *, br_ftx *, const char *, br_figure *, char **);

/* br_render_figures: see render.h. */
int
br_render_figures(const br_analysis *a, const br_template *t, const char *out_dir,
    br_figure **figs, size_t *n_figs, char **cause)
{
	static const fig_fn fns[] = { br_fig_waveform, br_fig_gpu, br_fig_residency, br_fig_preemption_loop,
		br_fig_preemption_staircase, br_fig_budget, br_fig_latency };
	const size_t nfn = sizeof fns / sizeof fns[0];
	*figs = NULL;
	*n_figs = 0;
	if (br_mkdir_p(out_dir, cause) != 0)
		return -1;
	br_figure *v = br_xcalloc(nfn, sizeof *v);
	size_t n = 0;
	br_ftx *ft = br_ftx_new(t);
	/* an engine's own words where the template has them: SGLang's
	 * retractions are vLLM's preemptions */
	br_engine e = br_run_engine(a->run);
	if (e == BR_ENGINE_SGLANG || e == BR_ENGINE_LLAMACPP)
		ft->engine = br_engine_key(e);
	for (size_t i = 0; i < nfn; i++) {
		int rc = fns[i](a, ft, out_dir, &v[n], cause);
		if (rc < 0) {
			br_ftx_free(ft);
			br_fig_wait(NULL);
			br_figures_free(v, n);
			return -1;
		}
		if (rc > 0)
			n++;
	}
	br_ftx_free(ft);
	if (n == 0) {
		free(v);
		v = NULL;
	}
	*figs = v;
	*n_figs = n;
	return 0;
}

/* br_figure_free: release the strings of one figure (NULL is fine); the struct itself is not freed. */
void
br_figure_free(br_figure *f)
{
	if (f == NULL)
		return;
	br_fig_wait(NULL);   /* no worker may still read the drawing */
	free(f->id);
	free(f->title);
	free(f->caption);
	free(f->caption_note);
	free(f->png_path);
	free(f->svg_path);
	free(f->csv_path);
	br_drawing_free(f->drawing);
	memset(f, 0, sizeof *f);
}

/* br_figures_free: release n figures and the array. */
void
br_figures_free(br_figure *figs, size_t n)
{
	if (figs == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		br_figure_free(&figs[i]);
	free(figs);
}

/* br_render_wait: see render.h. */
int
br_render_wait(char **cause)
{
	return br_fig_wait(cause);
}

/* br_render_shutdown: see render.h. */
void
br_render_shutdown(void)
{
	br_fig_shutdown();
	pango_cairo_font_map_set_default(NULL);
	/* No FcFini(): pango finishes font sorting on threads of its own, and
	 * when one was still running, FcFini's assertion (fccache.c,
	 * fcCacheChains) aborted a finished report (exit 134, about one run in
	 * a hundred). The few hundred bytes fontconfig keeps are listed for
	 * LeakSanitizer in tests/lsan.supp. */
}

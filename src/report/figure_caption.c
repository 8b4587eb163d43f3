/*
 * br_template_figure_caption (report.h): a figure's caption with its
 * "Figure N." label and the not-drawn sentence, from the template's
 * "figures_common" keys. The template itself is src/common/template.c.
 */
#include <stdlib.h>
#include <string.h>

#include "benchreport/common.h"
#include "benchreport/report.h"
#include "benchreport/render.h"

/*
 * figure_number: the number of figure id "figN-name" as text ("2" for
 * fig2-waveform, "L" for figL-latency-cdf, "K1" for figK1-...), the same
 * token the file name carries; NULL when id has no such token.
 */
static char *
figure_number(const char *id)
{
	if (id == NULL || strncmp(id, "fig", 3) != 0)
		return NULL;
	const char *dash = strchr(id + 3, '-');
	size_t n = dash ? (size_t)(dash - (id + 3)) : 0;
	if (n == 0 || n > 8)
		return NULL;
	return br_xasprintf("%.*s", (int)n, id + 3);
}

/* br_template_figure_caption: see report.h. */
char *
br_template_figure_caption(const br_template *t, const char *caption, const br_figure *f)
{
	char *num = f ? figure_number(f->id) : NULL;
	char *label = NULL;
	if (num && br_template_get(t, "figures_common.label") != NULL) {
		json_t *v = json_pack("{s:s}", "n", num);
		label = br_template_fill(t, "figures_common.label", v);
		json_decref(v);
	}
	free(num);
	/* the drawing's own sentence, when the caption is a template's (the
	 * figure's own caption already holds it) */
	const char *note = f && f->caption_note && caption != f->caption ? f->caption_note : "";
	char *cap = br_xasprintf("%s%s%s%s", label ? label : "", label ? " " : "", caption ? caption : "", note);
	free(label);
	if (f == NULL || f->n_not_drawn == 0)
		return cap;
	json_t *v = json_pack("{s:I}", "n", (json_int_t)f->n_not_drawn);
	char *more = br_template_fill(t, "figures_common.not_drawn", v);
	json_decref(v);
	char *both = br_xasprintf("%s %s", cap, more);
	free(more);
	free(cap);
	return both;
}

/*
 * Private to src/report: a figure's display list (benchreport/drawing.h)
 * drawn onto a libharu page as PDF vector graphics and text.
 */
#ifndef BR_REPORT_PDF_VECTOR_H
#define BR_REPORT_PDF_VECTOR_H

#include <hpdf.h>
#include "benchreport/drawing.h"

/* The document's ExtGState objects for non-opaque colours, by alpha
 * (created on first use; owned by the document). */
#define BR_VEC_ALPHAS 8
typedef struct br_vec_alpha {
	int n;
	double alpha[BR_VEC_ALPHAS];
	HPDF_ExtGState gs[BR_VEC_ALPHAS];
} br_vec_alpha;

typedef struct br_vec_target {
	HPDF_Doc pdf;
	HPDF_Page page;
	HPDF_Font regular, bold;   /* DejaVu Sans, DejaVu Sans Bold */
	HPDF_Font alt;             /* CJK fallback or NULL */
	br_vec_alpha *alpha;       /* the document's cache */
} br_vec_target;

/*
 * br_pdf_draw_vector: draw dr with its top-left corner at page point
 * (x, y_top) (PDF coordinates, origin bottom-left), figure points scaled
 * by `scale` (> 0), clipped to the figure's rectangle. Texts are PDF text
 * in the document's embedded fonts, placed by the recorded anchor and
 * baseline and measured with those fonts. Every value written is finite.
 * The page's graphics state is left as it was (q ... Q).
 */
void br_pdf_draw_vector(const br_vec_target *t, const br_drawing *dr, double x, double y_top,
    double scale);

#endif

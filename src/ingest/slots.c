/*
 * llama-server `/slots` snapshots (slots.jsonl) read into a br_series, and
 * merged into the run's metrics series. Format and fields:
 * ../shared/ENGINES.md §1.3 and real/engines/llamacpp/server-readme-metrics-
 * slots-{2024,2026}.md (the documented JSON of both eras).
 *
 * One line per snapshot, as `benchreport sample` writes it:
 *   {"t_unix_s": 1767000000.25, "slots": [ ...the /slots array verbatim... ]}
 * Per snapshot the columns (llama.cpp's own names carry "llamacpp:"; these
 * are benchreport's, so "llamacpp_slots:"):
 *   llamacpp_slots:total         slots in the array (n_slots)
 *   llamacpp_slots:busy          slots with is_processing true (2026), or
 *                                state != 0 (2024: 0 = IDLE)
 *   llamacpp_slots:n_decoded     sum of next_token.n_decoded over busy slots
 *                                (tokens generated so far by their current
 *                                requests); NAN when a busy slot lacks it
 *   llamacpp_slots:n_ctx_tokens  sum of n_ctx over all slots; NAN when a
 *                                slot lacks it
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "benchreport/common.h"
#include "benchreport/metrics.h"
#include "benchreport/model.h"

enum { SLOTS_MAX_LINE = 64 << 20 };

/* slot_busy: 1 / 0 for one slot object, -1 when it says neither. */
static int
slot_busy(const json_t *slot)
{
	const json_t *p = json_object_get(slot, "is_processing");
	if (json_is_boolean(p))
		return json_is_true(p);
	const json_t *st = json_object_get(slot, "state");
	if (json_is_integer(st))
		return json_integer_value(st) != 0;
	return -1;
}

/*
 * snapshot: one parsed line into row values. Returns NULL, or a static
 * description of what was expected (the caller adds file and line).
 */
static const char *
snapshot(const json_t *root, double *t_s, double v[4])
{
	if (json_is_array(root))
		return "an object {\"t_unix_s\": seconds, \"slots\": [...]} (a bare /slots array has no "
		    "time; benchreport sample writes the wrapped form)";
	if (!json_is_object(root))
		return "an object {\"t_unix_s\": seconds, \"slots\": [...]}";
	const json_t *t = json_object_get(root, "t_unix_s"), *slots = json_object_get(root, "slots");
	if (!json_is_number(t))
		return "a number \"t_unix_s\" (Unix epoch seconds of the snapshot)";
	*t_s = json_number_value(t);
	if (!(*t_s >= 946684800.0 && *t_s < 4102444800.0))
		return "\"t_unix_s\" between 2000-01-01 and 2100-01-01 (Unix epoch seconds)";
	if (!json_is_array(slots))
		return "\"slots\": the array /slots answers (one object per slot)";
	double busy = 0, decoded = 0, ctx = 0;
	size_t i;
	const json_t *slot;
	json_array_foreach(slots, i, slot) {
		if (!json_is_object(slot))
			return "each element of \"slots\" an object";
		int b = slot_busy(slot);
		if (b < 0)
			return "each slot with \"is_processing\" (true/false) or \"state\" (an integer)";
		const json_t *n_ctx = json_object_get(slot, "n_ctx");
		ctx = json_is_number(n_ctx) && isfinite(ctx) ? ctx + json_number_value(n_ctx) : NAN;
		if (b) {
			busy++;
			const json_t *nt = json_object_get(slot, "next_token");
			const json_t *nd = json_is_object(nt) ? json_object_get(nt, "n_decoded") : NULL;
			decoded = json_is_number(nd) && isfinite(decoded) ? decoded + json_number_value(nd) : NAN;
		}
	}
	v[0] = (double)json_array_size(slots);
	v[1] = busy;
	v[2] = decoded;
	v[3] = json_array_size(slots) > 0 ? ctx : NAN;
	return NULL;
}

/* br_slots_load: see metrics.h. */
int
br_slots_load(const char *path, br_series *out, char **cause)
{
	static const char *const names[4] = { "llamacpp_slots:total", "llamacpp_slots:busy",
		"llamacpp_slots:n_decoded", "llamacpp_slots:n_ctx_tokens" };
	memset(out, 0, sizeof *out);
	FILE *fp = NULL;
	/* a FIFO, a device or a folder is refused before a byte is read */
	if (br_open_input(path, 8ULL << 30, &fp, NULL, cause) != 0)
		return -1;
	size_t col[4];
	for (int k = 0; k < 4; k++)
		col[k] = br_series_add_col(out, names[k]);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0;
	double prev_t = -INFINITY;
	while ((n = getline(&line, &cap, fp)) > 0) {
		lineno++;
		size_t len = (size_t)n;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (len == 0)
			continue;
		if (memchr(line, '\0', len) != NULL) {
			*cause = br_xasprintf("%s:%d:%zu: expected JSON text, found a NUL byte", path, lineno,
			    (size_t)((char *)memchr(line, '\0', len) - line) + 1);
			rc = -1;
			break;
		}
		if (len > SLOTS_MAX_LINE) {
			*cause = br_xasprintf("%s:%d:1: expected one snapshot per line of at most %d MiB", path,
			    lineno, SLOTS_MAX_LINE >> 20);
			rc = -1;
			break;
		}
		json_error_t je;
		json_t *root = json_loadb(line, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
		if (root == NULL) {
			*cause = br_xasprintf("%s:%d:%d: expected JSON: %s", path, lineno, je.column > 0 ? je.column : 1,
			    je.text);
			rc = -1;
			break;
		}
		double t, v[4];
		const char *want = snapshot(root, &t, v);
		json_decref(root);
		if (want == NULL && t < prev_t)
			want = "snapshots in time order (\"t_unix_s\" fell)";
		if (want != NULL) {
			*cause = br_xasprintf("%s:%d:1: expected %s", path, lineno, want);
			rc = -1;
			break;
		}
		prev_t = t;
		size_t row = br_series_add_row(out, t);
		for (int k = 0; k < 4; k++)
			out->cols[col[k]][row] = v[k];
	}
	free(line);
	fclose(fp);
	if (rc == 0 && out->n_rows == 0) {
		/* a capture stopped before its first tick: nothing to read, nothing wrong */
		*cause = br_xasprintf("%s: %s: no /slots snapshot to read", path,
		    lineno == 0 ? "empty" : "only blank lines");
		br_series_free(out);
		memset(out, 0, sizeof *out);
		return 1;
	} else if (rc == 0 && out->n_rows > 1 && out->t_s[out->n_rows - 1] == out->t_s[0]) {
		/* many snapshots of one instant are no series over the run */
		*cause = br_xasprintf("%s:%d:1: expected snapshots taken over time; all %zu carry the same "
		    "t_unix_s %.3f", path, lineno, out->n_rows, out->t_s[0]);
		rc = -1;
	}
	if (rc != 0) {
		br_series_free(out);
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->source_path = br_xstrdup(path);
	out->engine = BR_ENGINE_LLAMACPP;
	return 0;
}

/* br_slots_merge: see metrics.h. */
size_t
br_slots_merge(br_series *dst, const br_series *slots, int dry, size_t *n_cmp, size_t *n_busy_differ)
{
	double step = dst->n_rows ? br_series_median_step_s(dst, 0, dst->n_rows - 1) : NAN;
	double tol = isfinite(step) ? 0.5 * step : 0.5;
	size_t cols[4], matched = 0, cmp = 0, differ = 0;
	for (size_t k = 0; !dry && k < slots->n_cols && k < 4; k++)
		cols[k] = br_series_add_col(dst, slots->names[k]);
	const double *proc = br_series_col(dst, "llamacpp:requests_processing");
	const double *busy = br_series_col(slots, "llamacpp_slots:busy");
	size_t j = 0;
	for (size_t i = 0; i < dst->n_rows; i++) {
		double t = dst->t_s[i];
		if (!isfinite(t))
			continue;
		/* slots are in time order: walk j to the snapshot nearest t */
		while (j + 1 < slots->n_rows && fabs(slots->t_s[j + 1] - t) <= fabs(slots->t_s[j] - t))
			j++;
		if (slots->n_rows == 0 || fabs(slots->t_s[j] - t) > tol)
			continue;
		if (proc != NULL && busy != NULL && isfinite(proc[i]) && isfinite(busy[j])) {
			cmp++;
			differ += proc[i] != busy[j];
		}
		for (size_t k = 0; !dry && k < slots->n_cols && k < 4; k++)
			dst->cols[cols[k]][i] = slots->cols[k][j];
		matched++;
	}
	if (n_cmp != NULL)
		*n_cmp = cmp;
	if (n_busy_differ != NULL)
		*n_busy_differ = differ;
	return matched;
}

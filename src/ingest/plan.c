/*
 * The experiment plan: an optional "expect" list in run.json (or in a
 * campaign folder's campaign.json) of what the plan predicted, each item
 * naming one of the standard checks the report can decide from data
 * (include/benchreport/run.h, br_plan_check_id) and, optionally, the plan's
 * own words:
 *   "expect": ["kv_full", {"check": "log_lines", "plan": "server log shows
 *              'Sequence group ... is preempted by ...'"}]
 * A check the report cannot decide is an error that lists the ones it can.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "benchreport/common.h"
#include "benchreport/run.h"

const char *const br_plan_check_id[BR_N_PLAN_CHECKS] = { "kv_full", "preemptions", "log_lines",
	"itl_p99_spike", "ttft_explodes" };

int
br_plan_check_index(const char *id)
{
	for (int k = 0; id && k < BR_N_PLAN_CHECKS; k++)
		if (strcmp(id, br_plan_check_id[k]) == 0)
			return k;
	return -1;
}

/*
 * item_at: "PATH:LINE:COL" of item i of the "expect" array (0-based): the
 * position just after the i-th top-level comma of the array, found by a
 * scan that skips strings and nested brackets; `at` (the "expect" key's
 * position) when the text is not at hand. Returns a string that stays valid
 * until the next call (static buffer).
 */
static const char *
item_at(const char *path, const char *text, size_t len, const char *at, size_t i)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s", at);
	const char *k = text ? strstr(text, "\"expect\"") : NULL;
	const char *p = k ? memchr(k, '[', len - (size_t)(k - text)) : NULL;
	if (p == NULL)
		return buf;
	size_t item = 0;
	int depth = 0, in_str = 0;
	for (const char *q = p + 1; q < text + len; q++) {
		char ch = *q;
		if (in_str) {
			if (ch == '\\' && q + 1 < text + len)
				q++;
			else if (ch == '"')
				in_str = 0;
			continue;
		}
		if (depth == 0 && item == i && ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
			int line, col;
			br_line_col(text, len, (size_t)(q - text), &line, &col);
			snprintf(buf, sizeof buf, "%s:%d:%d", path, line, col);
			return buf;
		}
		if (ch == '"')
			in_str = 1;
		else if (ch == '[' || ch == '{')
			depth++;
		else if (ch == ']' || ch == '}') {
			if (depth == 0)
				break;
			depth--;
		} else if (ch == ',' && depth == 0)
			item++;
	}
	return buf;
}

int
br_plan_parse(const json_t *root, const char *path, const char *text, size_t len,
    br_plan_item **items, size_t *n, char **cause)
{
	*items = NULL;
	*n = 0;
	json_t *ex = json_object_get(root, "expect");
	if (ex == NULL || json_is_null(ex))
		return 0;
	char *at = br_json_key_where(path, text, len, "expect");
	if (!json_is_array(ex)) {
		*cause = br_xasprintf("%s: \"expect\": expected a list of checks (%s, %s, %s, %s, %s), each a "
		    "string or {\"check\": ID, \"plan\": TEXT}", at, br_plan_check_id[0], br_plan_check_id[1],
		    br_plan_check_id[2], br_plan_check_id[3], br_plan_check_id[4]);
		free(at);
		return -1;
	}
	size_t m = json_array_size(ex);
	if (m > BR_PLAN_MAX_ITEMS) {
		*cause = br_xasprintf("%s: \"expect\": %zu checks; a plan lists at most %d (one row each in the "
		    "report)", at, m, BR_PLAN_MAX_ITEMS);
		free(at);
		return -1;
	}
	br_plan_item *v = br_xcalloc(m ? m : 1, sizeof *v);
	for (size_t i = 0; i < m; i++) {
		json_t *e = json_array_get(ex, i);
		const char *id = NULL, *plan = NULL;
		if (json_is_string(e))
			id = json_string_value(e);
		else if (json_is_object(e)) {
			const char *key;
			json_t *val;
			json_object_foreach(e, key, val) {
				(void)val;
				if (strcmp(key, "check") != 0 && strcmp(key, "plan") != 0 && key[0] != '_') {
					*cause = br_xasprintf("%s: \"expect\" item %zu: unknown key \"%s\"; an item is "
					    "{\"check\": ID, \"plan\": TEXT}", item_at(path, text, len, at, i), i + 1, key);
					goto fail;
				}
			}
			json_t *c = json_object_get(e, "check"), *p = json_object_get(e, "plan");
			id = json_is_string(c) ? json_string_value(c) : NULL;
			if (p && !json_is_null(p) && !json_is_string(p)) {
				*cause = br_xasprintf("%s: \"expect\" item %zu: \"plan\" must be a string (the plan's words)",
				    at, i + 1);
				goto fail;
			}
			plan = p ? json_string_value(p) : NULL;
			if (plan && plan[strspn(plan, " \t\r\n")] == '\0')
				plan = NULL;   /* blank words: the standard wording */
		}
		int k = br_plan_check_index(id);
		if (k < 0) {
			if (id)
				*cause = br_xasprintf("%s: \"expect\" item %zu: \"%s\" is not a check the report can "
				    "decide; expected one of %s, %s, %s, %s, %s", item_at(path, text, len, at, i), i + 1, id,
				    br_plan_check_id[0], br_plan_check_id[1], br_plan_check_id[2], br_plan_check_id[3],
				    br_plan_check_id[4]);
			else
				*cause = br_xasprintf("%s: \"expect\" item %zu: expected a check id string or an object "
				    "with a \"check\" string (one of %s, %s, %s, %s, %s)", item_at(path, text, len, at, i),
				    i + 1, br_plan_check_id[0], br_plan_check_id[1], br_plan_check_id[2],
				    br_plan_check_id[3], br_plan_check_id[4]);
			goto fail;
		}
		v[i].check = k;
		v[i].plan = br_xstrdup(plan);
	}
	free(at);
	*items = v;
	*n = m;
	return 0;
fail:
	br_plan_free(v, m);
	free(at);
	return -1;
}

void
br_plan_free(br_plan_item *items, size_t n)
{
	for (size_t i = 0; items && i < n; i++)
		free(items[i].plan);
	free(items);
}

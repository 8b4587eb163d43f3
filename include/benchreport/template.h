/*
 * Wording templates (src/common/template.c): templates/report.LANG.json,
 * knee.LANG.json, compare.LANG.json. Used by the report writers and by the
 * figures (their text lives under the template's top-level "figtext"
 * object, see render.h).
 *
 * Ownership: br_template is opaque, freed with br_template_free; strings
 * returned by br_template_fill are malloc'd (caller frees).
 */
#ifndef BENCHREPORT_TEMPLATE_H
#define BENCHREPORT_TEMPLATE_H

#include <jansson.h>

typedef struct br_template br_template;

/* br_template_load: read templates/report.LANG.json (an object of
 * key → string, nested objects allowed, keys joined with '.'). For a
 * language other than en, a key the file lacks is taken from the
 * NAME.en.json beside it (English text, never "[key]").
 * Returns NULL with *cause naming file:line:column on bad JSON. */
br_template *br_template_load(const char *path, char **cause);

/* br_template_get: the raw string for key, or NULL. */
const char *br_template_get(const br_template *t, const char *key);

/* br_template_english: the raw string for key in the English template
 * (NAME.en.json beside a translation; the template itself when it is the
 * English one), or NULL. For what must not depend on --lang (summary.json). */
const char *br_template_english(const br_template *t, const char *key);

/*
 * br_template_fill: the string for `key` with each placeholder replaced by a
 * value from `summary`:
 *   {a.b.c}        the value at that path, numbers printed with %g-like
 *                  shortest form, strings verbatim
 *   {a.b:,.0f}     printf-like format with optional ',' thousands grouping
 *   {a.b:pct1}     a fraction printed as a percentage with 1 decimal ("94.9%")
 * A path that is absent or null prints as "n/a" (never a made-up number).
 * A number whose sibling "<key>_is_lower_bound" is true is printed after the
 * template's "format.at_least" word ("at least 37"), so no sentence states a
 * bound as the count.
 * Returns a malloc'd string; an unknown key returns a malloc'd "[key]".
 */
char *br_template_fill(const br_template *t, const char *key, const json_t *summary);

/*
 * br_template_phrase: the message `text` (English, as the ingest and
 * analysis modules write it) in the template's language, from
 * templates/phrases.LANG.json beside the template (loaded with it; absent
 * for en). A phrase is the English text with "{}" for each variable part
 * and its translation with as many "{}", filled in the same order. A phrase
 * must match the whole text (or a run of whole sentences, "A. B."), and
 * each hole's text is translated in turn (nested messages compose); a
 * phrase is never replaced inside other text, so quoted log lines and the
 * user's notes stay as written. Returns a malloc'd string, or NULL when
 * nothing applies (the caller keeps the English). NULL t or text: NULL.
 */
char *br_template_phrase(const br_template *t, const char *text);

void br_template_free(br_template *t);

#endif

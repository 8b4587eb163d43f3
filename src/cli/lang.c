/*
 * --lang: the report language. "en" (the default) or "zh"; "auto" picks
 * "zh" when the locale (LC_ALL, else LC_MESSAGES, else LANG, the POSIX
 * order) starts with "zh", else "en". The wording comes from
 * templates/<report>.<lang>.json; summary.json does not depend on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd.h"

/* locale_lang: the first non-empty of LC_ALL, LC_MESSAGES, LANG, or "". */
static const char *
locale_lang(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return v;
	}
	return "";
}

/* br_cli_lang: see cmd.h. */
const char *
br_cli_lang(const char *arg, const char *cmd)
{
	if (arg == NULL || strcmp(arg, "en") == 0)
		return "en";
	if (strcmp(arg, "zh") == 0)
		return "zh";
	if (strcmp(arg, "auto") == 0)
		return strncmp(locale_lang(), "zh", 2) == 0 ? "zh" : "en";
	fprintf(stderr, "benchreport%s%s: --lang %s: expected en, zh or auto\n", cmd ? " " : "",
	    cmd ? cmd : "", arg);
	return NULL;
}

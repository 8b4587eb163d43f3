/*
 * Output folders written safely (DESIGN.md §2: "outputs are written to a
 * temporary name and renamed, so a killed run leaves no half-written
 * report"): a staging folder OUT.tmp.PID, swapped into place at the end; an
 * existing OUT is replaced only when it is an earlier benchreport report.
 * Shared by the report, knee and compare commands.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "benchreport/common.h"

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
br_rm_rf(const char *path)
{
	if (path != NULL)
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void
br_outdir_clean_stale(const char *out_dir)
{
	char *dir_copy = br_xstrdup(out_dir);
	size_t len = strlen(dir_copy);
	while (len > 1 && dir_copy[len - 1] == '/')
		dir_copy[--len] = '\0';
	char *slash = strrchr(dir_copy, '/');
	const char *parent = ".", *base = dir_copy;
	if (slash != NULL) {
		*slash = '\0';
		parent = slash == dir_copy ? "/" : dir_copy;
		base = slash + 1;
	}
	DIR *d = opendir(parent);
	if (d != NULL) {
		size_t bl = strlen(base);
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			const char *n = e->d_name;
			if (strncmp(n, base, bl) != 0)
				continue;
			const char *rest = n + bl;
			if (strncmp(rest, ".tmp.", 5) != 0 && strncmp(rest, ".old.", 5) != 0)
				continue;
			char *end;
			long pid = strtol(rest + 5, &end, 10);
			if (*end != '\0' || pid <= 0 || pid == (long)getpid())
				continue;
			if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
				continue;      /* that benchreport still runs */
			char *p = br_path_join(parent, n);
			br_rm_rf(p);
			free(p);
		}
		closedir(d);
	}
	free(dir_copy);
}

/* is_our_report: OUT/summary.json exists and names benchreport's schema. */
static int
is_our_report(const char *out_dir)
{
	char *prev = br_path_join(out_dir, "summary.json");
	char *text = NULL;
	size_t len = 0;
	int ours = 0;
	if (br_is_file(prev) && br_read_file(prev, &text, &len, NULL) == 0)
		ours = strstr(text, "\"schema_version\"") != NULL;
	free(text);
	free(prev);
	return ours;
}

int
br_outdir_commit(const char *staging, const char *out_dir, char **cause)
{
	if (br_is_dir(out_dir)) {
		if (!is_our_report(out_dir)) {
			*cause = br_xasprintf("%s: exists and is not a benchreport report folder "
			    "(no benchreport summary.json); choose another with -o", out_dir);
			return -1;
		}
		char *old = br_xasprintf("%s.old.%ld", out_dir, (long)getpid());
		if (rename(out_dir, old) != 0) {
			*cause = br_xasprintf("%s: cannot replace: %s", out_dir, strerror(errno));
			free(old);
			return -1;
		}
		if (rename(staging, out_dir) != 0) {
			*cause = br_xasprintf("%s: cannot write: %s", out_dir, strerror(errno));
			rename(old, out_dir);
			free(old);
			return -1;
		}
		br_rm_rf(old);
		free(old);
		return 0;
	}
	if (br_is_file(out_dir)) {
		*cause = br_xasprintf("%s: exists and is a file; choose another with -o", out_dir);
		return -1;
	}
	if (rename(staging, out_dir) != 0) {
		*cause = br_xasprintf("%s: cannot write: %s", out_dir, strerror(errno));
		return -1;
	}
	return 0;
}

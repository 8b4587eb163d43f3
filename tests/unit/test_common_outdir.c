/*
 * Output folders (outdir.h): ownership is proven by the marker and the exact
 * file list, never guessed; every refusal leaves the folder and its siblings
 * byte-identical; stale staging folders go only with our marker; signals
 * remove the staging folder.
 *
 * One table of cases (setup, replace flag, expected rc, a phrase the message
 * must hold); each case runs in a fresh folder and, when refused, compares a
 * fingerprint of the whole folder (every path, type, size, SHA-256, symlink
 * target) before and after.
 */
#include "br_test.h"
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/outdir.h"

static char tmpdir[64];

static void
put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	if (fp == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	fputs(text, fp);
	fclose(fp);
}

static char *
J(const char *a, const char *b)
{
	return br_path_join(a, b);
}

/* fp_walk: "rel type size sha|target" of every entry under root/rel. */
static void
fp_walk(const char *root, const char *rel, GPtrArray *out)
{
	char *dir = rel[0] ? J(root, rel) : br_xstrdup(root);
	GDir *d = g_dir_open(dir, 0, NULL);
	if (d != NULL) {
		const char *n;
		while ((n = g_dir_read_name(d)) != NULL) {
			char *r = rel[0] ? br_xasprintf("%s/%s", rel, n) : br_xstrdup(n);
			char *p = J(dir, n);
			struct stat st;
			lstat(p, &st);
			if (S_ISLNK(st.st_mode)) {
				char t[512] = { 0 };
				ssize_t k = readlink(p, t, sizeof t - 1);
				g_ptr_array_add(out, br_xasprintf("%s link %s", r, k > 0 ? t : "?"));
			} else if (S_ISDIR(st.st_mode)) {
				g_ptr_array_add(out, br_xasprintf("%s dir %o", r, st.st_mode & 0777));
				fp_walk(root, r, out);
			} else {
				char hex[65] = "";
				br_sha256_file(p, hex, NULL, NULL);
				g_ptr_array_add(out, br_xasprintf("%s file %lld %s", r, (long long)st.st_size, hex));
			}
			free(p);
			free(r);
		}
		g_dir_close(d);
	}
	free(dir);
}

static int
cmp_s(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* fingerprint: the whole tree under root as one string (caller frees). */
static char *
fingerprint(const char *root)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(free);
	fp_walk(root, "", a);
	if (a->len > 1)
		qsort(a->pdata, a->len, sizeof(char *), cmp_s);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < a->len; i++)
		g_string_append_printf(s, "%s\n", (char *)a->pdata[i]);
	g_ptr_array_free(a, TRUE);
	return g_string_free(s, FALSE);
}

/* make_ours: OUT written through the API with summary.json, report.pdf and
 * figures/fig1.png, as a report command writes it. */
static void
make_ours(const char *out, const char *command)
{
	int rc = 0;
	char *cause = NULL;
	br_outdir *o = br_outdir_prepare(out, command, 1, &rc, &cause);
	if (o == NULL)
		fail_msg("make_ours %s: %s", out, cause);
	assert_int_equal(br_outdir_stage(o, &cause), 0);
	const char *s = br_outdir_staging(o);
	char *p = J(s, "summary.json"), *q = J(s, "report.pdf"), *fd = J(s, "figures");
	put(p, "{\"schema_version\": 1}\n");
	put(q, "%PDF-1.4 fake\n");
	assert_int_equal(br_mkdir_p(fd, NULL), 0);
	char *f = J(fd, "fig1.png");
	put(f, "png bytes");
	if (br_outdir_commit(o, &cause) != 0)
		fail_msg("commit %s: %s", out, cause);
	br_outdir_free(o);
	free(p);
	free(q);
	free(f);
	free(fd);
}

/* dead_pid: a pid that no longer runs (a reaped child). */
static pid_t
dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

/* ---- case setups: each builds root/out (and maybe siblings) ---- */

static void s_absent(const char *r) { (void)r; }
static void s_empty(const char *r) { char *o = J(r, "out"); mkdir(o, 0755); free(o); }
static void s_ours(const char *r) { char *o = J(r, "out"); make_ours(o, "report"); free(o); }

static void
s_ours_plus_notes(const char *r)
{
	char *o = J(r, "out"), *n = J(o, "notes.md");
	make_ours(o, "report");
	put(n, "my notes\n");
	free(n);
	free(o);
}

static void
s_ours_plus_raw(const char *r)
{
	char *o = J(r, "out"), *d = J(o, "raw"), *f = J(d, "capture.bin");
	make_ours(o, "report");
	mkdir(d, 0755);
	put(f, "data");
	free(f);
	free(d);
	free(o);
}

static void
s_ours_plus_figure(const char *r)
{
	char *o = J(r, "out"), *f = J(o, "figures/my-annotated.png");
	make_ours(o, "report");
	put(f, "mine");
	free(f);
	free(o);
}

static void
s_ours_edited(const char *r)
{
	char *o = J(r, "out"), *f = J(o, "summary.json");
	make_ours(o, "report");
	put(f, "{\"schema_version\": 1, \"my_note\": \"edited by hand\"}\n");
	free(f);
	free(o);
}

/* the old bug: a user's folder whose summary.json names schema_version */
static void
s_foreign_summary(const char *r)
{
	char *o = J(r, "out"), *f = J(o, "summary.json"), *n = J(o, "notes.md");
	mkdir(o, 0755);
	put(f, "{\"schema_version\": 3, \"mine\": true}\n");
	put(n, "x");
	free(n);
	free(f);
	free(o);
}

static void
s_forged_marker(const char *r)
{
	char *o = J(r, "out"), *m = J(o, BR_OUTDIR_MARKER), *f = J(o, "data.csv");
	mkdir(o, 0755);
	put(m, "{\"format\": \"something-else/1\", \"id\": \"00\", \"state\": \"complete\", \"files\": []}");
	put(f, "1,2\n");
	free(f);
	free(m);
	free(o);
}

static void
s_marker_not_json(const char *r)
{
	char *o = J(r, "out"), *m = J(o, BR_OUTDIR_MARKER);
	mkdir(o, 0755);
	put(m, "benchreport-output/1");
	free(m);
	free(o);
}

static void
s_symlink_out(const char *r)
{
	char *real = J(r, "real"), *o = J(r, "out");
	make_ours(real, "report");
	assert_int_equal(symlink("real", o), 0);
	free(o);
	free(real);
}

static void
s_file_out(const char *r)
{
	char *o = J(r, "out");
	put(o, "precious");
	free(o);
}

static void
s_symlink_inside(const char *r)
{
	char *o = J(r, "out"), *f = J(o, "figures/fig1.png"), *t = J(r, "target.txt");
	make_ours(o, "report");
	put(t, "not ours");
	unlink(f);
	assert_int_equal(symlink(t, f), 0);
	free(t);
	free(f);
	free(o);
}

static void
s_file_became_dir(const char *r)
{
	char *o = J(r, "out"), *f = J(o, "report.pdf"), *g = J(f, "inside.txt");
	make_ours(o, "report");
	unlink(f);
	mkdir(f, 0755);
	put(g, "x");
	free(g);
	free(f);
	free(o);
}

/* a simulated run with a report of ours inside: both ours */
static void
s_nested_ours(const char *r)
{
	char *o = J(r, "out"), *rep = J(o, "report");
	make_ours(o, "simulate");
	make_ours(rep, "report");
	free(rep);
	free(o);
}

static void
s_nested_user(const char *r)
{
	char *o = J(r, "out"), *rep = J(o, "report"), *n = J(rep, "notes.md");
	make_ours(o, "simulate");
	make_ours(rep, "report");
	put(n, "mine");
	free(n);
	free(rep);
	free(o);
}

/* siblings named like ours: only marked ones of dead processes may go */
static void
s_siblings(const char *r)
{
	char *old2023 = J(r, "out.old.2023"), *f1 = J(old2023, "keep.txt");
	mkdir(old2023, 0755);
	put(f1, "a user's folder with our naming pattern");
	pid_t dead = dead_pid();
	char *name = br_xasprintf("out.tmp.%ld", (long)dead), *t = J(r, name);
	char *f2 = J(t, "notes.md");
	mkdir(t, 0755);
	put(f2, "no marker: not ours");
	free(f2);
	free(t);
	free(name);
	free(f1);
	free(old2023);
}

/* a report of ours that holds a simulated run: the run is input data */
static void
s_report_holding_run(const char *r)
{
	char *o = J(r, "out"), *run = J(o, "run1");
	make_ours(o, "report");
	make_ours(run, "simulate");
	free(run);
	free(o);
}

typedef struct outdir_case {
	const char *name;
	void (*setup)(const char *root);
	const char *command;    /* the command preparing OUT */
	int replace;
	int expect_rc;          /* of prepare: 0, BR_OUTDIR_ERR_REFUSED */
	const char *phrase;     /* in the message (refusals) */
} outdir_case;

static const outdir_case cases[] = {
	{ "absent", s_absent, "report", 1, 0, NULL },
	{ "empty folder", s_empty, "report", 0, 0, NULL },
	{ "our earlier report", s_ours, "report", 1, 0, NULL },
	{ "ours, replace not allowed", s_ours, "report", 0, BR_OUTDIR_ERR_REFUSED, "--force" },
	{ "ours + notes.md", s_ours_plus_notes, "report", 1, BR_OUTDIR_ERR_REFUSED, "notes.md" },
	{ "ours + raw/", s_ours_plus_raw, "report", 1, BR_OUTDIR_ERR_REFUSED, "raw/" },
	{ "ours + a figure of the user's", s_ours_plus_figure, "report", 1, BR_OUTDIR_ERR_REFUSED,
	  "figures/my-annotated.png" },
	{ "ours, summary edited", s_ours_edited, "report", 1, BR_OUTDIR_ERR_REFUSED,
	  "summary.json (changed since benchreport wrote it)" },
	{ "foreign summary.json naming schema_version", s_foreign_summary, "report", 1, BR_OUTDIR_ERR_REFUSED,
	  "no " BR_OUTDIR_MARKER " marker" },
	{ "forged marker", s_forged_marker, "report", 1, BR_OUTDIR_ERR_REFUSED, "not a marker benchreport wrote" },
	{ "marker not JSON", s_marker_not_json, "report", 1, BR_OUTDIR_ERR_REFUSED, "not a marker benchreport wrote" },
	{ "OUT is a symlink", s_symlink_out, "report", 1, BR_OUTDIR_ERR_REFUSED, "symbolic link" },
	{ "OUT is a file", s_file_out, "report", 1, BR_OUTDIR_ERR_REFUSED, "a file, not a folder" },
	{ "symlink inside", s_symlink_inside, "report", 1, BR_OUTDIR_ERR_REFUSED, "fig1.png (a symbolic link)" },
	{ "listed file became a folder", s_file_became_dir, "report", 1, BR_OUTDIR_ERR_REFUSED, "report.pdf/" },
	{ "simulate over its run holding our report", s_nested_ours, "simulate", 1, 0, NULL },
	{ "report over a simulated run", s_nested_ours, "report", 1, BR_OUTDIR_ERR_REFUSED, "is a simulated run" },
	{ "simulate over a report", s_ours, "simulate", 1, BR_OUTDIR_ERR_REFUSED, "not a simulated run" },
	{ "report holding a simulated run", s_report_holding_run, "report", 1, BR_OUTDIR_ERR_REFUSED,
	  "run1/ (a simulated run" },
	{ "nested report with user file", s_nested_user, "simulate", 1, BR_OUTDIR_ERR_REFUSED, "report/" },
	{ "siblings with our naming pattern", s_siblings, "report", 1, 0, NULL },
};

/* One case: build, fingerprint, prepare; a refusal must change nothing;
 * an acceptance writes a new output whose marker passes the check, and
 * unmarked siblings survive. */
static void
test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const outdir_case *c = &cases[i];
		char *root = br_xasprintf("%s/case%zu", tmpdir, i);
		assert_int_equal(br_mkdir_p(root, NULL), 0);
		c->setup(root);
		char *before = fingerprint(root);
		char *out = J(root, "out"), *cause = NULL;
		int rc = 0;
		br_outdir *o = br_outdir_prepare(out, c->command, c->replace, &rc, &cause);
		if (c->expect_rc != 0) {
			if (o != NULL || rc != c->expect_rc)
				fail_msg("%s: prepare rc %d, expected %d", c->name, rc, c->expect_rc);
			if (cause == NULL || strstr(cause, c->phrase) == NULL)
				fail_msg("%s: message '%s' lacks '%s'", c->name, cause ? cause : "", c->phrase);
			char *after = fingerprint(root);
			if (strcmp(before, after) != 0)
				fail_msg("%s: folder changed:\n--- before\n%s--- after\n%s", c->name, before, after);
			free(after);
		} else {
			if (o == NULL)
				fail_msg("%s: refused: %s", c->name, cause);
			assert_int_equal(br_outdir_stage(o, &cause), 0);
			char *p = J(br_outdir_staging(o), "summary.json");
			put(p, "{\"schema_version\": 2}\n");
			free(p);
			if (br_outdir_commit(o, &cause) != 0)
				fail_msg("%s: commit: %s", c->name, cause);
			br_outdir_free(o);
			char *why = NULL;
			if (!br_outdir_check_owned(out, &why))
				fail_msg("%s: the new output is not ours: %s", c->name, why);
			free(why);
			/* exactly the new output: the old files are gone, nothing left beside */
			char *fp = fingerprint(out);
			assert_non_null(strstr(fp, "summary.json file 22 "));
			assert_null(strstr(fp, "report.pdf"));
			free(fp);
			char *after = fingerprint(root);
			if (c->setup != s_siblings)
				assert_null(strstr(after, "out.tmp."));
			for (const char *q = after; (q = strstr(q, "out.old.")) != NULL; q += 8)
				if (strncmp(q, "out.old.2023", 12) != 0)
					fail_msg("%s: an old folder was left: %s", c->name, after);
			if (c->setup == s_siblings) {
				assert_non_null(strstr(after, "out.old.2023/keep.txt file"));
				assert_non_null(strstr(after, "/notes.md file"));
			}
			free(after);
		}
		free(cause);
		free(before);
		free(out);
		free(root);
	}
}

/* A refusal discovered at commit (the user added a file while we worked):
 * -2, the folder unchanged, and the staging folder removed by free. */
static void
test_changed_meanwhile(void **state)
{
	(void)state;
	char *root = br_xasprintf("%s/meanwhile", tmpdir), *out = J(root, "out");
	make_ours(out, "report");
	int rc = 0;
	char *cause = NULL;
	br_outdir *o = br_outdir_prepare(out, "report", 1, &rc, &cause);
	assert_non_null(o);
	assert_int_equal(br_outdir_stage(o, &cause), 0);
	char *staging = br_xstrdup(br_outdir_staging(o));
	char *n = J(out, "added-while-running.txt");
	put(n, "x");
	char *before = fingerprint(out);
	assert_int_equal(br_outdir_commit(o, &cause), BR_OUTDIR_ERR_REFUSED);
	assert_non_null(strstr(cause, "added-while-running.txt"));
	br_outdir_free(o);
	char *after = fingerprint(out);
	assert_string_equal(before, after);
	assert_false(br_is_dir(staging));
	free(before);
	free(after);
	free(cause);
	free(n);
	free(staging);
	free(out);
	free(root);
}

/* kill -9 leaves OUT.tmp.PID with a staging marker: the next prepare
 * removes it; the same folder without marker, or holding a symlink, stays. */
static void
test_killed_staging(void **state)
{
	(void)state;
	char *root = br_xasprintf("%s/killed", tmpdir), *out = J(root, "out");
	assert_int_equal(br_mkdir_p(root, NULL), 0);
	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			int rc = 0;
			char *cause = NULL;
			br_outdir *o = br_outdir_prepare(out, "report", 1, &rc, &cause);
			if (o == NULL || br_outdir_stage(o, &cause) != 0)
				_exit(1);
			char *f = J(br_outdir_staging(o), "half.pdf");
			put(f, "%PDF half");
			raise(SIGKILL);
			_exit(2);
		}
		int st = 0;
		waitpid(kids[k], &st, 0);
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		/* hold it aside, or the next child's prepare would clean it up */
		char *left = br_xasprintf("%s.tmp.%ld", out, (long)kids[k]);
		char *hold = br_xasprintf("%s/hold%d", root, k);
		assert_int_equal(rename(left, hold), 0);
		free(left);
		free(hold);
	}
	char *t[3];
	for (int k = 0; k < 3; k++) {
		t[k] = br_xasprintf("%s.tmp.%ld", out, (long)kids[k]);
		char *hold = br_xasprintf("%s/hold%d", root, k);
		assert_int_equal(rename(hold, t[k]), 0);
		free(hold);
	}
	char *m1 = J(t[1], BR_OUTDIR_MARKER), *l2 = J(t[2], "link");
	assert_int_equal(unlink(m1), 0);              /* no marker: not ours */
	assert_int_equal(symlink("/etc", l2), 0);     /* a symlink: not plain */
	int rc = 0;
	char *cause = NULL;
	br_outdir *o = br_outdir_prepare(out, "report", 1, &rc, &cause);
	assert_non_null(o);
	br_outdir_free(o);
	assert_false(br_is_dir(t[0]));
	assert_true(br_is_dir(t[1]));
	assert_true(br_is_dir(t[2]));
	assert_true(br_is_dir("/etc"));
	for (int k = 0; k < 3; k++)
		free(t[k]);
	free(m1);
	free(l2);
	free(out);
	free(root);
}

/* OUT.old.PID left between the two renames of a swap: removed only when it
 * passes the full ownership check. */
static void
test_stale_old(void **state)
{
	(void)state;
	char *root = br_xasprintf("%s/oldies", tmpdir), *out = J(root, "out");
	pid_t d1 = dead_pid(), d2 = dead_pid();
	char *o1 = br_xasprintf("%s.old.%ld", out, (long)d1), *o2 = br_xasprintf("%s.old.%ld", out, (long)d2);
	make_ours(o1, "report");
	make_ours(o2, "report");
	char *n = J(o2, "notes.md");
	put(n, "mine");
	int rc = 0;
	char *cause = NULL;
	br_outdir *o = br_outdir_prepare(out, "report", 1, &rc, &cause);
	assert_non_null(o);
	br_outdir_free(o);
	assert_false(br_is_dir(o1));
	assert_true(br_is_file(n));
	char *sum2 = J(o2, "summary.json");
	assert_true(br_is_file(sum2));
	free(sum2);
	free(n);
	free(o1);
	free(o2);
	free(out);
	free(root);
}

/* SIGINT, SIGTERM, SIGHUP while staging: the staging folder is removed and
 * the process still dies of the signal; OUT is untouched. */
static void
test_signals(void **state)
{
	(void)state;
	const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (int k = 0; k < 3; k++) {
		char *root = br_xasprintf("%s/sig%d", tmpdir, k), *out = J(root, "out");
		make_ours(out, "report");
		char *before = fingerprint(root);
		int pipefd[2];
		assert_int_equal(pipe(pipefd), 0);
		pid_t p = fork();
		if (p == 0) {
			int rc = 0;
			char *cause = NULL;
			br_outdir *o = br_outdir_prepare(out, "report", 1, &rc, &cause);
			if (o == NULL || br_outdir_stage(o, &cause) != 0)
				_exit(1);
			char *fd = J(br_outdir_staging(o), "figures");
			mkdir(fd, 0755);
			char *f = J(fd, "fig.png");
			put(f, "half");
			if (write(pipefd[1], "s", 1) != 1)
				_exit(3);
			pause();
			_exit(2);
		}
		char c;
		assert_int_equal(read(pipefd[0], &c, 1), 1);
		char *staging = br_xasprintf("%s.tmp.%ld", out, (long)p);
		assert_true(br_is_dir(staging));
		kill(p, sigs[k]);
		int st = 0;
		waitpid(p, &st, 0);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sigs[k]);
		assert_false(br_is_dir(staging));
		char *after = fingerprint(root);
		assert_string_equal(before, after);
		close(pipefd[0]);
		close(pipefd[1]);
		free(after);
		free(before);
		free(staging);
		free(out);
		free(root);
	}
}

/* Bad names for OUT. */
static void
test_bad_names(void **state)
{
	(void)state;
	const char *names[] = { ".", "..", "/", "", "a/..", "./" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int rc = 0;
		char *cause = NULL;
		br_outdir *o = br_outdir_prepare(names[i], "report", 1, &rc, &cause);
		if (o != NULL)
			fail_msg("'%s' accepted", names[i]);
		assert_int_equal(rc, BR_OUTDIR_ERR_REFUSED);
		free(cause);
	}
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/br_outdir_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	char *cmd = br_xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_changed_meanwhile),
		cmocka_unit_test(test_killed_staging),
		cmocka_unit_test(test_stale_old),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_bad_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

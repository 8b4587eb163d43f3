/*
 * Output folders that never lose a user's file: see include/benchreport/
 * outdir.h for the contract (marker, ownership check, staging and swap,
 * signals, stale cleanup). Shared by report, knee, compare and simulate.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/outdir.h"

/* Limits that keep a hostile folder from costing us much. */
#define MARKER_MAX_BYTES (16u << 20)
#define WALK_MAX_DEPTH 16
#define WALK_MAX_ENTRIES 200000
#define UNEXPECTED_SHOWN 10

/* A staged file hashed on a worker thread (br_outdir_prehash). */
typedef struct prehash {
	char *rel;          /* path inside the staging folder */
	char *path;         /* staging/rel */
	GThread *th;        /* joined by files_json (or br_outdir_free) */
	char hex[65];
	long long size;
	int rc;
	char *cause;
} prehash;

struct br_outdir {
	prehash *pre;       /* files hashed ahead, n_pre of them */
	size_t n_pre;
	char *out;          /* OUT without trailing slashes */
	char *parent;       /* its parent folder ("." when none) */
	char *base;         /* its last component */
	char *staging;      /* OUT.tmp.PID, NULL until staged */
	char *command;
	char id[33];        /* random 128-bit id, hex */
	int replace;
	int staged, committed;
};

/* ------------------------------------------------------------ small helpers */

/* strip: copy of path without trailing '/' ("/" stays "/"). */
static char *
strip(const char *path)
{
	char *p = br_xstrdup(path);
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	return p;
}

/* split: parent folder and last component of a stripped path (malloc'd). */
static void
split(const char *p, char **parent, char **base)
{
	const char *s = strrchr(p, '/');
	if (s == NULL) {
		*parent = br_xstrdup(".");
		*base = br_xstrdup(p);
	} else {
		*parent = s == p ? br_xstrdup("/") : br_xstrndup(p, (size_t)(s - p));
		*base = br_xstrdup(s + 1);
	}
}

/* random_id: 32 lowercase hex digits from getrandom(2). */
static void
random_id(char out[33])
{
	unsigned char b[16];
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t n = getrandom(b + got, sizeof b - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "benchreport: getrandom: %s\n", strerror(errno));
			abort();
		}
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof b; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int
is_hex(const char *s, size_t n)
{
	if (s == NULL || strlen(s) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}


/* ------------------------------------------------------------ the marker */

/* One entry the marker lists. */
typedef struct listed {
	int is_dir;
	long long bytes;
	char sha256[65];
} listed;

/* A parsed marker: state and, when complete, path → listed. */
typedef struct marker {
	char *state;          /* "staging" or "complete" */
	char *command;        /* the command that wrote it ("" when the marker names none) */
	GHashTable *files;    /* char *rel → listed * */
} marker;

static void
marker_free(marker *m)
{
	free(m->state);
	free(m->command);
	if (m->files)
		g_hash_table_destroy(m->files);
	memset(m, 0, sizeof *m);
}

/*
 * marker_read: parse DIR/.benchreport-output. Returns 0 with *m filled, or
 * -1 with *why (malloc'd) saying what is wrong (absent, not a plain file,
 * not our format, malformed list).
 */
static int
marker_read(const char *dir, marker *m, char **why)
{
	memset(m, 0, sizeof *m);
	char *path = br_path_join(dir, BR_OUTDIR_MARKER);
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	json_t *j = NULL;
	int rc = -1;
	if (lstat(path, &st) != 0) {
		*why = br_xstrdup("it has no " BR_OUTDIR_MARKER " marker, so benchreport did not write it");
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)MARKER_MAX_BYTES ||
	    br_read_file(path, &text, &len, NULL) != 0) {
		*why = br_xstrdup("its " BR_OUTDIR_MARKER " is not a marker benchreport wrote");
		goto out;
	}
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	const char *fmt = json_string_value(json_object_get(j, "format"));
	const char *id = json_string_value(json_object_get(j, "id"));
	const char *state = json_string_value(json_object_get(j, "state"));
	if (fmt == NULL || strcmp(fmt, BR_OUTDIR_FORMAT) != 0 || !is_hex(id, 32) || state == NULL ||
	    (strcmp(state, "staging") != 0 && strcmp(state, "complete") != 0)) {
		*why = br_xstrdup("its " BR_OUTDIR_MARKER " is not a marker benchreport wrote "
		    "(format " BR_OUTDIR_FORMAT ", a 128-bit id and a state expected)");
		goto out;
	}
	m->state = br_xstrdup(state);
	const char *cmd = json_string_value(json_object_get(j, "command"));
	m->command = br_xstrdup(cmd ? cmd : "");
	m->files = g_hash_table_new_full(g_str_hash, g_str_equal, free, free);
	if (strcmp(state, "complete") == 0) {
		json_t *files = json_object_get(j, "files");
		if (!json_is_array(files)) {
			*why = br_xstrdup("its " BR_OUTDIR_MARKER " lists no files");
			goto out;
		}
		size_t i;
		json_t *f;
		json_array_foreach(files, i, f) {
			const char *p = json_string_value(json_object_get(f, "path"));
			const char *type = json_string_value(json_object_get(f, "type"));
			if (p == NULL || p[0] == '\0' || p[0] == '/' || strstr(p, "..") != NULL || type == NULL) {
				*why = br_xstrdup("its " BR_OUTDIR_MARKER " has a malformed file list");
				goto out;
			}
			listed *l = br_xcalloc(1, sizeof *l);
			l->is_dir = strcmp(type, "dir") == 0;
			if (!l->is_dir) {
				const char *sha = json_string_value(json_object_get(f, "sha256"));
				json_t *b = json_object_get(f, "bytes");
				if (strcmp(type, "file") != 0 || !is_hex(sha, 64) || !json_is_integer(b)) {
					free(l);
					*why = br_xstrdup("its " BR_OUTDIR_MARKER " has a malformed file list");
					goto out;
				}
				memcpy(l->sha256, sha, 65);
				l->bytes = (long long)json_integer_value(b);
			}
			g_hash_table_replace(m->files, br_xstrdup(p), l);
		}
	}
	rc = 0;
out:
	if (rc != 0)
		marker_free(m);
	json_decref(j);
	free(text);
	free(path);
	return rc;
}

/* ------------------------------------------------------------ the ownership check */

/* State of one ownership check. */
typedef struct check {
	const char *top;        /* the folder checked */
	dev_t dev;              /* its filesystem */
	marker m;
	GPtrArray *unexpected;  /* char *: "rel (why)" */
	size_t seen;            /* entries walked, bounded by WALK_MAX_ENTRIES */
} check;

static void
flag(check *c, const char *rel, const char *what)
{
	g_ptr_array_add(c->unexpected, what ? br_xasprintf("%s (%s)", rel, what) : br_xstrdup(rel));
}

static int owned(const char *dir, char **why, char **command);
static int is_mount_root(const char *path, const struct stat *st);
static int run_class(const char *command);

/*
 * check_tree: walk top/rel (rel "" for the top) and flag every entry the
 * marker does not list or that changed. A folder not listed but carrying
 * its own valid complete marker is checked on its own (br_outdir_check_owned)
 * and counts as ours when it passes.
 */
static void
check_tree(check *c, const char *rel, int depth)
{
	char *dir = rel[0] ? br_path_join(c->top, rel) : br_xstrdup(c->top);
	DIR *d = opendir(dir);
	if (d == NULL) {
		flag(c, rel[0] ? rel : ".", "cannot be read");
		free(dir);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		if (rel[0] == '\0' && strcmp(n, BR_OUTDIR_MARKER) == 0)
			continue;
		char *r = rel[0] ? br_xasprintf("%s/%s", rel, n) : br_xstrdup(n);
		char *p = br_path_join(dir, n);
		struct stat st;
		if (++c->seen > WALK_MAX_ENTRIES) {
			flag(c, r, "too many entries to check");
		} else if (lstat(p, &st) != 0) {
			flag(c, r, "cannot be read");
		} else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			flag(c, r, br_file_kind(st.st_mode));
		} else if (st.st_dev != c->dev || (S_ISDIR(st.st_mode) && is_mount_root(p, &st))) {
			flag(c, r, "a mount point, another filesystem");
		} else {
			listed *l = g_hash_table_lookup(c->m.files, r);
			if (S_ISDIR(st.st_mode)) {
				char *sub_why = NULL, *sub_cmd = NULL;
				if (l != NULL && l->is_dir) {
					if (depth < WALK_MAX_DEPTH)
						check_tree(c, r, depth + 1);
					else
						flag(c, r, "nested too deep");
				} else if (l == NULL && owned(p, &sub_why, &sub_cmd) && !run_class(sub_cmd)) {
					;   /* a report of ours nested inside (run/report/) */
				} else if (l == NULL && sub_cmd != NULL && run_class(sub_cmd)) {
					char *s2 = br_xasprintf("%s/", r);
					flag(c, s2, "a simulated run: input data, never replaced by another output");
					free(s2);
				} else {
					char *s = br_xasprintf("%s/", r);
					flag(c, s, NULL);
					free(s);
				}
				free(sub_why);
				free(sub_cmd);
			} else if (l == NULL || l->is_dir) {
				flag(c, r, NULL);
			} else {
				char hex[65];
				long long size = 0;
				if (l->bytes != (long long)st.st_size ||
				    br_sha256_file(p, hex, &size, NULL) != 0 || strcmp(hex, l->sha256) != 0)
					flag(c, r, "changed since benchreport wrote it");
			}
		}
		free(p);
		free(r);
	}
	closedir(d);
	free(dir);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * describe_unexpected: "a, b, c (and N more)" of the sorted list, at most
 * UNEXPECTED_SHOWN names.
 */
static char *
describe_unexpected(GPtrArray *u)
{
	if (u->len > 1)
		qsort(u->pdata, u->len, sizeof(char *), cmp_str);
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < u->len && i < UNEXPECTED_SHOWN; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", (char *)u->pdata[i]);
	if (u->len > UNEXPECTED_SHOWN)
		g_string_append_printf(s, " (and %u more)", u->len - UNEXPECTED_SHOWN);
	char *r = br_xstrdup(s->str);
	g_string_free(s, TRUE);
	return r;
}

/*
 * is_mount_root: 1 when path is the root of a mount: statx's
 * STATX_ATTR_MOUNT_ROOT (Linux 5.8) sees a bind mount of the same
 * filesystem too; without it, a device different from the parent's.
 */
static int
is_mount_root(const char *path, const struct stat *st)
{
	struct statx sx;
	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) == 0 &&
	    (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
		return (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
	char *up = br_path_join(path, "..");
	struct stat pst;
	int other = stat(up, &pst) != 0 || pst.st_dev != st->st_dev;
	free(up);
	return other;
}

/* same_fs_as_parent: 1 when dir is not a mount point (see is_mount_root). */
static int
same_fs_as_parent(const char *dir, const struct stat *st)
{
	return !is_mount_root(dir, st);
}

/* run_class: 1 for an output that is a run (simulate writes input data),
 * 0 for a report (report, knee, compare). One never replaces the other. */
static int
run_class(const char *command)
{
	return command != NULL && strcmp(command, "simulate") == 0;
}

/* br_outdir_is_report: see outdir.h. */
int
br_outdir_is_report(const char *dir)
{
	marker m;
	char *why = NULL;
	if (marker_read(dir, &m, &why) != 0) {
		free(why);
		return 0;
	}
	int r = !run_class(m.command);
	marker_free(&m);
	return r;
}

/* br_outdir_check_owned: see outdir.h. */
int
br_outdir_check_owned(const char *dir, char **why)
{
	return owned(dir, why, NULL);
}

/*
 * owned: br_outdir_check_owned, and *command (malloc'd; may be NULL) the
 * command its marker names, whenever a valid marker was read.
 */
static int
owned(const char *dir, char **why, char **command)
{
	struct stat st;
	char *w = NULL;
	int ours = 0;
	check c = { .top = dir };
	if (lstat(dir, &st) != 0)
		w = br_xasprintf("cannot be read: %s", strerror(errno));
	else if (S_ISLNK(st.st_mode))
		w = br_xstrdup("it is a symbolic link");
	else if (!S_ISDIR(st.st_mode))
		w = br_xstrdup("it is not a folder");
	else if (!same_fs_as_parent(dir, &st))
		w = br_xstrdup("it is a mount point (a bind mount or another filesystem)");
	else if (marker_read(dir, &c.m, &w) == 0) {
		if (command)
			*command = br_xstrdup(c.m.command);
		if (strcmp(c.m.state, "complete") != 0)
			w = br_xstrdup("its marker says it was never completed");
		else {
			c.dev = st.st_dev;
			c.unexpected = g_ptr_array_new_with_free_func(free);
			check_tree(&c, "", 0);
			if (c.unexpected->len == 0)
				ours = 1;
			else {
				char *list = describe_unexpected(c.unexpected);
				w = br_xasprintf("it holds what benchreport did not write or what changed since: %s", list);
				free(list);
			}
			g_ptr_array_free(c.unexpected, TRUE);
		}
	}
	marker_free(&c.m);
	if (why)
		*why = w;
	else
		free(w);
	return ours;
}

/* ------------------------------------------------------------ removal */

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* br_rm_rf: see common.h. Never follows a symlink nor crosses a mount. */
void
br_rm_rf(const char *path)
{
	if (path != NULL)
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* only_plain: 1 when every entry under dir is a regular file or a folder
 * on dev (a stale staging folder of ours holds nothing else). */
static int
only_plain(const char *dir, dev_t dev, int depth)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	int ok = 1;
	struct dirent *e;
	while (ok && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *p = br_path_join(dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || st.st_dev != dev)
			ok = 0;
		else if (S_ISDIR(st.st_mode))
			ok = depth < WALK_MAX_DEPTH && only_plain(p, dev, depth + 1);
		else
			ok = S_ISREG(st.st_mode);
		free(p);
	}
	closedir(d);
	return ok;
}

static int
cmp_len_desc(const void *a, const void *b)
{
	size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
	return la < lb ? 1 : la > lb ? -1 : 0;
}

/*
 * remove_owned: delete what the complete marker of dir lists (files with
 * unlink, folders with rmdir, deepest first), nested outputs of ours the
 * same way, then the marker and dir itself. Anything not listed survives,
 * and so does every folder holding it. Call only after
 * br_outdir_check_owned(dir) passed.
 */
static void
remove_owned(const char *dir)
{
	marker m;
	char *why = NULL;
	if (marker_read(dir, &m, &why) != 0) {
		free(why);
		return;
	}
	GPtrArray *dirs = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, m.files);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		char *p = br_path_join(dir, k);
		struct stat st;
		if (((listed *)v)->is_dir)
			g_ptr_array_add(dirs, k);
		else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			unlink(p);
		free(p);
	}
	/* nested outputs: folders at the top not listed but carrying a marker */
	DIR *d = opendir(dir);
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.' && (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0))
				continue;
			if (g_hash_table_contains(m.files, e->d_name))
				continue;
			char *p = br_path_join(dir, e->d_name);
			if (br_outdir_check_owned(p, NULL))
				remove_owned(p);
			free(p);
		}
		closedir(d);
	}
	if (dirs->len > 1)
		qsort(dirs->pdata, dirs->len, sizeof(char *), cmp_len_desc);
	for (guint i = 0; i < dirs->len; i++) {
		char *p = br_path_join(dir, dirs->pdata[i]);
		rmdir(p);
		free(p);
	}
	g_ptr_array_free(dirs, TRUE);
	char *mk = br_path_join(dir, BR_OUTDIR_MARKER);
	unlink(mk);
	free(mk);
	if (rmdir(dir) != 0 && errno != ENOENT)
		fprintf(stderr, "benchreport: note: %s was kept: it holds files benchreport did not write\n", dir);
	marker_free(&m);
}

/*
 * clean_stale: in OUT's parent, remove "BASE.tmp.PID" and "BASE.old.PID"
 * folders whose PID no longer runs, only when they carry our marker: a
 * staging folder must hold only plain files and folders on its own
 * filesystem, an old folder must pass the full ownership check.
 */
static void
clean_stale(const br_outdir *o)
{
	DIR *d = opendir(o->parent);
	if (d == NULL)
		return;
	size_t bl = strlen(o->base);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (strncmp(n, o->base, bl) != 0)
			continue;
		const char *rest = n + bl;
		int is_tmp = strncmp(rest, ".tmp.", 5) == 0, is_old = strncmp(rest, ".old.", 5) == 0;
		if (!is_tmp && !is_old)
			continue;
		const char *digits = rest + 5;
		char *end = NULL;
		errno = 0;
		long pid = strtol(digits, &end, 10);
		if (*digits < '1' || *digits > '9' || *end != '\0' || errno != 0 || (pid_t)pid != pid ||
		    (pid_t)pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;      /* that process still runs (or is not ours to ask) */
		char *p = br_path_join(o->parent, n);
		marker m;
		char *why = NULL;
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && same_fs_as_parent(p, &st) &&
		    marker_read(p, &m, &why) == 0) {
			int complete = strcmp(m.state, "complete") == 0;
			marker_free(&m);
			if (complete) {
				if (br_outdir_check_owned(p, NULL))
					remove_owned(p);
			} else if (is_tmp && only_plain(p, st.st_dev, 0))
				br_rm_rf(p);
		}
		free(why);
		free(p);
	}
	closedir(d);
}

/* ------------------------------------------------------------ signals */

static char sig_staging[4096];
static volatile sig_atomic_t sig_armed;
static const int sig_list[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction sig_saved[3];

/* struct linux_dirent64 as getdents64(2) fills it. */
struct br_dirent64 {
	unsigned long long d_ino;
	long long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * rm_at_sigsafe: remove parent_fd/name and everything under it with
 * async-signal-safe system calls only (openat, getdents64, unlinkat): the
 * signal handler may have interrupted malloc or stdio.
 */
static void
rm_at_sigsafe(int parent_fd, const char *name, int depth)
{
	int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		char buf[4096] __attribute__((aligned(8)));
		for (int pass = 0; pass < 64; pass++) {
			int any = 0;
			long n;
			lseek(fd, 0, SEEK_SET);
			while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
				for (long off = 0; off < n;) {
					struct br_dirent64 *de = (struct br_dirent64 *)(buf + off);
					off += de->d_reclen;
					const char *dn = de->d_name;
					if (dn[0] == '.' && (dn[1] == '\0' || (dn[1] == '.' && dn[2] == '\0')))
						continue;
					any = 1;
					if (unlinkat(fd, dn, 0) != 0 && depth < WALK_MAX_DEPTH) {
						rm_at_sigsafe(fd, dn, depth + 1);
					}
				}
			}
			if (!any)
				break;
		}
		close(fd);
	}
	unlinkat(parent_fd, name, AT_REMOVEDIR);
}

static volatile pid_t sig_tid;   /* the thread that staged the output (arm_signals) */

static void
on_signal(int sig)
{
	/* a process-directed signal may land in a library's thread (GLib, fontconfig)
	 * while the staging thread keeps writing: hand it to the staging thread, so
	 * the removal and the death happen where the writing stops */
	pid_t self = (pid_t)syscall(SYS_gettid);
	if (sig_tid != 0 && self != sig_tid) {
		syscall(SYS_tgkill, getpid(), sig_tid, sig);
		return;
	}
	if (sig_armed) {
		sig_armed = 0;
		rm_at_sigsafe(AT_FDCWD, sig_staging, 0);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
arm_signals(const char *staging)
{
	size_t n = strlen(staging);
	if (n >= sizeof sig_staging)
		return;      /* a path this long cannot be cleaned from a handler */
	memcpy(sig_staging, staging, n + 1);
	sig_tid = (pid_t)syscall(SYS_gettid);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < 3; i++)
		sigaddset(&sa.sa_mask, sig_list[i]);
	for (size_t i = 0; i < 3; i++)
		sigaction(sig_list[i], &sa, &sig_saved[i]);
	sig_armed = 1;
}

static void
disarm_signals(void)
{
	if (!sig_armed && sig_staging[0] == '\0')
		return;
	sig_armed = 0;
	for (size_t i = 0; i < 3; i++)
		sigaction(sig_list[i], &sig_saved[i], NULL);
	sig_staging[0] = '\0';
	sig_tid = 0;
}

static void
block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < 3; i++)
		sigaddset(&set, sig_list[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* ------------------------------------------------------------ the API */

/*
 * out_state: may OUT be written? 0 absent, 1 empty folder, 2 ours (when
 * replace), else -2 with *cause naming what was found.
 */
static int
out_state(const br_outdir *o, char **cause)
{
	struct stat st;
	const char *out = o->out;
	if (lstat(out, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		*cause = br_xasprintf("%s: cannot use as output folder: %s; choose another with -o", out,
		    strerror(errno));
		return BR_OUTDIR_ERR_IO;
	}
	if (S_ISLNK(st.st_mode)) {
		*cause = br_xasprintf("%s: is a symbolic link; benchreport does not write through it "
		    "(give the folder it points to, or another, with -o); nothing was changed", out);
		return BR_OUTDIR_ERR_REFUSED;
	}
	if (!S_ISDIR(st.st_mode)) {
		*cause = br_xasprintf("%s: exists and is %s, not a folder; choose another with -o; "
		    "nothing was changed", out, br_file_kind(st.st_mode));
		return BR_OUTDIR_ERR_REFUSED;
	}
	if (!same_fs_as_parent(out, &st)) {
		*cause = br_xasprintf("%s: is a mount point (a bind mount or another filesystem); a report "
		    "is written beside its folder and renamed into place, which cannot replace a mount "
		    "point: choose a folder inside it, e.g. -o %s/report; nothing was changed", out, out);
		return BR_OUTDIR_ERR_REFUSED;
	}
	DIR *d = opendir(out);
	if (d == NULL) {
		*cause = br_xasprintf("%s: cannot read the folder: %s; choose another with -o", out,
		    strerror(errno));
		return BR_OUTDIR_ERR_IO;
	}
	int empty = 1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			empty = 0;
			break;
		}
	closedir(d);
	if (empty)
		return 1;
	char *why = NULL, *cmd = NULL;
	if (owned(out, &why, &cmd)) {
		free(why);
		int other = run_class(cmd) != run_class(o->command);
		free(cmd);
		if (other && run_class(o->command)) {
			*cause = br_xasprintf("%s: is a benchreport report, not a simulated run; simulate "
			    "writes runs only into a new or empty folder or over an earlier run: choose "
			    "another folder with -o; nothing was changed", out);
			return BR_OUTDIR_ERR_REFUSED;
		}
		if (other) {
			*cause = br_xasprintf("%s: is a simulated run (written by `benchreport simulate`): "
			    "input data, which a report never replaces; choose another folder with -o "
			    "(e.g. %s/report); nothing was changed", out, out);
			return BR_OUTDIR_ERR_REFUSED;
		}
		if (o->replace)
			return 2;
		*cause = br_xasprintf("%s: already exists (an earlier %s output; use --force to replace "
		    "it, or choose another folder with -o)", out, o->command);
		return BR_OUTDIR_ERR_REFUSED;
	}
	if (strncmp(why, "it holds", 8) == 0)
		*cause = br_xasprintf("%s: refused to replace this folder: %s. Nothing was deleted: move "
		    "those out, or choose another folder with -o", out, why);
	else
		*cause = br_xasprintf("%s: refused to replace this folder: %s (reports of benchreport "
		    "before December 2026 carry no marker: remove such a folder yourself). Nothing was "
		    "deleted; choose another folder with -o", out, why);
	free(why);
	free(cmd);
	return BR_OUTDIR_ERR_REFUSED;
}

/* br_outdir_prepare: see outdir.h. */
br_outdir *
br_outdir_prepare(const char *out_dir, const char *command, int replace, int *rc, char **cause)
{
	*rc = 0;
	br_outdir *o = br_xcalloc(1, sizeof *o);
	o->out = strip(out_dir ? out_dir : "");
	split(o->out, &o->parent, &o->base);
	o->command = br_xstrdup(command);
	o->replace = replace;
	random_id(o->id);
	if (o->base[0] == '\0' || strcmp(o->base, ".") == 0 || strcmp(o->base, "..") == 0 ||
	    strcmp(o->out, "/") == 0) {
		*cause = br_xasprintf("'%s': expected a folder name for the output (not '.', '..' or '/'); "
		    "choose one with -o", out_dir ? out_dir : "");
		*rc = BR_OUTDIR_ERR_REFUSED;
		br_outdir_free(o);
		return NULL;
	}
	int st = out_state(o, cause);
	if (st < 0) {
		*rc = st;
		br_outdir_free(o);
		return NULL;
	}
	clean_stale(o);
	return o;
}

/* marker_json: the marker text; with files (a sorted list), complete. */
static char *
marker_json(const br_outdir *o, json_t *files)
{
	json_t *j = json_object();
	json_object_set_new(j, "format", json_string(BR_OUTDIR_FORMAT));
	json_object_set_new(j, "id", json_string(o->id));
	json_object_set_new(j, "command", json_string(o->command));
	json_object_set_new(j, "state", json_string(files ? "complete" : "staging"));
	json_object_set_new(j, "note", json_string("written by benchreport; it replaces or removes this "
	    "folder only while it holds nothing but the files listed here, unchanged"));
	if (files)
		json_object_set_new(j, "files", files);
	char *s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (s == NULL) {
		fprintf(stderr, "benchreport: out of memory writing the output marker\n");
		abort();
	}
	return s;
}

static int
write_marker(const br_outdir *o, json_t *files, char **cause)
{
	char *text = marker_json(o, files);
	char *path = br_path_join(o->staging, BR_OUTDIR_MARKER);
	int rc = br_write_atomic(path, text, strlen(text), cause);
	free(path);
	free(text);
	return rc;
}

/* br_outdir_stage: see outdir.h. */
int
br_outdir_stage(br_outdir *o, char **cause)
{
	if (o->staged)
		return 0;
	if (br_mkdir_p(o->parent, cause) != 0) {
		char *c = *cause;
		*cause = br_xasprintf("%s: cannot write the output there (%s); choose another folder with -o",
		    o->out, c);
		free(c);
		return BR_OUTDIR_ERR_IO;
	}
	o->staging = br_xasprintf("%s.tmp.%ld", o->out, (long)getpid());
	struct stat st;
	if (lstat(o->staging, &st) == 0) {
		/* our own PID's leftover (a reused PID after kill -9): ours only with a marker */
		marker m;
		char *why = NULL;
		if (S_ISDIR(st.st_mode) && marker_read(o->staging, &m, &why) == 0 &&
		    only_plain(o->staging, st.st_dev, 0)) {
			marker_free(&m);
			br_rm_rf(o->staging);
		}
		free(why);
	}
	arm_signals(o->staging);
	if (mkdir(o->staging, 0755) != 0) {
		*cause = br_xasprintf("%s: cannot write the output there (%s: %s); choose another folder "
		    "with -o", o->out, o->staging, strerror(errno));
		disarm_signals();
		free(o->staging);
		o->staging = NULL;
		return BR_OUTDIR_ERR_IO;
	}
	o->staged = 1;
	if (write_marker(o, NULL, cause) != 0)
		return BR_OUTDIR_ERR_IO;
	return 0;
}

const char *
br_outdir_staging(const br_outdir *o)
{
	return o->staging;
}

const char *
br_outdir_path(const br_outdir *o)
{
	return o->out;
}

/* list_tree: every entry under staging (but the marker) into files, with
 * sizes and SHA-256 for files. Returns 0 or -1 with *cause. */
static int
list_tree(const char *top, const char *rel, GPtrArray *names, char **cause)
{
	char *dir = rel[0] ? br_path_join(top, rel) : br_xstrdup(top);
	DIR *d = opendir(dir);
	int rc = 0;
	if (d == NULL) {
		*cause = br_xasprintf("%s: cannot read: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    (rel[0] == '\0' && strcmp(n, BR_OUTDIR_MARKER) == 0))
			continue;
		char *r = rel[0] ? br_xasprintf("%s/%s", rel, n) : br_xstrdup(n);
		char *p = br_path_join(dir, n);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			g_ptr_array_add(names, br_xasprintf("d%s", r));
			rc = list_tree(top, r, names, cause);
		} else
			g_ptr_array_add(names, br_xasprintf("f%s", r));
		free(p);
		free(r);
	}
	closedir(d);
	free(dir);
	return rc;
}

static int
cmp_tagged(const void *a, const void *b)
{
	return strcmp(*(char *const *)a + 1, *(char *const *)b + 1);
}

static gpointer
prehash_run(gpointer data)
{
	prehash *h = data;
	h->rc = br_sha256_file(h->path, h->hex, &h->size, &h->cause);
	return NULL;
}

/* br_outdir_prehash: see outdir.h. */
void
br_outdir_prehash(br_outdir *o, const char *rel)
{
	if (o == NULL || !o->staged || o->n_pre >= 8)
		return;
	/* the array is never reallocated while threads run: 8 slots, made once */
	if (o->pre == NULL)
		o->pre = br_xcalloc(8, sizeof *o->pre);
	prehash *h = &o->pre[o->n_pre++];
	h->rel = br_xstrdup(rel);
	h->path = br_path_join(o->staging, rel);
	h->th = g_thread_new("br-sha256", prehash_run, h);
}

/* prehash_join: wait for every prehash thread (idempotent). */
static void
prehash_join(br_outdir *o)
{
	for (size_t i = 0; i < o->n_pre; i++)
		if (o->pre[i].th != NULL) {
			g_thread_join(o->pre[i].th);
			o->pre[i].th = NULL;
		}
}

/* prehash_find: the finished hash of staged file rel, or NULL. */
static prehash *
prehash_find(br_outdir *o, const char *rel)
{
	prehash_join(o);
	for (size_t i = 0; i < o->n_pre; i++)
		if (strcmp(o->pre[i].rel, rel) == 0)
			return &o->pre[i];
	return NULL;
}

/* files_json: the marker's file list for the staging folder. */
static json_t *
files_json(br_outdir *o, char **cause)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(free);
	json_t *files = NULL;
	if (list_tree(o->staging, "", names, cause) != 0)
		goto out;
	if (names->len > 1)
		qsort(names->pdata, names->len, sizeof(char *), cmp_tagged);
	files = json_array();
	for (guint i = 0; i < names->len; i++) {
		const char *t = names->pdata[i];
		json_t *f = json_object();
		json_object_set_new(f, "path", json_string(t + 1));
		if (t[0] == 'd')
			json_object_set_new(f, "type", json_string("dir"));
		else {
			char hex[65];
			long long size = 0;
			int hrc;
			const prehash *h = prehash_find(o, t + 1);
			if (h != NULL) {
				/* hashed on its own thread once it was complete */
				hrc = h->rc;
				memcpy(hex, h->hex, sizeof hex);
				size = h->size;
				if (hrc != 0 && cause)
					*cause = br_xstrdup(h->cause ? h->cause : "hash failed");
			} else {
				char *p = br_path_join(o->staging, t + 1);
				hrc = br_sha256_file(p, hex, &size, cause);
				free(p);
			}
			if (hrc != 0) {
				json_decref(f);
				json_decref(files);
				files = NULL;
				goto out;
			}
			json_object_set_new(f, "type", json_string("file"));
			json_object_set_new(f, "bytes", json_integer(size));
			json_object_set_new(f, "sha256", json_string(hex));
		}
		json_array_append_new(files, f);
	}
out:
	g_ptr_array_free(names, TRUE);
	return files;
}

/* br_outdir_commit: see outdir.h. */
int
br_outdir_commit(br_outdir *o, char **cause)
{
	if (!o->staged) {
		*cause = br_xasprintf("%s: nothing was staged", o->out);
		return BR_OUTDIR_ERR_IO;
	}
	json_t *files = files_json(o, cause);
	if (files == NULL)
		return BR_OUTDIR_ERR_IO;
	if (write_marker(o, files, cause) != 0)
		return BR_OUTDIR_ERR_IO;
	sigset_t old;
	block_signals(&old);
	int rc = 0;
	char *prev = NULL;
	int st = out_state(o, cause);     /* again: OUT may have changed meanwhile */
	if (st < 0) {
		rc = st;
		goto out;
	}
	if (st > 0) {
		prev = br_xasprintf("%s.old.%ld", o->out, (long)getpid());
		if (rename(o->out, prev) != 0) {
			*cause = br_xasprintf("%s: cannot move the earlier output aside: %s", o->out, strerror(errno));
			free(prev);
			prev = NULL;
			rc = BR_OUTDIR_ERR_IO;
			goto out;
		}
	}
	if (rename(o->staging, o->out) != 0) {
		*cause = br_xasprintf("%s: cannot rename %s into place: %s", o->out, o->staging, strerror(errno));
		if (prev != NULL)
			rename(prev, o->out);
		rc = BR_OUTDIR_ERR_IO;
		goto out;
	}
	o->committed = 1;
	disarm_signals();
	if (prev != NULL) {
		if (st == 1)
			rmdir(prev);
		else
			remove_owned(prev);
	}
out:
	free(prev);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* br_outdir_free: see outdir.h. */
void
br_outdir_free(br_outdir *o)
{
	if (o == NULL)
		return;
	prehash_join(o);
	for (size_t i = 0; i < o->n_pre; i++) {
		free(o->pre[i].rel);
		free(o->pre[i].path);
		free(o->pre[i].cause);
	}
	free(o->pre);
	if (o->staged && !o->committed) {
		sigset_t old;
		block_signals(&old);
		br_rm_rf(o->staging);
		disarm_signals();
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(o->out);
	free(o->parent);
	free(o->base);
	free(o->staging);
	free(o->command);
	free(o);
}

/*
 * `benchreport record -o RUN_DIR [--metrics-url URL] [--server-log FILE]
 * [--name N] [--interval 1s] [--tail S] [REPORT OPTIONS] -- CMD...`:
 * sample /metrics while the load client CMD runs, keep sampling until the
 * server is idle again (running + waiting back to 0, at most --tail after
 * CMD ends), copy the server log's part that covers the run, write
 * run.json, then report on the folder.
 *
 * Exit status: CMD's when it failed (the folder is still written and
 * reported on); else 3 when --metrics-url never answered; otherwise the
 * report's (0, or 1 for a failing --fail-on).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <glib.h>
#include <jansson.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"
#include "cli/cmd.h"

static const char usage_text[] =
    "usage: benchreport record -o RUN_DIR [--metrics-url URL] [--server-log FILE] [--name N]\n"
    "                          [--interval 1s] [--tail 60s] [--no-report] [REPORT OPTIONS] -- CMD...\n";

typedef struct sampler_job {
	br_sample_opts o;
	br_sample_stats st;
	char *cause;
	int rc;
	volatile int finished;
} sampler_job;

static void *
sampler_main(void *arg)
{
	sampler_job *j = arg;
	j->rc = br_sample_run(&j->o, &j->st, &j->cause);
	j->finished = 1;
	return NULL;
}

/* tee_fd: copy what is readable on fd to out and the kept file; 0 at EOF. */
static int
tee_fd(int fd, FILE *out, FILE *kept)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	fwrite(buf, 1, (size_t)n, out);
	fflush(out);
	if (kept) {
		fwrite(buf, 1, (size_t)n, kept);
		fflush(kept);
	}
	return 1;
}

/* iso_utc: epoch seconds as "2026-12-02T07:03:04.123Z". */
static void
iso_utc(double t, char *buf, size_t n)
{
	time_t s = (time_t)floor(t);
	struct tm tm;
	gmtime_r(&s, &tm);
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", d, (int)((t - floor(t)) * 1000));
}

/* A client still running this long after a stop gets SIGTERM, and SIGKILL
 * as long again later (a client that ignores the signals it was sent). */
#define STOP_GRACE_S 5.0
/* After the client's own process has exited, its output is read this much
 * longer: a helper it left in the background may hold the pipes open. */
#define DRAIN_S 1.0

/* group_alive: 1 while a process of the client's process group lives. */
static int
group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

/*
 * escalate: after a stop (*stop set; *t_stop the monotonic time it was
 * first seen, NAN before), pass the signal on to the client's process group
 * at once (it has a group of its own, so a terminal's Ctrl-C reaches only
 * us), then SIGTERM after STOP_GRACE_S and SIGKILL after twice that, each
 * said on stderr once, while any process of the group lives (a wrapper
 * shell that died at once leaves the load generator it started). *stage
 * counts what was sent (0 nothing, 1 forwarded, 2 SIGTERM, 3 SIGKILL).
 */
static void
escalate(pid_t pgid, volatile sig_atomic_t *stop, double *t_stop, int *stage)
{
	if (!*stop)
		return;
	double now = br_clock_mono_s();
	if (isnan(*t_stop)) {
		*t_stop = now;
		int sig = br_cli_stop_signal();
		kill(-pgid, sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? sig : SIGTERM);
		*stage = 1;
	}
	if (*stage == 1 && now - *t_stop >= STOP_GRACE_S) {
		*stage = 2;
		if (group_alive(pgid)) {
			fprintf(stderr, "benchreport record: the client is still running %.0f s after the stop; "
			    "sending its process group SIGTERM\n", STOP_GRACE_S);
			kill(-pgid, SIGTERM);
		}
	}
	if (*stage == 2 && now - *t_stop >= 2 * STOP_GRACE_S) {
		*stage = 3;
		if (group_alive(pgid)) {
			fprintf(stderr, "benchreport record: the client ignored SIGTERM for %.0f s; sending its "
			    "process group SIGKILL\n", STOP_GRACE_S);
			kill(-pgid, SIGKILL);
		}
	}
}

/* How run_command ended without an exit status. */
enum { RUN_FAILED = -1, RUN_STOPPED_BEFORE = -2 };

/*
 * run_command: fork/exec argv (cmdline: its text, printed) in a group of its own, stdin from
 * /dev/null, stdout/stderr teed into run_dir's client-stdout.txt /
 * client-stderr.txt. A stop (SIGINT/SIGTERM/SIGHUP to us) is passed on to
 * the whole group and escalated (escalate); a stop that came before the
 * fork keeps the client from starting at all (the signals are blocked
 * across the check and the fork). The client has ended when its own
 * process has: its exit is the end time (*t_end_s, br_clock_wall_s), and
 * its pipes are read DRAIN_S longer at most. Returns the exit status as a
 * shell reports it (128 + signal), RUN_STOPPED_BEFORE, or RUN_FAILED with
 * *cause.
 */
static int
run_command(char **argv, const char *cmdline, const char *run_dir, double *t_start_s, double *t_end_s,
    char **cause)
{
	int out_p[2], err_p[2], exec_p[2];
	if (pipe(out_p) != 0 || pipe(err_p) != 0 || pipe2(exec_p, O_CLOEXEC) != 0) {
		*cause = br_xasprintf("cannot create pipes (%s)", strerror(errno));
		return RUN_FAILED;
	}
	fflush(stdout);
	fflush(stderr);
	sigset_t stops, old;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, &old);
	volatile sig_atomic_t *stop = br_cli_stop_flag();
	if (!*stop)
		fprintf(stderr, "benchreport record: running %s\n", cmdline);
	pid_t pid = *stop ? 0 : fork();
	if (*stop || pid < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		close(out_p[0]); close(out_p[1]); close(err_p[0]); close(err_p[1]);
		close(exec_p[0]); close(exec_p[1]);
		if (*stop)
			return RUN_STOPPED_BEFORE;
		*cause = br_xasprintf("cannot start %s (%s)", argv[0], strerror(e));
		return RUN_FAILED;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0) {
			dup2(devnull, 0);
			close(devnull);
		}
		dup2(out_p[1], 1);
		dup2(err_p[1], 2);
		close(out_p[0]); close(out_p[1]); close(err_p[0]); close(err_p[1]);
		close(exec_p[0]);
		execvp(argv[0], argv);
		int e = errno;   /* the exec failed: the parent learns it through exec_p */
		if (write(exec_p[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);   /* also here: no window in which a stop misses the group */
	*t_start_s = br_clock_wall_s();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(out_p[1]);
	close(err_p[1]);
	close(exec_p[1]);
	int exec_errno = 0;
	ssize_t got;
	while ((got = read(exec_p[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
		;
	close(exec_p[0]);
	if (got == (ssize_t)sizeof exec_errno) {
		/* the client never started: no load ran (the caller stops sampling) */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(out_p[0]);
		close(err_p[0]);
		*cause = br_xasprintf("cannot run '%s': %s", argv[0], strerror(exec_errno));
		return RUN_FAILED;
	}
	char *po = br_path_join(run_dir, "client-stdout.txt"), *pe = br_path_join(run_dir, "client-stderr.txt");
	FILE *ko = fopen(po, "w"), *ke = fopen(pe, "w");
	free(po);
	free(pe);
	struct pollfd fds[2] = { { .fd = out_p[0], .events = POLLIN }, { .fd = err_p[0], .events = POLLIN } };
	int open_fds = 2, stage = 0, status = 0, reaped = 0;
	double t_stop = NAN, t_reaped = NAN;
	*t_end_s = NAN;
	for (;;) {
		escalate(pid, stop, &t_stop, &stage);
		if (!reaped) {
			pid_t w = waitpid(pid, &status, WNOHANG);
			if (w == pid || (w < 0 && errno != EINTR)) {
				reaped = 1;
				*t_end_s = br_clock_wall_s();
				t_reaped = br_clock_mono_s();
			}
		}
		/* the client's own process has ended: its output is read until the
		 * pipes close or DRAIN_S; after a stop, until its group is gone too */
		if (reaped && (open_fds == 0 || br_clock_mono_s() - t_reaped >= DRAIN_S) &&
		    (!*stop || stage == 3 || !group_alive(pid)))
			break;
		if (open_fds == 0) {
			usleep(50000);
			continue;
		}
		int r = poll(fds, 2, 50);
		if (r < 0 && errno != EINTR)
			break;
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!tee_fd(fds[k].fd, k == 0 ? stdout : stderr, k == 0 ? ko : ke)) {
				close(fds[k].fd);
				fds[k].fd = -1;
				open_fds--;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		if (fds[k].fd >= 0)
			close(fds[k].fd);
	if (!*stop && open_fds > 0)
		fprintf(stderr, "benchreport record: the client exited, but a process it left in the background "
		    "still holds its output open; the run ends at the client's exit (that process is left running)\n");
	int kept_err = 0;
	FILE *kept[2] = { ko, ke };
	for (int k = 0; k < 2; k++)
		if (kept[k] != NULL) {
			kept_err |= ferror(kept[k]) != 0;
			kept_err |= fclose(kept[k]) != 0;
		}
	if (kept_err || !ko || !ke)
		fprintf(stderr, "benchreport record: %s/client-stdout.txt or client-stderr.txt could not be written "
		    "whole (%s): the client's output shown above is not all kept\n", run_dir, strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

/*
 * keep_client_meta: a run.json the client wrote into the folder (labels
 * such as gpu, driver, notes) is merged into record's rj, not overwritten
 * (twenty-second breaker): its keys are kept, its values winning over what
 * record found (nvidia-smi's GPU, the folder's name; --name wins over
 * its name), except "record", which is record's own. One that is not a
 * JSON object is kept beside as run.client.json. Said on stderr.
 */
static void
keep_client_meta(const char *rjp, json_t *rj, int name_given)
{
	if (!br_path_exists(rjp))
		return;
	json_error_t je;
	json_t *mine = json_load_file(rjp, 0, &je);
	if (mine == NULL || !json_is_object(mine)) {
		char *keep = br_xasprintf("%.*s.client.json", (int)(strlen(rjp) - 5), rjp);
		if (rename(rjp, keep) == 0)
			fprintf(stderr, "benchreport record: note: the client wrote a run.json that is not a JSON object "
			    "(%s); kept as %s\n", mine ? "not an object" : je.text, keep);
		free(keep);
		json_decref(mine);
		return;
	}
	GString *kept = g_string_new(NULL);
	const char *k;
	json_t *v;
	json_object_foreach(mine, k, v) {
		if (strcmp(k, "record") == 0 || (strcmp(k, "name") == 0 && name_given))
			continue;
		json_object_set(rj, k, v);
		g_string_append_printf(kept, "%s%s", kept->len ? ", " : "", k);
	}
	json_t *rec = json_incref(json_object_get(rj, "record"));   /* record's block last, after the labels */
	json_object_del(rj, "record");
	json_object_set_new(rj, "record", rec);
	if (kept->len)
		fprintf(stderr, "benchreport record: note: kept what the client's run.json states (%s); the "
		    "\"record\" block is record's\n", kept->str);
	g_string_free(kept, TRUE);
	json_decref(mine);
}

/* remove_capture: the files the sampler wrote into run_dir (metrics*,
 * slots*; the folder was new or empty when record began), and run_dir
 * itself when record made it: a load that never ran leaves no half run. */
static void
remove_capture(const char *run_dir, int made_dir)
{
	DIR *d = opendir(run_dir);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "metrics", 7) == 0 || strncmp(e->d_name, "slots", 5) == 0) {
			char *p = br_path_join(run_dir, e->d_name);
			unlink(p);
			free(p);
		}
	if (d)
		closedir(d);
	if (made_dir)
		rmdir(run_dir);
}

/* report_argv: RUN_DIR then the n report options, NULL-terminated, as
 * br_cmd_report takes them (malloc'd array; the strings are borrowed). */
static char **
report_argv(const char *run_dir, const char **rep, int n)
{
	char **v = br_xcalloc((size_t)n + 2, sizeof *v);
	v[0] = (char *)run_dir;
	for (int i = 0; i < n; i++)
		v[i + 1] = (char *)rep[i];
	return v;
}

static char *
shell_join(char **argv)
{
	GString *g = g_string_new(NULL);
	for (int i = 0; argv[i]; i++) {
		char *q = g_shell_quote(argv[i]);
		if (i)
			g_string_append_c(g, ' ');
		/* plain words stay plain */
		if (strpbrk(argv[i], " \t\n'\"\\$`*?[]{}()<>|&;!#~") == NULL && argv[i][0] != '\0')
			g_string_append(g, argv[i]);
		else
			g_string_append(g, q);
		g_free(q);
	}
	return g_string_free(g, FALSE);
}

int
br_cmd_record(int argc, char **argv)
{
	const char *run_dir = NULL, *url = NULL, *log_path = NULL, *name = NULL;
	double interval = 1.0, tail = 60.0;
	int no_report = 0, no_gpu = 0, dd = -1, made_dir = 0;
	const char **rep = br_xcalloc((size_t)argc + 4, sizeof *rep);
	int n_rep = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			dd = i;
			break;
		}
		int takes = strcmp(a, "-o") == 0 || strcmp(a, "--metrics-url") == 0 ||
		    strcmp(a, "--server-log") == 0 || strcmp(a, "--name") == 0 ||
		    strcmp(a, "--interval") == 0 || strcmp(a, "--tail") == 0;
		if (takes && (v == NULL || *v == '\0' || strcmp(v, "--") == 0)) {
			fprintf(stderr, "benchreport record: %s needs a value\n%s", a, usage_text);
			free(rep);
			return BR_EXIT_USAGE;
		}
		if (strcmp(a, "-o") == 0) run_dir = v, i++;
		else if (strcmp(a, "--metrics-url") == 0) url = v, i++;
		else if (strcmp(a, "--server-log") == 0) log_path = v, i++;
		else if (strcmp(a, "--name") == 0) name = v, i++;
		else if (strcmp(a, "--interval") == 0 || strcmp(a, "--tail") == 0) {
			double *dst = a[2] == 'i' ? &interval : &tail;
			if (br_parse_duration_s(v, dst) != 0 || (dst == &interval && *dst < 0.05)) {
				fprintf(stderr, "benchreport record: %s: expected a duration such as 1s or 500ms%s, "
				    "found '%s'\n", a, dst == &interval ? " (at least 50ms)" : "", v);
				free(rep);
				return BR_EXIT_USAGE;
			}
			i++;
		} else if (strcmp(a, "--no-report") == 0)
			no_report = 1;
		else if (strcmp(a, "--no-gpu") == 0)
			no_gpu = 1;
		else {
			/* report options (--fail-on X, --junit F, --quiet, ...) go to the report */
			rep[n_rep++] = a;
			if ((strcmp(a, "--fail-on") == 0 || strcmp(a, "--junit") == 0 || strcmp(a, "--lang") == 0) && v)
				rep[n_rep++] = argv[++i];
		}
	}
	if (run_dir == NULL || dd < 0 || dd + 1 >= argc) {
		fprintf(stderr, "benchreport record: %s\n%s", run_dir == NULL ? "missing -o RUN_DIR" :
		    "missing the load client command after --", usage_text);
		free(rep);
		return BR_EXIT_USAGE;
	}
	if (url && strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
		fprintf(stderr, "benchreport record: --metrics-url %s: expected an http:// or https:// URL\n", url);
		free(rep);
		return BR_EXIT_USAGE;
	}
	if (!no_report) {
		/* the report's options are checked now: a typo found after the load
		 * would cost the run (twenty-second breaker) */
		char **cargv = report_argv(run_dir, rep, n_rep);
		int crc = br_cmd_report_check(n_rep + 1, cargv);
		free(cargv);
		if (crc != 0) {
			fprintf(stderr, "benchreport record: the report options above are wrong; nothing was run\n");
			free(rep);
			return crc;
		}
	}
	struct stat sb;
	long long log_offset = 0;
	char *startup_text = NULL;
	if (log_path != NULL) {
		char *why = NULL;
		errno = 0;
		if (stat(log_path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			fprintf(stderr, "benchreport record: --server-log %s: %s\n", log_path,
			    errno ? strerror(errno) : S_ISDIR(sb.st_mode) ? "is a folder; expected the server's log file" :
			    "not a regular file; expected the server's log file");
			free(rep);
			return BR_EXIT_INPUT;
		}
		startup_text = br_log_startup_block(log_path, &log_offset, &why);
		if (startup_text == NULL && why != NULL) {
			fprintf(stderr, "benchreport record: --server-log %s\n", why);
			free(why);
			free(rep);
			return BR_EXIT_INPUT;
		}
	}
	char *cause = NULL;
	/* libcurl is loaded for the scrape only: a machine without it learns so
	 * before the load runs and before RUN_DIR is made */
	if (url != NULL && br_sample_global_init(&cause) != 0) {
		fprintf(stderr, "benchreport record: --metrics-url: %s\n", cause);
		free(cause);
		free(rep);
		return BR_EXIT_USAGE;
	}
	/* RUN_DIR: new, or an empty folder (the client writes its result there) */
	if (stat(run_dir, &sb) == 0) {
		DIR *d = S_ISDIR(sb.st_mode) ? opendir(run_dir) : NULL;
		int empty = d != NULL;
		struct dirent *e;
		while (d && (e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				empty = 0;
		if (d)
			closedir(d);
		if (!empty) {
			fprintf(stderr, "benchreport record: %s exists and is not an empty folder; record into a "
			    "new folder so nothing of yours is mixed or overwritten\n", run_dir);
			free(rep);
			return BR_EXIT_USAGE;
		}
	} else if ((made_dir = 1, br_mkdir_p(run_dir, &cause)) != 0) {
		fprintf(stderr, "benchreport record: %s\n", cause);
		free(cause);
		free(rep);
		return BR_EXIT_USAGE;
	}

	{
		/* a folder we cannot write into is found now, not after the load */
		char *probe = br_path_join(run_dir, ".benchreport-record-probe");
		int perr = br_write_atomic(probe, "probe\n", 6, &cause);
		unlink(probe);
		free(probe);
		if (perr != 0) {
			fprintf(stderr, "benchreport record: %s; nothing was run\n", cause);
			free(cause);
			free(rep);
			free(startup_text);
			return BR_EXIT_USAGE;
		}
	}
	br_cli_install_stop_handlers();
	volatile sig_atomic_t *user_stop = br_cli_stop_flag();
	static volatile sig_atomic_t sampler_stop, load_done;
	sampler_stop = load_done = 0;
	sampler_job job;
	memset(&job, 0, sizeof job);
	pthread_t th;
	int sampling = 0;
	char *metrics_path = br_path_join(run_dir, "metrics.csv");
	if (url != NULL) {
		job.o = (br_sample_opts){ .url = url, .out_path = metrics_path, .interval_s = interval,
		    .duration_s = NAN, .until_idle_s = 2 * interval, .stop = &sampler_stop,
		    .load_done = &load_done, .log = stderr, .gpu = !no_gpu, .slots = -1 };
		if (pthread_create(&th, NULL, sampler_main, &job) == 0) {
			sampling = 1;
			/* one row before the load starts */
			double t = br_clock_mono_s();
			while (br_clock_mono_s() - t < interval && !*user_stop && !job.finished)
				usleep(20000);
		}
	}
	double t_start = br_clock_wall_s(), t_end = NAN;
	char **cmd = argv + dd + 1;
	char *cmdline = shell_join(cmd);
	int cmd_rc = run_command(cmd, cmdline, run_dir, &t_start, &t_end, &cause);
	if (cmd_rc == RUN_STOPPED_BEFORE) {
		/* a stop before the client started: it is not started at all (the
		 * user cancelled the load; twenty-second breaker: Ctrl-C in the first
		 * tick started it anyway, and it ran to the end with exit 0) */
		int sig = br_cli_stop_signal();
		fprintf(stderr, "benchreport record: stopped (%s) before the load client started: it was not "
		    "run; the samples taken so far are removed\n", strsignal(sig));
		if (sampling) {
			sampler_stop = 1;
			pthread_join(th, NULL);
			free(job.cause);
		}
		remove_capture(run_dir, made_dir);
		free(cmdline);
		free(metrics_path);
		free(rep);
		free(startup_text);
		return 128 + (sig > 0 ? sig : SIGINT);
	}
	if (!isfinite(t_end))
		t_end = br_clock_wall_s();
	int interrupted = *user_stop != 0, not_started = cmd_rc < 0;
	if (cmd_rc < 0) {
		fprintf(stderr, "benchreport record: %s\n", cause);
		free(cause);
		cause = NULL;
		cmd_rc = 127;
	}
	load_done = 1;
	if (sampling && not_started)
		sampler_stop = 1;   /* no load ran: nothing to wait for */
	/* a URL that never answered while the load ran will not tell when the
	 * server is idle: no --tail wait for it */
	if (sampling && !not_started && !interrupted && __atomic_load_n(&job.st.n_ok, __ATOMIC_RELAXED) == 0) {
		fprintf(stderr, "benchreport record: the client exited %d; --metrics-url %s, so "
		    "sampling stops now instead of waiting for the server to go idle\n", cmd_rc,
		    __atomic_load_n(&job.st.n_unusable, __ATOMIC_RELAXED) > 0 ? "never gave a usable page" :
		    "never answered");
		sampler_stop = 1;
	}
	if (sampling) {
		double t = br_clock_mono_s();
		if (!interrupted && !not_started && !sampler_stop)
			fprintf(stderr, "benchreport record: the client exited %d; sampling until the server is idle "
			    "(at most %.0f s)\n", cmd_rc, tail);
		while (!job.finished) {
			if (*user_stop || br_clock_mono_s() - t >= tail)
				sampler_stop = 1;
			usleep(50000);
		}
		pthread_join(th, NULL);
		if (job.rc != 0) {
			fprintf(stderr, "benchreport record: metrics: %s\n", job.cause);
			free(job.cause);
		}
	}
	double t_capture_end = br_clock_wall_s();
	/* a stop after the client ended cut the --tail wait short: said, and
	 * kept in run.json (the client itself was not interrupted) */
	int capture_stopped = !interrupted && *user_stop != 0;
	if (capture_stopped)
		fprintf(stderr, "benchreport record: stopped while sampling after the client ended: the capture "
		    "ends here and the report follows\n");
	/* the server log's part */
	int startup = startup_text != NULL, rotated = 0;
	if (log_path != NULL) {
		char *dst = br_path_join(run_dir, "server.log");
		long long n = br_log_write_run(log_path, log_offset, startup_text, dst, &rotated, &cause);
		if (n < 0) {
			fprintf(stderr, "benchreport record: --server-log: %s\n", cause);
			free(cause);
			cause = NULL;
		} else {
			if (!startup)
				fprintf(stderr, "benchreport record: note: %s held no server start-up lines when the "
				    "recording started (restart the server with its log going to that file to keep "
				    "the KV cache size and arguments)\n", log_path);
			if (rotated)
				fprintf(stderr, "benchreport record: note: %s shrank during the run (rotated or "
				    "truncated): server.log holds the start-up block taken at the start and the "
				    "whole current file, so lines written before the rotation are missing\n", log_path);
		}
		free(dst);
	}
	free(startup_text);
	/* run.json */
	br_gpu_identity gi;
	int have_gpu = br_gpu_identity_query(&gi) == 0;
	char ts[40];
	json_t *rj = json_object();
	json_object_set_new(rj, "name", json_string(name ? name : br_basename(run_dir)));
	if (have_gpu && gi.gpu) json_object_set_new(rj, "gpu", json_string(gi.gpu));
	if (have_gpu && gi.driver) json_object_set_new(rj, "driver", json_string(gi.driver));
	if (have_gpu && gi.cuda) json_object_set_new(rj, "cuda", json_string(gi.cuda));
	json_t *rec = json_object();
	json_object_set_new(rec, "command", json_string(cmdline));
	json_object_set_new(rec, "exit_code", json_integer(cmd_rc));
	json_object_set_new(rec, "interrupted", json_boolean(interrupted));
	iso_utc(t_start, ts, sizeof ts);
	json_object_set_new(rec, "client_start_utc", json_string(ts));
	iso_utc(t_end, ts, sizeof ts);
	json_object_set_new(rec, "client_end_utc", json_string(ts));
	json_object_set_new(rec, "client_start_unix_s", json_real(t_start));
	json_object_set_new(rec, "client_end_unix_s", json_real(t_end));
	iso_utc(t_capture_end, ts, sizeof ts);
	json_object_set_new(rec, "capture_end_utc", json_string(ts));
	json_object_set_new(rec, "capture_stopped", json_boolean(capture_stopped));
	if (sampling) {
		json_t *m = json_object();
		json_object_set_new(m, "url", json_string(url));
		json_object_set_new(m, "interval_s", json_real(interval));
		json_object_set_new(m, "rows", json_integer((json_int_t)job.st.n_rows));
		json_object_set_new(m, "answered", json_integer((json_int_t)job.st.n_ok));
		json_object_set_new(m, "failed", json_integer((json_int_t)job.st.n_failed));
		json_object_set_new(m, "missed_ticks", json_integer((json_int_t)job.st.n_missed_ticks));
		json_object_set_new(m, "server_restarts", json_integer((json_int_t)job.st.n_restarts));
		json_object_set_new(m, "series", json_integer((json_int_t)job.st.n_columns));
		json_object_set_new(m, "new_series", json_integer((json_int_t)job.st.n_new_series));
		json_object_set_new(m, "tick_jitter_p99_ms", isfinite(job.st.jitter_p99_ms) ?
		    json_real(job.st.jitter_p99_ms) : json_null());
		json_object_set_new(m, "last_error", job.st.last_error[0] ? json_string(job.st.last_error) : json_null());
		json_object_set_new(rec, "metrics", m);
	}
	if (log_path != NULL) {
		json_object_set_new(rec, "server_log_source", json_string(log_path));
		json_object_set_new(rec, "server_log_offset_bytes", json_integer((json_int_t)log_offset));
		json_object_set_new(rec, "server_log_startup_found", json_boolean(startup));
		json_object_set_new(rec, "server_log_rotated", json_boolean(rotated));
	}
	json_object_set_new(rj, "record", rec);
	char *rjp = br_path_join(run_dir, "run.json");
	keep_client_meta(rjp, rj, name != NULL);
	char *rjs = json_dumps(rj, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	GString *g = g_string_new(rjs);
	g_string_append_c(g, '\n');
	if (br_write_atomic(rjp, g->str, g->len, &cause) != 0) {
		fprintf(stderr, "benchreport record: %s\n", cause);
		free(cause);
		cause = NULL;
	}
	g_string_free(g, TRUE);
	free(rjs);
	free(rjp);
	json_decref(rj);
	if (have_gpu)
		br_gpu_identity_free(&gi);

	int rc = cmd_rc;
	if (!no_report) {
		char **rargv = report_argv(run_dir, rep, n_rep);
		*user_stop = 0;
		int report_rc = br_cmd_report(n_rep + 1, rargv);
		free(rargv);
		if (cmd_rc == 0)
			rc = report_rc;
	}
	if (cmd_rc == 0 && sampling && job.rc == BR_SAMPLE_NEVER_ANSWERED) {
		fprintf(stderr, "benchreport record: --metrics-url %s %s, so the folder has no "
		    "metrics series; exit 3 so a wrong URL does not pass unnoticed\n", url,
		    job.st.n_unusable > 0 ? "never gave a usable page" : "never answered");
		rc = BR_EXIT_INPUT;
	}
	if (not_started)
		fprintf(stderr, "benchreport record: the load client never started (see above)\n");
	else if (cmd_rc != 0)
		fprintf(stderr, "benchreport record: the load client exited %d%s; its stderr is in "
		    "%s/client-stderr.txt\n", cmd_rc, interrupted ? " after an interrupt" : "", run_dir);
	free(cmdline);
	free(metrics_path);
	free(rep);
	return rc;
}

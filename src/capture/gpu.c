/*
 * GPU telemetry beside the server's metrics: `nvidia-smi --query-gpu=...
 * --format=csv,noheader,nounits -lms N` as a child process, read by a
 * thread that keeps each GPU's latest line; the sampler adds those values
 * to every tick's page (include/benchreport/capture.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <glib.h>
#include "benchreport/common.h"
#include "benchreport/capture.h"

#define MAX_GPUS 64

/* The fields asked for, in order after `index`, and their series names. */
static const char *const fields = "index,clocks.sm,clocks.mem,power.draw,utilization.gpu,memory.used,temperature.gpu";
static const char *const series_names[] = {
	"gpu:sm_clock_mhz", "gpu:mem_clock_mhz", "gpu:power_w", "gpu:utilization_pct",
	"gpu:memory_used_mib", "gpu:temperature_c",
};
#define N_FIELDS (sizeof series_names / sizeof series_names[0])

struct br_gpu_monitor {
	pid_t pid;
	int fd;
	pthread_t th;
	pthread_mutex_t mu;
	double value[MAX_GPUS][N_FIELDS];
	double updated[MAX_GPUS];    /* monotonic s of the GPU's last line; 0 = never */
	int n_lines;
};

/* parse_line: "0, 1980, 2619, 350.12, 98, 40000, 65" (a field may be
 * "[N/A]" or "[Not Supported]": NAN). */
static void
parse_line(br_gpu_monitor *m, const char *line)
{
	double v[N_FIELDS + 1];
	size_t k = 0;
	const char *p = line;
	while (k < N_FIELDS + 1) {
		while (*p == ' ')
			p++;
		char *end = NULL;
		double x = g_ascii_strtod(p, &end);
		v[k++] = end != p ? x : NAN;
		const char *comma = strchr(p, ',');
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	if (k != N_FIELDS + 1 || !(v[0] >= 0 && v[0] < MAX_GPUS) || v[0] != floor(v[0]))
		return;
	int g = (int)v[0];
	pthread_mutex_lock(&m->mu);
	for (size_t f = 0; f < N_FIELDS; f++)
		m->value[g][f] = v[f + 1];
	m->updated[g] = br_clock_mono_s();
	m->n_lines++;
	pthread_mutex_unlock(&m->mu);
}

static void *
reader(void *arg)
{
	br_gpu_monitor *m = arg;
	char buf[4096];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(m->fd, buf + len, sizeof buf - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		char *start = buf, *nl;
		while ((nl = strchr(start, '\n')) != NULL) {
			*nl = '\0';
			parse_line(m, start);
			start = nl + 1;
		}
		len = strlen(start);
		memmove(buf, start, len);
		if (len == sizeof buf - 1)
			len = 0;   /* a line that long is not nvidia-smi's */
	}
	return NULL;
}

/* br_gpu_query_available: see capture.h. */
int
br_gpu_query_available(void)
{
	const char *path = getenv("PATH");
	if (path == NULL)
		return 0;
	char *dup = br_xstrdup(path), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = br_path_join(*d ? d : ".", "nvidia-smi");
		found = access(p, X_OK) == 0;
		free(p);
	}
	free(dup);
	return found;
}

/* br_gpu_monitor_start: see capture.h. */
br_gpu_monitor *
br_gpu_monitor_start(double interval_s, char **cause)
{
	int p[2];
	if (pipe(p) != 0) {
		*cause = br_xasprintf("nvidia-smi: cannot create a pipe (%s)", strerror(errno));
		return NULL;
	}
	char qarg[160], lms[32];
	snprintf(qarg, sizeof qarg, "--query-gpu=%s", fields);
	long ms = (long)(interval_s * 1000 / 2);
	snprintf(lms, sizeof lms, "%ld", ms < 50 ? 50 : ms);
	pid_t pid = fork();
	if (pid < 0) {
		*cause = br_xasprintf("nvidia-smi: cannot start (%s)", strerror(errno));
		close(p[0]);
		close(p[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		freopen("/dev/null", "w", stderr);
		execlp("nvidia-smi", "nvidia-smi", qarg, "--format=csv,noheader,nounits", "-lms", lms, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	br_gpu_monitor *m = br_xcalloc(1, sizeof *m);
	m->pid = pid;
	m->fd = p[0];
	pthread_mutex_init(&m->mu, NULL);
	if (pthread_create(&m->th, NULL, reader, m) != 0) {
		*cause = br_xasprintf("nvidia-smi: cannot start its reader thread");
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		close(m->fd);
		pthread_mutex_destroy(&m->mu);
		free(m);
		return NULL;
	}
	/* the first lines, so the CSV header has the GPU columns */
	double t0 = br_clock_mono_s();
	while (br_clock_mono_s() - t0 < 2.0) {
		pthread_mutex_lock(&m->mu);
		int n = m->n_lines;
		pthread_mutex_unlock(&m->mu);
		if (n > 0)
			break;
		usleep(20000);
	}
	usleep(20000);   /* the other GPUs' lines of the same sample */
	return m;
}

/* br_gpu_monitor_add: see capture.h. */
size_t
br_gpu_monitor_add(br_gpu_monitor *m, double max_age_s, br_prom_sample_fn fn, void *user)
{
	size_t n = 0;
	double now = br_clock_mono_s();
	char name[96];
	pthread_mutex_lock(&m->mu);
	for (int g = 0; g < MAX_GPUS; g++) {
		if (m->updated[g] == 0 || now - m->updated[g] > max_age_s)
			continue;
		for (size_t f = 0; f < N_FIELDS; f++) {
			if (isnan(m->value[g][f]))
				continue;
			snprintf(name, sizeof name, "%s{gpu=\"%d\"}", series_names[f], g);
			fn(user, name, m->value[g][f]);
			n++;
		}
	}
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* br_gpu_monitor_stop: see capture.h. */
void
br_gpu_monitor_stop(br_gpu_monitor *m)
{
	if (m == NULL)
		return;
	kill(m->pid, SIGTERM);
	waitpid(m->pid, NULL, 0);
	pthread_join(m->th, NULL);
	close(m->fd);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

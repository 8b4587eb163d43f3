/*
 * Simulator outputs: Python-repr floats, determinism, the no-overwrite rule,
 * and a simulated folder read back with the project's own parsers.
 */
#include "br_test.h"
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include "benchreport/common.h"
#include "benchreport/sim.h"
#include "benchreport/outdir.h"
#include "benchreport/bench.h"
#include "benchreport/metrics.h"
#include "benchreport/serverlog.h"
#include "sim/sim_internal.h"

static char tmpdir[64];

/* Python 3.11 repr() of each value (printed by python3 from the same hex). */
static void
test_pyfloat(void **state)
{
	(void)state;
	struct { double x; const char *py; } t[] = {
		{ 0.1, "0.1" }, { 1e16, "1e+16" }, { 1.5e-05, "1.5e-05" },
		{ 123456789012345680.0, "1.2345678901234568e+17" }, { 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0, "1.0" }, { 100.0, "100.0" }, { 1e-4, "0.0001" }, { -2.5, "-2.5" },
		{ 1.0 / 3.0, "0.3333333333333333" }, { 9007199254740992.0, "9007199254740992.0" },
		{ 1e22, "1e+22" }, { 0x1.5f99c38b04ab7p-6, "0.021460000000000003" },
		{ 0x1p-30, "9.313225746154785e-10" }, { 0x1.c6bf526340002p+49, "1000000000000000.2" },
		{ 0.0, "0.0" }, { NAN, "NaN" }, { INFINITY, "Infinity" },
	};
	char buf[40];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		br_sim_fmt_pyfloat(buf, sizeof buf, t[i].x);
		assert_string_equal(buf, t[i].py);
	}
}

static char *
slurp(const char *dir, const char *name, size_t *len)
{
	char *p = br_path_join(dir, name);
	char *data = NULL, *cause = NULL;
	if (br_read_file(p, &data, len, &cause) < 0)
		fail_msg("%s", cause);
	free(p);
	return data;
}

static void
sim_to(const char *cfg_rel, const char *dir, int force, int expect_rc)
{
	char *cfg = br_test_src(cfg_rel);
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(cfg, &r, &cause), 0);
	int rc = br_sim_write(&r, dir, force, &cause);
	if (rc != expect_rc)
		fail_msg("br_sim_write %s: rc %d (%s)", dir, rc, cause ? cause : "");
	free(cause);
	br_sim_result_free(&r);
	free(cfg);
}

/* Same seed → byte-identical files; another seed → a different workload. */
static void
test_determinism(void **state)
{
	(void)state;
	char *a = br_xasprintf("%s/a", tmpdir), *b = br_xasprintf("%s/b", tmpdir);
	sim_to("fixtures/configs/example-commented.json", a, 0, 0);
	sim_to("fixtures/configs/example-commented.json", b, 0, 0);
	const char *files[] = { "stress.json", "metrics.csv", "server.log", "run.json" };
	for (int i = 0; i < 4; i++) {
		size_t la, lb;
		char *x = slurp(a, files[i], &la), *y = slurp(b, files[i], &lb);
		assert_int_equal(la, lb);
		assert_memory_equal(x, y, la);
		free(x);
		free(y);
	}
	/* seed 43 instead of 42: other lengths, so other bytes */
	char *cfg = br_test_src("fixtures/configs/example-commented.json");
	char *text = NULL;
	size_t len;
	assert_int_equal(br_read_file(cfg, &text, &len, NULL), 0);
	char *s = strstr(text, "\"seed\": 42");
	assert_non_null(s);
	s[9] = '3';
	char *cfg2 = br_xasprintf("%s/seed43.json", tmpdir);
	FILE *fp = fopen(cfg2, "w");
	fwrite(text, 1, len, fp);
	fclose(fp);
	br_sim_result r;
	assert_int_equal(br_sim_run(cfg2, &r, NULL), 0);
	char *c = br_xasprintf("%s/c", tmpdir);
	assert_int_equal(br_sim_write(&r, c, 0, NULL), 0);
	br_sim_result_free(&r);
	size_t la, lc;
	char *x = slurp(a, "stress.json", &la), *z = slurp(c, "stress.json", &lc);
	assert_true(la != lc || memcmp(x, z, la) != 0);
	free(x);
	free(z);
	free(text);
	free(cfg);
	free(cfg2);
	free(a);
	free(b);
	free(c);
}

/* write_text: create path holding text. */
static void
write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* ours_report: RUN/report written through the outdir API as `benchreport
 * report` writes it (a marker listing summary.json): ours to replace. */
static void
ours_report(const char *run)
{
	char *rep = br_path_join(run, "report"), *cause = NULL;
	int rc = 0;
	br_outdir *od = br_outdir_prepare(rep, "report", 1, &rc, &cause);
	assert_non_null(od);
	assert_int_equal(br_outdir_stage(od, &cause), 0);
	char *sum = br_path_join(br_outdir_staging(od), "summary.json");
	write_text(sum, "{\"schema_version\": 1}\n");
	assert_int_equal(br_outdir_commit(od, &cause), 0);
	br_outdir_free(od);
	free(sum);
	free(rep);
}

/* An existing folder is never overwritten without --force; --force replaces
 * an earlier simulate output only (outdir.h), never a folder of the user's
 * files, a measured run or a regular file (exit 2, all untouched). The
 * general ownership rules are tested in test_common_outdir.c; these are the
 * simulate command's uses of them. */
static void
test_no_overwrite(void **state)
{
	(void)state;
	char *cfg = br_test_src("fixtures/configs/small-1024-256.json");
	char *d = br_xasprintf("%s/keep", tmpdir);
	assert_int_equal(br_mkdir_p(d, NULL), 0);
	char *mine = br_path_join(d, "mine.txt");
	write_text(mine, "x");
	sim_to("fixtures/configs/small-1024-256.json", d, 0, BR_OUTDIR_ERR_REFUSED);
	sim_to("fixtures/configs/small-1024-256.json", d, 1, BR_OUTDIR_ERR_REFUSED);
	char *st = br_path_join(d, "stress.json");
	assert_false(br_is_file(st));
	char *argv[] = { "simulate", cfg, "-o", d, NULL };
	assert_int_equal(br_sim_main(4, argv), BR_EXIT_USAGE);
	char *argvf[] = { "simulate", cfg, "-o", d, "--force", NULL };
	assert_int_equal(br_sim_main(5, argvf), BR_EXIT_USAGE);
	assert_true(br_is_file(mine));
	assert_false(br_is_file(st));

	/* a measured run: run.json with a "simulator" object but no marker is
	 * still not ours (the old guess) */
	char *m = br_xasprintf("%s/measured", tmpdir);
	assert_int_equal(br_mkdir_p(m, NULL), 0);
	char *mrj = br_path_join(m, "run.json");
	write_text(mrj, "{\"simulator\": {\"seed\": 1}}\n");
	char *argvm[] = { "simulate", cfg, "-o", m, "--force", NULL };
	assert_int_equal(br_sim_main(5, argvm), BR_EXIT_USAGE);
	assert_true(br_is_file(mrj));

	/* a regular file as -o: refused with and without --force */
	char *f = br_xasprintf("%s/afile", tmpdir);
	write_text(f, "precious");
	char *argvr[] = { "simulate", cfg, "-o", f, "--force", NULL };
	assert_int_equal(br_sim_main(5, argvr), BR_EXIT_USAGE);
	assert_int_equal(br_sim_main(4, argvr), BR_EXIT_USAGE);
	assert_true(br_is_file(f));

	/* an earlier simulate output: refused without --force, replaced with it */
	char *s = br_xasprintf("%s/simout", tmpdir);
	char *s_slash = br_xasprintf("%s/simout/", tmpdir);
	sim_to("fixtures/configs/small-1024-256.json", s, 0, 0);
	char *argvs0[] = { "simulate", cfg, "-o", s, NULL };
	assert_int_equal(br_sim_main(4, argvs0), BR_EXIT_USAGE);
	char *argvs[] = { "simulate", cfg, "-o", s_slash, "--force", NULL };
	assert_int_equal(br_sim_main(5, argvs), BR_EXIT_OK);
	/* ... but not once the user added files: both are named, nothing goes */
	char *extra = br_path_join(s, "notes.txt");
	write_text(extra, "x\n");
	char *extra2 = br_path_join(s, "zz-mine");
	assert_int_equal(br_mkdir_p(extra2, NULL), 0);
	char *cause = NULL;
	assert_int_equal(br_sim_write(NULL, s, 1, &cause), BR_OUTDIR_ERR_REFUSED);
	assert_non_null(strstr(cause, "notes.txt"));
	assert_non_null(strstr(cause, "zz-mine/"));
	free(cause);
	assert_int_equal(br_sim_main(5, argvs), BR_EXIT_USAGE);
	assert_true(br_is_file(extra));
	assert_true(br_is_dir(extra2));
	assert_int_equal(remove(extra), 0);
	assert_int_equal(remove(extra2), 0);
	/* a report/ of ours inside it goes with it; a user's report/ does not */
	ours_report(s);
	char *rep = br_path_join(s, "report");
	char *repsum = br_path_join(rep, "summary.json");
	assert_int_equal(br_sim_main(5, argvs), BR_EXIT_OK);
	assert_false(br_is_dir(rep));
	assert_int_equal(br_mkdir_p(rep, NULL), 0);
	write_text(repsum, "{\"schema_version\": 1, \"mine\": true}\n");
	assert_int_equal(br_sim_main(5, argvs), BR_EXIT_USAGE);
	assert_true(br_is_file(repsum));
	char *srj = br_path_join(s, "run.json");
	assert_true(br_is_file(srj));
	char *tmp = br_xasprintf("%s.tmp.%ld", s, (long)getpid());
	char *old = br_xasprintf("%s.old.%ld", s, (long)getpid());
	assert_false(br_is_dir(tmp));
	assert_false(br_is_dir(old));
	free(tmp);
	free(old);
	free(srj);
	free(repsum);
	free(rep);
	free(extra);
	free(extra2);
	free(s);
	free(s_slash);
	free(f);
	free(mrj);
	free(m);
	free(st);
	free(mine);
	free(d);
	free(cfg);
}

/* killed_staging: what `kill -9` during simulate leaves: a child stages
 * OUT, writes a half file and dies of SIGKILL. Returns its (dead) pid. */
static pid_t
killed_staging(const char *out)
{
	pid_t p = fork();
	if (p == 0) {
		int rc = 0;
		char *cause = NULL;
		br_outdir *od = br_outdir_prepare(out, "simulate", 1, &rc, &cause);
		if (od == NULL || br_outdir_stage(od, &cause) != 0)
			_exit(1);
		char *f = br_path_join(br_outdir_staging(od), "stress.json");
		FILE *fp = fopen(f, "w");
		fputs("{\"half\": ", fp);
		fclose(fp);
		raise(SIGKILL);
		_exit(2);
	}
	assert_true(p > 0);
	int status = 0;
	waitpid(p, &status, 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	return p;
}

/* A killed simulate leaves OUT.tmp.PID: the next run removes it (dead PID,
 * our marker); a folder of that name without the marker stays. */
static void
test_stale_tmp(void **state)
{
	(void)state;
	char *out = br_xasprintf("%s/stale", tmpdir);
	pid_t dead = killed_staging(out);
	char *t_dead = br_xasprintf("%s.tmp.%ld", out, (long)dead);
	assert_true(br_is_dir(t_dead));
	pid_t dead2 = killed_staging(out);
	char *t_user = br_xasprintf("%s.tmp.%ld", out, (long)dead2);
	char *mk = br_path_join(t_user, BR_OUTDIR_MARKER);
	assert_int_equal(remove(mk), 0);      /* now it is not ours */
	sim_to("fixtures/configs/small-1024-256.json", out, 0, 0);
	assert_false(br_is_dir(t_dead));
	assert_true(br_is_dir(t_user));
	free(mk);
	free(t_dead);
	free(t_user);
	free(out);
}

/* Round 1 written, then read with br_bench_load, br_metrics_csv_load and
 * br_server_log_load: the parsers see the simulator's own numbers. */
static void
test_parsers_read_it(void **state)
{
	(void)state;
	char *d = br_xasprintf("%s/r1", tmpdir);
	char *cfg = br_test_src("fixtures/configs/round1.json");
	br_sim_result r;
	char *cause = NULL;
	assert_int_equal(br_sim_run(cfg, &r, &cause), 0);
	assert_int_equal(br_sim_write(&r, d, 0, &cause), 0);

	char *p = br_path_join(d, "stress.json");
	br_bench_set bs;
	if (br_bench_load(p, &bs, &cause) < 0)
		fail_msg("%s", cause);
	assert_int_equal(bs.n, 1);
	br_bench *b = &bs.runs[0];
	assert_double_abs(b->completed, 128, 0);
	assert_double_abs(b->failed, 0, 0);
	assert_double_abs(b->max_concurrency, 64, 0);
	assert_true(isinf(b->request_rate_rps));
	assert_double_rel(b->duration_s, r.duration_s, 1e-15);
	assert_double_abs(b->total_input_tokens, 128.0 * 6144, 0);
	assert_int_equal(b->n_requests, 128);
	assert_int_equal(b->requests[0].n_itls, 2047);
	assert_true(b->has_latencies && b->has_start_times);
	assert_double_rel(br_bench_file_stat(b, "ttft", "median", NAN), r.ttft_p50_s * 1000, 1e-12);
	assert_double_rel(br_bench_file_stat(b, "itl", "p", 99), r.itl_p99_s * 1000, 1e-12);
	/* one huge ITL per preemption of a request that had already
	 * produced tokens (it held more than its 6144 prompt tokens): gaps > 0.5 s,
	 * while an ordinary step with a 2,048-token prefill chunk is ~0.22 s; a victim
	 * still in prefill shows up in its TTFT instead */
	size_t stalls = 0, decode_victims = 0;
	for (size_t i = 0; i < b->n_requests; i++)
		for (size_t k = 0; k < b->requests[i].n_itls; k++)
			stalls += b->requests[i].itls_s[k] > 0.5;
	for (size_t i = 0; i < r.n_preemptions; i++)
		decode_victims += r.preemptions[i].released_tokens > 6144;
	assert_true(decode_victims > 0);
	assert_int_equal(stalls, decode_victims);
	br_bench_set_free(&bs);
	free(p);

	p = br_path_join(d, "metrics.csv");
	br_series s;
	if (br_metrics_csv_load(p, 0, &s, &cause) < 0)
		fail_msg("%s", cause);
	assert_true(s.n_rows > 590);
	assert_double_abs(s.t_s[1] - s.t_s[0], 1.0, 1e-9);
	const double *it = br_series_col(&s, "vllm:iteration_tokens_total_sum");
	const double *pre = br_series_col(&s, "vllm:num_preemptions_total");
	const double *kv = br_series_col(&s, "vllm:kv_cache_usage_perc");
	const double *run = br_series_col(&s, "vllm:num_requests_running");
	const double *bucket = br_series_col(&s, "vllm:request_queue_time_seconds_bucket{le=\"0.5\"}");
	assert_non_null(it);
	assert_non_null(pre);
	assert_non_null(kv);
	assert_non_null(run);
	assert_non_null(bucket);
	assert_double_abs(it[s.n_rows - 1], 1048576.0, 0);
	assert_double_abs(pre[s.n_rows - 1], (double)r.n_preemptions, 0);
	double peak = 0;
	for (size_t i = 0; i < s.n_rows; i++) {
		assert_true(kv[i] >= 0 && kv[i] <= 1);
		if (run[i] > peak)
			peak = run[i];
	}
	assert_double_abs(peak, r.peak_running, 0);
	br_series_free(&s);
	free(p);

	p = br_path_join(d, "server.log");
	br_server_log l;
	if (br_server_log_load(p, &l, &cause) < 0)
		fail_msg("%s", cause);
	assert_string_equal(l.vllm_version, "0.27.1");
	assert_double_abs(l.kv_pool_tokens, 86864, 0);
	assert_double_abs(l.kv_pool_gib, 4.64, 1e-9);           /* 86864 · 57344 B = 4.639 GiB */
	assert_double_abs(l.max_concurrency_x, 10.60, 1e-9);    /* 86864 / 8192 = 10.604 */
	assert_double_abs(l.max_concurrency_len_tokens, 8192, 0);
	assert_double_abs(l.max_model_len_tokens, 8192, 0);
	assert_double_abs(l.max_num_seqs, 128, 0);
	assert_int_equal(l.did_not_start, 0);
	assert_true(l.n_stats >= 60);
	/* a V1 stats line carries no preemption count (as the real logs): the
	 * 37 preemptions of this run are in the metrics only */
	assert_true(r.n_preemptions > 0);
	for (size_t i = 0; i < l.n_stats; i++)
		assert_nan(l.stats[i].preemptions);
	br_server_log_free(&l);
	free(p);

	br_sim_result_free(&r);
	free(cfg);
	free(d);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/br_sim_out_XXXXXX");
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

/*
 * The frontend time (br_sim_frontend): constant when frontend_cv = 0, split by
 * frontend_inbound_share; with cv 0.5 a Gamma whose sample mean and sd over
 * 20,000 draws are within 2% / 3% of m and 0.5·m (m = 0.005 + 1.18e-4 · 6144
 * = 0.729992 s, by hand; the sample mean's sd is 0.5·m/√20000 = 0.35% of m).
 * The length/arrival stream does not change with the frontend settings.
 */
static void
test_frontend_draws(void **state)
{
	(void)state;
	enum { N = 20000 };
	br_sim_config c;
	memset(&c, 0, sizeof c);
	c.seed = 1;
	c.frontend_delay_s = 0.005;
	c.frontend_per_input_token_s = 1.18e-4;
	c.frontend_inbound_share = 0.5;
	int *in = br_xmalloc(N * sizeof(int));
	double *fi = br_xmalloc(N * sizeof(double)), *fo = br_xmalloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		in[i] = i % 2 ? 6144 : 1024;
	br_sim_frontend(&c, in, N, fi, fo);
	/* cv 0: exactly the mean, half before the engine */
	assert_double_rel(fi[0] + fo[0], 0.005 + 1.18e-4 * 1024, 1e-15);
	assert_double_rel(fi[1], (0.005 + 1.18e-4 * 6144) / 2, 1e-15);
	assert_double_rel(fo[1], fi[1], 1e-15);
	c.frontend_cv = 0.5;
	for (int i = 0; i < N; i++)
		in[i] = 6144;
	br_sim_frontend(&c, in, N, fi, fo);
	double m = 0.005 + 1.18e-4 * 6144, sum = 0, sq = 0;
	for (int i = 0; i < N; i++) {
		double f = fi[i] + fo[i];
		assert_true(f > 0);
		assert_double_rel(fi[i], f / 2, 1e-12);
		sum += f;
		sq += f * f;
	}
	double mean = sum / N, sd = sqrt(sq / N - mean * mean);
	assert_double_rel(m, 0.729992, 1e-12);
	assert_double_rel(mean, m, 0.02);
	assert_double_rel(sd, 0.5 * m, 0.03);
	free(in);
	free(fi);
	free(fo);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pyfloat),
		cmocka_unit_test(test_frontend_draws),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_no_overwrite),
		cmocka_unit_test(test_stale_tmp),
		cmocka_unit_test(test_parsers_read_it),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * Workload generation: a seeded PRNG of our own (xoshiro256** seeded through
 * splitmix64, so a seed gives the same run on every platform), token-length
 * distributions, and open-loop arrival times as `vllm bench serve` draws them
 * (gamma inter-arrival gaps with shape = burstiness and mean 1/rate;
 * burstiness 1 is a Poisson process).
 */
#include <math.h>
#include "sim_internal.h"

/* splitmix64 step: used only to expand the seed into xoshiro's state. */
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* br_rng_seed: initialise the generator from a 64-bit seed. */
void
br_rng_seed(br_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* br_rng_next: next 64 random bits (xoshiro256**). */
uint64_t
br_rng_next(br_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* br_rng_uniform: uniform double in [0, 1) from the top 53 bits. */
double
br_rng_uniform(br_rng *r)
{
	return (double)(br_rng_next(r) >> 11) * 0x1.0p-53;
}

/* br_rng_normal: standard normal deviate (Box–Muller, one of the pair). */
double
br_rng_normal(br_rng *r)
{
	double u1 = br_rng_uniform(r), u2 = br_rng_uniform(r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/*
 * br_rng_gamma: Gamma(shape, scale 1) by Marsaglia & Tsang (2000); for
 * shape < 1 the boost Gamma(shape+1)·U^(1/shape). shape must be > 0.
 */
double
br_rng_gamma(br_rng *r, double shape)
{
	if (shape < 1.0) {
		double u = br_rng_uniform(r);
		return br_rng_gamma(r, shape + 1.0) * pow(u > 0 ? u : 1e-300, 1.0 / shape);
	}
	double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		double x, v;
		do {
			x = br_rng_normal(r);
			v = 1.0 + c * x;
		} while (v <= 0);
		v = v * v * v;
		double u = br_rng_uniform(r);
		if (u < 1.0 - 0.0331 * x * x * x * x)
			return d * v;
		if (log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

/* br_sim_draw_len: one integer length from d (always within [min, max]). */
int
br_sim_draw_len(br_rng *r, const br_sim_dist *d)
{
	double x;
	switch (d->kind) {
	case BR_DIST_UNIFORM:
		x = d->min + floor(br_rng_uniform(r) * (d->max - d->min + 1));
		break;
	case BR_DIST_NORMAL:
		x = floor(d->mean + d->std * br_rng_normal(r) + 0.5);
		break;
	default:
		x = d->value;
	}
	if (x < d->min)
		x = d->min;
	if (x > d->max)
		x = d->max;
	return (int)x;
}

/*
 * br_sim_workload: draw every request's input and output length and its
 * client arrival time (seconds from t = 0). With an infinite request rate
 * all requests arrive at 0: max_concurrency, when given, paces them (closed
 * loop); without it every request is sent at t = 0.
 * Draw order is fixed (the lengths of request i from one stream, its gap
 * from another) so the same seed always gives the same workload, and a
 * change of rate or burstiness leaves the lengths as they were.
 */
void
br_sim_workload(const br_sim_config *cfg, int *in, int *out, double *arrival)
{
	/* lengths and arrivals from two streams: a gamma draw takes as many
	 * uniforms as its rejection loop needs, so sharing one stream made a
	 * burstiness change redraw the lengths too (twentieth breaker: "not a
	 * controlled A/B: input_tokens 1,310.8 -> 1,249.9"), which vllm bench
	 * serve does not do. The arrivals keep the seed's own stream (fixed
	 * lengths draw nothing, so those workloads are as before). */
	br_rng r, rl;
	br_rng_seed(&r, cfg->seed);
	br_rng_seed(&rl, cfg->seed ^ 0x6a09e667f3bcc909ULL);
	double t = 0;
	for (int i = 0; i < cfg->num_prompts; i++) {
		in[i] = br_sim_draw_len(&rl, &cfg->input_len);
		out[i] = br_sim_draw_len(&rl, &cfg->output_len);
		if (isinf(cfg->request_rate)) {
			arrival[i] = 0;
		} else {
			/* vLLM bench: theta = 1 / (rate · burstiness), gap ~ Gamma(burstiness, theta);
			 * the first request is sent at once. */
			arrival[i] = t;
			double theta = 1.0 / (cfg->request_rate * cfg->burstiness);
			t += br_rng_gamma(&r, cfg->burstiness) * theta;
		}
	}
}

/*
 * br_sim_frontend: the frontend + IPC time of each request (DESIGN.md §5,
 * fitted to the reference rounds: 0.73 s / 0.42 s mean residual
 * TTFT − queue − prefill at 6144 input tokens). Mean m_i = frontend_delay_s
 * + frontend_per_input_token_s · in[i]; with frontend_cv > 0 the time is
 * Gamma(shape 1/cv², scale m_i·cv²) (mean m_i, sd cv·m_i), else m_i exactly.
 * fe_in[i] = frontend_inbound_share of it, fe_out[i] the rest. The stream is
 * seeded from seed with a fixed offset, so only these draws depend on it.
 */
void
br_sim_frontend(const br_sim_config *cfg, const int *in, int n, double *fe_in, double *fe_out)
{
	br_rng r;
	br_rng_seed(&r, cfg->seed ^ 0x9e3779b97f4a7c15ULL);
	/* a cv below 1e-4 is no spread a run could show (and 1/cv² would
	 * overflow the Gamma shape): the mean exactly */
	double cv = cfg->frontend_cv >= 1e-4 ? cfg->frontend_cv : 0, shape = cv > 0 ? 1.0 / (cv * cv) : 0;
	for (int i = 0; i < n; i++) {
		double m = cfg->frontend_delay_s + cfg->frontend_per_input_token_s * in[i];
		double f = cv > 0 && m > 0 ? br_rng_gamma(&r, shape) * m / shape : m;
		fe_in[i] = f * cfg->frontend_inbound_share;
		fe_out[i] = f - fe_in[i];
	}
}

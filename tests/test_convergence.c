/*
 * Generated fault programs against the recovery machine, its driver and
 * the sim's link model on a virtual clock: glitch bursts of 0.2 to 50 Hz,
 * cables that drop to any rate and lane count and heal, replugs (into a
 * compositor that takes linkguard's recommendation, or one that starts the
 * output at the mode it stored, as sway does), monitor swaps, retries,
 * failing commits, VT switches, atomic checks that refuse everything, users
 * choosing modes, sinks that lose lock with link-status GOOD (once, or
 * above a rate), cables that count symbol errors, with and without the
 * step down for errors, all at random gaps. Each program is
 * checked against P1-P5, P7 and P8 after every step and once left alone,
 * with the DP-formula oracle of tests/machine/oracle.c, and against P4's
 * time bound: the last mode change comes within a flap window and the
 * settle time after the last fault. The distributions of that time and of
 * the modesets after the last fault are printed. A mutation check follows:
 * the machine ranking refresh before resolution while the oracle judges
 * by the default policy must fail some program.
 *
 *   test_convergence [PROGRAMS [SEED]]
 *
 * LINKGUARD_SEED also sets the seed. A failing program is shrunk (steps
 * dropped while it still fails) and written out as convergence-SEED.scn
 * in the scenario format, with the steps the sim has no verb for as
 * comments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "machine/oracle.h"
#include "machine/rng.h"
#include "machine/world.h"
#include "test.h"

#define MAX_STEPS 48
#define CONVERGE_MS (30 * 60 * 1000)
/* Programs the mutation check runs at most before it must have failed one. */
#define MUTANT_PROGRAMS 2000

enum verb {
	GLITCH, CABLE, HEAL, REPLUG, REPLUG_STORED, SWAP, RETRY, COMMIT_FAILS, VT_SWITCH,
	REJECT_ON, REJECT_OFF, USER_MODE, DARK, ERRORS, N_VERBS,
};

struct step {
	uint64_t gap_ms;
	enum verb verb;
	struct lg_link_params cable;
	const char *sink;
	size_t mode; // USER_MODE: index into the sink's modes
	uint32_t errors; // ERRORS: per lane and minute
};

struct program {
	struct step steps[MAX_STEPS];
	size_t len;
	bool errors_step_down;
};

static const char *const sinks[] = { "4k60", "1440p144", "1080p60-rbr", "uhbr-8k" };
static const uint32_t rates[] = { 1620, 2700, 5400, 8100, 10000, 13500, 20000 };

/* Gaps from a millisecond to a minute, each decade as likely. */
static uint64_t random_gap(void) {
	uint64_t decade = below(5);
	uint64_t scale = 1;
	for (uint64_t i = 0; i < decade; i++) {
		scale *= 10;
	}
	return scale + below(scale * 9);
}

static void generate(struct program *p) {
	p->len = 0;
	p->errors_step_down = below(2);
	size_t target = 4 + below(20);
	while (p->len < target) {
		struct step step = { .gap_ms = random_gap(), .verb = below(N_VERBS) };
		if (step.verb == GLITCH) {
			// A burst: 0.2 to 50 Hz, 1 to 30 glitches.
			uint64_t interval = 20 + below(4981);
			uint64_t count = 1 + below(30);
			for (uint64_t i = 0; i < count && p->len < MAX_STEPS; i++) {
				step.gap_ms = i == 0 ? step.gap_ms : interval;
				p->steps[p->len++] = step;
			}
			continue;
		}
		step.cable = (struct lg_link_params){
			.lanes = 1u << below(3),
			.rate_mbps = rates[below(sizeof(rates) / sizeof(rates[0]))],
		};
		step.sink = sinks[below(sizeof(sinks) / sizeof(sinks[0]))];
		step.mode = below(8);
		// DARK: below(2) of them lose lock once (rate 0), the others
		// above a rate; ERRORS: none, or 10 to 10^5 a minute.
		if (step.verb == DARK && below(2) == 0) {
			step.cable.rate_mbps = 0;
		}
		step.errors = below(3) == 0 ? 0 : (uint32_t)(10 * (1 + below(10000)));
		p->steps[p->len++] = step;
	}
}

static void apply(struct world *w, const struct step *step) {
	world_advance(w, step->gap_ms);
	const struct sim_sink *sink = w->link.sink;
	switch (step->verb) {
	case GLITCH:
		world_glitch(w);
		break;
	case CABLE:
		world_set_cable(w, &step->cable);
		break;
	case HEAL:
		world_heal(w);
		break;
	case REPLUG:
		if (sink != NULL) {
			world_plug(w, sink->name);
		}
		break;
	case REPLUG_STORED:
		world_replug_stored(w);
		break;
	case SWAP:
		world_plug(w, step->sink);
		break;
	case RETRY:
		world_retry(w);
		break;
	case COMMIT_FAILS:
		w->fail_next_commit = true;
		break;
	case VT_SWITCH:
		world_vt_switch(w);
		break;
	case REJECT_ON:
	case REJECT_OFF:
		world_reject_all(w, step->verb == REJECT_ON);
		break;
	case USER_MODE:
		if (sink != NULL && w->connected) {
			world_mode_set(w, &sink->modes[step->mode % sink->n_modes]);
		}
		break;
	case DARK:
		world_lose_lock(w, step->cable.rate_mbps);
		break;
	case ERRORS:
		world_set_errors(w, step->errors);
		break;
	case N_VERBS:
		break;
	}
	world_check_now(w);
}

/* What a program showed once left alone. */
struct outcome {
	uint32_t worst; // most modesets in a budget window
	uint64_t to_best_ms; // from the last fault to the last mode change
	uint32_t modesets_after_fault;
	bool timed; // P4's bound applies: not failed since the last fault
};

/*
 * P4's time bound, on a program left alone: the last mode change came
 * within a flap window and the settle time after the last fault (the
 * mode it left is judged by world_check_now()).
 */
static void check_in_time(struct world *w, struct outcome *outcome) {
	uint64_t after = w->last_change_at > w->last_fault_at ?
		w->last_change_at - w->last_fault_at : 0;
	outcome->to_best_ms = after;
	outcome->modesets_after_fault = w->modesets_after_fault;
	enum lg_link_state state = w->driver.machine.state;
	bool judged = (state == LG_LINK_GOOD || state == LG_LINK_DEGRADED) &&
		!w->failed_after_fault;
	outcome->timed = judged;
	if (judged && after > w->config.flap_window_ms + w->config.settle_ms &&
			w->violation == NULL) {
		w->violation = "P4 within a quiet period";
		snprintf(w->detail, sizeof(w->detail), "the last mode change came "
			"%llu ms after the last fault", (unsigned long long)after);
	}
}

/*
 * Runs p from a 4K60 monitor; the violation, or NULL. A mutant machine
 * ranks refresh first while the oracle judges by resolution first.
 */
static const char *run(const struct program *p, struct outcome *outcome, bool trace,
		bool mutant) {
	struct world w;
	world_init(&w, "4k60");
	w.config.link_errors_step_down = p->errors_step_down;
	if (mutant) {
		w.config.policy = LG_POLICY_REFRESH_FIRST;
	}
	w.trace = trace;
	for (size_t i = 0; i < p->len && w.violation == NULL; i++) {
		apply(&w, &p->steps[i]);
	}
	if (w.violation == NULL) {
		world_settle(&w, CONVERGE_MS);
		world_check_now(&w);
		if (w.violation == NULL && !world_idle(&w) && !w.link.reject_all &&
				w.driver.machine.state != LG_LINK_FAILED) {
			w.violation = "convergence: still busy when left alone";
		}
	}
	struct outcome local;
	outcome = outcome != NULL ? outcome : &local;
	check_in_time(&w, outcome);
	outcome->worst = w.max_in_window;
	if (trace && w.violation != NULL) {
		fprintf(stderr, "violation of %s: %s\n", w.violation, w.detail);
	}
	const char *violation = w.violation;
	world_finish(&w);
	return violation;
}

/* Drops steps while the program still fails: the smallest story to read. */
static void shrink(struct program *p) {
	bool smaller = true;
	while (smaller) {
		smaller = false;
		for (size_t i = 0; i < p->len; i++) {
			struct program q = *p;
			for (size_t j = i; j + 1 < q.len; j++) {
				q.steps[j] = q.steps[j + 1];
			}
			q.len--;
			if (run(&q, NULL, false, false) != NULL) {
				*p = q;
				smaller = true;
				break;
			}
		}
	}
}

static void write_scenario(const struct program *p, uint64_t seed) {
	char path[64];
	snprintf(path, sizeof(path), "convergence-%" PRIu64 ".scn", seed);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		return;
	}
	static const char *const rate_names[] = {
		"rbr", "hbr", "hbr2", "hbr3", "uhbr10", "uhbr13.5", "uhbr20",
	};
	fprintf(f, "# shrunk from test_convergence, seed %" PRIu64 "%s\n"
		"0 plug DP-1 4k60\n", seed, p->errors_step_down ?
		" (with the step down for errors)" : "");
	uint64_t at = 0;
	for (size_t i = 0; i < p->len; i++) {
		const struct step *s = &p->steps[i];
		at += s->gap_ms;
		const char *rate = "any";
		for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
			rate = rates[r] == s->cable.rate_mbps ? rate_names[r] : rate;
		}
		switch (s->verb) {
		case GLITCH:
			fprintf(f, "%" PRIu64 "ms flap DP-1 1 1ms\n", at);
			break;
		case CABLE:
			fprintf(f, "%" PRIu64 "ms cable DP-1 %s lanes=%u\n", at, rate,
				s->cable.lanes);
			break;
		case HEAL:
			fprintf(f, "%" PRIu64 "ms heal DP-1\n", at);
			break;
		case SWAP:
			fprintf(f, "%" PRIu64 "ms swap DP-1 %s\n", at, s->sink);
			break;
		case REJECT_ON:
		case REJECT_OFF:
			fprintf(f, "%" PRIu64 "ms reject DP-1 %s\n", at,
				s->verb == REJECT_ON ? "on" : "off");
			break;
		case DARK:
			fprintf(f, "%" PRIu64 "ms dark DP-1%s%s\n", at,
				s->cable.rate_mbps != 0 ? " " : "",
				s->cable.rate_mbps != 0 ? rate : "");
			break;
		case ERRORS:
			fprintf(f, "%" PRIu64 "ms errors DP-1 %" PRIu32 "\n", at, s->errors);
			break;
		default:
			fprintf(f, "# %" PRIu64 "ms: verb %d (replug, replug at the "
				"stored mode, retry, commit-fails, vt-switch or user mode %zu)\n", at, s->verb, s->mode);
			break;
		}
	}
	fclose(f);
	fprintf(stderr, "the shrunk program is in %s\n", path);
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * The distributions of P4's time (over the n_timed programs it bounds) and
 * P7's modesets (over all n).
 */
static void print_distributions(uint64_t *to_best, size_t n_timed,
		const uint32_t *after, size_t n) {
	if (n_timed > 0) {
		qsort(to_best, n_timed, sizeof(*to_best), cmp_u64);
		fprintf(stderr, "last fault -> last mode change (%zu programs; %zu failed "
			"since, left to the backoff): median %" PRIu64 " ms, p90 %" PRIu64
			" ms, p99 %" PRIu64 " ms, max %" PRIu64 " ms\n", n_timed, n - n_timed,
			to_best[n_timed / 2], to_best[n_timed * 9 / 10],
			to_best[n_timed * 99 / 100], to_best[n_timed - 1]);
	}
	uint32_t counts[WORLD_MODESETS_AFTER_FAULT + 2] = { 0 };
	for (size_t i = 0; i < n; i++) {
		uint32_t k = after[i] <= WORLD_MODESETS_AFTER_FAULT ?
			after[i] : WORLD_MODESETS_AFTER_FAULT + 1;
		counts[k]++;
	}
	fprintf(stderr, "modesets after the last fault:");
	for (uint32_t k = 0; k <= WORLD_MODESETS_AFTER_FAULT; k++) {
		fprintf(stderr, " %u: %u,", k, counts[k]);
	}
	fprintf(stderr, " more: %u\n", counts[WORLD_MODESETS_AFTER_FAULT + 1]);
}

/*
 * The mutation check: a machine that ranks refresh before resolution
 * (the 4K60 monitor's 4K30 and 2560x1440@60 swap places) must fail a
 * generated program; if none does, the checks cannot see a ranking bug.
 */
static bool mutant_caught(uint64_t seed) {
	for (unsigned long i = 0; i < MUTANT_PROGRAMS; i++) {
		rng_seed(seed, i);
		struct program p;
		generate(&p);
		const char *violation = run(&p, NULL, false, true);
		if (violation != NULL) {
			fprintf(stderr, "mutation check: ranking refresh first fails program "
				"%lu (%s)\n", i, violation);
			return true;
		}
	}
	fprintf(stderr, "mutation check: ranking refresh first passed %d programs\n",
		MUTANT_PROGRAMS);
	return false;
}

int main(int argc, char *argv[]) {
	unsigned long programs = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	const char *seed_env = getenv("LINKGUARD_SEED");
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) :
		seed_env != NULL ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
	fprintf(stderr, "seed %" PRIu64 " (LINKGUARD_SEED=%" PRIu64 " reproduces it)\n",
		seed, seed);
	uint32_t worst = 0;
	unsigned long failed = 0, ran = 0;
	size_t timed = 0;
	uint64_t *to_best = calloc(programs + 1, sizeof(*to_best));
	uint32_t *after = calloc(programs + 1, sizeof(*after));
	check(to_best != NULL && after != NULL);
	for (unsigned long i = 0; i < programs && failed == 0 && after != NULL &&
			to_best != NULL; i++) {
		rng_seed(seed, i);
		struct program p;
		generate(&p);
		struct outcome outcome;
		const char *violation = run(&p, &outcome, false, false);
		if (outcome.timed) {
			to_best[timed++] = outcome.to_best_ms;
		}
		after[ran] = outcome.modesets_after_fault;
		worst = outcome.worst > worst ? outcome.worst : worst;
		ran++;
		if (violation == NULL) {
			continue;
		}
		failed++;
		fprintf(stderr, "program %lu of seed %" PRIu64 " fails; shrinking\n", i, seed);
		shrink(&p);
		run(&p, NULL, true, false);
		write_scenario(&p, seed);
	}
	fprintf(stderr, "%lu programs, %lu failed; worst %u modesets in %d ms (budget %d)\n",
		ran, failed, worst, MACHINE_BUDGET_WINDOW_MS, MACHINE_BUDGET_MODESETS);
	print_distributions(to_best, timed, after, ran);
	free(to_best);
	free(after);
	check_int_eq(failed, 0);
	check(mutant_caught(seed));
	return test_result();
}

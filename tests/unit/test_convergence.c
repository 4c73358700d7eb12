/*
 * Generated fault programs against the recovery machine, its driver and
 * the sim's link model on a virtual clock: glitch bursts of 0.2 to 50 Hz,
 * cables that drop to any rate and lane count and heal, replugs (into a
 * compositor that takes linkguard's recommendation, or one that starts the
 * output at the mode it stored, as sway does), monitor swaps, retries,
 * failing commits, VT switches, atomic checks that refuse everything, users
 * choosing modes, sinks that lose lock with link-status GOOD (once, or
 * above a rate), cables that count symbol errors, with and without the
 * step down for errors, all at random gaps; a refusal ends before the
 * program does. Each program is checked against P1-P5 and P7-P9 after
 * every step and at the spec's deadlines (tests/machine/world.h), with the
 * DP-formula oracle of tests/machine/oracle.c, and once left alone every
 * ending is judged: at the policy's pick within P4's time bound (the last
 * mode change within a flap window and the settle time after the last
 * fault, or P1's bound after a refusal), or with nothing the kernel takes
 * that the sink holds, or off; anything else is a violation. The share of
 * programs each property judged, and the distributions of P4's time and of
 * the modesets after the last fault, are printed. A mutation check
 * follows: the machine ranking refresh before resolution while the oracle
 * judges by the default policy must fail some program.
 *
 *   test_convergence [PROGRAMS [SEED]]
 *   test_convergence --replay FILE...
 *
 * LINKGUARD_SEED also sets the seed (unset: one is drawn); the first line
 * printed names it. A program is a scenario (sim/scenario.h): a failing one
 * is shrunk (steps dropped while it still fails) and written out as
 * convergence-SEED.scn in LINKGUARD_SCENARIO_OUT (else the current
 * directory), which --replay runs on the same virtual clock with the same
 * checks, with and without the step down for errors; the command that
 * repeats the run is printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dp/dp.h>
#include <sim/scenario.h>
#include <sim/sink.h>
#include "machine/oracle.h"
#include "machine/rng.h"
#include "machine/world.h"
#include "test.h"

#define MAX_STEPS 48
#define CONVERGE_MS (30 * 60 * 1000)
/* Programs the mutation check runs at most before it must have failed one. */
#define MUTANT_PROGRAMS 2000
/*
 * The share of programs that P4's bound must judge, in percent, from this
 * many programs on (fewer are too few to say).
 */
#define P4_JUDGED_FLOOR 95
#define FLOOR_PROGRAMS 1000

/*
 * A program is a scenario (sim/scenario.h) on one connector, so that a
 * shrunk program written out replays as it ran.
 */
struct program {
	struct sim_step steps[MAX_STEPS];
	size_t len;
	bool errors_step_down;
};

static const char *const sinks[] = { "4k60", "1440p144", "1080p60-rbr", "uhbr-8k" };
static const uint32_t rates[] = { 1620, 2700, 5400, 8100, 10000, 13500, 20000 };

/* The generator's verbs, each as likely: a replug either way, reject on or off. */
static const struct {
	enum sim_verb verb;
	bool on;
} verbs[] = {
	{ SIM_GLITCH, false }, { SIM_CABLE, false }, { SIM_HEAL, false },
	{ SIM_REPLUG, false }, { SIM_REPLUG, true }, { SIM_SWAP, false },
	{ SIM_CLIENT_RETRY, false }, { SIM_COMMIT_FAILS, false }, { SIM_VT_SWITCH, false },
	{ SIM_REJECT, true }, { SIM_REJECT, false }, { SIM_MODE, false },
	{ SIM_DARK, false }, { SIM_ERRORS, false },
};

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
	uint64_t at = 0;
	bool refusing = false;
	while (p->len < target) {
		at += random_gap();
		size_t v = below(sizeof(verbs) / sizeof(verbs[0]));
		struct sim_step step = {
			.at_ms = at, .verb = verbs[v].verb, .on = verbs[v].on,
			.connector = "DP-1",
		};
		if (step.verb == SIM_GLITCH) {
			// A burst: 0.2 to 50 Hz, 1 to 30 glitches.
			uint64_t interval = 20 + below(4981);
			uint64_t count = 1 + below(30);
			// One step left for the end of a refusal.
			for (uint64_t i = 0; i < count && p->len < MAX_STEPS - 1; i++) {
				step.at_ms = at + i * interval;
				p->steps[p->len++] = step;
			}
			at = step.at_ms;
			continue;
		}
		step.params = (struct lg_link_params){
			.lanes = 1u << below(3),
			.rate_mbps = rates[below(sizeof(rates) / sizeof(rates[0]))],
		};
		step.sink = sim_sink_find(sinks[below(sizeof(sinks) / sizeof(sinks[0]))]);
		// MODE: one of the first eight; DARK: half of them lose lock
		// once (rate 0), the others above a rate; ERRORS: none, or 10
		// to 10^5 a minute. Drawn for every step, so that a seed
		// generates the programs it always did.
		uint32_t mode = (uint32_t)below(8);
		if (step.verb == SIM_DARK && below(2) == 0) {
			step.params.rate_mbps = 0;
		}
		uint32_t errors = below(3) == 0 ? 0 : (uint32_t)(10 * (1 + below(10000)));
		step.count = step.verb == SIM_MODE ? mode : errors;
		p->steps[p->len++] = step;
		if (step.verb == SIM_REJECT) {
			refusing = step.on;
		}
	}
	// A refusal ends before the program is left alone, so that its
	// ending is judged by P4 and P1's bound after a refusal.
	if (refusing) {
		p->steps[p->len++] = (struct sim_step){
			.at_ms = at + random_gap(), .verb = SIM_REJECT, .on = false,
			.connector = "DP-1",
		};
	}
}

/* A scenario's step, on the world's one connector. */
static void apply(struct world *w, const struct sim_step *step) {
	const struct sim_sink *sink = w->link.sink;
	switch (step->verb) {
	case SIM_GLITCH:
		world_glitch(w);
		break;
	case SIM_CABLE:
		world_set_cable(w, &step->params);
		break;
	case SIM_HEAL:
		world_heal(w);
		break;
	case SIM_PLUG:
	case SIM_SWAP:
		world_plug(w, step->sink->name);
		break;
	case SIM_UNPLUG:
		world_unplug(w);
		break;
	case SIM_REPLUG:
		if (step->on) {
			world_replug_stored(w);
		} else if (sink != NULL) {
			world_plug(w, sink->name);
		}
		break;
	case SIM_CLIENT_RETRY:
		world_retry(w);
		break;
	case SIM_COMMIT_FAILS:
		w->fail_next_commit = true;
		break;
	case SIM_VT_SWITCH:
		world_vt_switch(w);
		break;
	case SIM_REJECT:
		world_reject_all(w, step->on);
		break;
	case SIM_MODE:
		if (sink != NULL && w->connected) {
			world_mode_set(w, &sink->modes[step->count % sink->n_modes]);
		}
		break;
	case SIM_DARK:
		world_lose_lock(w, step->params.rate_mbps);
		break;
	case SIM_ERRORS:
		world_set_errors(w, step->count);
		break;
	case SIM_END:
		break;
	}
	world_check_now(w);
}

/* What a program showed once left alone. */
struct outcome {
	uint32_t worst; // most modesets in a budget window
	uint64_t to_best_ms; // from the last fault to the last mode change
	uint32_t modesets_after_fault;
	// P3 judged a flapping step down, one for the sink; P8 a commit
	bool stepped_down, sink_stepped_down, quiet_commit;
	enum world_ending ending;
};

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
		if (p->steps[i].at_ms > w.now) {
			world_advance(&w, p->steps[i].at_ms - w.now);
		}
		if (trace) {
			fprintf(stderr, "%8llu step %d\n", (unsigned long long)w.now,
				p->steps[i].verb);
		}
		apply(&w, &p->steps[i]);
	}
	struct outcome local;
	outcome = outcome != NULL ? outcome : &local;
	outcome->ending = w.violation == NULL ? world_leave_alone(&w, CONVERGE_MS) :
		WORLD_ENDS_UNJUDGED;
	outcome->to_best_ms = w.judged_after_ms;
	outcome->modesets_after_fault = w.judged_modesets;
	outcome->stepped_down = w.step_downs > 0;
	outcome->sink_stepped_down = w.sink_step_downs > 0;
	outcome->quiet_commit = w.quiet_commits > 0;
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

/* Glitches from i on at one interval: one flap line. */
static size_t burst_length(const struct program *p, size_t i, uint64_t *interval) {
	size_t n = 1;
	*interval = 1;
	while (i + n < p->len && p->steps[i + n].verb == SIM_GLITCH) {
		uint64_t gap = p->steps[i + n].at_ms - p->steps[i + n - 1].at_ms;
		if (n > 1 && gap != *interval) {
			break;
		}
		*interval = gap;
		n++;
	}
	return n;
}

/* One line of the scenario format for step, with its verb's arguments. */
static void write_step(FILE *f, const struct sim_step *s) {
	fprintf(f, "%" PRIu64 "ms ", s->at_ms);
	switch (s->verb) {
	case SIM_CABLE:
		fprintf(f, "cable DP-1 %s lanes=%u\n", s->params.rate_mbps != 0 ?
			dp_rate_name(s->params.rate_mbps) : "any", s->params.lanes);
		return;
	case SIM_HEAL:
		fprintf(f, "heal DP-1\n");
		return;
	case SIM_PLUG:
	case SIM_SWAP:
		fprintf(f, "%s DP-1 %s\n", s->verb == SIM_PLUG ? "plug" : "swap",
			s->sink->name);
		return;
	case SIM_UNPLUG:
		fprintf(f, "unplug DP-1\n");
		return;
	case SIM_REPLUG:
		fprintf(f, "replug DP-1%s\n", s->on ? " stored" : "");
		return;
	case SIM_CLIENT_RETRY:
		fprintf(f, "retry DP-1\n");
		return;
	case SIM_COMMIT_FAILS:
		fprintf(f, "commit-fails DP-1\n");
		return;
	case SIM_VT_SWITCH:
		fprintf(f, "vt-switch DP-1\n");
		return;
	case SIM_REJECT:
		fprintf(f, "reject DP-1 %s\n", s->on ? "on" : "off");
		return;
	case SIM_MODE:
		fprintf(f, "mode DP-1 %" PRIu32 "\n", s->count);
		return;
	case SIM_DARK:
		fprintf(f, "dark DP-1%s%s\n", s->params.rate_mbps != 0 ? " " : "",
			s->params.rate_mbps != 0 ? dp_rate_name(s->params.rate_mbps) : "");
		return;
	case SIM_ERRORS:
		fprintf(f, "errors DP-1 %" PRIu32 "\n", s->count);
		return;
	case SIM_GLITCH:
	case SIM_END:
		return;
	}
}

/*
 * p in the scenario format, which --replay runs as it ran here: in
 * LINKGUARD_SCENARIO_OUT, else the current directory.
 */
static void write_scenario(const struct program *p, uint64_t seed) {
	char name[64], path[4096];
	snprintf(name, sizeof(name), "convergence-%" PRIu64 ".scn", seed);
	FILE *f = test_program_open(name, path, sizeof(path));
	if (f == NULL) {
		fprintf(stderr, "the shrunk program is %s\n", path);
		return;
	}
	fprintf(f, "# shrunk from test_convergence, seed %" PRIu64 "; it failed %s the "
		"step down for errors\n0 plug DP-1 4k60\n", seed,
		p->errors_step_down ? "with" : "without");
	for (size_t i = 0; i < p->len; i++) {
		const struct sim_step *s = &p->steps[i];
		if (s->verb != SIM_GLITCH) {
			write_step(f, s);
			continue;
		}
		uint64_t interval;
		size_t n = burst_length(p, i, &interval);
		fprintf(f, "%" PRIu64 "ms flap DP-1 %zu %" PRIu64 "ms\n", s->at_ms, n,
			interval);
		i += n - 1;
	}
	fprintf(f, "%" PRIu64 "ms end\n", p->len > 0 ? p->steps[p->len - 1].at_ms : 0);
	fclose(f);
	fprintf(stderr, "the shrunk program is in %s; test_convergence --replay %s "
		"runs it\n", path, path);
}

/*
 * A scenario file as a program: it must begin by plugging DP-1 into a
 * 4K60 monitor at 0 (the world's start) and name no other connector.
 */
static bool load_program(const char *path, struct program *p) {
	struct sim_scenario scenario;
	if (!sim_scenario_load(path, &scenario)) {
		return false;
	}
	bool ok = scenario.len > 0 && scenario.steps[0].verb == SIM_PLUG &&
		scenario.steps[0].at_ms == 0 &&
		strcmp(scenario.steps[0].sink->name, "4k60") == 0 &&
		scenario.len <= MAX_STEPS + 1;
	p->len = 0;
	for (size_t i = 1; ok && i < scenario.len; i++) {
		const struct sim_step *s = &scenario.steps[i];
		ok = strcmp(s->connector, "DP-1") == 0 || s->verb == SIM_END;
		if (s->verb != SIM_END) {
			p->steps[p->len++] = *s;
		}
	}
	sim_scenario_finish(&scenario);
	if (!ok) {
		fprintf(stderr, "%s: a replay starts with '0 plug DP-1 4k60', names DP-1 "
			"only and has at most %d steps\n", path, MAX_STEPS);
	}
	return ok;
}

/* Each file, with and without the step down for errors; traced when it fails. */
static int replay(int n, char *files[]) {
	for (int i = 0; i < n; i++) {
		struct program p;
		if (!load_program(files[i], &p)) {
			check(false);
			continue;
		}
		for (int errors = 0; errors < 2; errors++) {
			p.errors_step_down = errors;
			const char *violation = run(&p, NULL, false, false);
			fprintf(stderr, "%s %s the step down for errors: %s\n", files[i],
				errors ? "with" : "without", violation != NULL ? violation : "passes");
			if (violation != NULL) {
				run(&p, NULL, true, false);
			}
			check(violation == NULL);
		}
	}
	return test_result();
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
		const uint32_t *after, size_t n, const unsigned long *endings) {
	fprintf(stderr, "how the programs end:");
	for (int e = 0; e < WORLD_N_ENDINGS; e++) {
		fprintf(stderr, "%s %s: %lu", e > 0 ? "," : "", world_ending_names[e], endings[e]);
	}
	fprintf(stderr, "\n");
	if (n_timed > 0) {
		qsort(to_best, n_timed, sizeof(*to_best), cmp_u64);
		fprintf(stderr, "last fault -> last mode change (%zu programs judged by the "
			"bound): median %" PRIu64 " ms, p90 %" PRIu64 " ms, p99 %" PRIu64
			" ms, max %" PRIu64 " ms\n", n_timed,
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
	if (argc > 1 && strcmp(argv[1], "--replay") == 0) {
		return replay(argc - 2, argv + 2);
	}
	unsigned long programs = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	const char *seed_env = getenv("LINKGUARD_SEED");
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) :
		seed_env != NULL ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
	fprintf(stderr, "seed %" PRIu64 " (LINKGUARD_SEED=%" PRIu64 " reproduces it)\n",
		seed, seed);
	uint32_t worst = 0;
	unsigned long failed = 0, ran = 0, endings[WORLD_N_ENDINGS] = { 0 };
	unsigned long stepped_down = 0, sink_stepped_down = 0, quiet_commit = 0;
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
		if (violation == NULL && outcome.ending == WORLD_ENDS_AT_PICK) {
			to_best[timed++] = outcome.to_best_ms;
		}
		stepped_down += outcome.stepped_down;
		sink_stepped_down += outcome.sink_stepped_down;
		quiet_commit += outcome.quiet_commit;
		after[ran] = outcome.modesets_after_fault;
		// A program that failed is not extended to its ending.
		endings[outcome.ending] += violation == NULL;
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
		fprintf(stderr, "to repeat it: LINKGUARD_SEED=%" PRIu64 " %s %lu\n", seed,
			argv[0], programs);
	}
	fprintf(stderr, "%lu programs, %lu failed; worst %u modesets in %d ms (budget %d)\n",
		ran, failed, worst, MACHINE_BUDGET_WINDOW_MS, MACHINE_BUDGET_MODESETS);
	print_distributions(to_best, timed, after, ran, endings);
	// P2, P5, P7 and P9 are judged at every modeset, report and read of
	// every program; P3 where a step down came, P8 where linkguard
	// committed on a quiet link.
	double share = ran > 0 ? 100.0 / ran : 0;
	fprintf(stderr, "judged: P1 %.1f %%, P3 %.1f %% (flapping), %.1f %% (the sink's "
		"lost lock or errors), P4's bound %.1f %%, P8 %.1f %%, "
		"P2 P5 P7 P9 100 %%; unjudged endings: %lu\n",
		(endings[WORLD_ENDS_AT_PICK] + endings[WORLD_ENDS_NOTHING_FITS]) * share,
		stepped_down * share, sink_stepped_down * share,
		endings[WORLD_ENDS_AT_PICK] * share, quiet_commit * share,
		endings[WORLD_ENDS_UNJUDGED]);
	free(to_best);
	free(after);
	check_int_eq(failed, 0);
	check_int_eq(endings[WORLD_ENDS_UNJUDGED], 0);
	check(ran < FLOOR_PROGRAMS || endings[WORLD_ENDS_AT_PICK] * 100 >= ran * P4_JUDGED_FLOOR);
	check(mutant_caught(seed));
	return test_result();
}

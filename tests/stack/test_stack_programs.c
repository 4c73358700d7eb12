/*
 * Generated fault programs on the full headless stack: wlroots' headless
 * backend, the sim, the core and a compositor that enables what it is
 * recommended, on a real event loop. Each program is a scenario file made
 * of glitch bursts, cable changes, heals, unplugs, replugs, swaps and
 * refusing atomic checks at random times; once it has run and the links
 * are left alone, every connector that has an output must be lit (P1) at
 * the policy's pick for the kernel's list (P4), computed by the oracle of
 * tests/machine/oracle.c from the policy as the specification words it,
 * skipping what the sim saw fail at the link it would train at now,
 * after at most two of linkguard's modesets per output since the last
 * fault (P7). The distributions of the time from the last fault to the
 * last modeset and of the modesets after it are printed (real time on a
 * loaded machine: figures, not assertions; P4's bound is checked on
 * test_convergence's virtual clock).
 *
 *   test_stack_programs [PROGRAMS [SEED]]
 *
 * LINKGUARD_SEED also sets the seed. A failing program is written out as
 * stack-SEED-N.scn.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/backend.h>
#include <linkguard/connector.h>
#include <linkguard/policy.h>
#include <core/recovery.h>
#include "harness.h"
#include "machine/oracle.h"
#include "machine/rng.h"
#include "sim/observe.h"
#include "test.h"

/*
 * The 8K sink is left to test_convergence: headless outputs render with
 * pixman, and an 8K frame costs a tenth of a second.
 */
static const char *const sinks[] = { "4k60", "1440p144", "1080p60-rbr" };
#define N_SINKS (sizeof(sinks) / sizeof(sinks[0]))
static const char *const rates[] = {
	"rbr", "hbr", "hbr2", "hbr3", "uhbr10", "uhbr13.5", "uhbr20", "any",
};

/* A scenario of up to 400 ms on one or two connectors. */
static void generate(char *text, size_t size) {
	size_t len = 0;
	int connectors = 1 + (int)below(2);
	uint64_t at = 0;
	bool plugged[2] = { true, connectors > 1 };
	for (int c = 0; c < connectors; c++) {
		len += snprintf(text + len, size - len, "0 plug DP-%d %s\n", c + 1,
			sinks[below(N_SINKS)]);
	}
	int steps = 2 + (int)below(8);
	for (int i = 0; i < steps && len + 128 < size; i++) {
		at += below(60);
		int c = (int)below(connectors);
		const char *name = c == 0 ? "DP-1" : "DP-2";
		if (!plugged[c]) {
			len += snprintf(text + len, size - len, "%" PRIu64 "ms plug %s %s\n",
				at, name, sinks[below(N_SINKS)]);
			plugged[c] = true;
			continue;
		}
		switch (below(7)) {
		case 0:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms flap %s %d %dms\n",
				at, name, 1 + (int)below(8), 5 + (int)below(30));
			break;
		case 1:
		case 2:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms cable %s %s lanes=%d\n",
				at, name, rates[below(8)], 1 << below(3));
			break;
		case 3:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms heal %s\n", at, name);
			break;
		case 4:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms unplug %s\n", at, name);
			plugged[c] = false;
			break;
		case 5:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms swap %s %s\n",
				at, name, sinks[below(N_SINKS)]);
			break;
		default:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms reject %s %s\n",
				at, name, below(2) ? "on" : "off");
			break;
		}
	}
	// The faults end: nothing refuses modes any more.
	for (int c = 0; c < connectors; c++) {
		if (plugged[c]) {
			len += snprintf(text + len, size - len, "%" PRIu64 "ms reject DP-%d off\n",
				at, c + 1);
		}
	}
	snprintf(text + len, size - len, "%" PRIu64 "ms end\n", at + 1);
}

/* A mode the sim failed to train, or refused, at a link (rate x lanes). */
struct failure {
	struct lg_connector *conn;
	const struct sim_link *link; // the connector's, for where it trains now
	struct lg_mode mode;
	uint64_t at; // 0: no link carries it
};

#define MAX_FAILURES 64

/*
 * P4's known bad from the world's evidence, never conn->known_bad: the
 * failures the sim reported as they happened.
 */
struct evidence {
	struct failure failed[MAX_FAILURES];
	size_t n;
	bool overflow;
};

/* The link i915 trains mode at within the link's maximum, by the oracle. */
static uint64_t oracle_link(const struct sim_link *link, const struct lg_mode *mode) {
	struct lg_link_params params;
	if (link->sink == NULL ||
			!oracle_train_link(mode, link->sink->max_bpc, &link->max, &params)) {
		return 0;
	}
	return (uint64_t)params.rate_mbps * params.lanes;
}

static void handle_training(void *data, struct lg_connector *conn,
		const struct sim_link *link, enum sim_train_result result) {
	struct evidence *ev = data;
	uint64_t at;
	if (result == SIM_LOWERED) {
		// The maximum is lowered already: the link it failed at.
		at = (uint64_t)link->params.rate_mbps * link->params.lanes;
	} else if (result == SIM_REJECTED) {
		at = oracle_link(link, &link->mode);
	} else {
		return;
	}
	for (size_t i = 0; i < ev->n; i++) {
		const struct failure *f = &ev->failed[i];
		if (f->conn == conn && f->at == at && lg_mode_equal(&f->mode, &link->mode)) {
			return;
		}
	}
	if (ev->n == MAX_FAILURES) {
		ev->overflow = true;
		return;
	}
	ev->failed[ev->n++] = (struct failure){ conn, link, link->mode, at };
}

/*
 * What failed on conn at the link it would train at now, but for holding:
 * the mode that runs and holds is not held against itself.
 */
static void failed_here(const struct evidence *ev, const struct lg_connector *conn,
		const struct lg_mode *holding, struct lg_mode_list *out) {
	for (size_t i = 0; i < ev->n; i++) {
		const struct failure *f = &ev->failed[i];
		if (f->conn == conn && f->at == oracle_link(f->link, &f->mode) &&
				(holding == NULL || !lg_mode_equal(&f->mode, holding))) {
			lg_mode_list_append(out, &f->mode);
		}
	}
}

/* The spec's pick of the modes of the kernel's list now that pass their test. */
static bool pick(struct lg_connector *conn, const struct evidence *ev,
		const struct lg_mode *holding, struct lg_mode *mode) {
	struct lg_mode_list modes, passing, known_bad;
	lg_mode_list_init(&modes);
	lg_mode_list_init(&passing);
	lg_mode_list_init(&known_bad);
	failed_here(ev, conn, holding, &known_bad);
	bool probed = conn->impl->probe(conn, &modes) == LG_PROBE_OK;
	for (size_t i = 0; probed && i < modes.len; i++) {
		const struct lg_mode *candidate = &modes.modes[i];
		if (conn->impl->check_mode(conn, candidate)) {
			lg_mode_list_append(&passing, candidate);
		}
	}
	bool found = oracle_pick(conn->manager->options.policy, &conn->requested,
		&passing, &known_bad, mode);
	lg_mode_list_finish(&modes);
	lg_mode_list_finish(&passing);
	lg_mode_list_finish(&known_bad);
	return found;
}

/*
 * Nothing pending, or failed with nothing that fits: a failed link keeps
 * retrying with a backoff, by design (P1), and must light up when a mode
 * fits again.
 */
static bool settled_now(struct harness *h, const struct evidence *ev) {
	struct harness_connector *hc;
	wl_list_for_each(hc, &h->connectors, link) {
		struct lg_connector *conn = hc->conn;
		struct lg_mode best;
		if (conn == NULL || !conn->connected) {
			continue;
		}
		// A BAD the kernel has set and not yet sent is still to come.
		bool kernel_quiet = conn->impl->get_link_status(conn) == LG_LINK_STATUS_GOOD;
		if (kernel_quiet && recovery_idle(conn)) {
			continue;
		}
		if (conn->state != LG_LINK_FAILED ||
				(conn->has_requested && pick(conn, ev, NULL, &best))) {
			return false;
		}
	}
	return true;
}

struct settle {
	struct harness *h;
	const struct evidence *ev;
	uint64_t since_ms; // settled since, 0: not settled
};

static uint64_t now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Settled for 150 ms on end: the kernel's retries come in between. */
static bool all_settled(void *data) {
	struct settle *settle = data;
	if (!settled_now(settle->h, settle->ev)) {
		settle->since_ms = 0;
		return false;
	}
	if (settle->since_ms == 0) {
		settle->since_ms = now_ms();
	}
	return now_ms() - settle->since_ms >= 150;
}

/* P1 and P4 for one connector left alone; NULL when both hold. */
static const char *judge(struct lg_connector *conn, const struct evidence *ev,
		char *detail, size_t size) {
	if (!conn->connected || conn->output == NULL) {
		return NULL;
	}
	struct lg_mode best;
	bool lit = conn->output->enabled &&
		conn->impl->get_link_status(conn) == LG_LINK_STATUS_GOOD;
	const struct lg_mode *holding = lit && conn->has_current ? &conn->current : NULL;
	bool fits = conn->has_requested && pick(conn, ev, holding, &best);
	if (fits && !lit) {
		snprintf(detail, size, "%s dark (%s) with a mode that fits",
			conn->name, lg_link_state_name(conn->state));
		return "P1 never dark";
	}
	if (fits && conn->has_current && !lg_mode_equal(&conn->current, &best)) {
		char a[64], b[64];
		snprintf(detail, size, "%s runs %s, the pick is %s", conn->name,
			lg_mode_format(&conn->current, a, sizeof(a)),
			lg_mode_format(&best, b, sizeof(b)));
		return "P4 best mode for the link";
	}
	return NULL;
}

/* What a program showed once left alone. */
struct outcome {
	uint64_t to_last_ms; // from the last fault to the last modeset
	int after; // the most modesets of one output after the last fault
	size_t failures; // modes the sim saw fail, with their links
};

/* P7, and the figures for the distributions. */
static const char *judge_path(const struct harness *h, struct outcome *outcome,
		char *detail, size_t size) {
	uint64_t fault = harness_last_fault_usec(h);
	outcome->to_last_ms = 0;
	outcome->after = 0;
	int n = h->modesets < HARNESS_MAX_EVENTS ? h->modesets : HARNESS_MAX_EVENTS;
	for (int i = 0; i < n; i++) {
		const struct harness_commit *commit = &h->commits[i];
		if (commit->usec <= fault) {
			continue;
		}
		outcome->to_last_ms = (commit->usec - fault) / 1000;
		int after = harness_commits_after(h, commit->output, fault);
		outcome->after = after > outcome->after ? after : outcome->after;
	}
	// Past the harness' record the modesets are not known: not judged.
	if (h->modesets <= HARNESS_MAX_EVENTS && outcome->after > 2) {
		snprintf(detail, size, "%d modesets of one output after the last fault",
			outcome->after);
		return "P7 two modesets after the last fault";
	}
	return NULL;
}

static bool run(const char *text, char *detail, size_t size, const char **violation,
		struct outcome *outcome) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 30;
	options.flap_window_ms = 300;
	options.backoff_min_ms = 50;
	options.backoff_max_ms = 400;
	struct harness h;
	*violation = NULL;
	if (!harness_init(&h, &options)) {
		*violation = "harness";
		return false;
	}
	struct evidence ev = {0};
	sim_observe_training(h.sim, handle_training, &ev);
	// The sim's uevents and retries come from the event loop a moment later.
	bool ran = harness_run(&h, text, 100);
	struct settle settle = { .h = &h, .ev = &ev };
	bool settled = harness_dispatch_until(&h, all_settled, &settle, 15000);
	struct harness_connector *hc;
	wl_list_for_each(hc, &h.connectors, link) {
		if (*violation == NULL && hc->conn != NULL) {
			*violation = judge(hc->conn, &ev, detail, size);
		}
	}
	if (*violation == NULL && ev.overflow) {
		*violation = "evidence: more failures than recorded";
	}
	if (*violation == NULL && !settled) {
		*violation = "convergence: still busy when left alone";
	}
	const char *path = judge_path(&h, outcome, detail, size);
	outcome->failures = ev.n;
	*violation = *violation != NULL ? *violation : path;
	harness_finish(&h);
	return ran;
}

/* Runs one written-out program, logged: for a failure. */
static int replay(const char *path) {
	FILE *f = fopen(path, "r");
	char text[2048];
	size_t len = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
	if (f != NULL) {
		fclose(f);
	}
	text[len] = '\0';
	char detail[160] = "";
	const char *violation;
	struct outcome outcome;
	bool ran = run(text, detail, sizeof(detail), &violation, &outcome);
	fprintf(stderr, "%s: %s %s\n", path, ran ? violation != NULL ? violation :
		"no violation" : "did not run", detail);
	return ran && violation == NULL ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void print_distributions(uint64_t *to_last, const int *after, size_t n) {
	if (n == 0) {
		return;
	}
	qsort(to_last, n, sizeof(*to_last), cmp_u64);
	fprintf(stderr, "last fault -> last modeset: median %" PRIu64 " ms, p90 %" PRIu64
		" ms, max %" PRIu64 " ms\n", to_last[n / 2], to_last[n * 9 / 10], to_last[n - 1]);
	int counts[4] = { 0 };
	for (size_t i = 0; i < n; i++) {
		counts[after[i] < 3 ? after[i] : 3]++;
	}
	fprintf(stderr, "modesets of one output after the last fault: 0: %d, 1: %d, "
		"2: %d, more: %d\n", counts[0], counts[1], counts[2], counts[3]);
}

int main(int argc, char *argv[]) {
	if (argc > 1 && strstr(argv[1], ".scn") != NULL) {
		return replay(argv[1]);
	}
	unsigned long programs = argc > 1 ? strtoul(argv[1], NULL, 10) : 300;
	const char *seed_env = getenv("LINKGUARD_SEED");
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) :
		seed_env != NULL ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
	fprintf(stderr, "seed %" PRIu64 " (LINKGUARD_SEED=%" PRIu64 " reproduces it)\n",
		seed, seed);
	unsigned long ran = 0, failed = 0, with_failures = 0;
	uint64_t *to_last = calloc(programs + 1, sizeof(*to_last));
	int *after = calloc(programs + 1, sizeof(*after));
	check(to_last != NULL && after != NULL);
	harness_quiet();
	for (unsigned long i = 0; i < programs && to_last != NULL && after != NULL; i++) {
		rng_seed(seed, i);
		char text[2048], detail[160] = "";
		generate(text, sizeof(text));
		const char *violation;
		struct outcome outcome;
		if (!run(text, detail, sizeof(detail), &violation, &outcome)) {
			fprintf(stderr, "program %lu did not run:\n%s", i, text);
			failed++;
			continue;
		}
		with_failures += outcome.failures > 0;
		to_last[ran] = outcome.to_last_ms;
		after[ran] = outcome.after;
		ran++;
		if (violation == NULL) {
			continue;
		}
		failed++;
		char path[64];
		snprintf(path, sizeof(path), "stack-%" PRIu64 "-%lu.scn", seed, i);
		FILE *f = fopen(path, "w");
		if (f != NULL) {
			fprintf(f, "# test_stack_programs seed %" PRIu64 ", program %lu: %s: %s\n%s",
				seed, i, violation, detail, text);
			fclose(f);
		}
		fprintf(stderr, "program %lu: %s: %s (written to %s)\n", i, violation,
			detail, path);
	}
	fprintf(stderr, "%lu programs ran on the full stack, %lu failed; in %lu a mode "
		"failed at a link (P4's known bad)\n", ran, failed, with_failures);
	print_distributions(to_last, after, ran);
	free(to_last);
	free(after);
	check_int_eq(ran, programs);
	check_int_eq(failed, 0);
	return test_result();
}

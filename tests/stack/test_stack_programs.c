/*
 * Generated fault programs on the full headless stack: wlroots' headless
 * backend, the sim, the core and a compositor that enables what it is
 * recommended, on a real event loop. Each program is a scenario file made
 * of glitch bursts, cable changes, heals, unplugs, replugs, swaps,
 * refusing atomic checks, sinks that hold lock only up to a rate and
 * cables whose symbol errors exceed DisplayPort's budget (link-status
 * GOOD, no uevent: the sink's DPCD tells) at random times, every
 * connector plugged at its end. They are judged by what the world saw, never by linkguard's state:
 * the sim (the simulated kernel and sink, sim/observe.h) tells each
 * training as it happens and shows its links at the end; the modes' links
 * and the policy are the oracle's (tests/machine/oracle.c). Once a program
 * has run and the links are left alone, every connector with a sink must
 * be lit (P1) at the policy's pick (P4) from the sink's preferred mode (the
 * requested one: this compositor asks for nothing else) among the modes
 * the kernel lists and takes, skipping what the sim saw fail at the link
 * configuration it would train at now, what the sink does not hold or
 * errs at, and what the kernel trains at or above a link configuration
 * the sim saw the sink not hold or err at (the step downs for the sink
 * leave those behind until a replug), after at most two modesets per
 * connector, as the kernel counted them, since the last fault (P7). Every
 * step down from a mode that ran, on a link the kernel did not lower, must
 * train at a lower link configuration than the link that ran (P3). The share of
 * programs judged by each property is printed, and the distributions of
 * the time from the last fault to the last modeset and of the modesets
 * after it (real time on a loaded machine: figures, not assertions; P4's
 * bound is checked on test_convergence's virtual clock).
 *
 *   test_stack_programs [PROGRAMS [SEED]]
 *   test_stack_programs FILE.scn
 *
 * LINKGUARD_SEED also sets the seed. A failing program is written out as
 * stack-SEED-N.scn, into $LINKGUARD_SCENARIO_OUT if set, else the working
 * directory; the second form replays it.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linkguard/connector.h>
#include <linkguard/policy.h>
#include <core/recovery.h>
#include <sim/sink.h>
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
static const char *const lock_rates[] = { "rbr", "hbr", "hbr2", "hbr3" };
static const char *const connectors[] = { "DP-1", "DP-2" };
#define N_CONNECTORS (sizeof(connectors) / sizeof(connectors[0]))

/* A scenario of up to 400 ms on one or two connectors. */
static void generate(char *text, size_t size) {
	size_t len = 0;
	int n = 1 + (int)below(N_CONNECTORS);
	uint64_t at = 0;
	bool plugged[N_CONNECTORS] = { true, n > 1 };
	for (int c = 0; c < n; c++) {
		len += snprintf(text + len, size - len, "0 plug %s %s\n", connectors[c],
			sinks[below(N_SINKS)]);
	}
	int steps = 2 + (int)below(8);
	for (int i = 0; i < steps && len + 128 < size; i++) {
		at += below(60);
		int c = (int)below(n);
		const char *name = connectors[c];
		if (!plugged[c]) {
			len += snprintf(text + len, size - len, "%" PRIu64 "ms plug %s %s\n",
				at, name, sinks[below(N_SINKS)]);
			plugged[c] = true;
			continue;
		}
		switch (below(9)) {
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
		case 6:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms dark %s %s\n",
				at, name, lock_rates[below(4)]);
			break;
		case 7:
			// Far above the budget at any rate: a verdict within reads.
			len += snprintf(text + len, size - len, "%" PRIu64 "ms errors %s 100000\n",
				at, name);
			break;
		default:
			len += snprintf(text + len, size - len, "%" PRIu64 "ms reject %s %s\n",
				at, name, below(2) ? "on" : "off");
			break;
		}
	}
	// The faults end: every connector has a sink to judge, and nothing
	// refuses modes any more.
	for (int c = 0; c < n; c++) {
		if (!plugged[c]) {
			len += snprintf(text + len, size - len, "%" PRIu64 "ms plug %s %s\n",
				at, connectors[c], sinks[below(N_SINKS)]);
		}
		len += snprintf(text + len, size - len, "%" PRIu64 "ms reject %s off\n",
			at, connectors[c]);
	}
	snprintf(text + len, size - len, "%" PRIu64 "ms end\n", at + 1);
}

static uint64_t now_usec(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* A mode the sim failed to train, or refused, at a link configuration. */
struct failure {
	const struct sim_link *link; // the connector's, for where it trains now
	struct lg_mode mode;
	struct lg_link_params at; // zero: no link carries it
};

/* A commit the kernel took as a modeset. */
struct modeset {
	const struct sim_link *link;
	uint64_t usec; // CLOCK_MONOTONIC
};

#define MAX_FAILURES 64
#define MAX_MODESETS 256

/* The world's evidence, as the sim told it: never linkguard's state. */
struct evidence {
	enum lg_policy policy; // the test's configuration
	struct failure failed[MAX_FAILURES];
	size_t n;
	bool overflow;
	struct modeset modesets[MAX_MODESETS];
	size_t n_modesets; // counts past MAX_MODESETS: P7 then not judged
	int steps_down; // P3: steps down from a mode that ran, checked
	int sink_steps_down; // of those, away from a mode the sink did not hold
	char p3[192]; // the first that did not lower the link; empty: none
	// Per link, the lowest configuration (by what it carries) the sim
	// trained that the sink did not hold or erred at, since its last
	// plug; zero: none
	struct {
		const struct sim_link *link;
		struct lg_link_params at;
	} unheld[N_CONNECTORS];
	// The last training the sink did not hold or erred at: a fault its
	// reads report later (P7 counts from it, as from a scenario's step)
	uint64_t sink_fault_usec;
};

/*
 * The link configuration i915 trains mode at within the link's maximum, by
 * the oracle's formulas; false (and a zero link) when none carries it.
 */
static bool oracle_link(const struct sim_link *link, const struct lg_mode *mode,
		struct lg_link_params *params) {
	*params = (struct lg_link_params){0};
	return link->sink != NULL &&
		oracle_train_link(mode, link->sink->max_bpc, &link->max, params);
}

/* By configuration, as the machine keys known bad: HBR x4 is no HBR2 x2. */
static bool same_link(const struct lg_link_params *a, const struct lg_link_params *b) {
	return a->rate_mbps == b->rate_mbps && a->lanes == b->lanes;
}

/*
 * Symbol errors above DisplayPort's budget at the link's rate (a bit error
 * rate of 10^-9: 0.06 x the rate a lane and minute), from the sim's truth.
 */
static bool errs_at(const struct sim_link *link, uint32_t rate_mbps) {
	return link->errors_per_min != 0 && rate_mbps >= link->errors_min_mbps &&
		(uint64_t)link->errors_per_min * 100 > (uint64_t)rate_mbps * 6;
}

/* Whether the sink holds mode without errors at the link i915 trains it at. */
/* Whether the sink holds lock at rate_mbps a lane, without errors there. */
static bool holds_rate(const struct sim_link *link, uint32_t rate_mbps) {
	return (link->lock_max_mbps == 0 || rate_mbps <= link->lock_max_mbps) &&
		!errs_at(link, rate_mbps);
}

static bool sink_holds(const struct sim_link *link, const struct lg_mode *mode) {
	struct lg_link_params at;
	return oracle_link(link, mode, &at) && holds_rate(link, at.rate_mbps);
}

static struct lg_link_params *unheld_of(struct evidence *ev, const struct sim_link *link) {
	for (size_t i = 0; i < N_CONNECTORS; i++) {
		if (ev->unheld[i].link == link || ev->unheld[i].link == NULL) {
			ev->unheld[i].link = link;
			return &ev->unheld[i].at;
		}
	}
	return NULL;
}

/*
 * Below every configuration the sink did not hold: P4 lets linkguard leave
 * the others behind (its sink ceiling), by the oracle's link for mode.
 */
static bool below_unheld(const struct evidence *ev, const struct sim_link *link,
		const struct lg_mode *mode) {
	struct lg_link_params at;
	for (size_t i = 0; i < N_CONNECTORS; i++) {
		if (ev->unheld[i].link == link) {
			oracle_link(link, mode, &at);
			return oracle_link_below(&at, &ev->unheld[i].at);
		}
	}
	return true;
}

/* Whether the sink does not hold link's running configuration, or errs there. */
static bool unheld_at(const struct sim_link *link) {
	return link->trained && link->params.lanes != 0 &&
		(!sim_link_sink_locked(link) || errs_at(link, link->params.rate_mbps));
}

/*
 * Whether the sink cannot hold link's running configuration for good: its
 * lock holds only below that rate, or it errs there (not a lock lost once,
 * which a retrain regains).
 */
static bool never_held_at(const struct sim_link *link) {
	return link->trained && link->params.lanes != 0 &&
		!holds_rate(link, link->params.rate_mbps);
}

/*
 * The sink's evidence: a training the sink does not hold, or errs at,
 * marks its configuration, and so does the link a training leaves where
 * the sink stopped holding it for good while it ran (errors, or a lock
 * that holds only at lower rates, that began after its training); a plug
 * (no link trained since) starts over.
 */
static void note_unheld(struct evidence *ev, const struct sim_training *t) {
	const struct sim_link *link = t->link;
	struct lg_link_params *unheld = unheld_of(ev, link);
	if (unheld == NULL) {
		return;
	}
	if (t->before.params.lanes == 0) {
		*unheld = (struct lg_link_params){0};
	}
	if (t->before.lit && never_held_at(&t->before)) {
		oracle_keep_lowest(unheld, &t->before.params);
	}
	if (!unheld_at(link)) {
		return;
	}
	ev->sink_fault_usec = now_usec();
	oracle_keep_lowest(unheld, &link->params);
}

static void note_failure(struct evidence *ev, const struct sim_training *t) {
	const struct sim_link *link = t->link;
	struct lg_link_params at;
	if (t->result == SIM_LOWERED) {
		// The maximum is lowered already: the link it failed at.
		at = link->params;
	} else if (t->result == SIM_REJECTED) {
		oracle_link(link, &link->mode, &at);
	} else {
		return;
	}
	for (size_t i = 0; i < ev->n; i++) {
		const struct failure *f = &ev->failed[i];
		if (f->link == link && same_link(&f->at, &at) &&
				lg_mode_equal(&f->mode, &link->mode)) {
			return;
		}
	}
	if (ev->n == MAX_FAILURES) {
		ev->overflow = true;
		return;
	}
	ev->failed[ev->n++] = (struct failure){ link, link->mode, at };
}

/*
 * P3: a modeset away from a mode that ran and held, on a link the kernel
 * has not lowered since (a failed training would have cleared trained),
 * to a mode the policy ranks below it, is linkguard's step down for a
 * flapping link. It must train at a lower link configuration than the link
 * that ran (oracle_link_below()), not merely at a lower pixel clock.
 */
static void check_step_down(struct evidence *ev, const struct sim_training *t) {
	const struct sim_link *before = &t->before, *link = t->link;
	if (!before->lit || !before->trained || lg_mode_equal(&before->mode, &link->mode) ||
			!oracle_better(ev->policy, &before->mode, &link->mode,
				sim_sink_preferred(link->sink))) {
		return;
	}
	ev->steps_down++;
	ev->sink_steps_down += unheld_at(before);
	struct lg_link_params to;
	if (oracle_link(link, &link->mode, &to) && before->params.lanes != 0 &&
			oracle_link_below(&to, &before->params)) {
		return;
	}
	if (ev->p3[0] == '\0') {
		char a[64], b[64];
		snprintf(ev->p3, sizeof(ev->p3), "%s stepped down from %s at %" PRIu32
			" Mbit/s x%" PRIu32 " to %s at %" PRIu32 " Mbit/s x%" PRIu32, link->name,
			lg_mode_format(&before->mode, a, sizeof(a)), before->params.rate_mbps,
			before->params.lanes, lg_mode_format(&link->mode, b, sizeof(b)),
			to.rate_mbps, to.lanes);
	}
}

static void handle_training(void *data, const struct sim_training *t) {
	struct evidence *ev = data;
	if (t->modeset) {
		if (ev->n_modesets < MAX_MODESETS) {
			ev->modesets[ev->n_modesets] = (struct modeset){ t->link, now_usec() };
		}
		ev->n_modesets++;
		check_step_down(ev, t);
	}
	note_failure(ev, t);
	note_unheld(ev, t);
}

/*
 * What failed on link at the configuration it would train at now, but for
 * holding: the mode that runs and holds is not held against itself.
 */
static void failed_here(const struct evidence *ev, const struct sim_link *link,
		const struct lg_mode *holding, struct lg_mode_list *out) {
	for (size_t i = 0; i < ev->n; i++) {
		const struct failure *f = &ev->failed[i];
		struct lg_link_params now;
		oracle_link(link, &f->mode, &now);
		if (f->link == link && same_link(&f->at, &now) &&
				(holding == NULL || !lg_mode_equal(&f->mode, holding))) {
			lg_mode_list_append(out, &f->mode);
		}
	}
}

/*
 * The spec's pick, from the sink's preferred mode, of the modes the kernel
 * lists now and its atomic check takes.
 */
static bool pick(const struct evidence *ev, const struct sim_link *link,
		const struct lg_mode *holding, struct lg_mode *mode) {
	struct lg_mode_list modes, passing, known_bad;
	lg_mode_list_init(&modes);
	lg_mode_list_init(&passing);
	lg_mode_list_init(&known_bad);
	failed_here(ev, link, holding, &known_bad);
	bool probed = sim_link_probe(link, &modes);
	for (size_t i = 0; probed && i < modes.len; i++) {
		const struct lg_mode *candidate = &modes.modes[i];
		if (sim_link_mode_valid(link, candidate)) {
			lg_mode_list_append(&passing, candidate);
		}
		// Last, as known-bad ones: what the sink does not hold or errs
		// at, and what trains at or above a configuration it did not
		// hold; the mode that runs is not held against itself.
		bool unheld = !sink_holds(link, candidate) ||
			!below_unheld(ev, link, candidate);
		if (unheld && (holding == NULL || !lg_mode_equal(candidate, holding))) {
			lg_mode_list_append(&known_bad, candidate);
		}
	}
	bool found = link->sink != NULL && oracle_pick(ev->policy,
		sim_sink_preferred(link->sink), &passing, &known_bad, mode);
	lg_mode_list_finish(&modes);
	lg_mode_list_finish(&passing);
	lg_mode_list_finish(&known_bad);
	return found;
}

/*
 * Whether a mode fits: the kernel lists and takes it and the sink holds it
 * without errors at the link the kernel trains it at. A sink that holds RBR
 * only, behind a kernel that lowered its maximum to HBR2 x1, shows nothing
 * until a replug: no mode linkguard can choose fits.
 */
static bool any_fits(const struct sim_link *link) {
	struct lg_mode_list modes;
	lg_mode_list_init(&modes);
	bool fits = false;
	if (sim_link_probe(link, &modes)) {
		for (size_t i = 0; i < modes.len && !fits; i++) {
			fits = sim_link_mode_valid(link, &modes.modes[i]) &&
				sink_holds(link, &modes.modes[i]);
		}
	}
	lg_mode_list_finish(&modes);
	return fits;
}

/* The CRTC runs a trained link its sink holds, link-status GOOD. */
static bool lit(const struct sim_link *link) {
	return link->lit && link->status == LG_LINK_STATUS_GOOD && sim_link_sink_locked(link);
}

/*
 * When to judge, not what: nothing pending (linkguard idle on a link the
 * kernel calls good), or failed with nothing that fits: a failed link keeps
 * retrying with a backoff, by design (P1), and must light up when a mode
 * fits again.
 */
static bool settled_now(struct harness *h, const struct evidence *ev) {
	for (size_t i = 0; i < N_CONNECTORS; i++) {
		const struct sim_link *link = sim_observe_link(h->sim, connectors[i]);
		struct harness_connector *hc = harness_connector(h, connectors[i]);
		struct lg_mode best;
		if (link == NULL || link->sink == NULL) {
			continue;
		}
		if (hc == NULL) {
			return false;
		}
		// A BAD the kernel has set and not yet sent is still to come;
		// the sink's dark link or errors come with the reads: linkguard
		// idle between two is not done while the pick is another mode.
		bool at_pick = lit(link) && pick(ev, link, &link->mode, &best) &&
			lg_mode_equal(&best, &link->mode);
		bool sink_ok = sink_holds(link, &link->mode) || at_pick;
		if (link->status == LG_LINK_STATUS_GOOD &&
				((recovery_idle(hc->conn) && sink_ok) || !any_fits(link))) {
			continue;
		}
		if (hc->conn->state != LG_LINK_FAILED || pick(ev, link, NULL, &best)) {
			return false;
		}
	}
	return true;
}

struct settle {
	struct harness *h;
	const struct evidence *ev;
	uint64_t since_usec; // settled since, 0: not settled
};

/* Settled for 150 ms on end: the kernel's retries come in between. */
static bool all_settled(void *data) {
	struct settle *settle = data;
	if (!settled_now(settle->h, settle->ev)) {
		settle->since_usec = 0;
		return false;
	}
	if (settle->since_usec == 0) {
		settle->since_usec = now_usec();
	}
	return now_usec() - settle->since_usec >= 150000;
}

/* How a connector with a sink ended, for the share judged. */
enum ending {
	ENDING_NO_SINK, // nothing to light
	ENDING_NOTHING_FITS, // P1 judged: the kernel takes no mode
	ENDING_FITS, // P1 and P4 judged
};

/* P1 and P4 for one connector left alone; NULL when both hold. */
static const char *judge(const struct evidence *ev, const struct sim_link *link,
		enum ending *ending, char *detail, size_t size) {
	*ending = ENDING_NO_SINK;
	if (link == NULL || link->sink == NULL) {
		return NULL;
	}
	struct lg_mode best;
	bool on = lit(link);
	if (!pick(ev, link, on ? &link->mode : NULL, &best) || (!on && !any_fits(link))) {
		*ending = ENDING_NOTHING_FITS;
		return NULL;
	}
	*ending = ENDING_FITS;
	if (!on) {
		snprintf(detail, size, "%s dark (link-status %s, %s) with a mode that fits",
			link->name, lg_link_status_name(link->status),
			!link->lit ? "CRTC off" : !link->trained ? "not trained" : "sink unlocked");
		return "P1 never dark";
	}
	if (!lg_mode_equal(&link->mode, &best)) {
		char a[64], b[64];
		snprintf(detail, size, "%s runs %s, the pick is %s", link->name,
			lg_mode_format(&link->mode, a, sizeof(a)),
			lg_mode_format(&best, b, sizeof(b)));
		return "P4 best mode for the link";
	}
	return NULL;
}

/* What a program showed once left alone. */
struct outcome {
	uint64_t to_last_ms; // from the last fault to the last modeset
	int after; // the most modesets of one connector after the last fault
	size_t failures; // modes the sim saw fail, with their links
	int steps_down, sink_steps_down; // checked by P3; for the sink's sake
	bool p1, p4, p7; // judged by each
};

/*
 * P7 by the kernel's count of modesets after the last fault (a scenario's
 * step, or a training the sink did not hold), and the figures for the
 * distributions.
 */
static const char *judge_path(const struct harness *h, const struct evidence *ev,
		struct outcome *outcome, char *detail, size_t size) {
	uint64_t fault = harness_last_fault_usec(h);
	fault = ev->sink_fault_usec > fault ? ev->sink_fault_usec : fault;
	outcome->to_last_ms = 0;
	outcome->after = 0;
	// Past the record the modesets are not known: not judged.
	outcome->p7 = ev->n_modesets <= MAX_MODESETS;
	for (size_t i = 0; outcome->p7 && i < ev->n_modesets; i++) {
		const struct modeset *m = &ev->modesets[i];
		if (m->usec <= fault) {
			continue;
		}
		outcome->to_last_ms = (m->usec - fault) / 1000;
		int after = 0;
		for (size_t j = 0; j < ev->n_modesets; j++) {
			after += ev->modesets[j].link == m->link && ev->modesets[j].usec > fault;
		}
		outcome->after = after > outcome->after ? after : outcome->after;
	}
	if (outcome->after > 2) {
		snprintf(detail, size, "%d modesets of one connector after the last fault",
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
	// The sink read fast enough for the program's time: a dark link
	// after 60 ms of it, each step down for it within the flap window.
	options.sink_poll_ms = 40;
	options.sink_settle_ms = 60;
	options.link_errors_step_down = true;
	struct harness h;
	*violation = NULL;
	*outcome = (struct outcome){0};
	if (!harness_init(&h, &options)) {
		*violation = "harness";
		return false;
	}
	struct evidence ev = { .policy = options.policy };
	sim_observe_training(h.sim, handle_training, &ev);
	// The sim's uevents and retries come from the event loop a moment later.
	bool ran = harness_run(&h, text, 100);
	struct settle settle = { .h = &h, .ev = &ev };
	bool settled = harness_dispatch_until(&h, all_settled, &settle, 15000);
	int sinks = 0, nothing_fits = 0;
	for (size_t i = 0; i < N_CONNECTORS; i++) {
		enum ending ending;
		const char *why = judge(&ev, sim_observe_link(h.sim, connectors[i]),
			&ending, detail, size);
		*violation = *violation != NULL ? *violation : why;
		sinks += ending != ENDING_NO_SINK;
		nothing_fits += ending == ENDING_NOTHING_FITS;
	}
	// Every program ends plugged (generate()): each connector's sink is
	// judged, held or named as a violation; P4 where a mode fits.
	outcome->p1 = sinks > 0;
	outcome->p4 = sinks > 0 && nothing_fits == 0;
	if (*violation == NULL && ev.p3[0] != '\0') {
		snprintf(detail, size, "%s", ev.p3);
		*violation = "P3 a step down lowers the link";
	}
	outcome->steps_down = ev.steps_down;
	outcome->sink_steps_down = ev.sink_steps_down;
	if (*violation == NULL && ev.overflow) {
		*violation = "evidence: more failures than recorded";
	}
	if (*violation == NULL && !settled) {
		*violation = "convergence: still busy when left alone";
	}
	const char *path = judge_path(&h, &ev, outcome, detail, size);
	outcome->failures = ev.n;
	*violation = *violation != NULL ? *violation : path;
	sim_observe_training(h.sim, NULL, NULL);
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
	char detail[192] = "";
	const char *violation;
	struct outcome outcome;
	bool ran = run(text, detail, sizeof(detail), &violation, &outcome);
	fprintf(stderr, "%s: %s %s\n", path, ran ? violation != NULL ? violation :
		"no violation" : "did not run", detail);
	return ran && violation == NULL ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Writes a failing program where $LINKGUARD_SCENARIO_OUT says, else here. */
static void write_program(const char *text, uint64_t seed, unsigned long i,
		const char *violation, const char *detail, char *path, size_t size) {
	char name[64];
	snprintf(name, sizeof(name), "stack-%" PRIu64 "-%lu.scn", seed, i);
	FILE *f = test_program_open(name, path, size);
	if (f == NULL) {
		return;
	}
	fprintf(f, "# test_stack_programs seed %" PRIu64 ", program %lu: %s: %s\n%s",
		seed, i, violation, detail, text);
	fclose(f);
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
	fprintf(stderr, "modesets of one connector after the last fault: 0: %d, 1: %d, "
		"2: %d, more: %d\n", counts[0], counts[1], counts[2], counts[3]);
}

/* The programs each property judged. */
struct shares {
	unsigned long p1, p4, p7, p3, steps_down, p3_sink, sink_steps_down, unjudged;
};

static void count_shares(struct shares *shares, const struct outcome *outcome) {
	shares->p1 += outcome->p1;
	shares->p4 += outcome->p4;
	shares->p7 += outcome->p7;
	shares->p3 += outcome->steps_down > 0;
	shares->steps_down += (unsigned long)outcome->steps_down;
	shares->p3_sink += outcome->sink_steps_down > 0;
	shares->sink_steps_down += (unsigned long)outcome->sink_steps_down;
	shares->unjudged += !outcome->p1;
}

static void print_shares(const struct shares *s, unsigned long n) {
	if (n == 0) {
		return;
	}
	fprintf(stderr, "judged: P1 %lu of %lu programs (%lu %%), P4 %lu (%lu %%), "
		"P7 %lu (%lu %%), P3 %lu (%lu %%, %lu steps down; for the sink's lost "
		"lock or errors %lu, %lu %%, %lu steps); unjudged endings: %lu\n",
		s->p1, n, s->p1 * 100 / n, s->p4, s->p4 * 100 / n, s->p7, s->p7 * 100 / n,
		s->p3, s->p3 * 100 / n, s->steps_down, s->p3_sink, s->p3_sink * 100 / n,
		s->sink_steps_down, s->unjudged);
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
	struct shares shares = {0};
	uint64_t *to_last = calloc(programs + 1, sizeof(*to_last));
	int *after = calloc(programs + 1, sizeof(*after));
	check(to_last != NULL && after != NULL);
	harness_quiet();
	for (unsigned long i = 0; i < programs && to_last != NULL && after != NULL; i++) {
		rng_seed(seed, i);
		char text[2048], detail[192] = "";
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
		count_shares(&shares, &outcome);
		if (violation == NULL) {
			continue;
		}
		failed++;
		char path[PATH_MAX];
		write_program(text, seed, i, violation, detail, path, sizeof(path));
		fprintf(stderr, "program %lu: %s: %s\n  written to %s; repeat: "
			"LINKGUARD_SEED=%" PRIu64 " %s %lu, or %s %s\n", i, violation, detail,
			path, seed, argv[0], programs, argv[0], path);
	}
	fprintf(stderr, "%lu programs ran on the full stack, %lu failed; in %lu a mode "
		"failed at a link (P4's known bad)\n", ran, failed, with_failures);
	print_shares(&shares, ran);
	print_distributions(to_last, after, ran);
	free(to_last);
	free(after);
	check_int_eq(ran, programs);
	check_int_eq(failed, 0);
	check_int_eq(shares.unjudged, 0);
	return test_result();
}

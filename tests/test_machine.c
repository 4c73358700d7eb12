/*
 * The recovery state machine, exhaustively: every sequence of up to
 * MAX_DEPTH events over the alphabet below, from a 4K60 monitor running its
 * preferred mode, each checked against P1-P5 and P7-P9
 * (doc/linkguard-recovery.7.scd) after every event, and once more after
 * each full sequence has been left alone long enough to converge. The kernel is the sim's pure link model,
 * time a virtual clock; which modes a link carries is checked against the
 * DP formulas in tests/machine/oracle.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machine/oracle.h"
#include "machine/step.h"
#include "machine/world.h"
#include "test.h"

/*
 * The longest sequences: 6 (49,659,540 sequences); the sanitizer legs, ten
 * times slower, ask for 5 with --depth 5.
 */
#define MAX_DEPTH 6

static int max_depth = MAX_DEPTH;
/* Long enough for every backoff and step up to have run. */
#define CONVERGE_MS (30 * 60 * 1000)

static const struct lg_link_params cable_hbr = { .lanes = 4, .rate_mbps = 2700 };
static const struct lg_link_params cable_hbr2_x2 = { .lanes = 2, .rate_mbps = 5400 };
static const struct lg_link_params cable_hbr3_x2 = { .lanes = 2, .rate_mbps = 8100 };
/*
 * A burst: enough glitches to flap at the mode that runs and again at the
 * lower link it steps down to (twice flap_count), closer together than
 * the backoff.
 */
#define BURST_GLITCHES 6
#define BURST_GAP_MS 300

/* The alphabet: what the kernel, the user and the compositor can do. */
enum letter {
	GLITCH, // link-status BAD without a lowered link
	CABLE_HBR, // the cable holds HBR x4 at most: 4K60 no longer fits
	CABLE_X2, // two lanes at HBR2: i915 halves the lanes, the list grows
	// two lanes at HBR3 (a USB-C dock): i915 lowers HBR2 x4 -> HBR x4 ->
	// RBR x4 -> HBR3 x2, where 4K60 fits again at 24 bpp
	CABLE_HBR3_X2,
	BURST, // BURST_GLITCHES glitches BURST_GAP_MS apart
	HEAL, // any cable, a healthy sink (only a replug raises the kernel's link)
	TICK, // the next timer or kernel event fires
	QUIET, // nothing happens for 10 minutes
	REPLUG, // unplug and plug the same monitor
	REPLUG_STORED, // the same, the compositor starting it at its stored mode (sway)
	RETRY, // a client's retry
	COMMIT_FAILS, // the next commit fails after its test passed
	VT_SWITCH, // the session leaves, the link glitches, the session is back
	REJECT, // the kernel's atomic check refuses every mode, or again takes them
	// the compositor sets a mode itself (a user's output command): 4K60,
	// or 1440p60 where 4K60 is the requested mode
	USER_MODE,
	LATE_REQUEST, // the compositor applies linkguard's last request_state late (labwc)
	DARK, // the sink holds lock up to HBR only: link-status GOOD, no uevent
	DARK_ONCE, // the sink loses lock once; a modeset regains it
	ERRORS, // symbol errors above the threshold at the running rate and above
	N_LETTERS,
};

static const char *const letter_names[] = {
	"glitch", "cable-hbr", "cable-hbr2x2", "cable-hbr3x2", "burst", "heal",
	"tick", "quiet",
	"replug", "replug-stored", "retry", "commit-fails", "vt-switch", "reject",
	"user-mode", "late-request", "dark", "dark-once", "errors",
};

static const struct lg_mode uhd60 = {
	.width = 3840, .height = 2160, .refresh_mhz = 60000, .clock_khz = 533250,
	.preferred = true,
};
static const struct lg_mode qhd60 = {
	.width = 2560, .height = 1440, .refresh_mhz = 59951, .clock_khz = 241500,
};

static void apply(struct world *w, enum letter letter) {
	switch (letter) {
	case GLITCH:
		world_glitch(w);
		break;
	case CABLE_HBR:
		world_set_cable(w, &cable_hbr);
		break;
	case CABLE_X2:
		world_set_cable(w, &cable_hbr2_x2);
		break;
	case CABLE_HBR3_X2:
		world_set_cable(w, &cable_hbr3_x2);
		break;
	case BURST:
		for (int i = 0; i < BURST_GLITCHES - 1; i++) {
			world_glitch(w);
			world_advance(w, BURST_GAP_MS);
		}
		world_glitch(w);
		break;
	case HEAL:
		world_heal(w);
		break;
	case TICK:
		world_tick(w);
		return;
	case QUIET:
		world_advance(w, 10 * 60 * 1000);
		return;
	case REPLUG:
		world_unplug(w);
		world_plug(w, "4k60");
		break;
	case REPLUG_STORED:
		world_replug_stored(w);
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
	case REJECT:
		world_reject_all(w, !w->link.reject_all);
		break;
	case USER_MODE:
		world_mode_set(w, w->has_requested &&
			lg_mode_same_timing(&w->requested, &uhd60) ? &qhd60 : &uhd60);
		break;
	case LATE_REQUEST:
		world_apply_late(w);
		break;
	case DARK:
		world_lose_lock(w, 2700);
		break;
	case DARK_ONCE:
		world_lose_lock(w, 0);
		break;
	case ERRORS:
		world_set_errors(w, 100000);
		break;
	case N_LETTERS:
		break;
	}
	// The kernel's answers (its retry, the uevent) come within milliseconds.
	world_advance(w, 5);
}

struct enumeration {
	unsigned long sequences, failures;
	uint32_t worst_in_window;
	enum letter path[MAX_DEPTH];
};

static void report(struct enumeration *e, const struct world *w, int depth,
		const char *when) {
	if (++e->failures > 5) {
		return;
	}
	fprintf(stderr, "violation of %s (%s) %s, after:", w->violation, w->detail, when);
	for (int i = 0; i < depth; i++) {
		fprintf(stderr, " %s", letter_names[e->path[i]]);
	}
	fprintf(stderr, "\n");
}

static void explore(struct enumeration *e, const struct world *w, int depth) {
	for (int letter = 0; letter < N_LETTERS; letter++) {
		struct world next;
		world_copy(&next, w);
		e->path[depth] = letter;
		apply(&next, letter);
		world_check_now(&next);
		e->sequences++;
		if (next.violation != NULL) {
			report(e, &next, depth + 1, "at once");
		} else {
			// Left alone, the sequence must converge.
			struct world after;
			world_copy(&after, &next);
			world_settle(&after, CONVERGE_MS);
			world_check_now(&after);
			if (after.violation != NULL) {
				report(e, &after, depth + 1, "once left alone");
			} else if (!world_idle(&after) && !after.link.reject_all &&
					after.driver.machine.state != LG_LINK_FAILED) {
				after.violation = "convergence";
				snprintf(after.detail, sizeof(after.detail),
					"still busy after %d min", CONVERGE_MS / 60000);
				report(e, &after, depth + 1, "once left alone");
			}
			if (after.max_in_window > e->worst_in_window) {
				e->worst_in_window = after.max_in_window;
			}
			world_finish(&after);
			if (depth + 1 < max_depth) {
				explore(e, &next, depth + 1);
			}
		}
		world_finish(&next);
	}
}

static void test_every_sequence_up_to_depth(void) {
	struct world start;
	world_init(&start, "4k60");
	check(start.connected && start.enabled && start.has_current);
	check(start.has_current && start.current.width == 3840 &&
		start.current.refresh_mhz == 60000);
	struct enumeration e = { 0 };
	explore(&e, &start, 0);
	world_finish(&start);
	unsigned long expected = 0, level = 1;
	for (int i = 0; i < max_depth; i++) {
		level *= N_LETTERS;
		expected += level;
	}
	fprintf(stderr, "%lu sequences of up to %d events over %d letters, "
		"%lu violations; worst %u modesets in %d ms (budget %d)\n",
		e.sequences, max_depth, N_LETTERS, e.failures, e.worst_in_window,
		MACHINE_BUDGET_WINDOW_MS, MACHINE_BUDGET_MODESETS);
	// Sequences that violate are not extended: all of them ran otherwise.
	check(e.failures > 0 || e.sequences == expected);
	check_int_eq(e.failures, 0);
}

/*
 * The requested mode rule as one step: what the compositor committed
 * becomes the requested mode unless it is linkguard's; a recommendation
 * that is not linkguard's last fallback as well (which the sequences above
 * rarely reach).
 */
static bool mode_set_requests(const struct lg_mode *requested,
		const struct lg_mode *previous, const struct lg_mode *recommended,
		const struct lg_mode *current) {
	struct lg_mode_list modes, known_bad;
	lg_mode_list_init(&modes);
	lg_mode_list_init(&known_bad);
	lg_mode_list_append(&modes, &uhd60);
	lg_mode_list_append(&modes, &qhd60);
	const struct lg_machine_facts facts = {
		.now_ms = 60000,
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = requested,
		.current = current,
		.previous = previous,
		.recommended = recommended,
		.modes = &modes,
		.known_bad = &known_bad,
	};
	struct lg_actions out;
	machine_step_once(LG_MACHINE_MODE_SET, &facts, &out);
	bool requests = false;
	for (size_t i = 0; i < out.len; i++) {
		if (out.list[i].type == LG_ACTION_REQUESTED) {
			check(lg_mode_equal(&out.list[i].mode, current));
			requests = true;
		}
	}
	lg_mode_list_finish(&modes);
	lg_mode_list_finish(&known_bad);
	return requests;
}

static void test_requested_mode_rule(void) {
	// Nothing requested yet: whatever runs is.
	check(mode_set_requests(NULL, NULL, NULL, &qhd60));
	// The compositor's own choice, over the requested mode or a fallback.
	check(mode_set_requests(&uhd60, &uhd60, NULL, &qhd60));
	check(mode_set_requests(&qhd60, &qhd60, NULL, &uhd60));
	check(mode_set_requests(&uhd60, NULL, NULL, &qhd60));
	// linkguard's recommendation for the new output.
	check(!mode_set_requests(&uhd60, NULL, &qhd60, &qhd60));
	check(mode_set_requests(&uhd60, NULL, &uhd60, &qhd60));
	// The fallback that ran, applied once more (labwc).
	check(!mode_set_requests(&uhd60, &qhd60, NULL, &qhd60));
}

/* Replays one sequence named on the command line, traced: for a failure. */
static int replay(int argc, char *argv[]) {
	struct world w;
	world_init(&w, "4k60");
	w.trace = true;
	for (int i = 1; i < argc; i++) {
		int letter = 0;
		while (letter < N_LETTERS && strcmp(letter_names[letter], argv[i]) != 0) {
			letter++;
		}
		if (letter == N_LETTERS) {
			fprintf(stderr, "unknown event '%s'\n", argv[i]);
			world_finish(&w);
			return EXIT_FAILURE;
		}
		fprintf(stderr, "== %s\n", argv[i]);
		apply(&w, letter);
		world_check_now(&w);
	}
	fprintf(stderr, "== left alone\n");
	world_settle(&w, CONVERGE_MS);
	world_check_now(&w);
	fprintf(stderr, "%s%s%s\n", w.violation != NULL ? w.violation : "no violation",
		w.violation != NULL ? ": " : "", w.detail);
	bool ok = w.violation == NULL;
	world_finish(&w);
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char *argv[]) {
	if (argc == 3 && strcmp(argv[1], "--depth") == 0) {
		max_depth = atoi(argv[2]);
		if (max_depth < 1 || max_depth > MAX_DEPTH) {
			fprintf(stderr, "--depth takes 1 to %d\n", MAX_DEPTH);
			return EXIT_FAILURE;
		}
	} else if (argc > 1) {
		return replay(argc, argv);
	}
	run_test(test_requested_mode_rule);
	run_test(test_every_sequence_up_to_depth);
	return test_result();
}

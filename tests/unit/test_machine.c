/*
 * The recovery state machine, exhaustively: every sequence of up to
 * MAX_DEPTH events over the alphabet below, from a 4K60 monitor running its
 * preferred mode, each checked against P1-P5 and P7-P9
 * (doc/linkguard-recovery.7.scd) after every event, and once more after
 * each full sequence has been left alone long enough to converge, when
 * every ending is judged (world_judge_ending()). The kernel is the sim's pure link model,
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
 * The longest sequences: 6 (67,368,420 sequences); the sanitizer legs, ten
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
	GONE_AT_PROBE, // the sink leaves as the next forced probe runs: it answers gone
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
	"replug", "replug-stored", "retry", "commit-fails", "gone-at-probe", "vt-switch",
	"reject",
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
	case GONE_AT_PROBE:
		w->gone_at_probe = true;
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
	// how the sequences left alone ended; those P3 judged a step down in,
	// while flapping and for the sink's lost lock or errors
	unsigned long endings[WORLD_N_ENDINGS], stepped_down, sink_stepped_down;
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
			enum world_ending ending = world_leave_alone(&after, CONVERGE_MS);
			if (after.violation == NULL) {
				e->endings[ending]++;
				e->stepped_down += after.step_downs > 0;
				e->sink_stepped_down += after.sink_step_downs > 0;
			}
			if (after.violation != NULL) {
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
	// Every ending judged: P1 where the output is there, P4 and its
	// bound at the pick, P3 where a step down came; P2, P5, P7 and P9
	// at every modeset, report and read.
	double share = e.sequences > 0 ? 100.0 / e.sequences : 0;
	fprintf(stderr, "how they end left alone:");
	for (int i = 0; i < WORLD_N_ENDINGS; i++) {
		fprintf(stderr, "%s %s: %lu", i > 0 ? "," : "", world_ending_names[i],
			e.endings[i]);
	}
	fprintf(stderr, "\njudged: P1 %.1f %%, P3 %.1f %% (flapping), %.1f %% (the "
		"sink's lost lock or errors), P4's bound %.1f %%, "
		"P2 P5 P7 P9 100 %%; unjudged endings: %lu\n",
		(e.endings[WORLD_ENDS_AT_PICK] + e.endings[WORLD_ENDS_NOTHING_FITS]) * share,
		e.stepped_down * share, e.sink_stepped_down * share,
		e.endings[WORLD_ENDS_AT_PICK] * share,
		e.endings[WORLD_ENDS_UNJUDGED]);
	check_int_eq(e.endings[WORLD_ENDS_UNJUDGED], 0);
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

/* A machine of the default configuration fed one event after another. */
struct stepper {
	struct lg_machine_config config;
	struct lg_machine machine;
	struct lg_mode_list modes, known_bad;
	struct lg_machine_facts facts;
	struct lg_actions out;
};

static void stepper_init(struct stepper *s, const struct lg_mode *current) {
	lg_machine_config_defaults(&s->config);
	lg_machine_init(&s->machine, &s->config);
	lg_mode_list_init(&s->modes);
	lg_mode_list_init(&s->known_bad);
	lg_mode_list_append(&s->modes, &uhd60);
	lg_mode_list_append(&s->modes, &qhd60);
	s->facts = (struct lg_machine_facts){
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = current,
		.current = current,
		.modes = &s->modes,
		.known_bad = &s->known_bad,
	};
}

static void stepper_finish(struct stepper *s) {
	lg_machine_finish(&s->machine);
	lg_mode_list_finish(&s->modes);
	lg_mode_list_finish(&s->known_bad);
}

/* The last action of type wanted that the last step emitted, or NULL. */
static const struct lg_action *emitted(const struct stepper *s,
		enum lg_action_type wanted) {
	const struct lg_action *found = NULL;
	for (size_t i = 0; i < s->out.len; i++) {
		if (s->out.list[i].type == wanted) {
			found = &s->out.list[i];
		}
	}
	return found;
}

static const struct lg_action *feed(struct stepper *s, struct lg_machine_event event,
		uint64_t now_ms, enum lg_action_type wanted) {
	s->facts.now_ms = now_ms;
	lg_machine_step(&s->machine, &event, &s->facts, &s->out);
	return emitted(s, wanted);
}

/* Feeds type at now_ms: the last action of that type, or NULL. */
static const struct lg_action *step(struct stepper *s, enum lg_machine_event_type type,
		uint64_t now_ms, enum lg_action_type wanted) {
	return feed(s, (struct lg_machine_event){ .type = type }, now_ms, wanted);
}

/* Answers the action awaited at now_ms with ok: as step. */
static const struct lg_action *answer(struct stepper *s, enum lg_machine_event_type type,
		uint64_t now_ms, enum lg_action_type wanted) {
	return feed(s, (struct lg_machine_event){ .type = type, .ok = true }, now_ms, wanted);
}

/*
 * The known-bad hold as single steps: the mode the compositor set is
 * remembered as held once it ran settle_ms at rest, not before, and not
 * when a BAD came meanwhile.
 */
static void test_known_bad_hold(void) {
	struct stepper s;
	stepper_init(&s, &qhd60);
	const struct lg_action *armed = step(&s, LG_MACHINE_MODE_SET, 1000,
		LG_ACTION_ARM_TIMER);
	check(armed != NULL && armed->ms == s.config.settle_ms);
	check(step(&s, LG_MACHINE_TIMER, 1000 + s.config.settle_ms - 1,
		LG_ACTION_KNOWN_BAD_HELD) == NULL);
	const struct lg_action *held = step(&s, LG_MACHINE_TIMER,
		1000 + s.config.settle_ms, LG_ACTION_KNOWN_BAD_HELD);
	check(held != NULL && lg_mode_equal(&held->mode, &qhd60));
	// Once: the timer is not armed for it again.
	check(step(&s, LG_MACHINE_TIMER, 5000, LG_ACTION_KNOWN_BAD_HELD) == NULL);
	stepper_finish(&s);

	stepper_init(&s, &qhd60);
	step(&s, LG_MACHINE_MODE_SET, 1000, LG_ACTION_ARM_TIMER);
	s.config.recover = false; // the BAD is only reported
	step(&s, LG_MACHINE_LINK_BAD, 1200, LG_ACTION_STATE);
	check(s.machine.state == LG_LINK_BAD);
	check(step(&s, LG_MACHINE_TIMER, 1000 + s.config.settle_ms,
		LG_ACTION_KNOWN_BAD_HELD) == NULL);
	stepper_finish(&s);
}

/*
 * P2 as single steps: the budget's window counts a modeset from when its
 * commit returned, 5 ms after the BAD it answers here. The thirteenth BAD
 * 10 s after the first, but before that commit's return, waits.
 */
static void test_budget_counts_from_the_return(void) {
	struct stepper s;
	stepper_init(&s, &uhd60);
	s.config.flap_count = 0; // every BAD retrained
	for (uint64_t i = 0; i < MACHINE_BUDGET_MODESETS; i++) {
		uint64_t at = 1000 + i * 200;
		check(step(&s, LG_MACHINE_LINK_BAD, at, LG_ACTION_TEST) != NULL);
		check(answer(&s, LG_MACHINE_TESTED, at, LG_ACTION_COMMIT) != NULL);
		answer(&s, LG_MACHINE_COMMITTED, at + 5, LG_ACTION_STATE);
	}
	uint64_t first_left = 1000 + MACHINE_BUDGET_WINDOW_MS;
	const struct lg_action *armed = step(&s, LG_MACHINE_LINK_BAD, first_left + 2,
		LG_ACTION_ARM_TIMER);
	check(armed != NULL && armed->ms == 3); // until the first's return left
	check(emitted(&s, LG_ACTION_TEST) == NULL);
	check(step(&s, LG_MACHINE_TIMER, first_left + 5, LG_ACTION_TEST) != NULL);
	stepper_finish(&s);
}

/* A read of the sink at now_ms: whether the machine judged the link dark. */
static bool read_dark(struct stepper *s, bool unlocked, uint64_t now_ms) {
	s->facts.sink_unlocked = unlocked;
	const struct lg_action *dark = step(s, LG_MACHINE_SINK_READ, now_ms,
		LG_ACTION_SINK_DARK);
	s->facts.sink_unlocked = false;
	check(dark == NULL || dark->ms >= s->config.sink_settle_ms);
	return dark != NULL;
}

/*
 * The sink's unlock debounce as single steps: lanes unlocked at two reads
 * the sink settle time apart are a dark link, which the machine answers;
 * a read that finds them locked, or a modeset, starts over.
 */
static void test_sink_unlock_debounce(void) {
	struct stepper s;
	stepper_init(&s, &uhd60);
	uint32_t settle = s.config.sink_settle_ms;
	check(!read_dark(&s, true, 1000));
	check(!read_dark(&s, true, 1000 + settle - 1));
	check(read_dark(&s, true, 1000 + settle));
	check(s.machine.state == LG_LINK_BAD);
	check(s.out.list[s.out.len - 1].type == LG_ACTION_TEST);
	stepper_finish(&s);

	stepper_init(&s, &uhd60);
	check(!read_dark(&s, true, 1000));
	check(!read_dark(&s, false, 2000));
	check(!read_dark(&s, true, 3000));
	check(!read_dark(&s, true, 3000 + settle - 1));
	step(&s, LG_MACHINE_MODE_SET, 3000 + settle, LG_ACTION_STATE);
	check(!read_dark(&s, true, 4000 + settle));
	check(read_dark(&s, true, 4000 + 2 * settle));
	stepper_finish(&s);
}

/* Whether the machine's timer at now_ms asks for a read of the sink. */
static bool asks_read(struct stepper *s, uint64_t now_ms) {
	return step(s, LG_MACHINE_TIMER, now_ms, LG_ACTION_READ_SINK) != NULL;
}

/* The answer to a read, ok or failed: how long until the next (0: none armed). */
static uint32_t next_read(struct stepper *s, bool ok, uint64_t now_ms) {
	struct lg_sink_errors none = { .rate_mbps = 5400 };
	s->facts.sink_errors = ok ? &none : NULL;
	const struct lg_action *armed = step(s, LG_MACHINE_SINK_READ, now_ms,
		LG_ACTION_ARM_TIMER);
	s->facts.sink_errors = NULL;
	return armed != NULL ? armed->ms : 0;
}

/*
 * The sink's read schedule as single steps: settle_ms after a modeset or a
 * hotplug event, not before; then every sink_poll_ms, 6 x on a link quiet
 * for 12 polls; a failed read waits 6 x, doubling up to 48 x; no read while a
 * BAD waits for the commit that answers it, nor of an output turned off.
 */
static void test_sink_read_schedule(void) {
	struct stepper s;
	stepper_init(&s, &uhd60);
	s.config.read_sink = true;
	s.config.sink_poll_ms = 1000;
	uint32_t settle = s.config.settle_ms;
	step(&s, LG_MACHINE_MODE_SET, 1000, LG_ACTION_ARM_TIMER);
	check(!asks_read(&s, 1000 + settle - 1));
	check(asks_read(&s, 1000 + settle));
	uint64_t now = 1000 + settle;
	check_int_eq(next_read(&s, true, now), 1000);
	step(&s, LG_MACHINE_HOTPLUG, now + 600, LG_ACTION_ARM_TIMER);
	check(!asks_read(&s, now + 1000)); // within settle_ms of the hotplug
	now += 600 + settle;
	// 12 polls after the hotplug, then 6 x as far apart.
	for (int i = 0; i < 13; i++, now += 1000) {
		uint32_t wait = i < 12 ? 1000 : 6000;
		check(asks_read(&s, now));
		check_int_eq(next_read(&s, true, now), wait);
	}
	now += 5000;
	check(asks_read(&s, now));
	check_int_eq(next_read(&s, false, now), 6000);
	now += 6000;
	check(asks_read(&s, now));
	check_int_eq(next_read(&s, false, now), 12000);
	// Up to 48 x after the fourth failure in a row.
	for (uint32_t wait = 12000; wait <= 48000; wait *= 2) {
		now += wait;
		check(asks_read(&s, now));
		uint32_t next = wait < 48000 ? 2 * wait : 48000;
		check_int_eq(next_read(&s, false, now), next);
	}
	now += 48000;
	check(asks_read(&s, now));
	check_int_eq(next_read(&s, true, now), 6000);
	now += 6000;
	// A BAD no commit answers (recovery off): the poll passes unread.
	s.config.recover = false;
	step(&s, LG_MACHINE_LINK_BAD, now - 5000, LG_ACTION_STATE);
	check(!asks_read(&s, now - 5000 + settle));
	check(!asks_read(&s, now + 1000));
	s.config.recover = true;
	step(&s, LG_MACHINE_MODE_SET, now + 2000, LG_ACTION_STATE);
	s.facts.enabled = false;
	step(&s, LG_MACHINE_OUTPUT_DISABLED, now + 2100, LG_ACTION_STATE);
	check(!asks_read(&s, now + 2000 + settle));
	stepper_finish(&s);
}

/* A read that counted errors on each of four HBR2 lanes: the rates it brings. */
static const struct lg_action *read_errors(struct stepper *s, uint32_t errors,
		uint64_t now_ms) {
	struct lg_sink_errors counted = { .valid = 0xf, .rate_mbps = 5400 };
	for (int lane = 0; lane < 4; lane++) {
		counted.count[lane] = errors;
	}
	s->facts.sink_errors = &counted;
	const struct lg_action *rates = step(s, LG_MACHINE_SINK_READ, now_ms,
		LG_ACTION_ERROR_RATES);
	s->facts.sink_errors = NULL;
	return rates;
}

/*
 * The sink's error verdict as single steps: the first read after a modeset
 * counts the training and is discarded; a lane past 324 a minute (HBR2's
 * BER of 10^-9) brings the verdict at once, scaled to a minute; quiet, the
 * verdict comes when the minute's window is full; a verdict only when it
 * changes.
 */
static void test_sink_error_verdict(void) {
	struct stepper s;
	stepper_init(&s, &uhd60);
	step(&s, LG_MACHINE_MODE_SET, 1000, LG_ACTION_STATE);
	check(read_errors(&s, 100000, 1500) == NULL);
	const struct lg_action *rates = read_errors(&s, 100, 6500);
	check(rates == NULL);
	rates = read_errors(&s, 300, 11500);
	check(rates != NULL && rates->verdict && rates->over && rates->threshold == 324);
	check(rates != NULL && rates->rates[0] == 400 * 60000 / 10000);
	check(s.machine.state == LG_LINK_DEGRADED);
	// Over again: rates, no new verdict at the same mode.
	rates = read_errors(&s, 1000, 16500);
	check(rates != NULL && !rates->verdict);
	// Clean for a minute: within it, good again.
	check(read_errors(&s, 0, 46500) == NULL);
	rates = read_errors(&s, 0, 76500);
	check(rates != NULL && rates->verdict && !rates->over && rates->rates[0] == 0);
	check(s.machine.state == LG_LINK_GOOD);
	stepper_finish(&s);
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
	world_leave_alone(&w, CONVERGE_MS);
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
	run_test(test_known_bad_hold);
	run_test(test_budget_counts_from_the_return);
	run_test(test_sink_unlock_debounce);
	run_test(test_sink_read_schedule);
	run_test(test_sink_error_verdict);
	run_test(test_every_sequence_up_to_depth);
	return test_result();
}

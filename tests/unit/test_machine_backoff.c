/*
 * The backoff of a machine that gave up (linkguard-recovery(7), P1, P2):
 * while the kernel refuses every mode, each retry that fails waits twice
 * as long as the one before, from backoff_min_ms; once a mode has held,
 * the next failure waits backoff_min_ms again, however long the last
 * wait grew; and the pace of a flapping link's modesets starts over at
 * backoff_min_ms once it has been quiet. Driven through the driver, on a
 * virtual clock, against a kernel that takes every mode or none.
 */
#include <stdbool.h>
#include <core/driver.h>
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };

#define MAX_FAILED 8

struct fake {
	struct lg_driver driver;
	struct lg_machine_config config;
	struct lg_mode_list modes, known_bad;
	struct lg_mode current;
	uint64_t now_ms, timer_ms; // timer_ms 0: not armed
	bool refuse; // the kernel's atomic check refuses every mode
	uint32_t failed_ms[MAX_FAILED]; // each FAILED's wait, in turn
	int failed;
	uint32_t flapping_ms[MAX_FAILED]; // each FLAPPING's pace, in turn
	int flapping;
};

static void fake_facts(void *data, struct lg_machine_facts *facts) {
	struct fake *fake = data;
	*facts = (struct lg_machine_facts){
		.now_ms = fake->now_ms,
		.connected = true,
		.has_output = true,
		.enabled = true,
		.requested = &uhd60,
		.current = &fake->current,
		.modes = &fake->modes,
		.known_bad = &fake->known_bad,
	};
}

static enum lg_probe_result fake_probe(void *data, bool *changed) {
	return LG_PROBE_OK;
}

static bool fake_test(void *data, const struct lg_mode *mode) {
	const struct fake *fake = data;
	return !fake->refuse;
}

static bool fake_commit(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	if (fake->refuse) {
		return false;
	}
	fake->current = action->mode;
	return true;
}

static bool fake_read_sink(void *data, bool *unlocked, struct lg_sink_errors *errors) {
	return false;
}

static void fake_act(void *data, const struct lg_action *action) {
	struct fake *fake = data;
	switch (action->type) {
	case LG_ACTION_ARM_TIMER:
		fake->timer_ms = action->ms != 0 ? fake->now_ms + action->ms : 0;
		break;
	case LG_ACTION_FAILED:
		if (fake->failed < MAX_FAILED) {
			fake->failed_ms[fake->failed] = action->ms;
		}
		fake->failed++;
		break;
	case LG_ACTION_FLAPPING:
		if (fake->flapping < MAX_FAILED) {
			fake->flapping_ms[fake->flapping] = action->ms;
		}
		fake->flapping++;
		break;
	default:
		break;
	}
}

static const struct lg_driver_impl fake_impl = {
	.facts = fake_facts,
	.probe = fake_probe,
	.test = fake_test,
	.commit = fake_commit,
	.read_sink = fake_read_sink,
	.act = fake_act,
};

/* The 4K60 monitor, running its preferred mode. */
static void fake_init(struct fake *fake) {
	*fake = (struct fake){ .current = uhd60, .now_ms = 1000 };
	lg_machine_config_defaults(&fake->config);
	lg_mode_list_init(&fake->modes);
	lg_mode_list_init(&fake->known_bad);
	lg_mode_list_append(&fake->modes, &uhd60);
	lg_mode_list_append(&fake->modes, &uhd30);
	lg_driver_init(&fake->driver, &fake->config, &fake_impl, fake);
}

static void fake_finish(struct fake *fake) {
	lg_driver_finish(&fake->driver);
	lg_mode_list_finish(&fake->modes);
	lg_mode_list_finish(&fake->known_bad);
}

/* The clock moves to now + ms, the timer firing whenever it is due. */
static void advance(struct fake *fake, uint64_t ms) {
	uint64_t until = fake->now_ms + ms;
	while (fake->timer_ms != 0 && fake->timer_ms <= until) {
		fake->now_ms = fake->timer_ms;
		fake->timer_ms = 0;
		lg_driver_feed(&fake->driver, LG_MACHINE_TIMER);
	}
	fake->now_ms = until;
}

/*
 * A glitch while the kernel refuses every mode, which it goes on doing for
 * three retries: four failures in all.
 */
static void refused(struct fake *fake) {
	fake->refuse = true;
	fake->failed = 0;
	lg_driver_feed(&fake->driver, LG_MACHINE_LINK_BAD);
	for (int i = 0; i < 3 && fake->failed == i + 1; i++) {
		advance(fake, fake->failed_ms[i]);
	}
	check_int_eq(fake->failed, 4);
}

static void test_backoff_doubles_while_refused(void) {
	struct fake fake;
	fake_init(&fake);
	refused(&fake);
	uint32_t want = fake.config.backoff_min_ms;
	for (int i = 0; i < fake.failed && i < MAX_FAILED; i++) {
		check_int_eq(fake.failed_ms[i], want);
		want *= 2;
	}
	fake_finish(&fake);
}

static void test_backoff_starts_over_once_a_mode_held(void) {
	struct fake fake;
	fake_init(&fake);
	refused(&fake);
	// The kernel takes the modes again: the next retry sets one, it holds.
	fake.refuse = false;
	advance(&fake, fake.failed_ms[fake.failed - 1]);
	check(lg_mode_equal(&fake.current, &uhd60));
	advance(&fake, 10 * 60 * 1000);
	check_int_eq(fake.driver.machine.state, LG_LINK_GOOD);
	// Another refusal, ten minutes later: from backoff_min_ms again.
	fake.refuse = true;
	fake.failed = 0;
	lg_driver_feed(&fake.driver, LG_MACHINE_LINK_BAD);
	check_int_eq(fake.failed, 1);
	check_int_eq(fake.failed_ms[0], fake.config.backoff_min_ms);
	fake_finish(&fake);
}

/*
 * A link that fails every two seconds for a minute, then holds for ten:
 * the pace of its modesets (FLAPPING's wait) doubles while it flaps.
 */
static void flaps(struct fake *fake) {
	fake->flapping = 0;
	for (int i = 0; i < 30; i++) {
		lg_driver_feed(&fake->driver, LG_MACHINE_LINK_BAD);
		advance(fake, 2000);
	}
	advance(fake, 10 * 60 * 1000);
	check(fake->flapping >= 3);
	check(fake->flapping_ms[2] > fake->flapping_ms[0]);
}

/* Once the link has been quiet, the next episode is paced from the start. */
static void test_flapping_pace_starts_over_once_quiet(void) {
	struct fake fake;
	fake_init(&fake);
	flaps(&fake);
	flaps(&fake);
	check_int_eq(fake.flapping_ms[0], fake.config.backoff_min_ms);
	fake_finish(&fake);
}

int main(void) {
	run_test(test_backoff_doubles_while_refused);
	run_test(test_backoff_starts_over_once_a_mode_held);
	run_test(test_flapping_pace_starts_over_once_quiet);
	return test_result();
}

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
#include "machine/fake.h"
#include "test.h"

static const struct lg_mode uhd60 = { 3840, 2160, 60000, 533250, true, false };
static const struct lg_mode uhd30 = { 3840, 2160, 30000, 297000, false, false };

static const struct fake_mode trains[] = { { &uhd60 }, { &uhd30 } };

/* The 4K60 monitor, running its preferred mode. */
static void init(struct fake *fake) {
	fake_init(fake, trains, sizeof(trains) / sizeof(trains[0]));
	fake_start(fake);
}

/*
 * A glitch while the kernel refuses every mode, which it goes on doing for
 * three retries: four failures in all.
 */
static void refused(struct fake *fake) {
	struct fake_acts *failed = &fake->acts[LG_ACTION_FAILED];
	fake->refuse = true;
	failed->n = 0;
	lg_driver_feed(&fake->driver, LG_MACHINE_LINK_BAD);
	for (int i = 0; i < 3 && failed->n == i + 1; i++) {
		fake_advance(fake, failed->list[i].ms);
	}
	check_int_eq(failed->n, 4);
}

static void test_backoff_doubles_while_refused(void) {
	struct fake fake;
	init(&fake);
	refused(&fake);
	const struct fake_acts *failed = &fake.acts[LG_ACTION_FAILED];
	uint32_t want = fake.config.backoff_min_ms;
	for (int i = 0; i < failed->n && i < FAKE_MAX_ACTS; i++) {
		check_int_eq(failed->list[i].ms, want);
		want *= 2;
	}
	fake_finish(&fake);
}

static void test_backoff_starts_over_once_a_mode_held(void) {
	struct fake fake;
	init(&fake);
	refused(&fake);
	struct fake_acts *failed = &fake.acts[LG_ACTION_FAILED];
	// The kernel takes the modes again: the next retry sets one, it holds.
	fake.refuse = false;
	fake_advance(&fake, failed->list[failed->n - 1].ms);
	check(lg_mode_equal(&fake.current, &uhd60));
	fake_advance(&fake, 10 * 60 * 1000);
	check_int_eq(fake.driver.machine.state, LG_LINK_GOOD);
	// Another refusal, ten minutes later: from backoff_min_ms again.
	fake.refuse = true;
	failed->n = 0;
	lg_driver_feed(&fake.driver, LG_MACHINE_LINK_BAD);
	check_int_eq(failed->n, 1);
	check_int_eq(failed->list[0].ms, fake.config.backoff_min_ms);
	fake_finish(&fake);
}

/*
 * A link that fails every two seconds for a minute, then holds for ten:
 * the pace of its modesets (FLAPPING's wait) doubles while it flaps.
 */
static void flaps(struct fake *fake) {
	struct fake_acts *flapping = &fake->acts[LG_ACTION_FLAPPING];
	flapping->n = 0;
	for (int i = 0; i < 30; i++) {
		lg_driver_feed(&fake->driver, LG_MACHINE_LINK_BAD);
		fake_advance(fake, 2000);
	}
	fake_advance(fake, 10 * 60 * 1000);
	check(flapping->n >= 3);
	check(flapping->list[2].ms > flapping->list[0].ms);
}

/* Once the link has been quiet, the next episode is paced from the start. */
static void test_flapping_pace_starts_over_once_quiet(void) {
	struct fake fake;
	init(&fake);
	flaps(&fake);
	flaps(&fake);
	check_int_eq(fake.acts[LG_ACTION_FLAPPING].list[0].ms, fake.config.backoff_min_ms);
	fake_finish(&fake);
}

int main(void) {
	run_test(test_backoff_doubles_while_refused);
	run_test(test_backoff_starts_over_once_a_mode_held);
	run_test(test_flapping_pace_starts_over_once_quiet);
	return test_result();
}

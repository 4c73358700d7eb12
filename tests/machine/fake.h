#ifndef TESTS_MACHINE_FAKE_H
#define TESTS_MACHINE_FAKE_H

/*
 * One connector's driver (core/driver.h) on a virtual clock, for the unit
 * tests that drive the machine through a few events: a kernel that trains
 * each mode of its list at a fixed link, or refuses every mode; a sink that
 * holds lock and a cable that counts no errors up to a rate; a record of
 * the sink's reads and of the actions the machine took. Time only moves
 * when the test says so. The searches' whole world is world.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <core/driver.h>

/* Of each type of action, the first ones are kept. */
#define FAKE_MAX_ACTS 8
#define FAKE_MAX_READS 512

/* A mode of the kernel's list and the link it trains at (zero: none). */
struct fake_mode {
	const struct lg_mode *mode;
	struct lg_link_params link;
};

/* The first FAKE_MAX_ACTS actions of one type, and how many came. */
struct fake_acts {
	struct lg_action list[FAKE_MAX_ACTS];
	int n;
};

struct fake {
	struct lg_driver driver;
	struct lg_machine_config config;
	// the kernel's list, the requested mode first, as the test gave it
	const struct fake_mode *trains;
	size_t n_trains;
	struct lg_mode_list modes, known_bad;
	struct lg_mode current;
	uint64_t now_ms, timer_ms; // timer_ms 0: not armed
	bool links; // the backend tells the link a mode trains at (link_for)
	bool refuse; // the kernel's atomic check refuses every mode
	uint32_t sink_max_mbps; // the sink loses lock above this rate; 0: never
	uint32_t cable_max_mbps; // the cable errs above this rate; 0: never
	uint64_t read_ms[FAKE_MAX_READS]; // when each read was asked for
	int reads;
	struct fake_acts acts[LG_ACTION_ERROR_RATES + 1]; // by type
};

/*
 * The monitor running the first of trains, its preferred mode, at 1000 ms,
 * with the machine's default configuration; the test may change the
 * configuration and the fields above before fake_start().
 */
void fake_init(struct fake *fake, const struct fake_mode *trains, size_t n_trains);
void fake_start(struct fake *fake);
void fake_finish(struct fake *fake);
/* The clock moves to now + ms, the timer firing whenever it is due. */
void fake_advance(struct fake *fake, uint64_t ms);

#endif

#ifndef TESTS_MACHINE_STEP_H
#define TESTS_MACHINE_STEP_H

/* One event to a fresh machine of the default configuration. */

#include <core/machine.h>

static inline void machine_step_once(enum lg_machine_event_type type,
		const struct lg_machine_facts *facts, struct lg_actions *out) {
	struct lg_machine_config config;
	lg_machine_config_defaults(&config);
	struct lg_machine m;
	lg_machine_init(&m, &config);
	lg_machine_step(&m, &(struct lg_machine_event){ .type = type }, facts, out);
	lg_machine_finish(&m);
}

#endif

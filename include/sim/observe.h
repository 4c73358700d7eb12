#ifndef SIM_OBSERVE_H
#define SIM_OBSERVE_H

/*
 * What the simulated kernel made of each training, as it happens: for tests
 * that judge the library by the world's evidence (which mode failed at which
 * link, which commits were modesets) rather than by what the library says it
 * saw. Told, not polled: a failure and the commit that retrains can both
 * fall within one dispatch.
 */

#include <linkguard/sim.h>
#include <sim/link.h>

struct lg_connector;

struct sim_training {
	struct lg_connector *conn;
	const struct sim_link *link; // as the training left it: mode, params, max
	struct sim_link before; // as the training found it: what ran, and where
	enum sim_train_result result;
	/*
	 * A commit that was a modeset (sim_link_needs_modeset()), the
	 * compositor's or linkguard's; not the kernel's own retry of a failed
	 * training or a cable that lost a running link.
	 */
	bool modeset;
};

typedef void (*sim_train_observer)(void *data, const struct sim_training *training);

/* One observer at a time; NULL removes it. */
void sim_observe_training(struct lg_sim *sim, sim_train_observer observer,
	void *data);
/* The kernel's link behind the connector a scenario named, or NULL. */
const struct sim_link *sim_observe_link(struct lg_sim *sim, const char *connector);

#endif

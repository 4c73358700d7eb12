#ifndef SIM_OBSERVE_H
#define SIM_OBSERVE_H

/*
 * What the simulated kernel made of each training, as it happens: for tests
 * that judge the library by the world's evidence (which mode failed at which
 * link) rather than by what the library says it saw. Told, not polled: a
 * failure and the commit that retrains can both fall within one dispatch.
 */

#include <linkguard/sim.h>
#include <sim/link.h>

struct lg_connector;

/* link as the training left it: its mode, its params and its maximum. */
typedef void (*sim_train_observer)(void *data, struct lg_connector *conn,
	const struct sim_link *link, enum sim_train_result result);

/* One observer at a time; NULL removes it. */
void sim_observe_training(struct lg_sim *sim, sim_train_observer observer,
	void *data);

#endif

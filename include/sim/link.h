#ifndef SIM_LINK_H
#define SIM_LINK_H

#include <stdbool.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>
#include <sim/sink.h>

/*
 * One connector's DisplayPort link as the kernel (i915) runs it: the sink,
 * the source's limit, a cable that trains up to some rate and lane count,
 * and the link parameters the kernel currently allows. Pure: no event loop,
 * no wlroots, so that it can be tested on its own.
 */
struct sim_link {
	const char *name; // for logs
	const struct sim_sink *sink; // NULL while unplugged
	struct lg_link_params source; // the source's maximum
	struct lg_link_params cable; // what trains; 0 = no limit
	struct lg_link_params max; // what the kernel allows now
	enum lg_link_status status;
	bool trained;
	bool retrain_disabled; // nothing left to lower: dark and silent
	bool reject_all; // fault injection: the atomic check refuses every mode
	struct lg_mode mode; // the mode trained last
};

enum sim_train_result {
	SIM_TRAINED,
	SIM_LOWERED, // BAD: the caller raises a hotplug
	SIM_REJECTED, // the mode does not fit: BAD without lowering
	SIM_SILENT, // i915's retrain_disabled: no BAD, no uevent
};

void sim_link_plug(struct sim_link *link, const struct sim_sink *sink);
void sim_link_unplug(struct sim_link *link);
/* The modes a forced probe reports: the sink's, pruned at DP_MIN_BPP. */
bool sim_link_probe(const struct sim_link *link, struct lg_mode_list *modes);
/* What the kernel's atomic check says of mode on the link as it is. */
bool sim_link_mode_valid(const struct sim_link *link, const struct lg_mode *mode);
/* A modeset: link training at the current maximum parameters. */
enum sim_train_result sim_link_train(struct sim_link *link,
	const struct lg_mode *mode);
/* The cable changed; a running link it can't hold retrains (and may lower). */
enum sim_train_result sim_link_set_cable(struct sim_link *link,
	const struct lg_link_params *cable);
/* A transient loss of the link: BAD without lowering. False if not running. */
bool sim_link_glitch(struct sim_link *link);

#endif

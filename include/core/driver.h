#ifndef CORE_DRIVER_H
#define CORE_DRIVER_H

/*
 * Runs one connector's recovery state machine (core/machine.h): feeds it an
 * event, carries out the actions it returns through an implementation, and
 * feeds the answers of probes, tests and commits back until the machine
 * waits for the outside world again (a timer, a hotplug, the compositor).
 * The implementation is wlroots in src/connector.c and a virtual clock over
 * the sim's link model in tests/.
 */

#include <linkguard/backend.h>
#include <core/machine.h>

struct lg_driver_impl {
	/* What the connector is now, for the next step. */
	void (*facts)(void *data, struct lg_machine_facts *facts);
	/* Forced probe into the connector's list; *changed: it differs. */
	enum lg_probe_result (*probe)(void *data, bool *changed);
	bool (*test)(void *data, const struct lg_mode *mode);
	/* A modeset to action->mode; action->why says what chose it. */
	bool (*commit)(void *data, const struct lg_action *action);
	/*
	 * Reads the sink's DPCD; false when it could not. *unlocked: the sink
	 * reports a dark link; *errors: the symbol errors it counted.
	 */
	bool (*read_sink)(void *data, bool *unlocked, struct lg_sink_errors *errors);
	/* Every action that needs no answer: timers, reports, the store. */
	void (*act)(void *data, const struct lg_action *action);
};

struct lg_driver {
	struct lg_machine machine;
	const struct lg_driver_impl *impl;
	void *data;
	/*
	 * Set by the caller to collect a commit instead of making it (several
	 * connectors in one atomic commit): the machine then waits in
	 * has_deferred until lg_driver_committed() answers.
	 */
	bool defer_commit;
	bool has_deferred;
	struct lg_mode deferred;
	bool stepping; // the machine runs: feeding it now is a bug
};

/*
 * Whether committing mode is a modeset to the kernel, which alone retrains
 * a link: drm_atomic_crtc_needs_modeset() holds when the CRTC lights, the
 * mode changes or link-status is written over BAD. The mode the output runs
 * committed again with link-status GOOD (a link the sink lost without the
 * driver noticing) is none; recovery has the backend blank the CRTC first.
 * current is NULL when the output is off.
 */
bool lg_driver_commit_retrains(const struct lg_mode *current,
	const struct lg_mode *mode, enum lg_link_status status);

void lg_driver_init(struct lg_driver *driver, const struct lg_machine_config *config,
	const struct lg_driver_impl *impl, void *data);
void lg_driver_finish(struct lg_driver *driver);
/*
 * Both return false when a probe found the sink gone: the step ends there,
 * unanswered, and the caller feeds the unplug (after the connector's own
 * state says so), which ends the plan that probed.
 */
bool lg_driver_feed(struct lg_driver *driver, enum lg_machine_event_type type);
/* The answer to a deferred commit. */
bool lg_driver_committed(struct lg_driver *driver, bool ok);

#endif

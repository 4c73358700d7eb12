#ifndef SIM_LINK_H
#define SIM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>
#include <core/dpcd.h>
#include <sim/sink.h>

/*
 * One connector's DisplayPort link as the kernel (i915, Linux 6.12) runs
 * it: the sink, the source's limit, a cable that trains up to some rate and
 * lane count, the link parameters the kernel currently allows, and those of
 * the last modeset. Pure: no event loop, no wlroots, so that it can be
 * tested on its own. The caller (sim.c) turns the results into timers:
 * SIM_RETRY into a sim_link_retry() soon after, SIM_LOWERED and
 * SIM_REJECTED into a hotplug event.
 */
struct sim_link {
	const char *name; // for logs
	const struct sim_sink *sink; // NULL while unplugged
	struct lg_link_params source; // the source's maximum; 0 = no limit
	bool mst; // an MST branch: i915's MST link choice and fallback order
	struct lg_link_params cable; // the most that trains; 0 = no limit
	struct lg_link_params max; // what the kernel allows now
	/*
	 * The last modeset's link and pipe bpp (i915's crtc_state port_clock,
	 * lane_count, pipe_bpp), whether it trained or not; zero before one.
	 */
	struct lg_link_params params;
	uint32_t bpp;
	enum lg_link_status status;
	bool lit; // the CRTC is on with mode: a commit of it again is no modeset
	bool trained; // the link carries pixels
	bool retry_pending; // the kernel retries at the same parameters
	uint32_t failures; // consecutive failed trainings at params
	bool retrain_disabled; // nothing left to lower: dark and silent
	bool reject_all; // fault injection: the atomic check refuses every mode
	struct lg_mode mode; // the mode trained last
	/*
	 * The sink's side (its DPCD): a link the kernel trained that the sink
	 * does not hold, without BAD or uevent (amdgpu, nouveau and msm retrain
	 * in the driver and tell nobody), and a marginal cable's symbol errors.
	 */
	uint32_t lock_max_mbps; // the sink loses lock above this rate; 0: any
	bool lock_lost; // lost lock once; the next training regains it
	uint32_t errors_per_min; // symbol errors per lane and minute ...
	uint32_t errors_min_mbps; // ... at this rate and above
};

enum sim_train_result {
	SIM_UNCHANGED, // nothing trained (not running, or the cable holds)
	SIM_TRAINED, // link-status GOOD
	SIM_RETRY, // the first failure: the kernel retries, no BAD yet
	SIM_LOWERED, // the second failure: lowered, pruned, BAD; hotplug
	SIM_REJECTED, // the mode does not fit the link: BAD; hotplug
	SIM_SILENT, // i915's retrain_disabled: dark, no BAD, no uevent
};

/*
 * A sink appears: the maximum starts at min(source, sink) (a long HPD
 * pulse). Set source and mst before.
 */
void sim_link_plug(struct sim_link *link, const struct sim_sink *sink);
void sim_link_unplug(struct sim_link *link);
/* The modes a forced probe reports: the sink's that fit max at DP_MIN_BPP. */
bool sim_link_probe(const struct sim_link *link, struct lg_mode_list *modes);
size_t sim_link_count_modes(const struct sim_link *link);
/*
 * What the kernel's atomic check says of mode on the link as it is: one of
 * the sink's timings for which i915 finds a link (i915.h; no DSC).
 */
bool sim_link_mode_valid(const struct sim_link *link, const struct lg_mode *mode);
/* The link i915 would train mode at, within max; false if none. */
bool sim_link_choose(const struct sim_link *link, const struct lg_mode *mode,
	struct lg_link_params *params);
/*
 * Whether a commit of mode is a modeset (drm_atomic_crtc_needs_modeset()):
 * the CRTC lights, the mode differs from the one it runs, or link-status
 * was BAD.
 */
bool sim_link_needs_modeset(const struct sim_link *link, const struct lg_mode *mode);
/*
 * A commit of mode with link-status GOOD. Where it is a modeset, i915
 * chooses params within max (i915.h) and trains them. Otherwise
 * SIM_UNCHANGED: nothing retrains.
 */
enum sim_train_result sim_link_train(struct sim_link *link,
	const struct lg_mode *mode);
/* The CRTC goes off: the link stops, the sink loses it. */
void sim_link_off(struct sim_link *link);
/* The kernel's own retry after SIM_RETRY; SIM_UNCHANGED if none is due. */
enum sim_train_result sim_link_retry(struct sim_link *link);
/* The cable changed; a running link it can't hold retrains (and may lower). */
enum sim_train_result sim_link_set_cable(struct sim_link *link,
	const struct lg_link_params *cable);
/* A transient loss of the link: BAD without lowering. False if not running. */
bool sim_link_glitch(struct sim_link *link);
/*
 * The sink loses lock, link-status stays GOOD, no uevent: once (above_mbps
 * 0; the next training regains it) or for good above a rate.
 */
void sim_link_lose_lock(struct sim_link *link, uint32_t above_mbps);
/* Whether the sink holds the link: trained, and lock not lost. */
bool sim_link_sink_locked(const struct sim_link *link);
/* The cable makes per_min symbol errors per lane at the running rate and above. */
void sim_link_set_errors(struct sim_link *link, uint32_t per_min);
/* Symbol errors per lane and minute on the link as it runs. */
uint32_t sim_link_error_rate(const struct sim_link *link);
/* The sink is healthy again: it holds any rate, no errors. */
void sim_link_heal_sink(struct sim_link *link);
/*
 * The DPCD registers the sink shows for the link as it runs, errors[] the
 * symbol errors each lane counted since the last read.
 */
void sim_link_dpcd(const struct sim_link *link, uint16_t errors,
	struct dpcd_regs *regs);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * lg_link_fault: TEST CODE, never install it. Injects DisplayPort link
 * failures into a DRM device that has no DP link (vkms), so that user space
 * sees what i915 or amdgpu show after a failed link training: link-status
 * BAD, a hotplug uevent, and a mode list pruned to what the lowered link
 * still carries.
 *
 * Driven through one write-only parameter, one command per write:
 *
 *   echo "bad 36" > /sys/module/lg_link_fault/parameters/trigger
 *
 *   bad ID        link-status BAD on connector ID, HOTPLUG=1 CONNECTOR=ID
 *   bad-dev ID    the same with a device-wide HOTPLUG=1 (older kernels)
 *   cap ID KHZ    from now on connector ID carries at most KHZ of pixel
 *                 clock: the next forced probe prunes the faster modes and
 *                 atomic checks reject them (0 lifts the cap)
 *   off|on|auto ID  force the connector disconnected / connected / back to
 *                 detection, with a hotplug uevent (unplug, replug)
 *   mark ID       start measuring what follows on connector ID: its
 *                 modesets and the time from the next failure injected
 *                 (bad, bad-dev, off, on, auto, dark) to the first page
 *                 flip in the final mode, read from the stats parameter
 *                 (measure.c)
 *   dark ID [MBPS]  the sink's lanes lose lock, link-status stays GOOD and
 *                 no uevent is sent; the next modeset at a link rate of at
 *                 most MBPS per lane (any when 0 or absent) relocks them
 *   errors ID N   N symbol errors a second accrue in the sink's counters
 *                 on every lane in use (0 stops them)
 *   aux-eio ID, aux-ok ID  every AUX transfer fails with -EIO; works again
 *   aux-slow ID MS  every AUX transfer answers MS ms late (0: at once), as
 *                 a dock that stopped answering in time
 *   hang ID       every CPU spins forever with interrupts off: the freeze
 *                 a deadlock between two spinning CPUs makes, which nothing
 *                 inside the guest can report (the harness's host-side
 *                 watchdog must: tests/kernel/hang.sh proves it does)
 *
 * The device is found by opening /dev/dri/card0 from the kernel. The cap
 * works by giving the connector a copy of its helper vtable whose
 * mode_valid and atomic_check consult it, as a driver's do after a link
 * fallback. At load the module hooks the device's modesets (crtc.c) and
 * registers a DP AUX channel with a scripted sink on each connector
 * (dpcd.c): /dev/drm_dp_auxN, under the connector in sysfs; and it gives
 * each connector a monitor with an EDID of its own (edid.c).
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <drm/drm_atomic.h>
#include <drm/drm_connector.h>
#include <drm/drm_device.h>
#include <drm/drm_print.h>
#include <drm/drm_file.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_probe_helper.h>
#include "lg_link_fault.h"

#define LG_CARD "/dev/dri/card0"
#define LG_MAX_CONNECTORS 8

/* A connector whose helper vtable was swapped for a capped copy. */
struct lg_capped {
	struct drm_connector *connector;
	const struct drm_connector_helper_funcs *orig;
	struct drm_connector_helper_funcs funcs;
	int max_khz; // 0: no cap
};

/*
 * Entries are only ever added (under capped_lock) and set before the vtable
 * that reads them is installed, so the callbacks look them up unlocked.
 */
static struct lg_capped capped[LG_MAX_CONNECTORS];
static DEFINE_MUTEX(capped_lock);

static struct lg_capped *find_capped(struct drm_connector *connector)
{
	for (int i = 0; i < LG_MAX_CONNECTORS; i++) {
		if (capped[i].connector == connector)
			return &capped[i];
	}
	return NULL;
}

static bool over_cap(struct lg_capped *c, int clock)
{
	int max = READ_ONCE(c->max_khz);

	return max > 0 && clock > max;
}

static enum drm_mode_status lg_mode_valid(struct drm_connector *connector,
					  struct drm_display_mode *mode)
{
	struct lg_capped *c = find_capped(connector);

	if (over_cap(c, mode->clock))
		return MODE_CLOCK_HIGH;
	return c->orig->mode_valid ? c->orig->mode_valid(connector, mode) : MODE_OK;
}

static int lg_atomic_check(struct drm_connector *connector,
			   struct drm_atomic_state *state)
{
	struct lg_capped *c = find_capped(connector);
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct drm_crtc_state *crtc_state = NULL;

	if (conn_state && conn_state->crtc)
		crtc_state = drm_atomic_get_new_crtc_state(state, conn_state->crtc);
	if (crtc_state && crtc_state->enable &&
	    over_cap(c, crtc_state->mode.clock)) {
		drm_dbg_atomic(connector->dev,
			       "[CONNECTOR:%d:%s] %d kHz over the link's cap\n",
			       connector->base.id, connector->name,
			       crtc_state->mode.clock);
		return -EINVAL;
	}
	return c->orig->atomic_check ? c->orig->atomic_check(connector, state) : 0;
}

static int set_cap(struct drm_connector *connector, int max_khz)
{
	struct lg_capped *c;

	mutex_lock(&capped_lock);
	c = find_capped(connector);
	if (!c) {
		if (connector->helper_private->mode_valid_ctx) {
			mutex_unlock(&capped_lock);
			return -EOPNOTSUPP; // would bypass our mode_valid
		}
		c = find_capped(NULL);
		if (!c) {
			mutex_unlock(&capped_lock);
			return -ENOSPC;
		}
		c->connector = connector;
		c->orig = connector->helper_private;
		c->funcs = *c->orig;
		c->funcs.mode_valid = lg_mode_valid;
		c->funcs.atomic_check = lg_atomic_check;
		drm_connector_helper_add(connector, &c->funcs);
	}
	WRITE_ONCE(c->max_khz, max_khz);
	mutex_unlock(&capped_lock);
	return 0;
}

static void set_force(struct drm_connector *connector, enum drm_connector_force force)
{
	struct drm_device *dev = connector->dev;

	mutex_lock(&dev->mode_config.mutex);
	connector->force = force;
	mutex_unlock(&dev->mode_config.mutex);
	drm_kms_helper_connector_hotplug_event(connector);
}

/*
 * The deliberate freeze: no lock, no detector in the guest can see it.
 * Called through a pointer, never inlined: the diagnosis names it.
 */
static void lg_hang_cpu(void *unused)
{
	local_irq_disable();
	for (;;)
		cpu_relax();
}

static bool one_of(const char *action, const char *const *actions, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(action, actions[i]))
			return true;
	}
	return false;
}

static bool injects_failure(const char *action)
{
	static const char *const failures[] = { "bad", "bad-dev", "off", "on", "auto", "dark" };

	return one_of(action, failures, ARRAY_SIZE(failures));
}

/* A dark link sends none: no driver noticed it. */
static bool sends_uevent(const char *action)
{
	static const char *const uevents[] = { "bad", "bad-dev", "off", "on", "auto" };

	return one_of(action, uevents, ARRAY_SIZE(uevents));
}

struct lg_command {
	char action[16];
	u32 id;
	int arg; // KHZ, MBPS, N; 0 when absent
};

static int apply(struct drm_device *dev, void *data)
{
	const struct lg_command *cmd = data;
	const char *action = cmd->action;
	struct drm_connector *connector = drm_connector_lookup(dev, NULL, cmd->id);
	int ret = 0;

	if (!connector)
		return -ENOENT;
	// The clock starts before user space can hear of the failure.
	if (injects_failure(action))
		lg_measure_failure(connector);
	if (sends_uevent(action))
		lg_dpcd_uevent(connector);
	if (!strcmp(action, "bad") || !strcmp(action, "bad-dev")) {
		drm_connector_set_link_status_property(connector,
						       DRM_MODE_LINK_STATUS_BAD);
		if (!strcmp(action, "bad"))
			drm_kms_helper_connector_hotplug_event(connector);
		else
			drm_kms_helper_hotplug_event(dev);
	} else if (!strcmp(action, "cap")) {
		ret = set_cap(connector, cmd->arg);
	} else if (!strcmp(action, "off")) {
		set_force(connector, DRM_FORCE_OFF);
	} else if (!strcmp(action, "on")) {
		set_force(connector, DRM_FORCE_ON);
	} else if (!strcmp(action, "auto")) {
		set_force(connector, DRM_FORCE_UNSPECIFIED);
	} else if (!strcmp(action, "mark")) {
		lg_measure_mark(connector);
	} else if (!strcmp(action, "dark")) {
		ret = lg_dpcd_dark(connector, cmd->arg);
	} else if (!strcmp(action, "errors")) {
		ret = lg_dpcd_errors(connector, cmd->arg);
	} else if (!strcmp(action, "aux-eio") || !strcmp(action, "aux-ok")) {
		ret = lg_dpcd_aux_fail(connector, !strcmp(action, "aux-eio"));
	} else if (!strcmp(action, "aux-slow")) {
		ret = lg_dpcd_aux_slow(connector, cmd->arg);
	} else if (!strcmp(action, "hang")) {
		// The other CPUs from their IPI handler, interrupts off; never returns.
		on_each_cpu(lg_hang_cpu, NULL, false);
	} else {
		ret = -EINVAL;
	}
	drm_connector_put(connector);
	return ret;
}

int lg_for_each_connector(struct drm_device *dev, int max,
			  int (*add)(struct drm_connector *connector, int n))
{
	struct drm_connector_list_iter iter;
	struct drm_connector *connector;
	int n = 0, ret = 0;

	drm_connector_list_iter_begin(dev, &iter);
	drm_for_each_connector_iter(connector, &iter) {
		if (connector->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			continue;
		if (n == max) {
			ret = -ENOSPC;
			break;
		}
		ret = add(connector, n++);
		if (ret)
			break;
	}
	drm_connector_list_iter_end(&iter);
	return ret;
}

/* Runs fn on the DRM device behind LG_CARD. */
static int with_card(int (*fn)(struct drm_device *dev, void *data), void *data)
{
	struct file *f = filp_open(LG_CARD, O_RDWR, 0);
	int ret;

	if (IS_ERR(f))
		return PTR_ERR(f);
	if (f->f_op->open != drm_open) {
		ret = -ENODEV;
	} else {
		struct drm_file *file = f->private_data;

		ret = fn(file->minor->dev, data);
	}
	filp_close(f, NULL);
	return ret;
}

static int trigger_set(const char *val, const struct kernel_param *kp)
{
	struct lg_command cmd = {0};
	int n, ret;

	n = sscanf(val, "%15s %u %d", cmd.action, &cmd.id, &cmd.arg);
	if (n < 2 || cmd.arg < 0)
		return -EINVAL;
	// The commands whose number is not optional.
	if (n != 3 && (!strcmp(cmd.action, "cap") || !strcmp(cmd.action, "errors")))
		return -EINVAL;
	ret = with_card(apply, &cmd);
	pr_info("lg_link_fault: %s %u %d: %d\n", cmd.action, cmd.id, cmd.arg, ret);
	return ret;
}

static const struct kernel_param_ops trigger_ops = {
	.set = trigger_set,
};
module_param_cb(trigger, &trigger_ops, NULL, 0200);
MODULE_PARM_DESC(trigger, "bad|bad-dev|cap|off|on|auto|mark|dark|errors|aux-eio|aux-ok|aux-slow|hang CONNECTOR_ID [N]");

/* At load: the modeset hooks, then the sinks that follow them, then their monitors. */
static int attach(struct drm_device *dev, void *data)
{
	int ret = lg_crtc_watch(dev);

	if (ret)
		return ret;
	ret = lg_dpcd_init(dev);
	if (ret) {
		lg_crtc_unwatch();
		return ret;
	}
	ret = lg_edid_init(dev);
	if (ret) {
		lg_dpcd_exit();
		lg_crtc_unwatch();
	}
	return ret;
}

static int __init lg_link_fault_init(void)
{
	return with_card(attach, NULL);
}
module_init(lg_link_fault_init);

/*
 * Unhooked first, then the sinks go (drm_dp_aux_unregister() waits for the
 * reads in flight), then our armed vblank events, then the caps, then the
 * monitors (a cap's vtable copied theirs).
 */
static void __exit lg_link_fault_exit(void)
{
	lg_crtc_unwatch();
	lg_dpcd_exit();
	lg_measure_exit();
	for (int i = 0; i < LG_MAX_CONNECTORS; i++) {
		if (capped[i].connector)
			drm_connector_helper_add(capped[i].connector, capped[i].orig);
	}
	lg_edid_exit();
}
module_exit(lg_link_fault_exit);

MODULE_DESCRIPTION("linkguard test code: injects DP link failures into a DRM device");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0-only
/*
 * lg_link_fault's figures, TEST CODE: what a compositor did after an
 * injected failure, measured in the kernel, so that no compositor's log is
 * taken on trust.
 *
 *   echo "mark 36" > /sys/module/lg_link_fault/parameters/trigger
 *   echo "bad 36" > /sys/module/lg_link_fault/parameters/trigger
 *   (the compositor reacts)
 *   cat /sys/module/lg_link_fault/parameters/stats
 *   modesets=1 modeset_us=48211 flip_us=65012 mode=2560x1600@268500
 *
 *   modesets    modesets committed on connector 36's CRTC since the first
 *               failure injected after the mark (bad, bad-dev, off, on, auto)
 *   modeset_us  from that failure to the last of them, -1 without one
 *   flip_us     from that failure to the first vblank after the last
 *               modeset, -1 without one: the frame that modeset committed
 *               is flipped onto the screen there, the first in the final mode
 *   mode        what the last modeset lit, WxH@KHZ (pixel clock); off when
 *               it turned the CRTC off; - without a modeset
 *
 *   cat /sys/module/lg_link_fault/parameters/failed_at
 *   1234.567890
 *
 *   failed_at   when that failure was injected, in seconds of
 *               CLOCK_MONOTONIC (ktime_get(), the clock user space reads
 *               too): a compositor's own timestamps line up with it; -
 *               before a failure
 *
 * Modesets are counted in the CRTC's helper atomic_enable and
 * atomic_disable (crtc.c hooks them): committed modesets only (linkguard's
 * TEST_ONLY commits never reach them, where the connector's helper
 * atomic_check would see those too). A modeset that keeps the CRTC lit
 * disables and enables it in one commit and counts once, at the enable; a
 * disable counts when it leaves the connector dark.
 *
 * The flip: the commit's own flip event cannot tell it on vkms, whose
 * commit tail flushes the planes before vkms_crtc_atomic_enable() turns
 * vblanks on, so vkms_crtc_atomic_flush() sends that event at once
 * (drm_crtc_vblank_get() fails), before the mode is lit; and the
 * compositor's next flip only comes if it draws again. So the enable arms an
 * event of ours for the next vblank (drm_crtc_arm_vblank_event(), as a
 * driver arms a page flip's), and its timestamp is the vblank's own, which
 * send_vblank_event() writes into a DRM_EVENT_CRTC_SEQUENCE event before
 * drm_send_event_helper() calls its completion_release.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_vblank.h>
#include "lg_link_fault.h"

/*
 * The measurement, written by commit tails and by the vblank handler that
 * sends our events: under m.lock, taken inside dev->event_lock, never the
 * other way round.
 */
static struct {
	spinlock_t lock;
	u32 connector_mask; // 0: no mark yet
	unsigned int generation; // a mark or a modeset voids armed events
	ktime_t failure, modeset, flip; // 0: not yet
	int modesets;
	int width, height, clock; // the last modeset's mode, 0: off
} m = {
	.lock = __SPIN_LOCK_UNLOCKED(m.lock),
};

/* Our events not yet sent: lg_measure_exit() waits for them. */
static atomic_t armed = ATOMIC_INIT(0);

/* The event armed at a modeset's enable, for the next vblank. */
struct lg_first_vblank {
	struct completion done; // the event's completion: how we hear of it
	struct drm_pending_vblank_event *event;
	unsigned int generation;
};

/* Whether crtc_state lights the measured connector. Under m.lock. */
static bool lights(const struct drm_crtc_state *crtc_state)
{
	return crtc_state && crtc_state->active &&
	       (crtc_state->connector_mask & m.connector_mask);
}

/*
 * A modeset after the failure; mode NULL: the connector went dark. Under
 * m.lock. Returns whether it counted.
 */
static bool count_modeset(const struct drm_display_mode *mode)
{
	if (!m.failure)
		return false;
	m.modesets++;
	m.modeset = ktime_get();
	m.flip = 0;
	m.width = mode ? mode->hdisplay : 0;
	m.height = mode ? mode->vdisplay : 0;
	m.clock = mode ? mode->clock : 0;
	return true;
}

/*
 * Our event was sent: by the vblank handler, or by drm_crtc_vblank_off()
 * when the CRTC went off first (a disable voids it beforehand). Called with
 * dev->event_lock held; drm_send_event_helper() frees the event after.
 */
static void lg_first_vblank_done(struct completion *completion)
{
	struct lg_first_vblank *fv = container_of(completion, struct lg_first_vblank, done);
	unsigned long flags;

	spin_lock_irqsave(&m.lock, flags);
	if (fv->generation == m.generation)
		m.flip = ns_to_ktime(fv->event->event.seq.time_ns);
	spin_unlock_irqrestore(&m.lock, flags);
	kfree(fv);
	if (atomic_dec_and_test(&armed))
		wake_up_var(&armed);
}

static void arm_first_vblank(struct drm_crtc *crtc, unsigned int generation)
{
	struct lg_first_vblank *fv = kzalloc(sizeof(*fv), GFP_KERNEL);
	struct drm_pending_vblank_event *e = kzalloc(sizeof(*e), GFP_KERNEL);
	unsigned long flags;

	// Without vblanks (or memory) there is no flip to time: flip_us stays -1.
	if (!fv || !e || drm_crtc_vblank_get(crtc)) {
		kfree(fv);
		kfree(e);
		return;
	}
	init_completion(&fv->done);
	fv->event = e;
	fv->generation = generation;
	e->event.base.type = DRM_EVENT_CRTC_SEQUENCE; // gets the vblank's time_ns
	e->base.completion = &fv->done;
	e->base.completion_release = lg_first_vblank_done;
	atomic_inc(&armed);
	spin_lock_irqsave(&crtc->dev->event_lock, flags);
	drm_crtc_arm_vblank_event(crtc, e);
	spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
}

void lg_measure_crtc_enabled(struct drm_crtc *crtc,
			     const struct drm_crtc_state *new)
{
	unsigned int generation;
	unsigned long flags;
	bool counted = false;

	spin_lock_irqsave(&m.lock, flags);
	if (lights(new) && count_modeset(&new->mode)) {
		generation = ++m.generation;
		counted = true;
	}
	spin_unlock_irqrestore(&m.lock, flags);
	if (counted)
		arm_first_vblank(crtc, generation);
}

void lg_measure_crtc_disabling(const struct drm_crtc_state *old)
{
	unsigned long flags;

	// drm_crtc_vblank_off() sends armed events at once: not a flip.
	spin_lock_irqsave(&m.lock, flags);
	if (lights(old))
		m.generation++;
	spin_unlock_irqrestore(&m.lock, flags);
}

void lg_measure_crtc_disabled(const struct drm_crtc_state *old,
			      const struct drm_crtc_state *new)
{
	unsigned long flags;

	spin_lock_irqsave(&m.lock, flags);
	// Lit again in this commit: the enable counts it.
	if (lights(old) && !lights(new))
		count_modeset(NULL);
	spin_unlock_irqrestore(&m.lock, flags);
}

void lg_measure_mark(struct drm_connector *connector)
{
	unsigned long flags;

	spin_lock_irqsave(&m.lock, flags);
	m.connector_mask = drm_connector_mask(connector);
	m.generation++;
	m.failure = m.modeset = m.flip = 0;
	m.modesets = 0;
	m.width = m.height = m.clock = 0;
	spin_unlock_irqrestore(&m.lock, flags);
}

void lg_measure_failure(struct drm_connector *connector)
{
	unsigned long flags;

	spin_lock_irqsave(&m.lock, flags);
	if (m.connector_mask == drm_connector_mask(connector) && !m.failure)
		m.failure = ktime_get();
	spin_unlock_irqrestore(&m.lock, flags);
}

static s64 us_since_failure(ktime_t t)
{
	return m.failure && t ? ktime_us_delta(t, m.failure) : -1;
}

static int stats_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	int modesets, width, height, clock;
	s64 modeset_us, flip_us;
	int n;

	spin_lock_irqsave(&m.lock, flags);
	if (!m.connector_mask) {
		spin_unlock_irqrestore(&m.lock, flags);
		return -ENODATA; // "mark ID" first
	}
	modesets = m.modesets;
	modeset_us = us_since_failure(m.modeset);
	flip_us = us_since_failure(m.flip);
	width = m.width;
	height = m.height;
	clock = m.clock;
	spin_unlock_irqrestore(&m.lock, flags);

	n = scnprintf(buffer, PAGE_SIZE, "modesets=%d modeset_us=%lld flip_us=%lld mode=",
		      modesets, modeset_us, flip_us);
	if (!modesets)
		n += scnprintf(buffer + n, PAGE_SIZE - n, "-\n");
	else if (!width)
		n += scnprintf(buffer + n, PAGE_SIZE - n, "off\n");
	else
		n += scnprintf(buffer + n, PAGE_SIZE - n, "%dx%d@%d\n", width, height, clock);
	return n;
}

static const struct kernel_param_ops stats_ops = {
	.get = stats_get,
};
module_param_cb(stats, &stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "modesets and failure-to-flip time since the last 'mark'");

static int failed_at_get(char *buffer, const struct kernel_param *kp)
{
	unsigned long flags;
	s64 us;

	spin_lock_irqsave(&m.lock, flags);
	us = m.failure ? ktime_to_us(m.failure) : -1;
	spin_unlock_irqrestore(&m.lock, flags);
	if (us < 0)
		return scnprintf(buffer, PAGE_SIZE, "-\n");
	return scnprintf(buffer, PAGE_SIZE, "%lld.%06lld\n", us / USEC_PER_SEC,
			 us % USEC_PER_SEC);
}

static const struct kernel_param_ops failed_at_ops = {
	.get = failed_at_get,
};
module_param_cb(failed_at, &failed_at_ops, NULL, 0444);
MODULE_PARM_DESC(failed_at, "CLOCK_MONOTONIC time of the failure since the last 'mark'");

void lg_measure_exit(void)
{
	// An armed event is sent at the next vblank, or at once when vblanks
	// go off: its callback is ours.
	wait_var_event(&armed, !atomic_read(&armed));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * lg_link_fault's DisplayPort sink, TEST CODE: a struct drm_dp_aux on each
 * of vkms' connectors, registered as i915, amdgpu and nouveau register
 * theirs (.dev = the connector's kdev, so that the kernel's AUX character
 * device appears as /sys/class/drm/card0-Virtual-1/drm_dp_auxN and
 * /dev/drm_dp_auxN), whose .transfer serves the DPCD of a DP 1.4 sink (4
 * lanes, HBR3, 8b/10b) behind a link the module scripts:
 *
 *   0x000-0x006  DPCD_REV 1.4, MAX_LINK_RATE HBR3, MAX_LANE_COUNT 4,
 *                MAX_DOWNSPREAD 0.5 %, one receiver port, no downstream
 *                port, 8b/10b
 *   0x100-0x101  LINK_BW_SET, LANE_COUNT_SET: the link the last modeset
 *                trained, chosen as i915 does (intel_dp_compute_link_config_wide:
 *                for 24 then 18 bpp, the lowest rate, then the fewest lanes,
 *                that carry the mode's pixel clock at 80 % payload)
 *   0x108        MAIN_LINK_CHANNEL_CODING_SET: 8b/10b
 *   0x200        SINK_COUNT 1
 *   0x202-0x205  per-lane CR_DONE, CHANNEL_EQ_DONE, SYMBOL_LOCKED for the
 *                lanes in use, INTERLANE_ALIGN_DONE, RECEIVE_PORT_0_STATUS:
 *                all set while the link is up; zero while the CRTC is off
 *   0x210-0x217  SYMBOL_ERROR_COUNT_LANE0-3: bits 14:0 the count, bit 15
 *                valid (the lane is in use and locked); cleared when read
 *                and when the link trains, as a sink's are
 *
 * every other address reads 0. Native writes are NACKed and I2C-over-AUX is
 * NACKed (no DDC behind this sink): linkguard only ever reads.
 *
 * The triggers (fault.c): "dark ID [MBPS]" unlocks the lanes (CR_DONE
 * only), clears alignment and sync, with link-status left GOOD and no
 * uevent, as a link looks that i915 gave up retraining or amdgpu retrains
 * in silence; the next modeset that lights the connector at a rate of at
 * most MBPS per lane (any rate when 0) relocks it. "errors ID N": N symbol
 * errors a second accrue on every lane in use (0 stops them). "aux-eio ID"
 * fails every transfer with -EIO until "aux-ok ID"; "aux-slow ID MS"
 * answers every transfer MS ms late (0: at once).
 *
 * Every transfer is counted, as a bus analyser would: drm_dp_dpcd_read()
 * on 6.12 precedes each read with a one-byte read of DPCD_REV
 * (drm_dp_dpcd_probe()), and retries a failed transfer up to 32 times.
 * Read them from the aux parameter:
 *
 *   cat /sys/module/lg_link_fault/parameters/aux
 *   36 transfers=120 reads=120 writes=0 i2c=0 failed=0
 *
 * and, apart, those that came while the link trained, which a real sink
 * may answer late or not at all and a real source may fail its training
 * over: from the start of a modeset that drives the sink (the disable of a
 * CRTC that stays lit, the enable of one that was off) to the first vblank
 * of its enable, and within LG_UEVENT_SETTLE_MS of an injected failure's
 * uevent (i915 sends it from its retraining work). The harness's own raw
 * reads (dd on the AUX device, LG_HARNESS_READER) are not counted there:
 * the figure is the compositor's.
 *
 *   cat /sys/module/lg_link_fault/parameters/aux_training
 *   36 0
 *
 * Lifetime: the chardev and the I2C adapter are unregistered at module
 * exit, drm_dp_aux_unregister() first waits for the reads in flight (the
 * chardev's usecount); a file still open afterwards reads -ENODEV and never
 * reaches this module again. Until then the module holds vkms (its fops'
 * owner) and the drm_device, so that the connector's kdev outlives the AUX
 * device under it.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <drm/display/drm_dp_helper.h>
#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_modeset_lock.h>
#include "lg_link_fault.h"

#define LG_MAX_SINKS 8
#define LG_MAX_LANES 4
/* DisplayPort 1.4 Table 2-163; drm_dp.h names none of them. */
#define LG_SYMBOL_ERROR_COUNT_LANE0 0x210
#define LG_SYMBOL_ERROR_COUNT_VALID 0x8000
#define LG_SYMBOL_ERROR_COUNT_MAX 0x7fff
#define LG_MAX_ERRORS_PER_SECOND 1000000
/* After a hotplug uevent, as long as linkguard's default settle time. */
#define LG_UEVENT_SETTLE_MS 500
/* What the harness reads the DPCD with (tests/kernel/sink.sh). */
#define LG_HARNESS_READER "dd"

struct lg_sink {
	struct drm_dp_aux aux;
	struct drm_connector *connector; // set first: the modeset hooks train it
	bool registered; // the triggers and the aux parameter see it

	spinlock_t lock; // everything below
	bool lit; // a CRTC drives the connector
	u8 bw_code, lanes; // the link it trained
	bool dark;
	int relock_max_mbps; // 0: any rate relocks
	bool aux_fail;
	unsigned int aux_delay_ms; // every transfer answers this late
	int errors_per_second;
	ktime_t errors_since; // errors are accounted up to here
	u16 errors[LG_MAX_LANES];
	u64 transfers, reads, writes, i2c, failed;
	bool training; // a modeset that drives the sink is under way
	ktime_t settled_at; // and until then: its first vblank, a uevent's settle
	u64 while_training; // transfers in either
	ktime_t uevent_at, enabled_at; // the last injected uevent, enable
	struct {
		char comm[TASK_COMM_LEN];
		pid_t pid;
		ktime_t at;
		unsigned int address;
		bool modeset; // a modeset was under way
		ktime_t uevent_at, enabled_at, settled_at; // s's, then
	} last; // the last of while_training: who and when
};

/*
 * Set at module init, before the hooks and triggers that read the array,
 * and unchanged until exit.
 */
static struct lg_sink sinks[LG_MAX_SINKS];
static struct drm_device *sinks_dev;

static const struct {
	u8 bw_code;
	int mbps; // per lane
} rates[] = {
	{ DP_LINK_BW_1_62, 1620 },
	{ DP_LINK_BW_2_7, 2700 },
	{ DP_LINK_BW_5_4, 5400 },
	{ DP_LINK_BW_8_1, 8100 },
};

static int rate_mbps(u8 bw_code)
{
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++) {
		if (rates[i].bw_code == bw_code)
			return rates[i].mbps;
	}
	return 0;
}

static struct lg_sink *find_sink(struct drm_connector *connector)
{
	for (int i = 0; i < LG_MAX_SINKS; i++) {
		if (sinks[i].registered && sinks[i].connector == connector)
			return &sinks[i];
	}
	return NULL;
}

/* Brings the error counters up to now. Under s->lock. */
static void accrue_errors(struct lg_sink *s, ktime_t now)
{
	u64 ns, n;

	if (!s->lit || !s->errors_per_second || s->dark) {
		s->errors_since = now;
		return;
	}
	ns = ktime_to_ns(ktime_sub(now, s->errors_since));
	n = mul_u64_u64_div_u64(ns, s->errors_per_second, NSEC_PER_SEC);
	if (!n)
		return; // the fraction accrues on
	for (int lane = 0; lane < s->lanes; lane++)
		s->errors[lane] = min_t(u64, s->errors[lane] + n, LG_SYMBOL_ERROR_COUNT_MAX);
	s->errors_since = ktime_add_ns(s->errors_since,
				       div_u64(n * NSEC_PER_SEC, s->errors_per_second));
}

/* Trains the link for a mode of clock_khz, as i915 picks it. Under s->lock. */
static void train(struct lg_sink *s, int clock_khz)
{
	u8 bw_code = rates[ARRAY_SIZE(rates) - 1].bw_code, lanes = LG_MAX_LANES;
	bool found = false;

	for (int bpp = 24; bpp >= 18 && !found; bpp -= 6) {
		for (size_t i = 0; i < ARRAY_SIZE(rates) && !found; i++) {
			for (int n = 1; n <= LG_MAX_LANES && !found; n <<= 1) {
				// kbit/s: the mode's, and the lanes' payload (80 %)
				if ((u64)clock_khz * bpp <= (u64)n * rates[i].mbps * 800) {
					bw_code = rates[i].bw_code;
					lanes = n;
					found = true;
				}
			}
		}
	}
	s->lit = true;
	s->bw_code = bw_code;
	s->lanes = lanes;
	if (s->dark && (!s->relock_max_mbps || rate_mbps(bw_code) <= s->relock_max_mbps))
		s->dark = false;
	memset(s->errors, 0, sizeof(s->errors));
	s->errors_since = ktime_get();
}

static bool locked(const struct lg_sink *s)
{
	return s->lit && !s->dark;
}

static u8 lane_status(const struct lg_sink *s, int lane)
{
	if (!s->lit || lane >= s->lanes)
		return 0;
	return s->dark ? DP_LANE_CR_DONE : DP_CHANNEL_EQ_BITS;
}

static u16 error_count(const struct lg_sink *s, int lane)
{
	if (!locked(s) || lane >= s->lanes)
		return 0;
	return LG_SYMBOL_ERROR_COUNT_VALID | s->errors[lane];
}

/* The sink's DPCD at address. Under s->lock. */
static u8 dpcd_byte(const struct lg_sink *s, unsigned int address)
{
	unsigned int errors = address - LG_SYMBOL_ERROR_COUNT_LANE0;

	switch (address) {
	case DP_DPCD_REV:
		return 0x14;
	case DP_MAX_LINK_RATE:
		return DP_LINK_BW_8_1;
	case DP_MAX_LANE_COUNT:
		return LG_MAX_LANES | DP_ENHANCED_FRAME_CAP;
	case DP_MAX_DOWNSPREAD:
		return DP_MAX_DOWNSPREAD_0_5;
	case DP_MAIN_LINK_CHANNEL_CODING:
		return DP_CAP_ANSI_8B10B;
	case DP_LINK_BW_SET:
		return s->bw_code;
	case DP_LANE_COUNT_SET:
		return s->lanes ? s->lanes | DP_LANE_COUNT_ENHANCED_FRAME_EN : 0;
	case DP_MAIN_LINK_CHANNEL_CODING_SET:
		return s->lanes ? DP_SET_ANSI_8B10B : 0;
	case DP_SINK_COUNT:
		return 1;
	case DP_LANE0_1_STATUS:
		return lane_status(s, 0) | lane_status(s, 1) << 4;
	case DP_LANE2_3_STATUS:
		return lane_status(s, 2) | lane_status(s, 3) << 4;
	case DP_LANE_ALIGN_STATUS_UPDATED:
		return locked(s) ? DP_INTERLANE_ALIGN_DONE : 0;
	case DP_SINK_STATUS:
		return locked(s) ? DP_RECEIVE_PORT_0_STATUS : 0;
	}
	if (errors < 2 * LG_MAX_LANES) {
		u16 count = error_count(s, errors / 2);

		return errors % 2 ? count >> 8 : count & 0xff;
	}
	return 0;
}

static void native_read(struct lg_sink *s, struct drm_dp_aux_msg *msg)
{
	u8 *buffer = msg->buffer;

	accrue_errors(s, ktime_get());
	for (size_t i = 0; i < msg->size; i++)
		buffer[i] = dpcd_byte(s, msg->address + i);
	// Read counters restart from zero (DisplayPort 1.4 2.9.3.1.1).
	for (int lane = 0; lane < LG_MAX_LANES; lane++) {
		unsigned int low = LG_SYMBOL_ERROR_COUNT_LANE0 + 2 * lane;

		if (msg->address <= low + 1 && low < msg->address + msg->size)
			s->errors[lane] = 0;
	}
	msg->reply = DP_AUX_NATIVE_REPLY_ACK;
}

static ssize_t lg_sink_transfer(struct drm_dp_aux *aux, struct drm_dp_aux_msg *msg)
{
	struct lg_sink *s = container_of(aux, struct lg_sink, aux);
	ssize_t ret = 0;

	unsigned int delay_ms;

	if (msg->size > DP_AUX_MAX_PAYLOAD_BYTES)
		return -E2BIG;
	spin_lock(&s->lock);
	delay_ms = s->aux_delay_ms;
	spin_unlock(&s->lock);
	// A dock that answers late: the reader sleeps as on a real channel.
	if (delay_ms)
		msleep(delay_ms);
	spin_lock(&s->lock);
	s->transfers++;
	if ((s->training || ktime_before(ktime_get(), s->settled_at)) &&
	    strcmp(current->comm, LG_HARNESS_READER)) {
		s->while_training++;
		get_task_comm(s->last.comm, current);
		s->last.pid = task_pid_nr(current);
		s->last.at = ktime_get();
		s->last.address = msg->address;
		s->last.modeset = s->training;
		s->last.uevent_at = s->uevent_at;
		s->last.enabled_at = s->enabled_at;
		s->last.settled_at = s->settled_at;
	}
	if (s->aux_fail) {
		s->failed++;
		ret = -EIO;
	} else if (msg->request == DP_AUX_NATIVE_READ) {
		s->reads++;
		native_read(s, msg);
		ret = msg->size;
	} else if (msg->request == DP_AUX_NATIVE_WRITE) {
		s->writes++;
		msg->reply = DP_AUX_NATIVE_REPLY_NACK;
	} else {
		s->i2c++;
		msg->reply = DP_AUX_NATIVE_REPLY_ACK | DP_AUX_I2C_REPLY_NACK;
	}
	spin_unlock(&s->lock);
	return ret;
}

/* Whether crtc_state drives s's connector. */
static bool drives(const struct drm_crtc_state *crtc_state, const struct lg_sink *s)
{
	return crtc_state && crtc_state->active &&
	       (crtc_state->connector_mask & drm_connector_mask(s->connector));
}

/* The first vblank after now, lighting mode: one frame later. */
static ktime_t first_vblank(const struct drm_display_mode *mode)
{
	u64 frame_ns = mode->clock ? div_u64((u64)mode->htotal * mode->vtotal *
					     USEC_PER_SEC, mode->clock) : 0;

	return ktime_add_ns(ktime_get(), frame_ns);
}

/* Pushes s's training window out to at least until. Under s->lock. */
static void training_until(struct lg_sink *s, ktime_t until)
{
	if (ktime_after(until, s->settled_at))
		s->settled_at = until;
}

void lg_dpcd_crtc_disabling(const struct drm_crtc_state *old,
			    const struct drm_crtc_state *new)
{
	for (int i = 0; i < LG_MAX_SINKS; i++) {
		struct lg_sink *s = &sinks[i];

		// Lit again in this commit: the link retrains from here.
		if (!s->connector || !drives(old, s) || !drives(new, s))
			continue;
		spin_lock(&s->lock);
		s->training = true;
		spin_unlock(&s->lock);
	}
}

void lg_dpcd_crtc_enabled(const struct drm_crtc_state *new)
{
	for (int i = 0; i < LG_MAX_SINKS; i++) {
		struct lg_sink *s = &sinks[i];

		if (!s->connector || !drives(new, s))
			continue;
		spin_lock(&s->lock);
		train(s, new->mode.clock);
		s->training = false;
		s->enabled_at = ktime_get();
		training_until(s, first_vblank(&new->mode));
		spin_unlock(&s->lock);
	}
}

void lg_dpcd_uevent(struct drm_connector *connector)
{
	struct lg_sink *s = find_sink(connector);

	if (!s)
		return;
	spin_lock(&s->lock);
	s->uevent_at = ktime_get();
	training_until(s, ktime_add_ms(ktime_get(), LG_UEVENT_SETTLE_MS));
	spin_unlock(&s->lock);
}

void lg_dpcd_crtc_disabled(const struct drm_crtc_state *old,
			   const struct drm_crtc_state *new)
{
	for (int i = 0; i < LG_MAX_SINKS; i++) {
		struct lg_sink *s = &sinks[i];

		if (!s->connector || !drives(old, s) || drives(new, s))
			continue;
		spin_lock(&s->lock);
		accrue_errors(s, ktime_get());
		s->lit = false;
		spin_unlock(&s->lock);
	}
}

int lg_dpcd_dark(struct drm_connector *connector, int max_mbps)
{
	struct lg_sink *s = find_sink(connector);

	if (!s)
		return -ENODEV;
	spin_lock(&s->lock);
	accrue_errors(s, ktime_get());
	s->dark = true;
	s->relock_max_mbps = max_mbps;
	spin_unlock(&s->lock);
	return 0;
}

int lg_dpcd_errors(struct drm_connector *connector, int per_second)
{
	struct lg_sink *s = find_sink(connector);

	if (!s)
		return -ENODEV;
	if (per_second > LG_MAX_ERRORS_PER_SECOND)
		return -ERANGE;
	spin_lock(&s->lock);
	accrue_errors(s, ktime_get());
	s->errors_per_second = per_second;
	spin_unlock(&s->lock);
	return 0;
}

int lg_dpcd_aux_slow(struct drm_connector *connector, int delay_ms)
{
	struct lg_sink *s = find_sink(connector);

	if (!s)
		return -ENODEV;
	if (delay_ms < 0 || delay_ms > 60000)
		return -EINVAL;
	spin_lock(&s->lock);
	s->aux_delay_ms = delay_ms;
	spin_unlock(&s->lock);
	return 0;
}

int lg_dpcd_aux_fail(struct drm_connector *connector, bool fail)
{
	struct lg_sink *s = find_sink(connector);

	if (!s)
		return -ENODEV;
	spin_lock(&s->lock);
	s->aux_fail = fail;
	spin_unlock(&s->lock);
	return 0;
}

/*
 * The link as the connector's current state has it: lit when the module
 * loads after something (fbcon) already lit it. Under the modeset locks.
 */
static void train_current(struct lg_sink *s)
{
	struct drm_connector_state *conn_state = s->connector->state;
	struct drm_crtc_state *crtc_state =
		conn_state && conn_state->crtc ? conn_state->crtc->state : NULL;

	spin_lock(&s->lock);
	if (drives(crtc_state, s))
		train(s, crtc_state->mode.clock);
	spin_unlock(&s->lock);
}

static int add_sink(struct drm_connector *connector, int n)
{
	struct lg_sink *s = &sinks[n];
	int ret;

	spin_lock_init(&s->lock);
	s->aux.name = kasprintf(GFP_KERNEL, "lg_link_fault %s", connector->name);
	if (!s->aux.name)
		return -ENOMEM;
	s->aux.dev = connector->kdev;
	s->aux.drm_dev = connector->dev;
	s->aux.transfer = lg_sink_transfer;
	s->connector = connector;
	drm_connector_get(connector);
	train_current(s);
	ret = drm_dp_aux_register(&s->aux);
	if (ret) {
		drm_connector_put(connector);
		kfree(s->aux.name);
		s->connector = NULL;
		return ret;
	}
	s->registered = true;
	return 0;
}

int lg_dpcd_init(struct drm_device *dev)
{
	int ret;

	if (!try_module_get(dev->driver->fops->owner))
		return -ENODEV;
	drm_dev_get(dev);
	sinks_dev = dev;
	drm_modeset_lock_all(dev);
	ret = lg_for_each_connector(dev, LG_MAX_SINKS, add_sink);
	drm_modeset_unlock_all(dev);
	if (ret)
		lg_dpcd_exit();
	return ret;
}

void lg_dpcd_exit(void)
{
	for (int i = 0; i < LG_MAX_SINKS; i++) {
		struct lg_sink *s = &sinks[i];

		if (!s->registered)
			continue;
		drm_dp_aux_unregister(&s->aux);
		s->registered = false;
		drm_connector_put(s->connector);
		kfree(s->aux.name);
	}
	if (sinks_dev) {
		module_put(sinks_dev->driver->fops->owner);
		drm_dev_put(sinks_dev);
		sinks_dev = NULL;
	}
}

/* One line a registered sink, each written by line() under its lock. */
static int print_sinks(char *buffer,
		       int (*line)(char *buffer, size_t size, const struct lg_sink *s))
{
	int n = 0;

	for (int i = 0; i < LG_MAX_SINKS; i++) {
		struct lg_sink *s = &sinks[i];

		if (!s->registered)
			continue;
		spin_lock(&s->lock);
		n += line(buffer + n, PAGE_SIZE - n, s);
		spin_unlock(&s->lock);
	}
	return n;
}

static int aux_line(char *buffer, size_t size, const struct lg_sink *s)
{
	return scnprintf(buffer, size,
			 "%u transfers=%llu reads=%llu writes=%llu i2c=%llu failed=%llu\n",
			 s->connector->base.id, s->transfers, s->reads, s->writes,
			 s->i2c, s->failed);
}

static int aux_get(char *buffer, const struct kernel_param *kp)
{
	return print_sinks(buffer, aux_line);
}

static const struct kernel_param_ops aux_ops = {
	.get = aux_get,
};
module_param_cb(aux, &aux_ops, NULL, 0444);
MODULE_PARM_DESC(aux, "AUX transfers per connector since the module loaded");

static int aux_training_line(char *buffer, size_t size, const struct lg_sink *s)
{
	return scnprintf(buffer, size, "%u %llu\n", s->connector->base.id,
			 s->while_training);
}

static int aux_training_get(char *buffer, const struct kernel_param *kp)
{
	return print_sinks(buffer, aux_training_line);
}

static const struct kernel_param_ops aux_training_ops = {
	.get = aux_training_get,
};
module_param_cb(aux_training, &aux_training_ops, NULL, 0444);
MODULE_PARM_DESC(aux_training, "AUX transfers per connector while its link trained");

/*
 * Who made the last of them and when, so that a failing count names its
 * reader: "ID COMM PID AT 0xADDRESS MODESET UEVENT ENABLED SETTLED", the
 * times in microseconds of CLOCK_MONOTONIC (linkguard's trace clock): the
 * transfer's, then the last injected uevent's, the last enable's and the
 * end of the window it came in (0: none yet); MODESET 1 when a modeset
 * was under way.
 */
static int aux_training_last_line(char *buffer, size_t size, const struct lg_sink *s)
{
	if (!s->while_training)
		return scnprintf(buffer, size, "%u none\n", s->connector->base.id);
	return scnprintf(buffer, size, "%u %s %d %lld 0x%x %d %lld %lld %lld\n",
			 s->connector->base.id, s->last.comm, s->last.pid,
			 ktime_to_us(s->last.at), s->last.address, s->last.modeset,
			 ktime_to_us(s->last.uevent_at), ktime_to_us(s->last.enabled_at),
			 ktime_to_us(s->last.settled_at));
}

static int aux_training_last_get(char *buffer, const struct kernel_param *kp)
{
	return print_sinks(buffer, aux_training_last_line);
}

static const struct kernel_param_ops aux_training_last_ops = {
	.get = aux_training_last_get,
};
module_param_cb(aux_training_last, &aux_training_last_ops, NULL, 0444);
MODULE_PARM_DESC(aux_training_last, "The last AUX transfer per connector while its link trained: who, when");

/*
 * Layer 1 of the real-kernel harness, run in the guest as DRM master:
 * backend/drm's libdrm layer (kms_libdrm_impl) against vkms with link
 * failures injected by lg_link_fault. What the kernel must show user space
 * after a failed link training, and what user space must do to get Good
 * back, checked one assertion at a time.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libudev.h>
#include <xf86drm.h>
#include <kms/kms.h>
#include "guest.h"

/* The pixel clock the "lowered link" carries: 4K60 does not fit. */
#define CAP_KHZ 300000

static struct guest_card card;
static struct kms_libdrm kms;
static struct udev_monitor *monitor;

/* The next drm "change" uevent as udevd passed it on; false after 5 s. */
static bool next_hotplug(bool *has_connector, uint32_t *connector) {
	struct pollfd pfd = { .fd = udev_monitor_get_fd(monitor), .events = POLLIN };
	while (poll(&pfd, 1, 5000) == 1) {
		struct udev_device *dev = udev_monitor_receive_device(monitor);
		if (dev == NULL) {
			continue;
		}
		const char *hotplug = udev_device_get_property_value(dev, "HOTPLUG");
		const char *conn = udev_device_get_property_value(dev, "CONNECTOR");
		bool found = hotplug != NULL && strcmp(hotplug, "1") == 0;
		if (found) {
			*has_connector = conn != NULL;
			*connector = conn != NULL ? (uint32_t)strtoul(conn, NULL, 10) : 0;
		}
		udev_device_unref(dev);
		if (found) {
			return true;
		}
	}
	return false;
}

static enum lg_link_status link_status(void) {
	struct kms_connector_state state = {0};
	kms_libdrm_impl.read(&kms, card.conn_id, &state);
	return state.link_status;
}

static struct kms_modes probe(bool force) {
	struct kms_modes modes = {0};
	bool connected;
	if (!kms_libdrm_impl.get_modes(&kms, card.conn_id, force, &connected, &modes)) {
		modes.len = 0;
	}
	return modes;
}

static uint32_t max_clock(const struct kms_modes *modes) {
	uint32_t max = 0;
	for (size_t i = 0; i < modes->len; i++) {
		max = modes->modes[i].clock > max ? modes->modes[i].clock : max;
	}
	return max;
}

/* The first mode of list whose clock is above (true) or within the cap. */
static const drmModeModeInfo *mode_where(const struct kms_modes *list, bool above) {
	for (size_t i = 0; i < list->len; i++) {
		if ((list->modes[i].clock > CAP_KHZ) == above) {
			return &list->modes[i];
		}
	}
	return NULL;
}

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* trigger CMD, then the uevent it must cause. */
static void expect_uevent(const char *action, bool want_connector) {
	bool has_connector = false;
	uint32_t id = 0;
	double start = now_ms();
	bool got = guest_trigger("%s %u", action, card.conn_id) &&
		next_hotplug(&has_connector, &id);
	if (want_connector) {
		guest_expect(got && has_connector && id == card.conn_id,
			"'%s': uevent HOTPLUG=1 CONNECTOR=%u (%.1f ms)", action, id,
			now_ms() - start);
	} else {
		guest_expect(got && !has_connector, "'%s': bare uevent HOTPLUG=1, no CONNECTOR= (%.1f ms)",
			action, now_ms() - start);
	}
}

static void test_link_status(void) {
	struct kms_connector_state state = {0};
	bool read = kms_libdrm_impl.read(&kms, card.conn_id, &state);
	guest_expect(read && state.has_link_status && kms.link_status_prop != 0,
		"connector %u has link-status (property %u)", card.conn_id,
		kms.link_status_prop);
	guest_expect(state.connected && state.link_status == LG_LINK_STATUS_GOOD,
		"connected, link-status Good before any failure");
}

static void test_bad_link(const struct kms_modes *full) {
	const drmModeModeInfo *fast = mode_where(full, true);
	const drmModeModeInfo *slow = mode_where(full, false);
	guest_expect(fast != NULL && slow != NULL, "the list has modes above and within %d kHz",
		CAP_KHZ);
	if (fast == NULL || slow == NULL) {
		return;
	}
	guest_expect(guest_modeset(&card, fast, true, false) == 0,
		"modeset %ux%u (%d kHz) with link-status Good",
		fast->hdisplay, fast->vdisplay, fast->clock);

	guest_trigger("cap %u %d", card.conn_id, CAP_KHZ);
	struct kms_modes cached = probe(false);
	guest_expect(cached.len == full->len, "capped at %d kHz: without a probe the list is as "
		"the last probe left it (%zu modes)", CAP_KHZ, cached.len);
	kms_modes_finish(&cached);

	expect_uevent("bad", true);
	guest_expect(link_status() == LG_LINK_STATUS_BAD, "link-status reads Bad after the failure");

	double start = now_ms();
	struct kms_modes pruned = probe(true);
	guest_expect(pruned.len > 0 && pruned.len < full->len && max_clock(&pruned) <= CAP_KHZ,
		"forced probe: %zu of %zu modes remain, fastest %u kHz (%.1f ms)", pruned.len,
		full->len, max_clock(&pruned), now_ms() - start);
	cached = probe(false);
	guest_expect(cached.len == pruned.len, "the kernel keeps the pruned list (%zu modes)",
		cached.len);
	kms_modes_finish(&cached);
	kms_modes_finish(&pruned);

	int ret = guest_modeset(&card, fast, true, true);
	guest_expect(ret == -EINVAL, "the same %ux%u no longer passes an atomic test (%s)",
		fast->hdisplay, fast->vdisplay, strerror(-ret));
	guest_expect(guest_modeset(&card, slow, false, false) == 0 &&
		link_status() == LG_LINK_STATUS_BAD,
		"modeset %ux%u without link-status: succeeds, link-status stays Bad",
		slow->hdisplay, slow->vdisplay);
	guest_expect(guest_modeset(&card, slow, true, false) == 0 &&
		link_status() == LG_LINK_STATUS_GOOD, "modeset %ux%u with link-status Good: link-status reads Good",
		slow->hdisplay, slow->vdisplay);

	expect_uevent("bad-dev", false);
	guest_expect(link_status() == LG_LINK_STATUS_BAD, "link-status reads Bad after it");
	guest_expect(guest_modeset(&card, slow, true, false) == 0 &&
		link_status() == LG_LINK_STATUS_GOOD, "modeset with link-status Good: Good again");

	guest_trigger("cap %u 0", card.conn_id);
	struct kms_modes healed = probe(true);
	guest_expect(healed.len == full->len, "cap lifted: a forced probe lists all %zu modes again",
		healed.len);
	kms_modes_finish(&healed);
}

/* lg_link_fault's figures (measure.c) for the last mark. */
struct figures {
	int modesets;
	long long modeset_us, flip_us;
	char mode[64];
};

static bool read_figures(struct figures *f) {
	FILE *file = fopen(GUEST_STATS, "r");
	bool ok = file != NULL && fscanf(file, "modesets=%d modeset_us=%lld flip_us=%lld mode=%63s",
		&f->modesets, &f->modeset_us, &f->flip_us, f->mode) == 4;
	if (file != NULL) {
		fclose(file);
	}
	return ok;
}

/* The figures once the first vblank after the last modeset came, 1 s at most. */
static bool read_figures_flipped(struct figures *f) {
	for (int i = 0; i < 100; i++) {
		if (!read_figures(f) || f->flip_us >= 0) {
			break;
		}
		struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return f->flip_us >= 0;
}

static bool figures_mode_is(const struct figures *f, const drmModeModeInfo *mode) {
	char want[64];
	snprintf(want, sizeof(want), "%ux%u@%u", mode->hdisplay, mode->vdisplay, mode->clock);
	return strcmp(f->mode, want) == 0;
}

/*
 * The instrument the compositor comparisons read, against commits this
 * program makes and so can count: after a failure, test commits and a
 * commit without a modeset count nothing, a modeset counts once and its
 * first frame reaches the screen after it, turning off counts and flips
 * nothing. Starts and ends lit at slow, link-status Good.
 */
static void test_figures(const struct kms_modes *full) {
	const drmModeModeInfo *fast = mode_where(full, true);
	const drmModeModeInfo *slow = mode_where(full, false);
	// Read before each guest_expect(): its arguments print the figures.
	struct figures f;
	bool got = guest_trigger("mark %u", card.conn_id) && read_figures(&f);
	guest_expect(got && f.modesets == 0 && f.modeset_us == -1 && f.flip_us == -1 &&
		strcmp(f.mode, "-") == 0, "figures: 'mark' starts them empty");
	expect_uevent("bad", true);
	guest_modeset(&card, fast, true, true);
	guest_modeset(&card, slow, false, false);
	got = read_figures(&f);
	guest_expect(got && f.modesets == 0,
		"figures: a test commit and a commit of the same mode are no modeset (%d)",
		f.modesets);
	guest_modeset(&card, fast, true, false);
	got = read_figures_flipped(&f);
	guest_expect(got && f.modesets == 1 && figures_mode_is(&f, fast) &&
		f.modeset_us >= 0 && f.flip_us > f.modeset_us,
		"figures: a mode change is one modeset, %s; its first frame after it "
		"(%lld us, then %lld us after the failure)", f.mode, f.modeset_us, f.flip_us);
	guest_modeset(&card, NULL, false, false);
	got = read_figures(&f);
	guest_expect(got && f.modesets == 2 && strcmp(f.mode, "off") == 0 && f.flip_us == -1,
		"figures: turning off is a modeset (%d), nothing flips (%lld)",
		f.modesets, f.flip_us);
	guest_modeset(&card, slow, true, false);
	got = read_figures_flipped(&f);
	guest_expect(got && f.modesets == 3 && figures_mode_is(&f, slow),
		"figures: turned on again, modeset %d lit %s", f.modesets, f.mode);
}

static void test_unplug(const struct kms_modes *full) {
	guest_modeset(&card, NULL, false, false);
	expect_uevent("off", true);
	bool connected = true;
	struct kms_modes modes = {0};
	kms_libdrm_impl.get_modes(&kms, card.conn_id, true, &connected, &modes);
	guest_expect(!connected && modes.len == 0, "unplugged: disconnected, %zu modes", modes.len);
	kms_modes_finish(&modes);
	expect_uevent("auto", true);
	kms_libdrm_impl.get_modes(&kms, card.conn_id, true, &connected, &modes);
	guest_expect(connected && modes.len == full->len, "replugged: connected, %zu modes",
		modes.len);
	kms_modes_finish(&modes);
}

int main(void) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!guest_card_open(&card)) {
		return 1;
	}
	guest_expect(drmIsMaster(card.fd), "DRM master on %s", GUEST_CARD);
	kms = (struct kms_libdrm){ .fd = card.fd };
	struct udev *udev = udev_new();
	monitor = udev_monitor_new_from_netlink(udev, "udev");
	udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", NULL);
	udev_monitor_enable_receiving(monitor);

	test_link_status();
	struct kms_modes full = probe(true);
	guest_expect(full.len > 0 && guest_create_fb(&card, &full),
		"forced probe lists %zu modes, fastest %u kHz", full.len, max_clock(&full));
	test_bad_link(&full);
	test_figures(&full);
	test_unplug(&full);
	guest_modeset(&card, NULL, false, false);
	kms_modes_finish(&full);

	udev_monitor_unref(monitor);
	udev_unref(udev);
	guest_card_close(&card);
	return guest_finish("kms");
}

#ifndef TESTS_KERNEL_GUEST_H
#define TESTS_KERNEL_GUEST_H

/*
 * What the programs run inside the real-kernel guest share: the DRM device
 * vkms made, its one connector, and the test module's trigger.
 */

#include <stdbool.h>
#include <stdint.h>
#include <xf86drmMode.h>
#include <kms/kms.h>

#define GUEST_CARD "/dev/dri/card0"
#define GUEST_TRIGGER "/sys/module/lg_link_fault/parameters/trigger"
/* What lg_link_fault measured since the last "mark" (module/measure.c). */
#define GUEST_STATS "/sys/module/lg_link_fault/parameters/stats"

struct guest_card {
	int fd;
	uint32_t conn_id, crtc_id, plane_id;
	uint32_t fb_id; // guest_create_fb()'s
};

/*
 * Opens the card with atomic and universal planes and finds its connector,
 * a CRTC and that CRTC's primary plane. Logs why not.
 */
bool guest_card_open(struct guest_card *card);
void guest_card_close(struct guest_card *card);

/* Prints "ok: ..." or "FAIL: ..." (counted) for an assertion. */
void guest_expect(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "LAYER: PASS|FAIL: N failed"; the exit status. */
int guest_finish(const char *layer);

/* One framebuffer big enough for every mode in modes, as card->fb_id. */
bool guest_create_fb(struct guest_card *card, const struct kms_modes *modes);

/*
 * An atomic modeset of mode (NULL: off) on card's connector, CRTC and
 * primary plane, showing card->fb_id. good: link-status GOOD with it, as
 * the kernel contract asks of user space. Returns 0 or -errno.
 */
int guest_modeset(struct guest_card *card, const drmModeModeInfo *mode, bool good,
	bool test_only);

/* The id of obj's property called name, or 0. */
uint32_t guest_prop_id(int fd, uint32_t obj, uint32_t type, const char *name);

/* Writes one command ("bad 36", "cap 36 300000") to lg_link_fault. */
bool guest_trigger(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

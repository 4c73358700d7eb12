/*
 * The vblank layer of the real-kernel harness, run in the guest as DRM
 * master: lights the CRTC, takes vblank events, and turns it off again, at
 * every phase of vkms' vblank timer, for SECONDS. Each off runs
 * drm_crtc_vblank_off(), where 6.12's vkms waited for a running timer
 * callback under the locks that callback spins on: both CPUs stuck with
 * interrupts off, the guest frozen (tests/kernel/vkms-vblank-timer.patch).
 * The timer fires on the CPU that started it, the one that lit the CRTC;
 * the deadlock needs the off on another, so the two alternate CPUs (a
 * compositor's commits land on any). Without the fix the host's watchdog
 * explains a freeze here; with it every cycle completes.
 *
 *   lg-kernel-vblank SECONDS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include "guest.h"

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The connector's smallest mode: the timer's period is what matters. */
static bool smallest_mode(struct guest_card *card, drmModeModeInfo *mode) {
	drmModeConnector *conn = drmModeGetConnectorCurrent(card->fd, card->conn_id);
	if (conn == NULL || conn->count_modes == 0) {
		drmModeFreeConnector(conn);
		return false;
	}
	*mode = conn->modes[0];
	for (int i = 1; i < conn->count_modes; i++) {
		const drmModeModeInfo *m = &conn->modes[i];
		if ((uint32_t)m->hdisplay * m->vdisplay < (uint32_t)mode->hdisplay * mode->vdisplay) {
			*mode = *m;
		}
	}
	drmModeFreeConnector(conn);
	return true;
}

/* Moves this process to cpu (of the online ones, in turn). */
static void run_on(long cpu) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Waits for the next vblank: a vblank reference, the timer running. */
static bool wait_vblank(int fd) {
	drmVBlank vbl = { .request = { .type = DRM_VBLANK_RELATIVE, .sequence = 1 } };
	return drmWaitVBlank(fd, &vbl) == 0;
}

int main(int argc, char *argv[]) {
	double seconds = argc == 2 ? atof(argv[1]) : 0;
	if (seconds <= 0) {
		fprintf(stderr, "usage: %s SECONDS\n", argv[0]);
		return 2;
	}
	struct guest_card card = {0};
	drmModeModeInfo mode;
	if (!guest_card_open(&card) || !smallest_mode(&card, &mode)) {
		guest_expect(false, "the card, its connector and a mode");
		return guest_finish("vblank");
	}
	struct kms_modes modes = { .modes = &mode, .len = 1 };
	guest_expect(guest_create_fb(&card, &modes), "a framebuffer for %s", mode.name);

	srand(1);
	double start = now_s(), next_report = start + 10;
	unsigned cycles = 0, vblanks = 0;
	int ret = 0;
	while (now_s() - start < seconds) {
		run_on(cycles);
		ret = guest_modeset(&card, &mode, false, false);
		if (ret != 0) {
			break;
		}
		for (int i = rand() % 3; i > 0; i--) {
			vblanks += wait_vblank(card.fd);
		}
		// Off at a random phase of the timer's period.
		struct timespec phase = { 0, (rand() % 17000) * 1000L };
		nanosleep(&phase, NULL);
		run_on(cycles + 1);
		ret = guest_modeset(&card, NULL, false, false);
		if (ret != 0) {
			break;
		}
		cycles++;
		if (now_s() >= next_report) {
			printf("vblank: %u CRTC offs so far\n", cycles);
			fflush(stdout);
			next_report += 10;
		}
	}
	guest_expect(ret == 0, "every modeset committed (%s)", strerror(-ret));
	guest_expect(cycles > 0 && vblanks > 0,
		"%u times %s lit, %u vblanks waited for, and off again, in %.0f s",
		cycles, mode.name, vblanks, now_s() - start);
	guest_card_close(&card);
	return guest_finish("vblank");
}

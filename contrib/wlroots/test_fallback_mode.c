/*
 * The choice of mode after a link failure, pick_fallback_mode() of the
 * patched wlroots: test.sh compiles this against the patched tree's headers
 * and links it with the object the patched library was built from.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <wayland-util.h>
#include <wlr/types/wlr_output.h>
#include "backend/drm/iface.h"
#include "backend/drm/util.h"

#define MAX_MODES 8

/*
 * Since wlroots 0.21, util.c's parse_edid() compares the backend's
 * interface with the atomic one, which the library does not export. The
 * test parses no EDID: any definition links it.
 */
const struct wlr_drm_interface atomic_iface = {0};

struct mode {
	int32_t width, height, refresh;
};

struct test_case {
	const char *name;
	struct mode old;
	struct mode listed[MAX_MODES];
	// Index into listed of the expected pick; -1 for none
	int expected;
};

static const struct test_case cases[] = {
	{ "empty list", { 3840, 2160, 60000 }, { { 0 } }, -1 },
	{ "same size at the highest refresh not above the old one",
		{ 3840, 2160, 60000 },
		{ { 2560, 1440, 60000 }, { 3840, 2160, 24000 }, { 3840, 2160, 30000 },
			{ 3840, 2160, 75000 }, { 1920, 1080, 60000 } }, 2 },
	{ "the largest that fits when the size is gone",
		{ 4096, 2160, 60000 },
		{ { 1024, 768, 60004 }, { 1920, 1080, 60000 }, { 2560, 1600, 59972 },
			{ 2560, 1440, 59951 }, { 1920, 1200, 59950 } }, 2 },
	{ "a larger mode does not fit",
		{ 3840, 2160, 60000 },
		{ { 5120, 2880, 30000 }, { 1920, 1080, 60000 } }, 1 },
	{ "a wider but shorter mode does not fit",
		{ 2560, 1600, 60000 },
		{ { 3440, 1440, 60000 }, { 1920, 1200, 60000 } }, 1 },
	{ "a refresh rate above the old one only as a last resort",
		{ 3840, 2160, 60000 },
		{ { 2560, 1440, 75000 }, { 2560, 1440, 50000 } }, 1 },
	{ "above the old refresh rate, the lowest",
		{ 3840, 2160, 60000 },
		{ { 2560, 1440, 144000 }, { 2560, 1440, 75000 },
			{ 2560, 1440, 120000 } }, 1 },
	{ "nothing fits: the smallest",
		{ 1920, 1080, 60000 },
		{ { 5120, 2880, 60000 }, { 4096, 2304, 60000 },
			{ 4096, 2304, 30000 } }, 1 },
	{ "unknown old refresh rate: the highest",
		{ 2560, 1440, 0 },
		{ { 2560, 1440, 60000 }, { 2560, 1440, 144000 },
			{ 1920, 1080, 240000 } }, 1 },
	{ "equal modes: the first listed (the kernel lists the preferred first)",
		{ 3840, 2160, 60000 },
		{ { 2560, 1440, 59951 }, { 2560, 1440, 59951 } }, 0 },
	{ "the old mode still listed is its own pick",
		{ 1920, 1080, 60000 },
		{ { 1920, 1080, 60000 }, { 1920, 1080, 50000 } }, 0 },
};

static bool run_case(const struct test_case *c) {
	struct wlr_output_mode modes[MAX_MODES] = {0};
	struct wl_list list;
	wl_list_init(&list);
	for (size_t i = 0; i < MAX_MODES && c->listed[i].width != 0; i++) {
		modes[i].width = c->listed[i].width;
		modes[i].height = c->listed[i].height;
		modes[i].refresh = c->listed[i].refresh;
		wl_list_insert(list.prev, &modes[i].link);
	}

	struct wlr_output_mode *picked = pick_fallback_mode(&list,
		c->old.width, c->old.height, c->old.refresh);
	struct wlr_output_mode *expected =
		c->expected >= 0 ? &modes[c->expected] : NULL;
	if (picked != expected) {
		printf("FAIL: %s: picked %s, expected mode %d\n", c->name,
			picked == NULL ? "none" : "another mode", c->expected);
		if (picked != NULL) {
			printf("  picked %dx%d@%d (index %td)\n", picked->width,
				picked->height, picked->refresh, picked - modes);
		}
		return false;
	}
	printf("ok: %s\n", c->name);
	return true;
}

int main(void) {
	bool ok = true;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ok = run_case(&cases[i]) && ok;
	}
	return ok ? 0 : 1;
}

/*
 * libFuzzer target: mode lists as a kernel could report them (empty,
 * duplicates, zero clocks, absurd sizes, interlaced only, thousands of
 * modes) through the fallback policy. Checks the ranking's contract.
 */
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/policy.h>

/* Each mode is 12 bytes of input: width, height, refresh, clock, flags. */
static void read_mode(const uint8_t *p, struct lg_mode *mode) {
	int16_t w, h;
	uint16_t refresh_hz_x100;
	uint32_t clock;
	memcpy(&w, p, 2);
	memcpy(&h, p + 2, 2);
	memcpy(&refresh_hz_x100, p + 4, 2);
	memcpy(&clock, p + 6, 4);
	*mode = (struct lg_mode){
		.width = w,
		.height = h,
		.refresh_mhz = (int32_t)refresh_hz_x100 * 10,
		.clock_khz = clock,
		.preferred = p[10] & 1,
		.interlaced = p[10] & 2,
	};
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 13) {
		return 0;
	}
	enum lg_policy policy = data[0] & 1 ? LG_POLICY_REFRESH_FIRST :
		LG_POLICY_RESOLUTION_FIRST;
	// Floors from the same byte: none, or a refresh and a height floor.
	const struct lg_policy_floors floors = {
		.refresh_mhz = (data[0] >> 1) % 8 * 20000,
		.size = { .height = (data[0] >> 4) * 240 },
	};
	struct lg_mode requested;
	read_mode(data + 1, &requested);
	data += 13;
	size -= 13;

	struct lg_mode_list list, known_bad;
	lg_mode_list_init(&list);
	lg_mode_list_init(&known_bad);
	for (; size >= 12; data += 12, size -= 12) {
		struct lg_mode mode;
		read_mode(data, &mode);
		lg_mode_list_append(data[11] & 1 ? &known_bad : &list, &mode);
	}

	size_t *order = calloc(list.len + 1, sizeof(*order));
	size_t n = lg_policy_rank(policy, &floors, &requested, &list,
		&known_bad, order);
	assert(n <= list.len);
	for (size_t i = 0; i < n; i++) {
		const struct lg_mode *mode = &list.modes[order[i]];
		assert(order[i] < list.len);
		assert(!mode->interlaced && mode->width > 0 && mode->height > 0 &&
			mode->clock_khz > 0 && mode->refresh_mhz > 0);
		assert(lg_mode_list_find(&known_bad, mode) < 0);
		for (size_t j = 0; j < i; j++) {
			assert(!lg_mode_equal(&list.modes[order[j]], mode));
		}
	}
	// A usable requested mode that is listed and not known-bad ranks first.
	bool usable = requested.width > 0 && requested.height > 0 &&
		requested.refresh_mhz > 0 && requested.clock_khz > 0 &&
		!requested.interlaced;
	if (usable && lg_mode_list_find(&list, &requested) >= 0 &&
			lg_mode_list_find(&known_bad, &requested) < 0) {
		assert(n > 0);
		assert(lg_mode_same_timing(&list.modes[order[0]], &requested));
	}
	// Floors: a candidate that meets them ranks before every one that does
	// not, the requested mode aside.
	for (size_t i = 1; i < n; i++) {
		const struct lg_mode *before = &list.modes[order[i - 1]];
		// The requested mode: the same timing when it has no clock.
		bool before_requested = requested.clock_khz == 0 ?
			lg_mode_same_timing(before, &requested) :
			lg_mode_equal(before, &requested);
		assert(before_requested || lg_policy_floors_met(&floors, before) ||
			!lg_policy_floors_met(&floors, &list.modes[order[i]]));
	}
	free(order);
	lg_mode_list_finish(&list);
	lg_mode_list_finish(&known_bad);
	return 0;
}

#include <stdint.h>
#include <stdlib.h>
#include <linkguard/policy.h>

/*
 * The fallback order of linkguard(7), FALLBACK POLICY. Candidates fall into
 * classes, lower is better; within a class the comparison below decides,
 * and the kernel's preferred flag breaks remaining ties. Only the kernel's
 * exact timings are ranked: a generated CVT mode needs more bandwidth than
 * the kernel's own timings for the same size.
 */
enum candidate_class {
	CLASS_REQUESTED, // retrain at the requested mode
	CLASS_SAME_REFRESH, // prefer-refresh only: refresh kept, largest area
	CLASS_SAME_SIZE, // same resolution, highest refresh not above
	CLASS_SAME_ASPECT, // largest area at the requested aspect ratio
	CLASS_OTHER, // largest area overall
};

struct rank_ctx {
	enum lg_policy policy;
	const struct lg_policy_floors *floors; // NULL: no candidate meets them
	const struct lg_mode *requested;
	const struct lg_mode_list *available;
};

static bool mode_is_usable(const struct lg_mode *mode) {
	return mode->width > 0 && mode->height > 0 && mode->refresh_mhz > 0 &&
		mode->clock_khz > 0 && !mode->interlaced;
}

/* Refresh rates within 0.5% count as the same rate (59.94 Hz vs 60 Hz). */
static bool refresh_not_above(int32_t refresh, int32_t limit) {
	return (int64_t)refresh * 1000 <= (int64_t)limit * 1005;
}

static bool refresh_same(int32_t a, int32_t b) {
	return refresh_not_above(a, b) && refresh_not_above(b, a);
}

/* Aspect ratios within 1%: 1366x768 is 16:9 for this purpose. */
static bool aspect_same(const struct lg_mode *a, const struct lg_mode *b) {
	int64_t x = (int64_t)a->width * b->height;
	int64_t y = (int64_t)b->width * a->height;
	return llabs(x - y) * 100 <= y;
}

bool lg_policy_floors_met(const struct lg_policy_floors *floors,
		const struct lg_mode *mode) {
	return refresh_not_above(floors->refresh_mhz, mode->refresh_mhz) &&
		mode->width >= floors->size.width && mode->height >= floors->size.height;
}

static bool is_requested(const struct lg_mode *mode, const struct lg_mode *req) {
	if (req->clock_khz == 0) {
		return lg_mode_same_timing(mode, req);
	}
	return lg_mode_equal(mode, req);
}

static enum candidate_class classify(const struct rank_ctx *ctx,
		const struct lg_mode *mode) {
	const struct lg_mode *req = ctx->requested;
	if (req == NULL) {
		return CLASS_OTHER;
	}
	if (is_requested(mode, req)) {
		return CLASS_REQUESTED;
	}
	if (ctx->policy == LG_POLICY_REFRESH_FIRST &&
			refresh_same(mode->refresh_mhz, req->refresh_mhz)) {
		return CLASS_SAME_REFRESH;
	}
	if (mode->width == req->width && mode->height == req->height &&
			refresh_not_above(mode->refresh_mhz, req->refresh_mhz)) {
		return CLASS_SAME_SIZE;
	}
	if (aspect_same(mode, req)) {
		return CLASS_SAME_ASPECT;
	}
	return CLASS_OTHER;
}

static int64_t area(const struct lg_mode *mode) {
	return (int64_t)mode->width * mode->height;
}

static int64_t refresh_distance(const struct lg_mode *mode,
		const struct lg_mode *req) {
	return req == NULL ? 0 : llabs((int64_t)mode->refresh_mhz - req->refresh_mhz);
}

static int cmp_int64(int64_t a, int64_t b) {
	return (a > b) - (a < b);
}

/* Negative when a ranks before b. */
static int compare(const struct rank_ctx *ctx, size_t ia, size_t ib) {
	const struct lg_mode *a = &ctx->available->modes[ia];
	const struct lg_mode *b = &ctx->available->modes[ib];
	enum candidate_class ca = classify(ctx, a), cb = classify(ctx, b);
	// The requested mode, then the modes that meet the floors.
	if ((ca == CLASS_REQUESTED) != (cb == CLASS_REQUESTED)) {
		return ca == CLASS_REQUESTED ? -1 : 1;
	}
	if (ctx->floors != NULL) {
		int r = cmp_int64(!lg_policy_floors_met(ctx->floors, a),
			!lg_policy_floors_met(ctx->floors, b));
		if (r != 0) {
			return r;
		}
	}
	if (ca != cb) {
		return ca < cb ? -1 : 1;
	}

	int r = 0;
	switch (ca) {
	case CLASS_REQUESTED:
		break;
	case CLASS_SAME_REFRESH:
		r = cmp_int64(aspect_same(b, ctx->requested),
			aspect_same(a, ctx->requested));
		if (r == 0) {
			r = cmp_int64(area(b), area(a));
		}
		break;
	case CLASS_SAME_SIZE:
		r = cmp_int64(b->refresh_mhz, a->refresh_mhz);
		break;
	case CLASS_SAME_ASPECT:
	case CLASS_OTHER:
		r = cmp_int64(area(b), area(a));
		if (r == 0) {
			r = cmp_int64(refresh_distance(a, ctx->requested),
				refresh_distance(b, ctx->requested));
		}
		break;
	}
	if (r == 0) {
		r = cmp_int64(b->preferred, a->preferred);
	}
	if (r == 0) {
		r = cmp_int64(b->refresh_mhz, a->refresh_mhz);
	}
	return r;
}

static bool is_listed(const struct lg_mode_list *list, const struct lg_mode *mode) {
	return list != NULL && lg_mode_list_find(list, mode) >= 0;
}

static bool is_candidate(const struct lg_mode *mode,
		const struct lg_mode_list *known_bad) {
	return mode_is_usable(mode) && !is_listed(known_bad, mode);
}

/* Floors bind only when some candidate meets them. */
static bool floors_apply(const struct lg_policy_floors *floors,
		const struct lg_mode_list *available, const struct lg_mode_list *known_bad) {
	if (floors == NULL) {
		return false;
	}
	for (size_t i = 0; i < available->len; i++) {
		const struct lg_mode *mode = &available->modes[i];
		if (is_candidate(mode, known_bad) && lg_policy_floors_met(floors, mode)) {
			return true;
		}
	}
	return false;
}

size_t lg_policy_rank(enum lg_policy policy, const struct lg_policy_floors *floors,
		const struct lg_mode *requested, const struct lg_mode_list *available,
		const struct lg_mode_list *known_bad, size_t *order) {
	struct rank_ctx ctx = {
		.policy = policy,
		.floors = floors_apply(floors, available, known_bad) ? floors : NULL,
		.requested = requested,
		.available = available,
	};
	size_t n = 0;
	for (size_t i = 0; i < available->len; i++) {
		const struct lg_mode *mode = &available->modes[i];
		if (!is_candidate(mode, known_bad)) {
			continue;
		}
		bool duplicate = false;
		for (size_t j = 0; j < n && !duplicate; j++) {
			duplicate = lg_mode_equal(&available->modes[order[j]], mode);
		}
		if (duplicate) {
			continue;
		}

		/*
		 * Insertion keeps equal candidates in the kernel's order and needs
		 * no allocation; mode lists hold tens of entries.
		 */
		size_t pos = n++;
		while (pos > 0 && compare(&ctx, i, order[pos - 1]) < 0) {
			order[pos] = order[pos - 1];
			pos--;
		}
		order[pos] = i;
	}
	return n;
}

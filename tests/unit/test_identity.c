/* Monitor identity from EDID blobs (backend/drm/identity.c). */
#include <string.h>
#include <kms/identity.h>
#include "edid.h"
#include "test.h"

static void test_serial_string_wins(void) {
	unsigned char edid[128];
	make_edid(edid, "ABC123");
	char *identity = drm_identity_from_edid(edid, sizeof(edid));
	check(identity != NULL && strcmp(identity, "DEL-A0B1-ABC123") == 0);
	free(identity);
}

static void test_serial_number_without_string(void) {
	unsigned char edid[128];
	make_edid(edid, NULL);
	char *identity = drm_identity_from_edid(edid, sizeof(edid));
	check(identity != NULL && strcmp(identity, "DEL-A0B1-12345") == 0);
	free(identity);
}

static void test_truncated_or_garbage_is_no_identity(void) {
	unsigned char edid[128];
	make_edid(edid, "ABC123");
	check(drm_identity_from_edid(edid, 100) == NULL);
	check(drm_identity_from_edid(edid, 0) == NULL);
	memset(edid, 0x5a, sizeof(edid));
	check(drm_identity_from_edid(edid, sizeof(edid)) == NULL);
}

int main(void) {
	run_test(test_serial_string_wins);
	run_test(test_serial_number_without_string);
	run_test(test_truncated_or_garbage_is_no_identity);
	return test_failures == 0 ? 0 : 1;
}

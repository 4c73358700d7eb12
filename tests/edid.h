#ifndef TESTS_EDID_H
#define TESTS_EDID_H

/* A monitor's EDID for the tests that need one (identity, DRM replay). */

#include <string.h>

/* An EDID 1.4 base block of a DP monitor "DEL" 0xA0B1, serial 12345. */
static inline void make_edid(unsigned char edid[128], const char *serial_string) {
	static const unsigned char header[] = {
		0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
		0x10, 0xac, // "DEL", 5 bits a letter, big-endian
		0xb1, 0xa0, // product code, little-endian
		0x39, 0x30, 0x00, 0x00, // serial number 12345
		10, 30, 1, 4, // week 10 of 2020, EDID 1.4
		0xa5, 60, 34, 120, 0x0a, // digital 8 bpc DP, 60x34 cm, gamma 2.2
	};
	memset(edid, 0, 128);
	memcpy(edid, header, sizeof(header));
	for (int i = 38; i < 54; i += 2) {
		edid[i] = edid[i + 1] = 0x01; // unused standard timings
	}
	for (int d = 0; d < 4; d++) {
		edid[54 + d * 18 + 3] = 0x10; // dummy descriptors
	}
	if (serial_string != NULL) {
		unsigned char *desc = &edid[54 + 18];
		desc[3] = 0xff; // display product serial number
		memset(&desc[5], ' ', 13);
		size_t len = strlen(serial_string);
		memcpy(&desc[5], serial_string, len);
		desc[5 + len] = '\n';
	}
	unsigned sum = 0;
	for (int i = 0; i < 127; i++) {
		sum += edid[i];
	}
	edid[127] = (unsigned char)(256 - sum % 256) % 256;
}

#endif

#!/bin/sh
# Prints the rows compositor.sh and sway.sh recorded (kms.sh's record: one
# tab-separated line per failure and compositor) side by side, grouped by
# failure in the order they first ran, each row with linkguard beside the
# same compositor's stock row of the run: the ratio of their times to the
# first flip.
#
#   table.sh RESULTS
set -eu

results=${1:?usage: table.sh RESULTS}
[ -s "$results" ] || { echo "FAIL: no rows in $results"; exit 1; }
echo "== side by side on the kernel: 4096x2160@60 requested, vkms; modesets and"
echo "   times (ms from the injected failure to the last modeset and to the first"
echo "   page flip in the final mode) measured in the kernel by lg_link_fault"
awk -F '\t' '
	!($1 in rows) { order[n++] = $1 }
	{ rows[$1] = rows[$1] sprintf("     %-34s %-16s %-16s %-5s %8s %9s %8s\n",
		$2, $3, $4, $5, $6, $7, $8); flip[$1, $2] = $8 }
	END {
		printf "     %-34s %-16s %-16s %-5s %8s %9s %8s\n", "compositor",
			"final mode", "wl_output", "link", "modesets", "->modeset", "->flip"
		for (i = 0; i < n; i++) {
			printf "   %s\n%s", order[i], rows[order[i]]
			for (key in flip) {
				split(key, k, SUBSEP)
				if (k[1] != order[i] || k[2] ~ /, stock$/ || flip[key] == "-")
					continue
				base = k[2]
				sub(/ \+ .*/, "", base)
				stock = flip[order[i], base ", stock"]
				if (stock != "" && stock != "-" && stock > 0)
					printf "     ->flip, %s / stock: %.2f\n", k[2], flip[key] / stock
			}
		}
	}' "$results"

#!/bin/sh
# Prints the rows compositor.sh and sway.sh recorded (kms.sh's record: one
# tab-separated line per failure and compositor) side by side, grouped by
# failure in the order they first ran, each row with linkguard beside the
# same compositor's stock row of the run: the ratio of their times to the
# first flip, and that ratio again with each one's time less what the
# frame of the mode it lit cost (kms.sh's frame_ms, allocated, drawn and
# committed; stock's 0 where untraced: where stock lights a smaller mode,
# what is left is what linkguard itself adds), and from when the
# compositor heard of the failure (kms.sh's heard_ms: the uevent's read, a
# replug's new output) where both traced it (the way there is the same for
# both and varies under TCG).
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
		$2, $3, $4, $5, $6, $7, $8); flip[$1, $2] = $8; frame[$1, $2] = $9
		heard[$1, $2] = $10 }
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
				if (stock == "" || stock == "-" || stock <= 0)
					continue
				printf "     ->flip, %s / stock: %.2f\n", k[2], flip[key] / stock
				if (frame[key] == "" || frame[key] == "-")
					continue
				stock_frame = frame[order[i], base ", stock"]
				if (stock_frame == "" || stock_frame == "-")
					stock_frame = 0
				mine = flip[key] - frame[key]
				theirs = stock - stock_frame
				if (theirs <= 0)
					continue
				printf "     ->flip less the frame (%.1f ms, stock %.1f ms), %s: %.1f ms, stock %.1f ms: %.2f\n",
					frame[key], stock_frame, k[2], mine, theirs, mine / theirs
				mine_heard = heard[key]
				stock_heard = heard[order[i], base ", stock"]
				if (mine_heard == "" || mine_heard == "-" || stock_heard == "" ||
						stock_heard == "-" || theirs <= stock_heard)
					continue
				printf "     heard ->flip less the frame, %s: %.1f ms, stock %.1f ms: %.2f\n",
					k[2], mine - mine_heard, theirs - stock_heard,
					(mine - mine_heard) / (theirs - stock_heard)
			}
		}
	}' "$results"

#!/usr/bin/env bash
# Simulates a campaign: every CONFIG.json in a folder becomes the run folder
# OUT_DIR/<config name>/ (benchreport simulate), so OUT_DIR is a campaign
# that `benchreport OUT_DIR` reports on.
# usage: scripts/simulate_campaign.sh CONFIG_DIR OUT_DIR [path/to/benchreport]
set -euo pipefail
cfg=${1:?usage: simulate_campaign.sh CONFIG_DIR OUT_DIR [BENCHREPORT]}
out=${2:?usage: simulate_campaign.sh CONFIG_DIR OUT_DIR [BENCHREPORT]}
bin=${3:-$(dirname "$0")/../build/benchreport}
mkdir -p "$out"
for c in "$cfg"/*.json; do
  name=$(basename "$c" .json)
  "$bin" simulate "$c" -o "$out/$name" --force > /dev/null
done
echo "campaign: $out ($(ls "$cfg"/*.json | wc -l) runs)"

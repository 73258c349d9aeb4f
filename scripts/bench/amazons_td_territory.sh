#!/bin/sh
# Learning the weights of the territory evaluator (the one tabula's Amazons engine searches
# with) on 8x8 by TD-leaf self-play and by TD(lambda) against one-ply alpha-beta, then
# matches of each learned vector against the hand-tuned weights: 400 games at two plies,
# and 200 games at 100 ms per move (docs/experiments/amazons-td.md, "The territory
# evaluator"). About 20 CPU minutes.
# Usage: scripts/bench/amazons_td_territory.sh OUT_DIR
set -eu
out=${1:?usage: amazons_td_territory.sh OUT_DIR}
tabula=${TABULA:-./target/release/tabula}
mkdir -p "$out"
train() { # name preset opponent
  "$tabula" train "amazons(size=8)" --eval territory --preset "$2" --init hand --opponent "$3" \
    --eval-opponent alphabeta:1 --moves 400000 --halve-every 100000 --eval-every 20000 --eval-games 50 \
    --seed 1 --out "$out/$1" --quiet
}
train leaf-self td-leaf self
train lambda-alphabeta1 td-lambda alphabeta:1
for run in leaf-self lambda-alphabeta1; do
  "$tabula" match "amazons(size=8)" "learned(weights=$out/$run/weights.json,depth=2)" "alphabeta(depth=2)" \
    --games 400 --openings random:2 --quiet --results "$out/depth2-$run.jsonl" > "$out/depth2-$run.txt"
  "$tabula" match "amazons(size=8)" "learned(weights=$out/$run/weights.json,time_ms=100)" "alphabeta(time_ms=100)" \
    --games 200 --openings random:2 --seed 5 --quiet --results "$out/time100-$run.jsonl" > "$out/time100-$run.txt"
done
grep -h "score" "$out"/depth2-*.txt "$out"/time100-*.txt

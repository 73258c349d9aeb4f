#!/bin/sh
# The source document's Amazons TD experiment on 8x8 (docs/experiments/amazons-td.md):
# nine training runs (initial weights x training opponent), a 100-game match of each learned
# evaluator against the hand-tuned one at depth 2, and a round robin.
# Usage: scripts/bench/amazons_td_experiment.sh OUT_DIR   (about 30 CPU minutes)
set -eu
out=${1:?usage: amazons_td_experiment.sh OUT_DIR}
tabula=${TABULA:-./target/release/tabula}
mkdir -p "$out"
run() { # init opponent moves [preset]
  name="$1-$(echo "$2" | tr -d ':')"
  if [ -n "${4:-}" ]; then name="x-$4-$name"; fi
  "$tabula" train "amazons(size=8)" --preset "${4:-document-td0}" --init "$1" --opponent "$2" \
    --eval-opponent alphabeta:1 --moves "$3" --seed 1 --out "$out/$name" --quiet
  "$tabula" match "amazons(size=8)" "learned(weights=$out/$name/weights.json,depth=2)" "baseline(depth=2)" \
    --games 100 --openings random:2 --quiet --results "$out/match-$name.jsonl" > "$out/match-$name.txt"
}
for init in zeros ones hand; do
  run $init random 100000
  run $init alphabeta:1 100000
  run $init alphabeta:2 40000
done
run hand alphabeta:1 100000 td-lambda
run hand alphabeta:1 100000 td-leaf
run zeros alphabeta:1 100000 td-leaf
run hand self 100000 document-td0
"$tabula" tourney "amazons(size=8)" random "baseline(depth=2)" \
  "learned(weights=$out/zeros-alphabeta1/weights.json,depth=2)" \
  "learned(weights=$out/x-td-leaf-hand-alphabeta1/weights.json,depth=2)" \
  "learned(weights=docs/experiments/amazons-td/document-OnesVsAbMp.json,depth=2)" \
  --games 100 --openings random:2 --seed 7 --jobs 2 --quiet --results "$out/round-robin.jsonl" > "$out/round-robin.txt"
cat "$out/round-robin.txt"

;; The rules the NTU course engines (protocol tcg, e.g. the hw3 "MyAI" engines) play by in
;; their search: traditional 4x8 capture rules, a draw after 60 plies without a flip or
;; capture, and a move cycle played 3 times. They claim nothing: the referee's rules decide,
;; and `assumes = "ntu-engines"` lets anqi warn where they differ. A belief, not a variant to
;; play (see BRIDGES.md).
(variant
  (name ntu-engines)
  (summary "what NTU course engines believe: 60-ply no-progress draw, a cycle repeated 3 times")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (no-progress 60)
  (repetition (cycle 3)))

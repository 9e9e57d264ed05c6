;; The NTU "Theory of Computer Games" course rules (T.-s. Hsu): 40-ply no-progress draw, and a
;; draw when the same cycle of positions repeats three times in a row.
;; The format of this file is documented in protocol/VARIANTS.md.
(variant
  (name ntu)
  (summary "4x8 traditional with the NTU course draw rules: 40 plies without progress, a cycle repeated 3 times")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (clock (game-ms 900000))
  (no-progress 40)
  (repetition (cycle 3)))

;; Fewer unknowns at the start: four pieces dealt face-up (as in a popular app). Colours are
;; still decided by the first reveal.
(variant
  (name reveal-4)
  (summary "4x8 with four random pieces face-up at the start; colours from the first reveal")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (start (reveal 4))
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

;; House rule (an old Wikipedia table): cannons jump as usual and may also capture cannons and
;; pawns by a step.
(variant
  (name cannon-step)
  (summary "4x8 traditional where cannons may also step-capture cannons and pawns")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P)) (allow (P K)))
  (cannon-jump #t)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

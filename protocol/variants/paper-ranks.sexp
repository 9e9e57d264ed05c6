;; The rank table of the paper's Table II, which puts the knight above the rook.
(variant
  (name paper-ranks)
  (summary "4x8 traditional with the paper's Table II ranks: knight (4) above rook (3)")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (N 4) (R 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

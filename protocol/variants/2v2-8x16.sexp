;; Two against two on the big 8x16 board with two full sets (64 pieces on 128 cells, the rest
;; empty).
(variant
  (name "2v2-8x16")
  (summary "8x16 team game, two against two, two full sets of pieces")
  (game traditional)
  (board (rectangle 8 16))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccpppppKGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 4)
  (sides (1 3) (2 4))
  (clock (game-ms 1800000))
  (no-progress 360)
  (repetition 3))

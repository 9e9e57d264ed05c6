;; The cooperative version of the single-player game: two players, one team, taking turns, both
;; moving both colours. (win 0 1) when one colour is gone within 400 plies, (win 0 0) otherwise.
(variant
  (name cooperative)
  (summary "4x8 cooperative: two players on one team clear one colour within 400 plies")
  (game cooperative)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 2)
  (sides (1 2))
  (objective (clear 400))
  (no-progress 100)
  (repetition none))

;; Compatible with OpenSpiel's banqi game: 50-ply no-progress draw, no repetition rule, no clock.
(variant
  (name openspiel)
  (summary "4x8 traditional as in OpenSpiel's banqi: 50 plies without progress draw, no repetition rule, no clock")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (no-progress 50)
  (repetition none))

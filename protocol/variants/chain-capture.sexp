;; House rule: chain captures. After a capture, if the capturing piece can capture again, the
;; same player keeps the turn and must capture again with that piece, until it cannot.
(variant
  (name chain-capture)
  (summary "4x8 traditional with the chain-capture house rule: a capturing piece must keep capturing")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (chain-capture #t)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

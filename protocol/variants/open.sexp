;; Open ("oracle") play: every piece dealt face-up, so there is no chance after the deal.
;; Nothing is revealed, so colours are fixed: player 1 red, player 2 black.
(variant
  (name open)
  (summary "4x8 with every piece face-up from the start (no hidden information); player 1 red")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (start open)
  (colours fixed)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

;; One against two on 4x8: player 1 alone against the team of players 2 and 3, who take turns:
;; the order is 1 2 1 3, so the lone player moves as often as the whole team.
(variant
  (name "1v2")
  (summary "4x8, one against a team of two: sides (1) and (2 3), turn order 1 2 1 3")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 3)
  (sides (1) (2 3))
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

;; Two against two on 4x8: players 1 and 3 form team 1, players 2 and 4 team 2. Sides alternate
;; and teammates take turns: 1 2 3 4. The first reveal of a team gives that team its colour.
(variant
  (name "2v2")
  (summary "4x8 team game, two against two: teams (1 3) and (2 4), turn order 1 2 3 4")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 4)
  (sides (1 3) (2 4))
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

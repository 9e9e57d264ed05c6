;; The strategic positional variant of the paper: the board starts empty and every piece is in a
;; bag. On your turn: (bag) draws a random piece, which everyone sees as (hand P), and you keep
;; the turn to (put P POS) it on any empty cell; or move by the traditional rules. When the bag
;; is empty only moves remain, and a player who cannot move loses.
(variant
  (name strategic)
  (summary "4x8 strategic positional game: draw pieces from a bag and place them, or move")
  (game strategic)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (start bag)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

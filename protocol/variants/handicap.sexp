;; A handicap game: red plays without its two guards. Colours are fixed so the handicap goes to
;; a chosen seat: player 1 is red (give it to the stronger program), player 2 black.
(variant
  (name handicap)
  (summary "4x8, red (player 1) without its two guards; colours fixed from the start")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (colours fixed)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

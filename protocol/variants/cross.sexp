;; A cross-shaped board of 32 cells, to show that topology is data. Cells are numbered row by
;; row over the drawing; cannon lines stop at the edges of the cross.
(variant
  (name cross)
  (summary "32-cell cross-shaped board with the traditional pieces and rules")
  (game traditional)
  (board (shape
    "..XXXX.."
    "..XXXX.."
    "XXXXXXXX"
    "XXXXXXXX"
    "..XXXX.."
    "..XXXX.."))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

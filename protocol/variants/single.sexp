;; Single player (the paper's Fig. 1): one player moves both colours and must remove every piece
;; of one colour (either) within 400 plies. (win 1 0) when done, (win 0 0) when not; the record
;; gives the plies and turns used.
(variant
  (name single)
  (summary "4x8 single-player puzzle: move both colours, clear one colour within 400 plies")
  (game single)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 1)
  (objective (clear 400))
  (no-progress 100)
  (repetition none))

;; The repetition rule of Chen's CDC game platform (the TCGA/ICGA referee): three full cycles
;; and the first ply of a fourth. Use it to replay tournament logs.
(variant
  (name platform)
  (summary "4x8 traditional with the CDC platform's repetition rule (three cycles and one ply) and 180-ply no-progress")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition (cycle 3 1)))

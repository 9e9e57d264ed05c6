;; The paper's Table V game: the strategic variant on 2x4 with KPPPkppp.
(variant
  (name strategic-2x4)
  (summary "2x4 strategic game with KPPPkppp, as in Table V of the paper")
  (game strategic)
  (board (rectangle 2 4))
  (pieces KPPPkppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (start bag)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

;; The 2x4 game of the paper's Table IV: one king and three pawns per side.
;; The format of this file is documented in protocol/VARIANTS.md.
(variant
  (name traditional-2x4)
  (summary "2x4 board with KPPPkppp, as in Table IV of the paper; ICGA capture and draw rules")
  (game traditional)
  (board (rectangle 2 4))
  (pieces KPPPkppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (players 2)
  (start face-down)
  (clock (game-ms 900000))           ; 15 minutes per player per game, sudden death
  (no-progress 180)
  (repetition 3))

;; A fixed-board puzzle with every piece given, the face-down one included (no randomness):
;;   C . X g        red cannon at 0, a face-down black king at 2, a black guard at 3
;;   K . . p        red king at 4, a black pawn at 7
;; Red (player 1) moves first; the cannon can take the guard over the face-down screen, but
;; whether red then wins depends on what both sides do next (it is not a forced win).
(variant
  (name puzzle)
  (summary "2x4 puzzle from a given board and deal: red cannon and king against king, guard and pawn")
  (game traditional)
  (board (rectangle 2 4))
  (pieces CKkgp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (start (fixed "C.XgK..p" "..k....."))
  (colours fixed)
  (no-progress 40)
  (repetition 3))

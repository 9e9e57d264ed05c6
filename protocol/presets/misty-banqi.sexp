;; The rules MistyBanqi (github.com/brianhliou/misty-banqi, protocol uci-banqi) plays by in its
;; search: traditional 4x8 capture rules, a draw after 40 plies without a flip or capture, and
;; the first repetition of a position scored as a draw. It claims nothing: the referee's rules
;; decide, and `assumes = "misty-banqi"` lets anqi warn where they differ and translate the
;; no-progress count (the FEN's CLOCK). A belief, not a variant to play (see BRIDGES.md).
(variant
  (name misty-banqi)
  (summary "what MistyBanqi believes: 40-ply no-progress draw, a position repeated once draws")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)
  (no-progress 40)
  (repetition 2))

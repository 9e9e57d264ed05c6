;; Hong Kong style cannons (as in Ludii's Banqi): a cannon does not jump; it steps and captures
;; by rank like the other pieces (so it takes cannons and pawns). Ludii has no draw rule; a
;; referee needs one (otherwise two lone kings could dance forever), so the ICGA rules apply.
(variant
  (name hong-kong)
  (summary "4x8 with Hong Kong style cannons: no jump, cannons step-capture by rank; ICGA draw rules")
  (game traditional)
  (board (rectangle 4 8))
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  (step-capture (forbid (K P)) (allow (P K)))
  (cannon-jump #f)
  (clock (game-ms 900000))
  (no-progress 180)
  (repetition 3))

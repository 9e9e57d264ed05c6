;; Traditional Chinese Dark Chess as played at the ICGA Computer Olympiad.
;; The format of this file is documented in protocol/VARIANTS.md.
(variant
  (name traditional)
  (summary "4x8 board, 32 face-down pieces, ICGA rules: 180-ply no-progress and threefold repetition draws")
  (game traditional)                 ; sent to clients as (game traditional)
  (board (rectangle 4 8))            ; 4 lines of 8 cells, numbered row by row
  (pieces KGGBBRRNNCCPPPPPkggbbrrnnccppppp)
  ;; Higher rank captures lower or equal rank by a step...
  (ranks (K 7) (G 6) (B 5) (R 4) (N 3) (C 2) (P 1))
  ;; ...except: the king never takes a pawn, a cannon never takes by a step, a pawn takes the king.
  (step-capture (forbid (K P) (C *)) (allow (P K)))
  (cannon-jump #t)                   ; cannons capture by jumping exactly one screen
  (players 2)
  (start face-down)                  ; every piece dealt face-down at random
  (clock (game-ms 900000))           ; 15 minutes per player per game, sudden death
  (no-progress 180)                  ; draw after 180 plies with no reveal and no capture
  (repetition 3))                    ; draw when a position occurs for the third time

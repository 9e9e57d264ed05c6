"""A client for the anqi (Chinese Dark Chess) server, written from protocol/PROTOCOL.md alone.

It uses the standard library only and shares no code with the server or with the ``anqi``
package: it is the proof that the protocol description suffices, and a second, independent
implementation of the rules that the shared legal-count tables (``tests/data/legal_counts/``)
check against the Rust core. ``anqi_random_bot.py`` beside this package is its command line.

Modules, each depending only on the ones above it:

- :mod:`.sexp`: reading and printing S-expressions (messages and variant descriptions);
- :mod:`.framing`: cutting the TCP byte stream into messages;
- :mod:`.topology`: cells, steps and cannon rays decoded from the setup;
- :mod:`.messages`: a message's clauses and their arguments, and the setup's board;
- :mod:`.rules`: capture tables, and the legal actions (and their counts) of a public state;
- :mod:`.variant`: variant descriptions;
- :mod:`.colours`: who owns which colour, from the boards going by;
- :mod:`.strategy`: how a bot picks one legal action;
- :mod:`.client`: one game's protocol state (no I/O) and the socket loop.

The protocol in brief
---------------------
The client and server talk over TCP. Each message is one S-expression list of clauses,
and each clause is a list that starts with a symbol. The server ends each message with a
newline, but a reader should find where a message ends by matching parentheses (strings in
"double quotes" with backslash escapes count as text, not as parentheses), because TCP can
split one message across reads or deliver several in one read.

    server: ((version 1.0))
    client: ((ext variant))                         ask for the variant's description
            ((init py_random 1234))                 name, then our seed contribution
    server: ((id 1)(players 2)(game traditional)(size 8)(pieces KPPPkppp)
             (moves (0 1)(0 4)...)(jumps (0 2 3)...)(revs (0)(1)...))      setup, one line
    server: ((board XXXXXXXX)(turn 0 1))            player 1 must act (round 0)
            ((board XXXXXXXX)(info 0 1))            what the other players get
    client: ((board XXXXXXXX)(rev 5))               reveal cell 5, echoing the board
            ((board KPXXpXXX)(mov 4 0))             or move/capture from 4 to 0
            ((resign))                              or give up
    server: ((error illegal "text"))                our action was refused; the server
                                                    then sends turn again
    server: ((win 1 0))                             player 1 won; (win 0 2) means team 2
                                                    won; (win 0 0) is a draw or a failed
                                                    single-player game. The server then
                                                    hangs up.

Other variants add a few clauses:

- Team games: the setup carries ``(team T)`` and one ``(teammate ID)`` per teammate. The
  turn order can be anything (``1 2 1 3`` in one-against-two), so the bot simply acts
  whenever ``(turn T ID)`` names its id.
- Bag (strategic) games: the setup has ``(puts ...)`` instead of ``(revs ...)``; an ``X`` on
  the board is a cell that never held a piece (an empty cell). ``((board B)(bag))`` draws a
  piece; every prompt then shows ``(hand P)`` until the same player sends
  ``((board B)(put P POS))`` onto an empty cell.
- Chain capture: after a capture, if the capturing piece can capture again, the same
  player is prompted again and must capture with that piece.
- Single-player and cooperative games: every player moves pieces of both colours.

Clauses this bot does not know are ignored, so that newer servers still work with it. The
setup's ``(revs ...)`` and ``(puts ...)`` are read past: the board itself shows which cells
can be revealed or filled.

The paper's messages never carry the capture rules, the colour rule or the objective: they
are in the variant description. This bot asks the server for it with the ``variant``
extension, ``((ext variant))`` sent before its ``init``; the setup message then ends with
``(variant "DESCRIPTION")``. ``--variant`` gives the description instead (the server's
``--variant`` should name the same one). From a server without extensions (which answers
``((error unknown ...))`` and seats the bot all the same) and without ``--variant``, the bot
assumes the standard rules (see :func:`.variant.default_variant`).

The board is a string with one character per cell, cell 0 first. Upper case letters are
red pieces and lower case are black: K king, G guard, B bishop, R rook, N knight, C
cannon, P pawn. ``X`` is a face-down piece and ``.`` is an empty cell. The setup lists the
board's single steps (``moves``) and the lines along which cannons jump (``jumps``, in a
compact form that :meth:`.topology.Topology.from_wire` explains).
"""

//! Facts about moves in a position that shakmaty does not give directly, computed from
//! bitboards: which moves are captures or promotions, the captures and queen promotions
//! generated directly (for quiescence), whether a move gives check, and static exchange
//! evaluation.

use shakmaty::attacks::{self, attacks, bishop_attacks, king_attacks, rook_attacks};
use shakmaty::{
    Bitboard, Board, CastlingSide, Chess, Color, Move, MoveList, Piece, Position as _, Rank, Role,
    Square,
};

/// Piece values for exchange evaluation and MVV-LVA, indexed by `Role as usize`.
pub(crate) const SEE_VALUE: [i32; 7] = [0, 100, 300, 300, 500, 900, 20_000];

fn value(role: Role) -> i32 {
    SEE_VALUE[role as usize]
}

/// True for moves that change material: captures and promotions.
pub(crate) fn is_tactical(m: Move) -> bool {
    m.is_capture() || m.is_promotion()
}

/// The squares `m` leaves and reaches, castling as king to rook square (shakmaty's
/// [`Move::from`] and [`Move::to`]); none for a drop, which standard chess does not have. The
/// table's packed moves and the butterfly history are indexed by it.
#[inline(always)]
pub(crate) fn from_to(m: Move) -> Option<(Square, Square)> {
    match m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => Some((from, to)),
        Move::Castle { king, rook } => Some((king, rook)),
        Move::Put { .. } => None,
    }
}

/// The moving piece's role and [`from_to`]'s squares as indices, read in one match: each of
/// shakmaty's accessors matches the move again, which cost the scoring of quiet moves more
/// than its table lookups. A drop, which standard chess does not have, reads its target twice.
pub(crate) fn role_from_to(m: Move) -> (Role, usize, usize) {
    match m {
        Move::Normal { role, from, to, .. } => (role, from as usize, to as usize),
        Move::EnPassant { from, to } => (Role::Pawn, from as usize, to as usize),
        Move::Castle { king, rook } => (Role::King, king as usize, rook as usize),
        Move::Put { role, to } => (role, to as usize, to as usize),
    }
}

/// Whether a move takes a piece off a square or puts one on a square.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Off,
    On,
}

/// Calls `f` for each piece that `m`, played by `us`, takes off a square or puts on one: the
/// moving piece off its square and onto its target (promoted if it promotes), a captured piece
/// off its square (the one en passant empties), the castling rook off its square and onto its
/// own. The Zobrist key (keys.rs) and the net's accumulator (eval/nnue.rs) are both updated
/// through it. Inlined, each call of `f` is straight-line code for its kind of move.
#[inline(always)]
pub(crate) fn piece_changes(us: Color, m: Move, mut f: impl FnMut(Change, Piece, Square)) {
    let piece = |color, role| Piece { color, role };
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            f(Change::Off, piece(us, role), from);
            if let Some(captured) = capture {
                f(Change::Off, piece(!us, captured), to);
            }
            f(Change::On, piece(us, promotion.unwrap_or(role)), to);
        }
        Move::EnPassant { from, to } => {
            f(Change::Off, piece(us, Role::Pawn), from);
            let victim = Square::from_coords(to.file(), from.rank());
            f(Change::Off, piece(!us, Role::Pawn), victim);
            f(Change::On, piece(us, Role::Pawn), to);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            let rank = king.rank();
            f(Change::Off, piece(us, Role::King), king);
            f(Change::Off, piece(us, Role::Rook), rook);
            let king_to = Square::from_coords(side.king_to_file(), rank);
            f(Change::On, piece(us, Role::King), king_to);
            let rook_to = Square::from_coords(side.rook_to_file(), rank);
            f(Change::On, piece(us, Role::Rook), rook_to);
        }
        Move::Put { .. } => unreachable!("no drops in standard chess"),
    }
}

/// The legal captures and queen promotions of a position that is not in check, generated
/// directly (shakmaty's `capture_moves` generates every legal move and filters): each piece's
/// attacks on enemy pieces, pinned pieces kept on their pin line, king captures onto squares
/// the enemy does not attack, pawn captures and pushes to the last rank as queen promotions,
/// and en passant through shakmaty. Tested against filtering `legal_moves`.
pub(crate) fn tactical_moves(chess: &Chess) -> MoveList {
    let mut moves = MoveList::new();
    let board = chess.board();
    let us = chess.turn();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return moves;
    };
    debug_assert!(!chess.is_check(), "evasions come from legal_moves");

    // Our pieces that alone stand between our king and an enemy slider.
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()
        | bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
        & theirs;
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let between = attacks::between(king, sniper) & occupied;
        if !between.more_than_one() {
            pinned |= between & ours;
        }
    }
    let legal =
        |from: Square, to: Square| !pinned.contains(from) || attacks::aligned(from, to, king);
    let last_rank = Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First));

    for from in ours & !board.kings() {
        let role = board.role_at(from).expect("occupied");
        if role == Role::Pawn {
            for to in attacks::pawn_attacks(us, from) & theirs {
                if legal(from, to) {
                    let promotion = last_rank.contains(to).then_some(Role::Queen);
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion,
                    });
                }
            }
            if let Some(to) = from.offset(us.fold_wb(8, -8))
                && last_rank.contains(to)
                && !occupied.contains(to)
                && legal(from, to)
            {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: None,
                    to,
                    promotion: Some(Role::Queen),
                });
            }
        } else {
            for to in attacks(from, Piece { color: us, role }, occupied) & theirs {
                if legal(from, to) {
                    moves.push(Move::Normal {
                        role,
                        from,
                        capture: board.role_at(to),
                        to,
                        promotion: None,
                    });
                }
            }
        }
    }
    let without_king = occupied.without(king);
    for to in king_attacks(king) & theirs {
        if board.attacks_to(to, !us, without_king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    if chess.maybe_ep_square().is_some() {
        moves.extend(chess.en_passant_moves());
    }
    moves
}

/// True when `m` gives check, from bitboards, without making the move: a direct check by
/// the moved (or promoted) piece from its target square, or a discovered check by a slider of
/// ours once the moved piece (and an en passant victim) has left. Castling is played out.
// Kept out of line: `Checks::gives_check` calls it only for the rare moves it does not decide
// itself, and inlined there it made the common path 1% of the bench's instructions dearer.
#[inline(never)]
pub(crate) fn gives_check(chess: &Chess, m: Move) -> bool {
    let board = chess.board();
    let us = chess.turn();
    let Some(king) = board.king_of(!us) else {
        return false;
    };
    let (from, to, role) = match m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion.unwrap_or(role)),
        Move::EnPassant { from, to } => (from, to, Role::Pawn),
        Move::Castle { .. } | Move::Put { .. } => {
            let mut after = chess.clone();
            after.play_unchecked(m);
            return after.is_check();
        }
    };
    let mut occupied = board.occupied().without(from).with(to);
    if let Move::EnPassant { from, to } = m {
        occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
    }
    if attacks(to, Piece { color: us, role }, occupied).contains(king) {
        return true;
    }
    let sliders = (bishop_attacks(king, occupied) & board.bishops_and_queens())
        | (rook_attacks(king, occupied) & board.rooks_and_queens());
    (sliders & board.by_color(us)).without(from).any()
}

/// Whether `m` is legal in `chess`, as shakmaty's `is_legal`, but for a normal move tested
/// alone: the piece and capture it names are on its squares, the piece can reach the target
/// (a pawn's push or capture, promoting exactly on the last rank), and afterwards no enemy
/// piece but the captured one attacks our king. shakmaty's `is_legal` generates every move of
/// the piece's kind to the target and looks for `m` among them, which made the legality check
/// of the table's move 3% of the bench's instructions. Castling and en passant go to
/// shakmaty.
pub(crate) fn is_legal(chess: &Chess, m: Move) -> bool {
    let Move::Normal {
        role,
        from,
        capture,
        to,
        promotion,
    } = m
    else {
        return chess.is_legal(m);
    };
    let board = chess.board();
    let us = chess.turn();
    let ours = board.by_color(us);
    if !ours.contains(from)
        || ours.contains(to)
        || board.role_at(from) != Some(role)
        || board.role_at(to) != capture
        || capture == Some(Role::King)
    {
        return false;
    }
    let occupied = board.occupied();
    let reaches = if role == Role::Pawn {
        let last = to.rank() == (!us).backrank();
        let promotes_well = match promotion {
            None => !last,
            Some(p) => last && !matches!(p, Role::Pawn | Role::King),
        };
        let forward = if us == Color::White { 8 } else { -8 };
        let step = from.offset(forward);
        let reaches = if capture.is_some() {
            attacks::pawn_attacks(us, from).contains(to)
        } else if step == Some(to) {
            true
        } else {
            // A double step from the second rank, over an empty square.
            from.rank() == us.fold_wb(Rank::Second, Rank::Seventh)
                && step.and_then(|s| s.offset(forward)) == Some(to)
                && step.is_some_and(|s| !occupied.contains(s))
        };
        promotes_well && reaches
    } else {
        promotion.is_none() && attacks(from, Piece { color: us, role }, occupied).contains(to)
    };
    if !reaches {
        return false;
    }
    let Some(king) = board.king_of(us) else {
        return false;
    };
    let after = occupied.without(from).with(to);
    let target = if role == Role::King { to } else { king };
    board.attacks_to(target, !us, after).without(to).is_empty()
}

/// What a node needs to tell cheaply whether each of its moves gives check (Stockfish's
/// `checkSquares` and `blockersForKing`): computed once for a position, then
/// [`Checks::gives_check`] costs a few instructions for a move that is not a promotion, en
/// passant or castling, where [`gives_check`] looks up the king's slider lines every time.
pub(crate) struct Checks {
    /// The enemy king.
    king: Square,
    /// By role (`Role as usize`), the squares from which a piece of ours of that role would
    /// attack the enemy king in the present occupancy.
    squares: [Bitboard; 7],
    /// Our pieces that alone stand between one of our sliders and the enemy king: moving one
    /// off that line gives check.
    discoverers: Bitboard,
}

impl Checks {
    /// The check facts of the side to move's moves; none when the enemy has no king.
    pub(crate) fn new(chess: &Chess) -> Option<Checks> {
        let board = chess.board();
        let us = chess.turn();
        let king = board.king_of(!us)?;
        let occupied = board.occupied();
        let (bishop, rook) = (bishop_attacks(king, occupied), rook_attacks(king, occupied));
        let mut squares = [Bitboard::EMPTY; 7];
        squares[Role::Pawn as usize] = attacks::pawn_attacks(!us, king);
        squares[Role::Knight as usize] = attacks::knight_attacks(king);
        squares[Role::Bishop as usize] = bishop;
        squares[Role::Rook as usize] = rook;
        squares[Role::Queen as usize] = bishop | rook;
        let ours = board.by_color(us);
        let snipers = ours
            & ((bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
                | (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()));
        let mut discoverers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(king, sniper) & occupied;
            if !between.more_than_one() {
                discoverers |= between & ours;
            }
        }
        Some(Checks {
            king,
            squares,
            discoverers,
        })
    }

    /// Whether `m`, a legal move of `chess` (the position of [`Checks::new`]), gives check:
    /// [`gives_check`], exactly.
    pub(crate) fn gives_check(&self, chess: &Chess, m: Move) -> bool {
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                // A direct check: the king was not in check, so the origin never stood
                // between the target and the king on an open line, and the present occupancy
                // serves. A discovered one: the origin left a line it alone blocked.
                self.squares[role as usize].contains(to)
                    || (self.discoverers.contains(from) && !attacks::aligned(from, to, self.king))
            }
            _ => gives_check(chess, m),
        }
    }
}

/// Static exchange evaluation: does playing `m` and the best sequence of recaptures on its
/// target square win at least `threshold` centipawns for the mover? (The swap algorithm,
/// chessprogramming wiki "SEE - The Swap Algorithm", in the threshold form of Stockfish's
/// `see_ge`.) Pins are ignored.
pub(crate) fn see_ge(board: &Board, m: Move, threshold: i32) -> bool {
    let (from, to) = match m {
        Move::Castle { .. } | Move::Put { .. } => return 0 >= threshold,
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
    };
    let mut swap = m.capture().map_or(0, value) - threshold;
    if let Some(p) = m.promotion() {
        swap += value(p) - value(Role::Pawn);
    }
    if swap < 0 {
        return false;
    }
    let moved = m.promotion().unwrap_or(m.role());
    swap = value(moved) - swap;
    if swap <= 0 {
        return true;
    }

    let mut occupied = board.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(to);
    if let Move::EnPassant { from, to } = m {
        occupied ^= Bitboard::from_square(Square::from_coords(to.file(), from.rank()));
    }
    let mover = board.color_at(from).expect("a piece on the from square");
    let mut side = mover;
    let mut attackers = attackers_to(board, to, occupied);
    let bishops = board.bishops() | board.queens();
    let rooks = board.rooks() | board.queens();
    let mut result = true;

    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let Some((role, sq)) = least_valuable(board, ours) else {
            break;
        };
        if role == Role::King {
            // The king may only recapture if the other side has no attacker left.
            return if (attackers & board.by_color(!side)).any() {
                !result
            } else {
                result
            };
        }
        swap = value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        occupied ^= Bitboard::from_square(sq);
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & bishops;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & rooks;
        }
    }
    result
}

fn attackers_to(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    board.attacks_to(sq, Color::White, occupied) | board.attacks_to(sq, Color::Black, occupied)
}

fn least_valuable(board: &Board, attackers: Bitboard) -> Option<(Role, Square)> {
    Role::ALL.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|sq| (role, sq))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Position;

    #[test]
    fn static_exchange_evaluation() {
        // (fen, move, threshold, expected)
        let cases = [
            // Pawn takes a defended knight: wins a knight for a pawn.
            ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 200, true),
            // Queen takes a pawn defended by a pawn: loses the queen.
            ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 0, false),
            // Rook takes an undefended rook.
            ("4k3/8/8/3r4/8/8/3R4/4K3 w - - 0 1", "d2d5", 500, true),
            // Knight takes a pawn defended once, with a second attacker behind: even.
            ("4k3/8/4p3/3p4/8/4N3/8/3RK3 w - - 0 1", "e3d5", 0, false),
            // X-ray: rook takes, the rook behind it backs it up against the queen's recapture.
            ("3qk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100, true),
            // A quiet move onto an attacked square is a loss.
            ("4k3/8/8/3p4/8/8/8/N3K3 w - - 0 1", "a1b3", 0, true),
            ("4k3/8/2p5/8/8/8/8/N3K3 w - - 0 1", "a1b3", 0, true),
            ("4k3/8/8/8/2p5/8/8/N3K3 w - - 0 1", "a1b3", 0, false),
        ];
        for (fen, uci, threshold, expected) in cases {
            let pos = Position::from_fen(fen).unwrap();
            let m = pos.parse_uci(uci).unwrap();
            assert_eq!(
                see_ge(pos.chess().board(), m, threshold),
                expected,
                "{fen} {uci} {threshold}"
            );
        }
    }

    #[test]
    fn tactical_moves_are_the_legal_captures_and_queen_promotions() {
        // Under-promotions, also with capture, stay out of quiescence.
        let mut checked = 0;
        let roots = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/8/8/2k5/3pP3/8/8/1K4B1 b - e3 0 1",
            "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 1",
            "1n2k3/P6P/8/8/8/8/p6p/1N2K3 w - - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
        ];
        for fen in roots {
            let mut stack = vec![Position::from_fen(fen).unwrap()];
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &stack {
                    if !p.in_check() {
                        let mut want: Vec<Move> = p
                            .legal_moves()
                            .into_iter()
                            .filter(|m| matches!(m.promotion(), None | Some(Role::Queen)))
                            .filter(|m| m.is_capture() || m.promotion().is_some())
                            .collect();
                        let mut got: Vec<Move> = tactical_moves(p.chess()).into_iter().collect();
                        let key = |m: &Move| format!("{m:?}");
                        want.sort_by_key(key);
                        got.sort_by_key(key);
                        assert_eq!(got, want, "{}", p.fen());
                        checked += 1;
                    }
                    for m in p.legal_moves() {
                        let mut child = p.clone();
                        child.push(m);
                        next.push(child);
                    }
                }
                stack = next;
            }
        }
        assert!(checked > 4_000, "{checked}");
    }

    /// `is_legal` against shakmaty's on every normal move a table entry could name (every
    /// origin holding a piece, every target with what stands there, every promotion role,
    /// and the wrong capture) in positions two plies from checks, pins, promotions and en
    /// passant.
    #[test]
    fn is_legal_agrees_with_shakmaty() {
        let (mut legal, mut tried) = (0, 0);
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/8/8/2k5/3pP3/8/8/1K4B1 b - e3 0 1",
            "3r2k1/4P3/8/8/8/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
        ] {
            let mut stack = vec![Position::from_fen(fen).unwrap()];
            let mut positions = Vec::new();
            for _ in 0..2 {
                let mut next = Vec::new();
                for p in &stack {
                    for m in p.legal_moves() {
                        let mut child = p.clone();
                        child.push(m);
                        next.push(child);
                    }
                }
                positions.append(&mut stack);
                stack = next;
            }
            positions.extend(stack.into_iter().step_by(7));
            for p in &positions {
                let chess = p.chess();
                let board = chess.board();
                for from in board.occupied() {
                    let role = board.role_at(from).unwrap();
                    for to in Square::ALL {
                        let at = board.role_at(to);
                        let wrong = if at.is_some() {
                            None
                        } else {
                            Some(Role::Knight)
                        };
                        for capture in [at, wrong] {
                            for promotion in [
                                None,
                                Some(Role::Queen),
                                Some(Role::Knight),
                                Some(Role::King),
                                Some(Role::Pawn),
                            ] {
                                let m = Move::Normal {
                                    role,
                                    from,
                                    capture,
                                    to,
                                    promotion,
                                };
                                let want = chess.is_legal(m);
                                assert_eq!(is_legal(chess, m), want, "{} {m:?}", p.fen());
                                legal += usize::from(want);
                                tried += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(legal > 20_000 && tried > 1_000_000, "{legal} of {tried}");
    }

    #[test]
    fn gives_check_and_checks_agree_with_making_the_move() {
        let mut checks = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/8/8/2k5/3pP3/8/8/1K4B1 b - e3 0 1",
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3r2k1/4P3/8/8/8/8/8/R3K3 w Q - 0 1",
            "4k3/8/8/8/1b6/8/3P4/4K3 w - - 0 1",
            "1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut stack = vec![pos];
            // Three plies deep from each position.
            for _ in 0..3 {
                let mut next = Vec::new();
                for p in &stack {
                    let node = Checks::new(p.chess()).expect("a king");
                    for m in p.legal_moves() {
                        let mut child = p.clone();
                        child.push(m);
                        assert_eq!(
                            gives_check(p.chess(), m),
                            child.in_check(),
                            "{} {m:?}",
                            p.fen()
                        );
                        assert_eq!(
                            node.gives_check(p.chess(), m),
                            child.in_check(),
                            "Checks: {} {m:?}",
                            p.fen()
                        );
                        checks += usize::from(child.in_check());
                        next.push(child);
                    }
                }
                stack = next;
            }
        }
        assert!(checks > 2_000, "{checks}");
    }
}

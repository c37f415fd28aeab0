//! Tests of the network: its file, incremental updates against refreshes, colour symmetry,
//! output buckets, and the SIMD-dispatched functions against the plain fallback.

use super::*;
use crate::position::Position;

/// Every width a net file may have, narrowest to widest.
const WIDTHS: [usize; 4] = [32, 64, 128, MAX_HIDDEN];

/// The built-in net is the file its name says: `nn-` and the first 12 hex digits of its
/// SHA-256, and that file is in the source tree beside this one.
#[test]
fn the_built_in_net_is_named_by_its_hash() {
    use sha2::{Digest, Sha256};
    let hex: String = Sha256::digest(Network::BUILT_IN)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(Network::BUILT_IN_NAME, format!("nn-{}.lznn", &hex[..12]));
    let beside = std::path::Path::new(file!()).with_file_name(Network::BUILT_IN_NAME);
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(beside);
    assert_eq!(std::fs::read(file).unwrap(), Network::BUILT_IN);
    assert!(Network::from_bytes(Network::BUILT_IN).is_ok());
}

#[test]
fn incremental_updates_equal_a_refresh_along_random_games() {
    for hidden in WIDTHS {
        incremental_updates_equal_a_refresh(hidden);
    }
}

fn incremental_updates_equal_a_refresh(hidden: usize) {
    let net = Network::from_bytes(&Network::random_bytes(hidden, 1, 7)).unwrap();
    assert_eq!(net.hidden(), hidden);
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut checked = 0;
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ] {
        for _game in 0..20 {
            let mut pos = Position::from_fen(fen).unwrap();
            let mut acc = net.refresh(pos.chess());
            let mut next = Accumulator::empty();
            for _ply in 0..80 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                acc.update(&net, pos.chess(), m, &mut next);
                std::mem::swap(&mut acc, &mut next);
                pos.push(m);
                let fresh = net.refresh(pos.chess());
                assert!(
                    acc.halves == fresh.halves,
                    "width {hidden}: {} after {m:?}",
                    pos.fen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked}");
}

/// The dispatched entry points (compiled for the widest target this CPU has) and the
/// plain fallback (the build's default target, called directly) agree on refreshes,
/// updates and evaluations, at every width a net may have, from random positions, moves
/// and accumulator lanes (past both ends of the clamp, and anywhere in `i16`, where the
/// updates wrap).
#[test]
fn the_dispatched_functions_equal_the_plain_fallback() {
    #[cfg(target_arch = "x86_64")]
    eprintln!(
        "this CPU: avx2 {}, avx512bw {}, avx512vbmi2 {}",
        std::arch::is_x86_feature_detected!("avx2"),
        std::arch::is_x86_feature_detected!("avx512bw"),
        std::arch::is_x86_feature_detected!("avx512vbmi2"),
    );
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for hidden in (HIDDEN_STEP..=MAX_HIDDEN).step_by(HIDDEN_STEP) {
        for buckets in [1, 8] {
            let seed = (hidden * buckets) as u64;
            let net = Network::from_bytes(&Network::random_bytes(hidden, buckets, seed)).unwrap();
            for fen in [
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            ] {
                let mut pos = Position::from_fen(fen).unwrap();
                for ply in 0..40 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[rng.below(moves.len())];
                    let chess = pos.chess();
                    let fresh = dispatched::refresh(&net, chess);
                    assert!(fresh.halves == plain::refresh(&net, chess).halves);
                    let mut random = Accumulator::empty();
                    for lane in random.halves.iter_mut().flat_map(|h| &mut h[..hidden]) {
                        *lane = match ply % 2 {
                            0 => rng.below(4 * QA as usize + 1) as i16 - 2 * QA as i16,
                            _ => rng.below(1 << 16) as u16 as i16,
                        };
                    }
                    for acc in [&fresh, &random] {
                        let what = format!("width {hidden}, {buckets} buckets: {}", pos.fen());
                        assert_eq!(
                            dispatched::evaluate(&net, acc, chess),
                            plain::evaluate(&net, acc, chess),
                            "{what}"
                        );
                        let (mut simd, mut fallback) = (Accumulator::empty(), Accumulator::empty());
                        dispatched::apply(&net, acc, chess.turn(), m, &mut simd);
                        plain::apply(&net, acc, chess.turn(), m, &mut fallback);
                        assert!(simd.halves == fallback.halves, "{what} {m:?}");
                        checked += 1;
                    }
                    pos.push(m);
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn a_position_and_its_colour_mirror_evaluate_the_same() {
    for hidden in WIDTHS {
        a_position_and_its_mirror_evaluate_the_same(hidden);
    }
}

fn a_position_and_its_mirror_evaluate_the_same(hidden: usize) {
    let buckets = if hidden == 64 { 8 } else { 1 };
    let net = Network::from_bytes(&Network::random_bytes(hidden, buckets, 11)).unwrap();
    let mut distinct = std::collections::HashSet::new();
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/2N5/PP2PPPP/R1BQKBNR b KQkq - 1 4",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let mirror = pos.mirrored();
        let score = net.evaluate(&net.refresh(pos.chess()), pos.chess());
        let mirrored = net.evaluate(&net.refresh(mirror.chess()), mirror.chess());
        assert_eq!(score, mirrored, "width {hidden}: {fen}");
        distinct.insert(score);
    }
    assert!(
        distinct.len() > 2,
        "the random net says something: {distinct:?}"
    );
}

/// (pieces, buckets, the bucket): the first and last piece count of every bucket.
const BUCKETS: [(usize, usize, usize); 12] = [
    (2, 1, 0),
    (32, 1, 0),
    (17, 2, 0),
    (18, 2, 1),
    (9, 4, 0),
    (10, 4, 1),
    (32, 4, 3),
    (2, 8, 0),
    (5, 8, 0),
    (6, 8, 1),
    (29, 8, 6),
    (30, 8, 7),
];

#[test]
fn the_bucket_of_a_piece_count() {
    for (pieces, buckets, want) in BUCKETS {
        let net = Network::from_bytes(&Network::random_bytes(32, buckets, 1)).unwrap();
        assert_eq!(net.buckets(), buckets);
        assert_eq!(
            net.bucket(pieces),
            want,
            "{pieces} pieces, {buckets} buckets"
        );
    }
}

/// A net of 8 output buckets scores a position as the one-bucket net made of its
/// hidden layer and the output layer of the position's bucket.
#[test]
fn a_bucketed_net_evaluates_with_the_bucket_of_the_piece_count() {
    let hidden = 64;
    let bytes = Network::random_bytes(hidden, 8, 5);
    let net = Network::from_bytes(&bytes).unwrap();
    // Version 2's header is one word longer; its body holds the hidden layer, then
    // 8 output layers of 2H i16 each, then 8 biases.
    let hidden_end = 28 + 2 * (INPUTS + 1) * hidden;
    let layer = 4 * hidden;
    let bias_start = hidden_end + 8 * layer;
    let single = |b: usize| {
        let mut one = bytes[..24].to_vec();
        one[4..8].copy_from_slice(&VERSION.to_le_bytes());
        one.extend(&bytes[28..hidden_end]);
        one.extend(&bytes[hidden_end + b * layer..hidden_end + (b + 1) * layer]);
        one.extend(&bytes[bias_start + 4 * b..bias_start + 4 * (b + 1)]);
        Network::from_bytes(&one).unwrap()
    };
    let mut buckets_seen = std::collections::HashSet::new();
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R1BQKB1R w KQ - 0 8",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    ] {
        let pos = Position::from_fen(fen).unwrap();
        let b = net.bucket(pos.chess().board().occupied().count());
        buckets_seen.insert(b);
        let acc = net.refresh(pos.chess());
        let one = single(b);
        assert_eq!(
            net.evaluate(&acc, pos.chess()),
            one.evaluate(&one.refresh(pos.chess()), pos.chess()),
            "{fen}"
        );
        // Another bucket's layer gives another score (the random layers differ).
        let other = single((b + 1) % 8);
        assert_ne!(
            net.evaluate(&acc, pos.chess()),
            other.evaluate(&other.refresh(pos.chess()), pos.chess()),
            "{fen}"
        );
    }
    assert!(buckets_seen.len() >= 4, "{buckets_seen:?}");
}

#[test]
fn bad_net_files_are_refused() {
    let good = Network::random_bytes(MAX_HIDDEN, 1, 3);
    assert!(Network::from_bytes(&good).is_ok());
    // A width the header names but the body does not hold, and widths no build reads.
    let width = |w: u32| {
        let mut bytes = good.clone();
        bytes[8..12].copy_from_slice(&w.to_le_bytes());
        bytes
    };
    let buckets = |b: u32| {
        let mut bytes = Network::random_bytes(32, 2, 3);
        bytes[24..28].copy_from_slice(&b.to_le_bytes());
        bytes
    };
    let mut big_output = good.clone();
    let at = good.len() - 4 - 2;
    big_output[at..at + 2].copy_from_slice(&1000i16.to_le_bytes());
    for (what, bytes) in [
        ("empty", Vec::new()),
        ("magic", b"NNUE".iter().chain(&good[4..]).copied().collect()),
        ("width 128 with a 256-wide body", width(128)),
        ("width 0", width(0)),
        ("width 48", width(48)),
        ("width 512", width(512)),
        ("narrow net truncated", {
            let narrow = Network::random_bytes(64, 1, 3);
            narrow[..narrow.len() - 1].to_vec()
        }),
        ("truncated", good[..good.len() - 1].to_vec()),
        ("trailing", good.iter().chain(&[0u8]).copied().collect()),
        ("output weight", big_output),
        ("bucketed net truncated", {
            let bucketed = Network::random_bytes(32, 4, 3);
            bucketed[..bucketed.len() - 4].to_vec()
        }),
        ("3 buckets", buckets(3)),
        ("16 buckets", buckets(16)),
        ("0 buckets", buckets(0)),
        ("version 3", {
            let mut bytes = Network::random_bytes(32, 2, 3);
            bytes[4..8].copy_from_slice(&3u32.to_le_bytes());
            bytes
        }),
    ] {
        assert!(Network::from_bytes(&bytes).is_err(), "{what}");
    }
}

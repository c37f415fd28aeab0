//! Training tests: loss falls, runs are reproducible, gradients are right, the quantised net
//! agrees with the float one and the net file has the documented layout.

use shakmaty::{Chess, Color};

use super::net::{self, Features, Gradients, Network, QuantisedNet, Scratch};
use super::*;
use crate::format::{self, Decoded, PackedBoard, Piece, decode, encode};
use lazuli::Rng;

/// `count` synthetic positions.
pub(super) fn data(count: usize, seed: u64) -> Vec<PackedBoard> {
    synth::generate(count, seed)
}

pub(super) fn small_config(threads: usize) -> TrainConfig {
    TrainConfig {
        hidden: 32,
        epochs: 3,
        batch_size: 256,
        lr: 0.01,
        threads,
        seed: 5,
        validation_fraction: 0.1,
        ..TrainConfig::default()
    }
}

/// Mean loss over all usable records, single-threaded (independent of `train`).
fn loss_over(net: &Network, records: &[PackedBoard], lambda: f32) -> f64 {
    let mut sum = 0.0;
    for d in records.iter().filter_map(usable) {
        let p = net::sigmoid(net.forward(&Features::new(&d)));
        let t = net::target(&d, lambda);
        sum += ((p - t) * (p - t)) as f64;
    }
    sum / records.len() as f64
}

/// Test 2: a few hundred steps on a few thousand positions, read back from `.bin` files,
/// cut the loss well below that of the initial network.
#[test]
fn training_reduces_loss() {
    let dir = std::env::temp_dir().join(format!("lazuli-train-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = data(4000, 11);
    format::write_file(&dir.join("part1.bin"), &records[..2500]).unwrap();
    format::write_file(&dir.join("part2.bin"), &records[2500..]).unwrap();
    let read = format::read_dir(&dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(read, records);

    let cfg = TrainConfig {
        epochs: 8,
        ..small_config(2)
    };
    let initial = Network::new_random(cfg.hidden, 1, &mut Rng::new(cfg.seed));
    let mut reports = Vec::new();
    let trained = train(&read, &cfg, |p| reports.push(p.clone())).unwrap();
    let before = loss_over(&initial, &read, cfg.lambda);
    let after = loss_over(&trained, &read, cfg.lambda);
    assert!(after < 0.5 * before, "loss {before} -> {after}");

    // The reports: epoch 0 with the initial validation loss, then every batch, epoch ends.
    let batches = 3600usize.div_ceil(256);
    assert_eq!(reports.len(), 1 + cfg.epochs * (batches + 1));
    let first = &reports[0];
    assert_eq!(
        (first.epoch, first.train_positions, first.val_positions),
        (0, 3600, 400)
    );
    let last = reports.last().unwrap();
    assert!(last.epoch_end && last.epoch == cfg.epochs);
    // Held out: the last playouts whole, never trained on, with noisy labels and random
    // results (about 0.079 -> 0.044 here).
    let (v0, v1) = (first.val_loss.unwrap(), last.val_loss.unwrap());
    assert!(v1 < 0.6 * v0, "validation loss {v0} -> {v1}");
    let first_batch = reports[1].train_loss.unwrap();
    assert!(last.train_loss.unwrap() < 0.5 * first_batch);
}

/// Test 3: the same seed and thread count give bit-identical parameters; another seed does not.
#[test]
fn training_is_deterministic() {
    let records = data(3000, 3);
    for threads in [1, 3] {
        let cfg = small_config(threads);
        let a = train(&records, &cfg, |_| {}).unwrap();
        let b = train(&records, &cfg, |_| {}).unwrap();
        let bits = |n: &Network| n.params.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(&a), bits(&b), "threads {threads}");
        let c = train(&records, &TrainConfig { seed: 6, ..cfg }, |_| {}).unwrap();
        assert_ne!(bits(&a), bits(&c));
    }
}

/// Test 4: after a short run the integer evaluation matches the float one: within 2 cp of the
/// float net with the rounded weights on every position (so the integer arithmetic is right),
/// and within a few cp of the trained float net once `b2` absorbs the mean rounding error.
#[test]
fn quantised_eval_matches_float() {
    let records = data(4000, 21);
    let cfg = TrainConfig {
        hidden: 64,
        epochs: 4,
        ..small_config(2)
    };
    let net = train(&records, &cfg, |_| {}).unwrap();
    let decoded: Vec<Decoded> = records.iter().map(|r| decode(r).unwrap()).collect();
    let (calibration, check) = decoded.split_at(3000);
    // Mean and max |integer - float| over `check`, evaluating through the file's bytes.
    let errors = |q: &QuantisedNet| {
        let bytes = q.to_bytes();
        let deq = q.dequantise();
        let (mut sum, mut max) = (0.0f32, 0.0f32);
        for d in check {
            let int = net::quantised_eval(&bytes, d) as f32;
            let exact = deq.eval_cp(d);
            assert!((int - exact).abs() <= 2.0, "{int} vs {exact}");
            let diff = (int - net.eval_cp(d)).abs();
            (sum, max) = (sum + diff, max.max(diff));
        }
        (sum / check.len() as f32, max)
    };
    let plain = net.quantise();
    let (plain_mean, plain_max) = errors(&plain);
    let mut calibrated = plain.clone();
    let shift = calibrated.calibrate_b2(&net, calibration);
    assert_eq!(calibrated.b2, [plain.b2[0] + shift[0]]);
    let (mean, max) = errors(&calibrated);
    // Spec rounding alone: the w2 rounding errors add up to an offset (about 8 cp here).
    assert!(
        plain_mean < 12.0 && plain_max < 40.0,
        "plain: mean {plain_mean} max {plain_max}"
    );
    // With the offset absorbed by b2, a few cp remain (about 4 here).
    assert!(
        mean < 6.0 && max < 25.0,
        "calibrated: mean {mean} max {max}"
    );
    assert!(mean < plain_mean);
    // The net learnt something: evaluations spread over a range of scores.
    let spread = check
        .iter()
        .fold(0.0f32, |m, d| m.max(net.eval_cp(d).abs()));
    assert!(spread > 200.0, "spread {spread}");
}

/// Backward pass against central finite differences (in f64 via small f32 steps), with and
/// without the factoriser's rows.
#[test]
fn gradients_match_finite_differences() {
    for factorised in [false, true] {
        check_gradients(factorised);
    }
}

/// A random net of width `h` whose accumulators stay mostly inside SCReLU's (0, 1), so that
/// gradients flow, with factor rows drawn from +-`factor_spread`.
pub(super) fn lively_net(h: usize, seed: u64, factor_spread: f32) -> Network {
    let mut rng = Rng::new(seed);
    let mut net = Network::new_random(h, 1, &mut rng);
    for p in &mut net.params[net::B1_ROW * h..net::W2_ROW * h] {
        *p = 0.3 + rng.symmetric(0.2);
    }
    net.params[net::B2_ROW * h] = 0.1;
    for p in &mut net.params[net::FACTOR_ROW * h..] {
        *p = rng.symmetric(factor_spread);
    }
    net
}

/// Whether every factor row of `net` is zero (a plain, merged network).
fn factor_rows_are_zero(net: &Network) -> bool {
    net.params[net::FACTOR_ROW * net.hidden..]
        .iter()
        .all(|&x| x == 0.0)
}

fn check_gradients(factorised: bool) {
    let h = 16;
    let net = lively_net(h, 9, if factorised { 0.02 } else { 0.0 });
    let records = data(5, 4);
    for record in &records {
        let d = decode(record).unwrap();
        let f = if factorised {
            Features::new(&d).factorised()
        } else {
            Features::new(&d)
        };
        let t = net::target(&d, 0.3);
        let mut grads = Gradients::new(h);
        let mut s = Scratch::new(h);
        net::backward(&net.rows(), &f, t, 1.0, &mut s, &mut grads);
        let mut checked = 0;
        let candidates = [
            f.us[0] as usize * h + 3,
            f.them[2] as usize * h + 5,
            net::B1_ROW * h + 7,
            net::W2_ROW * h + 1,
            (net::W2_ROW + 1) * h + 9,
            net::B2_ROW * h,
            // With the factoriser: the factor rows of the first pieces (else the input rows
            // again).
            f.us[f.len - 1] as usize * h + 2,
            f.them[f.len / 2] as usize * h + 4,
        ];
        for &i in &candidates {
            assert_gradient(&net, &f, t, (i, grads.values[i]), 1e-3);
            checked += 1;
        }
        assert_eq!(checked, candidates.len());
        assert!(grads.touched.get(f.us[0] as usize) && grads.touched.get(f.them[2] as usize));
    }
}

/// Asserts that `analytic`, the gradient of parameter `i`, matches the central finite
/// difference of the loss of `f` against target `t` with a step of `eps`.
pub(super) fn assert_gradient(
    net: &Network,
    f: &Features,
    t: f32,
    (i, analytic): (usize, f32),
    eps: f32,
) {
    let loss_at = |x: f32| {
        let mut n = net.clone();
        n.params[i] = x;
        let p = net::sigmoid(n.forward(f)) as f64;
        (p - t as f64) * (p - t as f64)
    };
    let x = net.params[i];
    let numeric = (loss_at(x + eps) - loss_at(x - eps)) / (2.0 * eps as f64);
    let analytic = analytic as f64;
    let tol = 2e-2 * numeric.abs().max(analytic.abs()) + 8e-6;
    assert!(
        (numeric - analytic).abs() <= tol,
        "param {i}: {numeric} vs {analytic}"
    );
}

/// The factoriser changes how the net is trained, not what it computes: a net with factor
/// rows, on the factorised inputs, evaluates every position as its merged form does on the
/// plain inputs; a run with the factoriser returns a merged net (factor rows zero) whose loss
/// fell.
#[test]
fn factoriser_merges_into_the_same_function() {
    let net = lively_net(32, 17, 0.1);
    let mut merged = net.clone();
    merged.merge_factors();
    assert!(factor_rows_are_zero(&merged));
    let mut differs = 0;
    for record in data(200, 19) {
        let d = decode(&record).unwrap();
        let factorised = net.forward(&Features::new(&d).factorised());
        let plain = merged.forward(&Features::new(&d));
        assert!((factorised - plain).abs() < 1e-4, "{factorised} vs {plain}");
        // The factor rows matter: without them the unmerged net gives another value.
        differs += usize::from((net.forward(&Features::new(&d)) - plain).abs() > 1e-3);
    }
    assert!(differs > 150, "{differs}");

    let records = data(3000, 23);
    let cfg = TrainConfig {
        factoriser: true,
        ..small_config(2)
    };
    let trained = train(&records, &cfg, |_| {}).unwrap();
    assert!(factor_rows_are_zero(&trained));
    let initial = Network::new_random(cfg.hidden, 1, &mut Rng::new(cfg.seed));
    let (before, after) = (
        loss_over(&initial, &records, cfg.lambda),
        loss_over(&trained, &records, cfg.lambda),
    );
    assert!(after < 0.5 * before, "loss {before} -> {after}");
    let plain = train(&records, &small_config(2), |_| {}).unwrap();
    assert_ne!(plain.params, trained.params);
}

/// Feature indices follow the documented formula.
#[test]
fn feature_indices() {
    let record = encode(&Chess::default(), 0, 1);
    let d = decode(&record).unwrap();
    let f = Features::new(&d);
    // a1 white rook: white view own rook a1; black view enemy rook a8.
    assert_eq!((f.us[0], f.them[0]), (3 * 64, 384 + 3 * 64 + 56));
    // e8 black king (index 28 among the 32 pieces, after 16 white pieces and 12 black ones).
    let k = d.pieces().iter().position(|p| p.square == 60).unwrap();
    assert_eq!((f.us[k], f.them[k]), (384 + 5 * 64 + 60, 5 * 64 + 4));
}

/// The fast path from bytes agrees with decoding first, for both sides to move and castling
/// rooks.
#[test]
fn features_from_record_match_decoded() {
    let mut records = data(300, 13);
    records.push(encode(&Chess::default(), 35, 2));
    for record in &records {
        let d = decode(record).unwrap();
        let (a, b) = (Features::from_record(record), Features::new(&d));
        assert_eq!((a.us(), a.them()), (b.us(), b.them()));
        assert_eq!(net::target_from_record(record, 0.3), net::target(&d, 0.3));
    }
    assert!(records.iter().any(|r| r[24] & 0x80 != 0));
    assert!(records.iter().any(|r| r[8..24].iter().any(|b| b & 7 == 6)));
}

/// The network is colour-symmetric: a position and its mirror (ranks flipped, colours swapped,
/// other side to move) evaluate the same.
#[test]
fn mirror_symmetry() {
    let net = Network::new_random(32, 1, &mut Rng::new(1));
    for record in data(50, 8) {
        let d = decode(&record).unwrap();
        let flip = |c: Color| {
            if c == Color::White {
                Color::Black
            } else {
                Color::White
            }
        };
        let pieces: Vec<Piece> = d
            .pieces()
            .iter()
            .map(|p| Piece {
                color: flip(p.color),
                role: p.role,
                square: p.square ^ 56,
            })
            .collect();
        let m = mirrored(&d, flip(d.stm), &pieces);
        assert!((net.eval_cp(&d) - net.eval_cp(&m)).abs() < 1e-3);
        assert_eq!(net::target(&d, 0.3), net::target(&m, 0.3));
    }
}

/// Builds the record of `pieces` with `stm` to move and `d`'s score and result seen from the
/// other colour.
fn mirrored(d: &Decoded, stm: Color, pieces: &[Piece]) -> Decoded {
    let mut record = [0u8; format::RECORD_BYTES];
    let mut sorted = pieces.to_vec();
    sorted.sort_by_key(|p| p.square);
    let occ = sorted.iter().fold(0u64, |b, p| b | 1 << p.square);
    record[0..8].copy_from_slice(&occ.to_le_bytes());
    for (k, p) in sorted.iter().enumerate() {
        let code = p.role | if p.color == Color::Black { 8 } else { 0 };
        record[8 + k / 2] |= code << (4 * (k % 2));
    }
    record[24] = if stm == Color::Black { 0x80 } else { 0 } | format::NO_EP;
    record[28..30].copy_from_slice(&(-d.score).to_le_bytes());
    record[30] = 2 - d.wdl;
    decode(&record).unwrap()
}

/// Mate scores and undecodable records are skipped, not trained on.
#[test]
fn skips_mate_scores_and_bad_records() {
    let mut records = data(600, 2);
    records[0][28..30].copy_from_slice(&10_000i16.to_le_bytes());
    records[1][28..30].copy_from_slice(&(-12_000i16).to_le_bytes());
    records[2][30] = 9;
    let mut skipped = None;
    train(&records, &small_config(1), |p| skipped = Some(p.skipped)).unwrap();
    assert_eq!(skipped, Some(3));
    assert!(train(&records[..3], &small_config(1), |_| {}).is_err());
}

/// The net file has the documented header, size and contents, and parses back.
#[test]
fn net_file_layout() {
    let h = 16;
    let mut net = Network::new_random(h, 1, &mut Rng::new(3));
    net.params[net::B2_ROW * h] = 0.5;
    let q = net.quantise();
    let bytes = q.to_bytes();
    assert_eq!(bytes.len(), 24 + 768 * h * 2 + h * 2 + 2 * h * 2 + 4);
    assert_eq!(bytes.len(), QuantisedNet::file_size(h, 1));
    assert_eq!(&bytes[..4], b"LZNN");
    let words: Vec<u32> = (0..5)
        .map(|k| u32::from_le_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().unwrap()))
        .collect();
    assert_eq!(words, [1, h as u32, 255, 64, 400]);
    // Feature 1's first weight follows feature 0's H weights.
    let w = i16::from_le_bytes([bytes[24 + 2 * h], bytes[25 + 2 * h]]);
    assert_eq!(w, (net.row(1)[0] * 255.0).round() as i16);
    assert_eq!(
        i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap()),
        8160
    );
    assert_eq!(QuantisedNet::from_bytes(&bytes).unwrap(), q);
    assert!(QuantisedNet::from_bytes(&bytes[..bytes.len() - 1]).is_err());
}

/// The learning-rate schedules.
#[test]
fn schedules() {
    let mut cfg = TrainConfig::default();
    assert_eq!(cfg.lr_at(0, 0, 100), cfg.lr);
    assert!((cfg.lr_at(3, 99, 100) - cfg.lr * DEFAULT_FINAL_LR_FRACTION).abs() < 1e-9);
    cfg.schedule = LrSchedule::Step {
        every_epochs: 2,
        gamma: 0.5,
    };
    assert_eq!(cfg.lr_at(3, 0, 1), cfg.lr * 0.5);
    assert_eq!(cfg.lr_at(4, 0, 1), cfg.lr * 0.25);
}

/// The arguments after `lazuli-lab train`, parsed.
pub(super) fn parse(args: &[&str]) -> Result<TrainArgs, clap::Error> {
    use clap::Parser;
    TrainArgs::try_parse_from(std::iter::once("train").chain(args.iter().copied()))
}

/// The command line end to end: data directory in, net file out; bad flags are errors.
#[test]
fn command_line() {
    let dir = std::env::temp_dir().join(format!("lazuli-train-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    format::write_file(&dir.join("data.bin"), &data(1500, 17)).unwrap();
    let out = dir.join("net.lznn");
    let (data_dir, out_path) = (dir.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "--data",
        data_dir,
        "--out",
        out_path,
        "--hidden",
        "16",
        "--epochs",
        "1",
        "--batch",
        "256",
        "--threads",
        "2",
        "--lr-drop",
        "1",
    ];
    run_cli(&parse(&args).unwrap()).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len(), QuantisedNet::file_size(16, 1));
    // Parsed, refused by the trainer.
    let odd_hidden = parse(&["--synthetic", "100", "--out", out_path, "--hidden", "12"]).unwrap();
    assert!(run_cli(&odd_hidden).is_err());
    // Refused by the command line.
    for bad in [
        &["--synthetic", "100"][..],
        &["--out", out_path],
        &["--data", data_dir, "--synthetic", "100", "--out", out_path],
        &["--synthetic", "100", "--out", out_path, "--bogus", "1"],
        &["--synthetic", "many", "--out", out_path],
    ] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The engine reads the trainer's net file and evaluates every position exactly as the
/// trainer's integer inference does (the same file format, features, output buckets and
/// arithmetic on both sides of the tool/library boundary).
#[test]
fn the_engine_evaluates_a_trained_net_as_the_trainer_does() {
    for (hidden, buckets) in [(32, 1), (64, 8), (256, 4)] {
        the_engine_evaluates_as_the_trainer_does(hidden, buckets);
    }
}

fn the_engine_evaluates_as_the_trainer_does(hidden: usize, buckets: usize) {
    let mut rng = Rng::new(21);
    let net = Network::new_random(hidden, buckets, &mut rng);
    let bytes = net.quantise().to_bytes();
    let dir = std::env::temp_dir().join(format!("lazuli-train-{}-{hidden}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("random.lznn");
    std::fs::write(&path, &bytes).unwrap();
    let mut engine = lazuli::Engine::new().unwrap();
    engine
        .set_option("EvalFile", path.to_str().unwrap())
        .unwrap();
    assert_eq!(engine.net_shape(), Some((hidden, buckets)));
    let mut compared = 0;
    for seed in 0..20 {
        let mut pos = lazuli::Position::startpos();
        let mut moves: Vec<String> = Vec::new();
        let mut r = Rng::new(seed);
        for _ in 0..120 {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[r.below(legal.len())];
            moves.push(lazuli::Position::uci(m, true).to_string());
            pos.push(m);
            let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
            engine.set_position(None, &texts).unwrap();
            let decoded = decode(&encode(pos.chess(), 0, 1)).unwrap();
            assert_eq!(
                engine.evaluate().0,
                net::quantised_eval(&bytes, &decoded),
                "width {hidden}: {}",
                pos.fen()
            );
            compared += 1;
        }
    }
    assert!(compared > 1000);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mirrored_files` gives the features of the position mirrored left to right (built as a
/// record of its own), for both sides to move.
#[test]
fn left_right_mirror_features() {
    let mut checked = 0;
    for record in data(200, 17) {
        let d = decode(&record).unwrap();
        let pieces: Vec<Piece> = d
            .pieces()
            .iter()
            .map(|p| Piece {
                square: p.square ^ 7,
                role: if p.role == format::CASTLING_ROOK {
                    3
                } else {
                    p.role
                },
                ..*p
            })
            .collect();
        // `mirrored` swaps colours' scores; only the features are compared here.
        let m = mirrored(&d, d.stm, &pieces);
        let sorted = |v: &[u16]| {
            let mut v = v.to_vec();
            v.sort_unstable();
            v
        };
        let (a, b) = (
            Features::from_record(&record).mirrored_files(),
            Features::new(&m),
        );
        assert_eq!(sorted(a.us()), sorted(b.us()));
        assert_eq!(sorted(a.them()), sorted(b.them()));
        assert_ne!(sorted(a.us()), sorted(Features::from_record(&record).us()));
        checked += 1;
    }
    assert_eq!(checked, 200);
}

/// Positions with a castling right are never mirrored; those without may be.
#[test]
fn castling_rights_in_records() {
    let chess = |fen: &str| {
        fen.parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position::<Chess>(shakmaty::CastlingMode::Standard)
            .unwrap()
    };
    for (fen, rights) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            true,
        ),
        ("4k3/8/8/8/8/8/8/R3K2R w K - 0 1", true),
        ("r3k3/8/8/8/8/8/8/4K3 b q - 0 1", true),
        ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", false),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
    ] {
        assert_eq!(
            net::has_castling_rights(&encode(&chess(fen), 0, 1)),
            rights,
            "{fen}"
        );
    }
}

/// A run with `mirror` learns (its loss falls as far as without), is reproducible, and trains
/// on something else than the run without it.
#[test]
fn mirrored_training() {
    let records = data(4000, 11);
    let cfg = TrainConfig {
        epochs: 8,
        mirror: true,
        ..small_config(2)
    };
    let initial = Network::new_random(cfg.hidden, 1, &mut Rng::new(cfg.seed));
    let a = train(&records, &cfg, |_| {}).unwrap();
    let b = train(&records, &cfg, |_| {}).unwrap();
    let plain = train(
        &records,
        &TrainConfig {
            mirror: false,
            ..cfg.clone()
        },
        |_| {},
    )
    .unwrap();
    let bits = |n: &Network| n.params.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    assert_eq!(bits(&a), bits(&b));
    assert_ne!(bits(&a), bits(&plain));
    let before = loss_over(&initial, &records, cfg.lambda);
    let after = loss_over(&a, &records, cfg.lambda);
    assert!(after < 0.5 * before, "loss {before} -> {after}");
}

//! Tests of output buckets by piece count in the trainer: the bucket of a piece count is the
//! engine's, the gradients reach only the position's bucket, a one-bucket net spread over
//! buckets computes what it did, a bucketed run learns and its net file has the documented
//! layout, and the command line starts a bucketed run from a one-bucket net.

use super::net::{self, Features, Gradients, Network, QuantisedNet, Scratch};
use super::tests::{assert_gradient, data, lively_net, parse, small_config};
use super::*;
use crate::format::{self, Decoded, decode};
use lazuli::Rng;

/// Every bucket count a net may have.
const BUCKET_COUNTS: [usize; 4] = [1, 2, 4, 8];

/// The trainer chooses every piece count's bucket as the engine does.
#[test]
fn the_trainer_buckets_piece_counts_as_the_engine_does() {
    for buckets in BUCKET_COUNTS {
        let engine = lazuli::Network::from_bytes(&lazuli::Network::random_bytes(32, buckets, 1))
            .expect("a random net file");
        let mut used = std::collections::HashSet::new();
        for pieces in 2..=32 {
            let b = net::bucket(pieces, buckets);
            assert_eq!(
                b,
                engine.bucket(pieces),
                "{pieces} pieces, {buckets} buckets"
            );
            used.insert(b);
        }
        assert_eq!(used.len(), buckets, "every bucket has piece counts");
    }
    assert!(!net::valid_buckets(3) && !net::valid_buckets(16) && !net::valid_buckets(0));
    // The parameter layout has room for every count the engine reads.
    assert!(
        (0..=64)
            .filter(|&b| net::valid_buckets(b))
            .all(|b| b <= net::MAX_BUCKETS)
    );
}

/// A net of 8 buckets whose output layers differ (the shared hidden layer of `lively_net`).
fn bucketed_net(h: usize, seed: u64) -> Network {
    let mut net = lively_net(h, seed, 0.0).with_buckets(8).unwrap();
    let mut rng = Rng::new(seed + 1);
    for p in &mut net.params[net::W2_ROW * h..(net::W2_ROW + 16) * h] {
        *p += rng.symmetric(0.2);
    }
    for b in 0..8 {
        net.params[net::B2_ROW * h + b] = rng.symmetric(0.3);
    }
    net
}

/// The backward pass against central finite differences for the rows of the position's
/// bucket; the other buckets' rows get no gradient.
#[test]
fn gradients_reach_only_the_bucket_of_the_position() {
    let h = 16;
    let net = bucketed_net(h, 9);
    let mut buckets_seen = std::collections::HashSet::new();
    for record in &data(40, 4) {
        let d = decode(record).unwrap();
        let f = Features::new(&d).bucketed(8);
        buckets_seen.insert(f.bucket);
        let t = net::target(&d, 0.3);
        let mut grads = Gradients::new(h);
        net::backward(&net.rows(), &f, t, 1.0, &mut Scratch::new(h), &mut grads);
        let (us, them) = (net::W2_ROW + 2 * f.bucket, net::W2_ROW + 2 * f.bucket + 1);
        for i in [us * h + 1, them * h + 9, net::B2_ROW * h + f.bucket] {
            // The output layer enters the output linearly, so a wide step is accurate and
            // keeps the f32 rounding of the loss small against the difference.
            assert_gradient(&net, &f, t, (i, grads.values[i]), 1e-2);
        }
        assert!(
            grads.values[us * h..(them + 1) * h]
                .iter()
                .any(|&g| g != 0.0)
        );
        let others = (0..8).filter(|&b| b != f.bucket);
        for b in others {
            let rows = (net::W2_ROW + 2 * b) * h..(net::W2_ROW + 2 * b + 2) * h;
            assert!(grads.values[rows].iter().all(|&g| g == 0.0), "bucket {b}");
            assert_eq!(grads.values[net::B2_ROW * h + b], 0.0);
        }
    }
    assert!(buckets_seen.len() >= 3, "{buckets_seen:?}");
}

/// A one-bucket net spread over 8 buckets scores every position as before, in floating
/// point and as a net file of version 2; other changes of the bucket count are refused.
#[test]
fn a_net_spread_over_buckets_computes_the_same() {
    let one = lively_net(32, 3, 0.0);
    let eight = one.clone().with_buckets(8).unwrap();
    let (q1, q8) = (one.quantise(), eight.quantise());
    assert_eq!((q1.buckets, q8.buckets), (1, 8));
    for record in data(200, 5) {
        let d = decode(&record).unwrap();
        assert_eq!(one.eval_cp(&d), eight.eval_cp(&d));
        assert_eq!(q1.eval(&d), q8.eval(&d));
    }
    assert!(eight.clone().with_buckets(1).is_err());
    assert!(one.clone().with_buckets(3).is_err());
    assert_eq!(eight.clone().with_buckets(8).unwrap(), eight);
}

/// A run with 8 buckets learns (the loss falls as a one-bucket run's does), its buckets
/// differ, and the rows of buckets a 4-bucket run lacks stay zero.
#[test]
fn a_bucketed_run_learns_and_fills_its_buckets_only() {
    let records = data(4000, 31);
    let loss = |net: &Network| {
        let decoded: Vec<Decoded> = records.iter().filter_map(usable).collect();
        let sum: f64 = decoded
            .iter()
            .map(|d| {
                let p = net::sigmoid(net.forward(&Features::new(d)));
                let t = net::target(d, 0.3);
                ((p - t) * (p - t)) as f64
            })
            .sum();
        sum / decoded.len() as f64
    };
    let cfg = TrainConfig {
        buckets: 8,
        epochs: 6,
        ..small_config(2)
    };
    let initial = Network::new_random(cfg.hidden, 8, &mut Rng::new(cfg.seed));
    let trained = train(&records, &cfg, |_| {}).unwrap();
    assert_eq!(trained.buckets, 8);
    assert!(loss(&trained) < 0.5 * loss(&initial));
    let h = cfg.hidden;
    let layer = |n: &Network, b: usize| n.params[(net::W2_ROW + 2 * b) * h..][..2 * h].to_vec();
    assert_ne!(layer(&trained, 0), layer(&trained, 7));

    let four = train(&records, &TrainConfig { buckets: 4, ..cfg }, |_| {}).unwrap();
    assert!((4..8).all(|b| layer(&four, b).iter().all(|&w| w == 0.0)));
    assert!((4..8).all(|b| four.b2(b) == 0.0));
    assert!(train(&records, &TrainConfig { buckets: 3, ..cfg }, |_| {}).is_err());
}

/// The file of a bucketed net: version 2, the bucket count after the five words of version 1,
/// `B` output layers and `B` biases; it parses back, and damaged files are refused.
#[test]
fn bucketed_net_file_layout() {
    let h = 16;
    let net = bucketed_net(h, 7);
    let q = net.quantise();
    let bytes = q.to_bytes();
    assert_eq!(
        bytes.len(),
        28 + 768 * h * 2 + h * 2 + 8 * 2 * h * 2 + 8 * 4
    );
    assert_eq!(bytes.len(), QuantisedNet::file_size(h, 8));
    let words: Vec<u32> = (0..6)
        .map(|k| u32::from_le_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().unwrap()))
        .collect();
    assert_eq!(words, [2, h as u32, 255, 64, 400, 8]);
    // The last bias is bucket 7's.
    let last = i32::from_le_bytes(bytes[bytes.len() - 4..].try_into().unwrap());
    assert_eq!(last, (net.b2(7) * (255 * 64) as f32).round() as i32);
    assert_eq!(QuantisedNet::from_bytes(&bytes).unwrap(), q);
    assert_eq!(
        QuantisedNet::from_bytes(&bytes)
            .unwrap()
            .dequantise()
            .buckets,
        8
    );
    let with_word = |k: usize, v: u32| {
        let mut b = bytes.clone();
        b[4 + 4 * k..8 + 4 * k].copy_from_slice(&v.to_le_bytes());
        b
    };
    for bad in [
        bytes[..bytes.len() - 4].to_vec(),
        bytes[..26].to_vec(),
        with_word(5, 3),
        with_word(5, 16),
        with_word(5, 4),
        with_word(0, 1),
        with_word(0, 3),
    ] {
        assert!(QuantisedNet::from_bytes(&bad).is_err());
    }
}

/// `lazuli-lab train --init one.lznn --buckets 8` writes a version-2 net that starts where the
/// one-bucket net was; `--buckets 3` is refused.
#[test]
fn command_line_buckets() {
    let dir = std::env::temp_dir().join(format!("lazuli-train-buckets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    format::write_file(&dir.join("data.bin"), &data(1500, 17)).unwrap();
    let (one, out) = (dir.join("one.lznn"), dir.join("eight.lznn"));
    lively_net(16, 2, 0.0).quantise().write(&one).unwrap();
    let path = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let (d, one_s, out_s) = (path(&dir), path(&one), path(&out));
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--data",
            &d,
            "--out",
            &out_s,
            "--epochs",
            "1",
            "--threads",
            "1",
        ];
        args.extend(extra);
        run_cli(&parse(&args).unwrap())
    };
    run(&["--init", &one_s, "--buckets", "8", "--lr", "0.00001"]).unwrap();
    let eight = QuantisedNet::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!((eight.hidden, eight.buckets), (16, 8));
    assert!(run(&["--hidden", "16", "--buckets", "3"]).is_err());
    // Going on from the bucketed net keeps its buckets.
    run(&["--init", &out_s]).unwrap();
    let again = QuantisedNet::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(again.buckets, 8);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A net widened with fresh lanes scores every position as before, in floating point and as a
/// net file; a run from it starts at the narrow net's validation loss and learns; narrowing is
/// refused.
#[test]
fn a_widened_net_computes_the_same_and_learns() {
    let narrow = lively_net(32, 3, 0.0).with_buckets(8).unwrap();
    let random = Network::new_random(64, 8, &mut Rng::new(9));
    let wide = narrow.clone().widened(&random).unwrap();
    assert_eq!(wide.hidden, 64);
    assert!(
        wide.row(0)[32..].iter().any(|&w| w != 0.0),
        "new lanes learn"
    );
    let (qn, qw) = (narrow.quantise(), wide.quantise());
    for record in data(200, 5) {
        let d = decode(&record).unwrap();
        assert_eq!(narrow.eval_cp(&d), wide.eval_cp(&d));
        assert_eq!(qn.eval(&d), qw.eval(&d));
    }
    assert!(wide.clone().widened(&narrow).is_err());
    let records = data(3000, 7);
    let losses = |start: Network, hidden: usize| {
        let cfg = TrainConfig {
            hidden,
            buckets: 8,
            ..small_config(2)
        };
        let mut losses = Vec::new();
        train_from(&records, &cfg, Some(start), |p| {
            if let Some(loss) = p.val_loss {
                losses.push(loss);
            }
        })
        .unwrap();
        losses
    };
    let (from_narrow, from_wide) = (losses(narrow.clone(), 32), losses(narrow, 64));
    assert_eq!(from_narrow[0], from_wide[0]);
    assert!(from_wide.last().unwrap() < &from_wide[0], "{from_wide:?}");
}

//! The integer network of the net file: [`QuantisedNet`], its file format (see the parent
//! module's documentation) and its integer inference, which is the engine's.

use std::io;
use std::path::Path;

use super::{
    B1_ROW, B2_ROW, Features, HEADER_BYTES, INPUTS, MAGIC, Network, PARAM_ROWS, QA, QB, SCALE,
    VERSION, VERSION_BUCKETS, W2_ROW, valid_buckets,
};
use crate::format::Decoded;

/// The integer network exactly as stored in the net file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuantisedNet {
    pub hidden: usize,
    pub buckets: usize,
    /// `768 x H`, input-major.
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    /// `B x 2H`: bucket-major, side to move first.
    pub w2: Vec<i16>,
    /// One per bucket.
    pub b2: Vec<i32>,
}

impl QuantisedNet {
    /// Bytes before the weights.
    fn header_bytes(buckets: usize) -> usize {
        HEADER_BYTES + if buckets == 1 { 0 } else { 4 }
    }

    /// Size of the net file for `hidden` neurons and `buckets` output buckets.
    pub fn file_size(hidden: usize, buckets: usize) -> usize {
        Self::header_bytes(buckets)
            + 2 * (INPUTS * hidden + hidden + 2 * hidden * buckets)
            + 4 * buckets
    }

    /// The net file: magic, version, hidden, qa, qb, scale (u32 each), the buckets (u32, in
    /// version 2 only), then `W1`, `b1`, `w2` as i16 and `b2` as i32, all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_size(self.hidden, self.buckets));
        out.extend_from_slice(MAGIC);
        let version = if self.buckets == 1 {
            VERSION
        } else {
            VERSION_BUCKETS
        };
        for v in [
            version,
            self.hidden as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        if self.buckets != 1 {
            out.extend_from_slice(&(self.buckets as u32).to_le_bytes());
        }
        for v in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for b2 in &self.b2 {
            out.extend_from_slice(&b2.to_le_bytes());
        }
        out
    }

    /// Parses a net file, checking the header against this module's constants.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantisedNet, String> {
        if bytes.len() < HEADER_BYTES || &bytes[..4] != MAGIC {
            return Err("not a LZNN net file".into());
        }
        let word = |k: usize| u32::from_le_bytes(bytes[4 + 4 * k..8 + 4 * k].try_into().unwrap());
        let (version, hidden) = (word(0), word(1) as usize);
        if [word(2), word(3), word(4)] != [QA as u32, QB as u32, SCALE as u32]
            || hidden == 0
            || ![VERSION, VERSION_BUCKETS].contains(&version)
        {
            return Err(format!(
                "unsupported net header {:?}",
                (0..5).map(word).collect::<Vec<_>>()
            ));
        }
        let buckets = match version {
            VERSION => 1,
            _ if bytes.len() < HEADER_BYTES + 4 => return Err("net file truncated".into()),
            _ => word(5) as usize,
        };
        if !valid_buckets(buckets) {
            return Err(format!("{buckets} output buckets (1, 2, 4 or 8 allowed)"));
        }
        if bytes.len() != Self::file_size(hidden, buckets) {
            return Err(format!(
                "net file has {} bytes, expected {}",
                bytes.len(),
                Self::file_size(hidden, buckets)
            ));
        }
        let b2_start = bytes.len() - 4 * buckets;
        let mut i16s = bytes[Self::header_bytes(buckets)..b2_start]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| i16s.by_ref().take(n).collect::<Vec<i16>>();
        let (w1, b1, w2) = (
            take(INPUTS * hidden),
            take(hidden),
            take(2 * hidden * buckets),
        );
        let b2 = bytes[b2_start..]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Ok(QuantisedNet {
            hidden,
            buckets,
            w1,
            b1,
            w2,
            b2,
        })
    }

    /// Writes the net file and returns its size in bytes.
    pub fn write(&self, path: &Path) -> io::Result<usize> {
        let bytes = self.to_bytes();
        std::fs::write(path, &bytes)?;
        Ok(bytes.len())
    }

    fn accumulate(&self, inputs: &[u16]) -> Vec<i32> {
        let h = self.hidden;
        let mut acc: Vec<i32> = self.b1.iter().map(|&b| b as i32).collect();
        for &i in inputs {
            let row = &self.w1[i as usize * h..(i as usize + 1) * h];
            for (a, &w) in acc.iter_mut().zip(row) {
                *a += w as i32;
            }
        }
        acc
    }

    /// Integer evaluation in centipawns for the side to move, as the engine computes it:
    /// `sum = sum clamp(acc, 0, QA)^2 * w2` (i64), `out = sum / QA + b2`,
    /// `cp = out * SCALE / (QA * QB)`, divisions truncating.
    pub fn eval(&self, d: &Decoded) -> i32 {
        (self.raw_out(d) * SCALE as i64 / (QA * QB) as i64) as i32
    }

    /// The output before scaling to centipawns, in units of `1 / (QA * QB)`.
    fn raw_out(&self, d: &Decoded) -> i64 {
        let f = Features::new(d).bucketed(self.buckets);
        let h = self.hidden;
        let (w2_us, w2_them) = self.w2[2 * f.bucket * h..(2 * f.bucket + 2) * h].split_at(h);
        let mut sum = 0i64;
        for (acc, w2) in [
            (self.accumulate(f.us()), w2_us),
            (self.accumulate(f.them()), w2_them),
        ] {
            for (&a, &w) in acc.iter().zip(w2) {
                let c = a.clamp(0, QA) as i64;
                sum += c * c * w as i64;
            }
        }
        sum / QA as i64 + self.b2[f.bucket] as i64
    }

    /// Shifts each bucket's `b2` by the mean difference between `net`'s float output and
    /// this integer output over the positions of `sample` in that bucket (over all of
    /// `sample` for a bucket none of them is in), and returns the shifts (in `1 / (QA * QB)`
    /// units).
    ///
    /// Why: the activations are never negative, so the rounding errors of the `2H` output
    /// weights (up to `1 / (2 QB)` each) add up to a common offset rather than cancelling;
    /// with `QB = 64` and trained `|w2|` around 0.1 it is typically 10-30 cp on every position.
    /// Moving `b2` removes that offset and leaves the position-dependent part (a few cp).
    pub fn calibrate_b2(&mut self, net: &Network, sample: &[Decoded]) -> Vec<i32> {
        let unit = (QA * QB) as f64;
        let mut sums = vec![(0.0f64, 0usize); self.buckets];
        for d in sample {
            let f = Features::new(d).bucketed(self.buckets);
            let diff = net.forward(&f) as f64 * unit - self.raw_out(d) as f64;
            let (sum, n) = &mut sums[f.bucket];
            (*sum, *n) = (*sum + diff, *n + 1);
        }
        let all: f64 = sums.iter().map(|s| s.0).sum();
        let mean_all = all / sample.len().max(1) as f64;
        let shifts: Vec<i32> = sums
            .iter()
            .map(|&(sum, n)| (if n > 0 { sum / n as f64 } else { mean_all }).round() as i32)
            .collect();
        for (b2, shift) in self.b2.iter_mut().zip(&shifts) {
            *b2 = b2.saturating_add(*shift);
        }
        shifts
    }

    /// The float network these integers stand for: the start of a run that goes on from a net
    /// file (`lazuli-lab train --init`), and the tests of the integer arithmetic.
    pub fn dequantise(&self) -> Network {
        let h = self.hidden;
        let mut params = vec![0.0; PARAM_ROWS * h];
        let deq = |v: &[i16], q: i32, out: &mut [f32]| {
            for (o, &x) in out.iter_mut().zip(v) {
                *o = x as f32 / q as f32;
            }
        };
        deq(&self.w1, QA, &mut params[..INPUTS * h]);
        deq(&self.b1, QA, &mut params[B1_ROW * h..W2_ROW * h]);
        deq(&self.w2, QB, &mut params[W2_ROW * h..]);
        for (b, &b2) in self.b2.iter().enumerate() {
            params[B2_ROW * h + b] = b2 as f32 / (QA * QB) as f32;
        }
        Network {
            hidden: h,
            buckets: self.buckets,
            params,
        }
    }
}

/// Integer evaluation (centipawns, side to move) of `pos` by the net file `net_bytes`.
/// Panics if `net_bytes` is not a valid net file; parse once with
/// [`QuantisedNet::from_bytes`] to evaluate many positions or handle the error.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the one-call form of the engine's evaluation, for tools and tests"
    )
)]
pub fn quantised_eval(net_bytes: &[u8], pos: &Decoded) -> i32 {
    QuantisedNet::from_bytes(net_bytes)
        .unwrap_or_else(|e| panic!("{e}"))
        .eval(pos)
}

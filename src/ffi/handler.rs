//! The C callbacks as a [`SearchHandler`], and the C limits as [`Limits`].

use std::ffi::{CString, c_void};
use std::time::Duration;

use shakmaty::Move;

use super::{
    LazuliBestmoveCallback, LazuliBound, LazuliInfo, LazuliInfoCallback, LazuliLimits,
    LazuliScoreKind,
};
use crate::position::Position;
use crate::report::{ScoreBound, SearchHandler, SearchInfo};
use crate::score::ScoreKind;
use crate::timeman::Limits;

/// Calls the C callbacks for one search.
pub(super) struct CallbackHandler {
    info: LazuliInfoCallback,
    bestmove: LazuliBestmoveCallback,
    userdata: UserData,
    chess960: bool,
}

/// The caller's `userdata`, handed to the callbacks on an engine thread.
struct UserData(*mut c_void);

// SAFETY: `lazuli_engine_go` documents that `userdata` is passed to the callbacks on an engine
// thread; the C caller agreed to that by calling it. The engine never dereferences it.
unsafe impl Send for UserData {}

impl CallbackHandler {
    fn uci(&self, m: Move) -> CString {
        let text = Position::uci(m, self.chess960).to_string();
        CString::new(text).expect("UCI moves have no NUL")
    }
}

impl SearchHandler for CallbackHandler {
    fn on_info(&mut self, info: &SearchInfo) {
        let Some(callback) = self.info else { return };
        let pv: Vec<String> = info
            .pv
            .iter()
            .map(|&m| Position::uci(m, self.chess960).to_string())
            .collect();
        let pv = CString::new(pv.join(" ")).expect("UCI moves have no NUL");
        let (score_kind, score) = match info.score.kind() {
            ScoreKind::Cp(cp) => (LazuliScoreKind::Cp, cp),
            ScoreKind::Mate(m) => (LazuliScoreKind::Mate, m),
        };
        let c_info = LazuliInfo {
            depth: info.depth,
            seldepth: info.seldepth,
            multipv: info.multipv,
            score_kind,
            score,
            bound: match info.bound {
                ScoreBound::Exact => LazuliBound::Exact,
                ScoreBound::Lower => LazuliBound::Lower,
                ScoreBound::Upper => LazuliBound::Upper,
            },
            nodes: info.nodes,
            nps: info.nps,
            time_ms: info.time_ms,
            hashfull: info.hashfull,
            tbhits: info.tbhits,
            wdl_win: info.wdl.win,
            wdl_draw: info.wdl.draw,
            wdl_loss: info.wdl.loss,
            pv: pv.as_ptr(),
        };
        // SAFETY: `callback` is the function pointer the caller passed to lazuli_engine_go;
        // `c_info` and the `pv` string it points to live until after the call returns.
        unsafe { callback(self.userdata.0, &c_info) };
    }

    fn on_bestmove(&mut self, best: Option<Move>, ponder: Option<Move>) {
        let Some(callback) = self.bestmove else {
            return;
        };
        let best = best.map_or_else(|| CString::new("(none)").expect("no NUL"), |m| self.uci(m));
        let ponder = ponder.map(|m| self.uci(m));
        let ponder_ptr = ponder.as_ref().map_or(std::ptr::null(), |p| p.as_ptr());
        // SAFETY: `callback` is the caller's function pointer; both strings (or NULL for
        // ponder) live until after the call returns.
        unsafe { callback(self.userdata.0, best.as_ptr(), ponder_ptr) };
    }
}

impl CallbackHandler {
    /// A handler calling `info` and `bestmove` with `userdata`.
    pub(super) fn new(
        info: LazuliInfoCallback,
        bestmove: LazuliBestmoveCallback,
        userdata: *mut c_void,
        chess960: bool,
    ) -> CallbackHandler {
        CallbackHandler {
            info,
            bestmove,
            userdata: UserData(userdata),
            chess960,
        }
    }
}

impl From<LazuliLimits> for Limits {
    /// Zero (false) fields are unset.
    fn from(c: LazuliLimits) -> Limits {
        let ms = |v: u64| (v > 0).then(|| Duration::from_millis(v));
        Limits {
            depth: (c.depth > 0).then_some(c.depth),
            nodes: (c.nodes > 0).then_some(c.nodes),
            soft_nodes: None,
            mate: (c.mate > 0).then_some(c.mate),
            movetime: ms(c.movetime_ms),
            wtime: ms(c.wtime_ms),
            btime: ms(c.btime_ms),
            winc: ms(c.winc_ms),
            binc: ms(c.binc_ms),
            movestogo: (c.movestogo > 0).then_some(c.movestogo),
            infinite: c.infinite,
            ponder: c.ponder,
            searchmoves: Vec::new(),
        }
    }
}

//! A search handler that keeps every info line, for the tests that drive the library facade.

use std::sync::{Arc, Mutex};

use lazuli::{SearchHandler, SearchInfo};
use shakmaty::Move;

/// Keeps every info line (clones share the list).
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<SearchInfo>>>);

impl SearchHandler for Recorder {
    fn on_info(&mut self, info: &SearchInfo) {
        self.0.lock().unwrap().push(info.clone());
    }
    fn on_bestmove(&mut self, _: Option<Move>, _: Option<Move>) {}
}

//! Moving the search's cursor: a test pushed onto the current path narrows the cover, and
//! popping it restores both (reversible sparse bitsets, spec §2.3).

use super::{Cost, Kernel};
use crate::cache::KeyIndex;
use crate::data::{item_feature, Item};
use crate::objective::Objective;

impl<I: KeyIndex, O: Objective, C: Cost> Kernel<'_, I, O, C> {
    pub(crate) fn push(&mut self, item: Item) {
        self.trail.push(item);
        let at = self.path.partition_point(|&x| x < item);
        self.path.insert(at, item);
        self.on_path[item_feature(item) as usize] = true;
        self.cover.intersect(self.data.item_mask(item));
    }

    pub(crate) fn pop(&mut self, item: Item) {
        self.trail.pop();
        let at = self.path.partition_point(|&x| x < item);
        self.path.remove(at);
        self.on_path[item_feature(item) as usize] = false;
        self.cover.backtrack();
    }
}

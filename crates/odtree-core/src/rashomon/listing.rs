//! Listing the trees of a budget. Each subtree is built once, as a part in an arena that
//! names its node and its two subtrees, however many larger trees contain it; the trees
//! listed are written out in full (their codes, node statistics and rows), in cost order,
//! only at the end, into flat arrays. A subproblem reached again (the same rows and depth,
//! by another path or under another split) reuses its list when it was made for a budget at
//! least as large.

use super::{count_rows, key, with_key, Key, Loss, Rashomon};
use rustc_hash::FxHashMap;

/// A listed tree: its cost, its codes (see [`Codes`](super::Codes)), and each node's
/// statistics (in pre-order, one run per node: the class weights; for squared error the
/// weight and weighted sums of the targets and their squares; for the pinball loss the
/// weight, the weight times the node's quantile, and its loss) and rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Listed<'a> {
    pub cost: f64,
    pub codes: &'a [i64],
    pub weights: &'a [f64],
    pub rows: &'a [u32],
}

/// The trees listed, cheapest first (ties in the order of their codes), in flat arrays:
/// tree `i` has `sizes[i]` nodes, whose codes, statistics and rows follow those of the trees
/// before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ListedTrees {
    pub costs: Vec<f64>,
    pub sizes: Vec<u32>,
    pub codes: Vec<i64>,
    /// `width` statistics per node.
    pub weights: Vec<f64>,
    pub rows: Vec<u32>,
    /// How many statistics a node has.
    pub width: usize,
}

impl ListedTrees {
    /// How many trees are listed.
    pub fn len(&self) -> usize {
        self.costs.len()
    }

    /// Whether no tree is listed.
    pub fn is_empty(&self) -> bool {
        self.costs.is_empty()
    }

    /// The trees, in order.
    pub fn iter(&self) -> impl Iterator<Item = Listed<'_>> {
        let mut start = 0;
        (self.costs.iter().zip(&self.sizes)).map(move |(&cost, &size)| {
            let (from, to) = (start, start + size as usize);
            start = to;
            Listed {
                cost,
                codes: &self.codes[from..to],
                weights: &self.weights[from * self.width..to * self.width],
                rows: &self.rows[from..to],
            }
        })
    }

    /// The cheapest `most` trees of `arenas` (each its parts and the parts of its listed
    /// trees), ties in the order of their codes, whose leaves predict one of `n_classes`
    /// classes and whose splits test one of `n_features` features.
    pub(super) fn sorted(
        arenas: &[(Parts, Vec<u32>)],
        most: usize,
        n_features: usize,
        n_classes: usize,
    ) -> Self {
        // each tree as its cost's bits in order, its first codes packed in order, its arena
        // and its part: most trees compare on the first two alone
        let prefix = Prefix::new(n_features, n_classes);
        let mut trees: Vec<(u64, u64, usize, u32)> = (arenas.iter().enumerate())
            .flat_map(|(a, (parts, tops))| {
                let prefix = &prefix;
                tops.iter()
                    .map(move |&top| (ordered(parts.cost(top)), prefix.of(parts, top), a, top))
            })
            .collect();
        let order = |x: &(u64, u64, usize, u32), y: &(u64, u64, usize, u32)| {
            (x.0, x.1)
                .cmp(&(y.0, y.1))
                .then_with(|| Parts::compare(&arenas[x.2].0, x.3, &arenas[y.2].0, y.3))
        };
        if most < trees.len() {
            trees.select_nth_unstable_by(most, order);
            trees.truncate(most);
        }
        trees.sort_unstable_by(order);
        let width = arenas
            .iter()
            .map(|(parts, _)| parts.width)
            .max()
            .unwrap_or(0);
        let n_nodes: usize = (trees.iter())
            .map(|&(_, _, a, top)| arenas[a].0.size(top) as usize)
            .sum();
        let mut listed = Self {
            costs: Vec::with_capacity(trees.len()),
            sizes: Vec::with_capacity(trees.len()),
            codes: Vec::with_capacity(n_nodes),
            weights: Vec::with_capacity(n_nodes * width),
            rows: Vec::with_capacity(n_nodes),
            width,
        };
        // per arena, where each part was first written (usize::MAX: not yet)
        let mut written: Vec<Vec<usize>> = (arenas.iter())
            .map(|(parts, _)| vec![usize::MAX; parts.parts.len()])
            .collect();
        for &(_, _, a, top) in &trees {
            let parts = &arenas[a].0;
            listed.costs.push(parts.cost(top));
            listed.sizes.push(parts.size(top));
            listed.write(parts, top, &mut written[a]);
        }
        listed
    }

    /// Appends the codes, statistics and rows of part `part` of `parts` in pre-order; a
    /// subtree written before (`written` says where) is copied from there.
    fn write(&mut self, parts: &Parts, part: u32, written: &mut [usize]) {
        let size = parts.size(part) as usize;
        let at = written[part as usize];
        if at != usize::MAX {
            self.codes.extend_from_within(at..at + size);
            self.rows.extend_from_within(at..at + size);
            let w = self.width;
            self.weights.extend_from_within(at * w..(at + size) * w);
            return;
        }
        written[part as usize] = self.codes.len();
        self.codes.push(parts.code(part));
        let node = match parts.parts[part as usize].2 {
            Shape::Leaf { node, .. } | Shape::Split { node, .. } => node,
        };
        self.weights.extend_from_slice(parts.stats(node));
        self.rows.push(parts.rows[node as usize]);
        if let Shape::Split { left, right, .. } = parts.parts[part as usize].2 {
            self.write(parts, left, written);
            self.write(parts, right, written);
        }
    }
}

/// A cost's bits, ordered as the costs are.
fn ordered(cost: f64) -> u64 {
    let bits = cost.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// A tree's first codes packed in a number that orders trees as their codes do, as far as
/// it goes: each code offset to be positive, in `bits` bits, the root's in the highest; 0
/// after a tree's last code (no tree's codes begin another's, so two trees whose numbers
/// differ differ in their codes).
struct Prefix {
    bits: u32,
    /// How many codes are packed: 0 when the codes are too many to pack in 16 bits.
    slots: u32,
    offset: i64,
}

impl Prefix {
    fn new(n_features: usize, n_classes: usize) -> Self {
        let codes = n_features + n_classes; // offset codes run from 1 to this
        let (bits, slots) = match codes {
            0..=255 => (8, 8),
            256..=65_535 => (16, 4),
            _ => (16, 0),
        };
        Self {
            bits,
            slots,
            offset: n_classes as i64 + 1,
        }
    }

    /// The packed first codes of part `top` of `parts`.
    fn of(&self, parts: &Parts, top: u32) -> u64 {
        let (mut packed, mut filled) = (0u64, 0);
        // the parts still to visit in pre-order: fewer than two per code packed, and one
        let (mut stack, mut len) = ([0u32; 18], 1);
        stack[0] = top;
        while len > 0 && filled < self.slots {
            len -= 1;
            let part = stack[len];
            let code = (parts.code(part) + self.offset) as u64;
            packed |= code << (64 - self.bits * (filled + 1));
            filled += 1;
            if let Shape::Split { left, right, .. } = parts.parts[part as usize].2 {
                stack[len] = right;
                stack[len + 1] = left;
                len += 2;
            }
        }
        packed
    }
}

/// A listed subtree's shape: a leaf, or a split and the parts of its two subtrees. `node`
/// indexes the arena's nodes.
#[derive(Clone, Copy)]
enum Shape {
    Leaf {
        class: u32,
        node: u32,
    },
    Split {
        feature: u32,
        node: u32,
        left: u32,
        right: u32,
    },
}

/// The subtrees listed under one root, and the nodes they are made of.
#[derive(Default)]
pub(super) struct Parts {
    /// Per part: its cost, number of nodes and shape.
    parts: Vec<(f64, u32, Shape)>,
    /// Per node, its statistics (`width` numbers each; see `Listed::weights`).
    stats: Vec<f64>,
    width: usize,
    /// Per node, its number of rows.
    rows: Vec<u32>,
    /// Per subproblem listed: the budget of its list, and the list, cheapest first.
    lists: FxHashMap<Key, (f64, Vec<u32>)>,
}

impl Parts {
    /// Adds a node of statistics `stats` and `rows` rows; returns its index.
    fn node(&mut self, stats: &[f64], rows: u32) -> u32 {
        self.width = stats.len();
        self.stats.extend_from_slice(stats);
        self.rows.push(rows);
        (self.rows.len() - 1) as u32
    }

    /// The statistics of node `node`.
    fn stats(&self, node: u32) -> &[f64] {
        let at = node as usize * self.width;
        &self.stats[at..at + self.width]
    }

    /// Adds a part; returns its index.
    fn part(&mut self, cost: f64, shape: Shape) -> u32 {
        let size = match shape {
            Shape::Leaf { .. } => 1,
            Shape::Split { left, right, .. } => 1 + self.size(left) + self.size(right),
        };
        self.parts.push((cost, size, shape));
        (self.parts.len() - 1) as u32
    }

    fn cost(&self, part: u32) -> f64 {
        self.parts[part as usize].0
    }

    /// The number of nodes of part `part`.
    fn size(&self, part: u32) -> u32 {
        self.parts[part as usize].1
    }

    /// The code of part `part`'s root (see [`Codes`](super::Codes)).
    fn code(&self, part: u32) -> i64 {
        match self.parts[part as usize].2 {
            Shape::Leaf { class, .. } => -1 - i64::from(class),
            Shape::Split { feature, .. } => i64::from(feature),
        }
    }

    /// Part `x` of `first` against part `y` of `second`, in the order of their codes. The
    /// codes of a tree in pre-order are its root's, then its left subtree's, then its right
    /// subtree's, and no subtree's codes begin another's: so two trees compare as their
    /// roots, then as their left subtrees, then as their right ones.
    fn compare(first: &Parts, x: u32, second: &Parts, y: u32) -> std::cmp::Ordering {
        if std::ptr::eq(first, second) && x == y {
            return std::cmp::Ordering::Equal; // a subtree shared by the two trees
        }
        let roots = first.code(x).cmp(&second.code(y));
        match (first.parts[x as usize].2, second.parts[y as usize].2) {
            (
                Shape::Split {
                    left: l1,
                    right: r1,
                    ..
                },
                Shape::Split {
                    left: l2,
                    right: r2,
                    ..
                },
            ) => roots
                .then_with(|| Self::compare(first, l1, second, l2))
                .then_with(|| Self::compare(first, r1, second, r2)),
            _ => roots,
        }
    }

    /// Whether parts `a` and `b` are leaves predicting the same class.
    fn same_leaves(&self, a: u32, b: u32) -> bool {
        match (self.parts[a as usize].2, self.parts[b as usize].2) {
            (Shape::Leaf { class: x, .. }, Shape::Leaf { class: y, .. }) => x == y,
            _ => false,
        }
    }
}

impl Rashomon<'_> {
    /// The node of `rows` in `parts`: its statistics and number of rows.
    pub(super) fn node(&self, rows: &[u64], parts: &mut Parts) -> u32 {
        parts.node(&self.class_weights(rows), count_rows(rows))
    }

    /// Appends to `out` every tree of depth at most `depth` over `rows` costing at most
    /// `bound`, as parts of `parts`, cheapest first.
    pub(super) fn trees(
        &mut self,
        rows: &[u64],
        depth: u32,
        bound: f64,
        parts: &mut Parts,
        out: &mut Vec<u32>,
    ) {
        let listed = with_key(rows, depth, |key| {
            let (_, list) = parts
                .lists
                .get(key)
                .filter(|(covered, _)| *covered >= bound)?;
            let within = list.partition_point(|&p| parts.cost(p) <= bound + self.tolerance);
            out.extend_from_slice(&list[..within]);
            Some(())
        });
        if listed.is_some() {
            return;
        }
        // listed once, for the widest budget it is asked for
        let wide = self.widened(rows, depth, bound);
        let Some(mut list) = self.list(rows, depth, wide, parts) else {
            return; // the search stops: nothing listed is kept
        };
        list.sort_unstable_by(|&a, &b| parts.cost(a).total_cmp(&parts.cost(b)));
        let within = list.partition_point(|&p| parts.cost(p) <= bound + self.tolerance);
        out.extend_from_slice(&list[..within]);
        parts.lists.insert(key(rows, depth), (wide, list));
    }

    /// Every tree of depth at most `depth` over `rows` costing at most `bound`, as parts of
    /// `parts`, in no order; `None` when the search stops.
    pub(super) fn list(
        &mut self,
        rows: &[u64],
        depth: u32,
        bound: f64,
        parts: &mut Parts,
    ) -> Option<Vec<u32>> {
        let node = self.node(rows, parts);
        let (leaf, class) = self.leaf_of(rows, parts.stats(node));
        let mut list = Vec::new();
        if leaf <= bound + self.tolerance {
            list.push(parts.part(leaf, Shape::Leaf { class, node }));
        }
        if depth > 0 {
            for at in 0..self.allowed.len() {
                if self.budget.check().is_some() {
                    return None;
                }
                self.split_trees(rows, node, depth, self.allowed[at], bound, parts, &mut list);
            }
        }
        Some(list)
    }

    /// Appends to `out` every tree over `rows` (node `node` of `parts`) of depth at most
    /// `depth` (at least 1) splitting on `feature` first and costing at most `bound`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn split_trees(
        &mut self,
        rows: &[u64],
        node: u32,
        depth: u32,
        feature: u32,
        bound: f64,
        parts: &mut Parts,
        out: &mut Vec<u32>,
    ) {
        let Some((left, right, solved_left, solved_right)) =
            self.split_within(rows, depth, feature, bound)
        else {
            return;
        };
        let (low_left, low_right) = (solved_left.cost, solved_right.cost);
        // two leaves predicting the same class, when such trees are left out
        let trivial_leaves = !self.trivial_splits && matches!(self.loss, Loss::Classes);
        // each side listed once, within what the other side's optimum leaves, cheapest first,
        // and paired in cost order as the histograms are
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        self.trees(&left, depth - 1, bound - low_right, parts, &mut lefts);
        self.trees(&right, depth - 1, bound - low_left, parts, &mut rights);
        for &first in &lefts {
            let first_cost = parts.cost(first);
            for &second in &rights {
                let cost = first_cost + parts.cost(second);
                if cost > bound + self.tolerance {
                    break;
                }
                if trivial_leaves && parts.same_leaves(first, second) {
                    continue;
                }
                let shape = Shape::Split {
                    feature,
                    node,
                    left: first,
                    right: second,
                };
                out.push(parts.part(cost, shape));
            }
        }
    }
}

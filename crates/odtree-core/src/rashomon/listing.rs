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
    /// trees), ties in the order of their codes.
    pub(super) fn sorted(arenas: &[(Parts, Vec<u32>)], most: usize) -> Self {
        // every tree's codes and nodes, written once, to sort by and to copy from
        let (mut codes, mut nodes) = (Vec::new(), Vec::new());
        let mut trees = Vec::new(); // (cost, arena, start of its codes, end)
        for (a, (parts, tops)) in arenas.iter().enumerate() {
            for &top in tops {
                let start = codes.len();
                parts.write(top, &mut |code, node| {
                    codes.push(code);
                    nodes.push(node);
                });
                trees.push((parts.cost(top), a, start, codes.len()));
            }
        }
        trees.sort_by(|x, y| {
            (x.0.total_cmp(&y.0)).then_with(|| codes[x.2..x.3].cmp(&codes[y.2..y.3]))
        });
        trees.truncate(most);
        let width = arenas
            .iter()
            .map(|(parts, _)| parts.width)
            .max()
            .unwrap_or(0);
        let n_nodes: usize = trees.iter().map(|&(_, _, start, end)| end - start).sum();
        let mut listed = Self {
            costs: Vec::with_capacity(trees.len()),
            sizes: Vec::with_capacity(trees.len()),
            codes: Vec::with_capacity(n_nodes),
            weights: Vec::with_capacity(n_nodes * width),
            rows: Vec::with_capacity(n_nodes),
            width,
        };
        for &(cost, a, start, end) in &trees {
            let parts = &arenas[a].0;
            listed.costs.push(cost);
            listed.sizes.push((end - start) as u32);
            listed.codes.extend_from_slice(&codes[start..end]);
            for &node in &nodes[start..end] {
                listed.weights.extend_from_slice(parts.stats(node));
                listed.rows.push(parts.rows[node as usize]);
            }
        }
        listed
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
    /// Per part: its cost and shape.
    parts: Vec<(f64, Shape)>,
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
        self.parts.push((cost, shape));
        (self.parts.len() - 1) as u32
    }

    fn cost(&self, part: u32) -> f64 {
        self.parts[part as usize].0
    }

    /// Whether parts `a` and `b` are leaves predicting the same class.
    fn same_leaves(&self, a: u32, b: u32) -> bool {
        match (self.parts[a as usize].1, self.parts[b as usize].1) {
            (Shape::Leaf { class: x, .. }, Shape::Leaf { class: y, .. }) => x == y,
            _ => false,
        }
    }

    /// Calls `visit` with the code and node of each of part `part`'s nodes, in pre-order.
    fn write(&self, part: u32, visit: &mut impl FnMut(i64, u32)) {
        let (code, node, children) = match self.parts[part as usize].1 {
            Shape::Leaf { class, node } => (-1 - i64::from(class), node, None),
            Shape::Split {
                feature,
                node,
                left,
                right,
            } => (i64::from(feature), node, Some((left, right))),
        };
        visit(code, node);
        if let Some((left, right)) = children {
            self.write(left, visit);
            self.write(right, visit);
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
        let node = self.node(rows, parts);
        let (leaf, class) = self.leaf_of(rows, parts.stats(node));
        let mut list = Vec::new();
        if leaf <= bound + self.tolerance {
            list.push(parts.part(leaf, Shape::Leaf { class, node }));
        }
        if depth > 0 {
            for at in 0..self.allowed.len() {
                if self.budget.check().is_some() {
                    return; // the search stops: nothing listed is kept
                }
                self.split_trees(rows, node, depth, self.allowed[at], bound, parts, &mut list);
            }
        }
        list.sort_by(|&a, &b| parts.cost(a).total_cmp(&parts.cost(b)));
        out.extend_from_slice(&list);
        parts.lists.insert(key(rows, depth), (bound, list));
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
        let Some((left, right)) = self.split(rows, feature) else {
            return;
        };
        let (low_left, low_right) = (
            self.optimum(&left, depth - 1),
            self.optimum(&right, depth - 1),
        );
        if low_left + low_right > bound + self.tolerance {
            return;
        }
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

//! The code tree, built from the reference frequency table the way the
//! reference builds it.
//!
//! Construction (DDNet/Teeworlds `CHuffman::ConstructTree`): start with 257
//! pending nodes (bytes 0..=255 with their table frequency, EOF with
//! frequency 1). While more than one is pending: bubble-sort the pending list
//! by descending frequency (the reference's stable bubble sort: it swaps only
//! on strictly smaller frequency), take the last (rarest) node as child 0 and
//! the second-to-last as child 1 of a new internal node, which replaces the
//! second-to-last entry with the summed frequency. The last node created is
//! the root. Child 1 is the `1` bit.
//!
//! Codes are LSB-first: bit `i` of [`Code::bits`] is the branch taken at
//! depth `i`, which is the order in which the bit reader sees them.

use std::sync::OnceLock;

/// Number of symbols: the 256 byte values plus EOF.
pub const NUM_SYMBOLS: usize = 257;
/// The end-of-stream symbol.
pub const EOF: u16 = 256;
/// Leaves plus internal nodes of a full binary tree over [`NUM_SYMBOLS`].
pub(crate) const NUM_NODES: usize = 2 * NUM_SYMBOLS - 1;
/// The longest code in the tree built from [`FREQUENCIES`] (EOF and 0x77).
pub const MAX_CODE_LEN: u32 = 15;

/// The reference frequency table (Teeworlds `gs_aFreqTable`, 256 + 1
/// entries). The last entry is ignored: EOF always gets frequency 1.
#[rustfmt::skip]
pub const FREQUENCIES: [u32; NUM_SYMBOLS] = [
    1 << 30, 4545, 2657, 431, 1950, 919, 444, 482, 2244, 617, 838, 542, 715, 1814, 304, 240, 754, 212, 647, 186,
    283, 131, 146, 166, 543, 164, 167, 136, 179, 859, 363, 113, 157, 154, 204, 108, 137, 180, 202, 176,
    872, 404, 168, 134, 151, 111, 113, 109, 120, 126, 129, 100, 41, 20, 16, 22, 18, 18, 17, 19,
    16, 37, 13, 21, 362, 166, 99, 78, 95, 88, 81, 70, 83, 284, 91, 187, 77, 68, 52, 68,
    59, 66, 61, 638, 71, 157, 50, 46, 69, 43, 11, 24, 13, 19, 10, 12, 12, 20, 14, 9,
    20, 20, 10, 10, 15, 15, 12, 12, 7, 19, 15, 14, 13, 18, 35, 19, 17, 14, 8, 5,
    15, 17, 9, 15, 14, 18, 8, 10, 2173, 134, 157, 68, 188, 60, 170, 60, 194, 62, 175, 71,
    148, 67, 167, 78, 211, 67, 156, 69, 1674, 90, 174, 53, 147, 89, 181, 51, 174, 63, 163, 80,
    167, 94, 128, 122, 223, 153, 218, 77, 200, 110, 190, 73, 174, 69, 145, 66, 277, 143, 141, 60,
    136, 53, 180, 57, 142, 57, 158, 61, 166, 112, 152, 92, 26, 22, 21, 28, 20, 26, 30, 21,
    32, 27, 20, 17, 23, 21, 30, 22, 22, 21, 27, 25, 17, 27, 23, 18, 39, 26, 15, 21,
    12, 18, 18, 27, 20, 18, 15, 19, 11, 17, 33, 12, 18, 15, 19, 18, 16, 26, 17, 18,
    9, 10, 25, 22, 22, 17, 20, 16, 6, 16, 15, 20, 14, 18, 24, 335, 1517,
];

/// One symbol's code: `len` bits, LSB-first in `bits`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Code {
    pub bits: u32,
    pub len: u32,
}

impl Code {
    /// The code as a string of `0`/`1` in stream order (as huffman.md lists it).
    pub fn to_bit_string(self) -> String {
        (0..self.len)
            .map(|i| if self.bits >> i & 1 == 1 { '1' } else { '0' })
            .collect()
    }
}

/// The decoding tree and the encoding table.
pub struct Tree {
    /// Children `[bit 0, bit 1]` of each node. Nodes `0..NUM_SYMBOLS` are the
    /// leaves (node index = symbol); their entries are unused.
    pub children: [[u16; 2]; NUM_NODES],
    /// The root node index.
    pub root: u16,
    /// The code of each symbol.
    pub codes: [Code; NUM_SYMBOLS],
}

impl Tree {
    /// Whether `node` is a leaf, i.e. a symbol.
    #[inline]
    pub fn is_leaf(node: u16) -> bool {
        (node as usize) < NUM_SYMBOLS
    }

    /// Builds the tree from a frequency table exactly as the reference does.
    ///
    /// After the first sort only the merged node is out of place, at the
    /// end, so it is inserted where the reference's stable sort moves it
    /// (after every node of equal or higher frequency) instead of sorting
    /// the whole list again: the same tree in O(n²) instead of O(n³)
    /// steps (the tests compare it with the reference's way).
    pub fn build(frequencies: &[u32; NUM_SYMBOLS]) -> Tree {
        Tree::build_opts(frequencies, false)
    }

    /// [`Tree::build`] with the whole list bubble-sorted before every merge,
    /// as the reference does (the plain version the tests compare with).
    #[cfg(test)]
    fn build_resorting(frequencies: &[u32; NUM_SYMBOLS]) -> Tree {
        Tree::build_opts(frequencies, true)
    }

    fn build_opts(frequencies: &[u32; NUM_SYMBOLS], resort: bool) -> Tree {
        #[derive(Clone, Copy)]
        struct Pending {
            node: u16,
            frequency: u64,
        }
        let mut pending: Vec<Pending> = (0..NUM_SYMBOLS)
            .map(|i| Pending {
                node: i as u16,
                frequency: if i == EOF as usize {
                    1
                } else {
                    u64::from(frequencies[i])
                },
            })
            .collect();
        let mut children = [[u16::MAX; 2]; NUM_NODES];
        let mut next = NUM_SYMBOLS;
        let mut sorted = false;
        while pending.len() > 1 {
            if sorted && !resort {
                insert_last_descending(&mut pending, |p| p.frequency);
            } else {
                bubble_sort_descending(&mut pending, |p| p.frequency);
                sorted = true;
            }
            let n = pending.len();
            let (rarest, second) = (pending[n - 1], pending[n - 2]);
            children[next] = [rarest.node, second.node];
            pending[n - 2] = Pending {
                node: next as u16,
                frequency: rarest.frequency + second.frequency,
            };
            pending.pop();
            next += 1;
        }
        let root = (next - 1) as u16;

        let mut codes = [Code::default(); NUM_SYMBOLS];
        let mut stack = vec![(root, Code::default())];
        while let Some((node, code)) = stack.pop() {
            if Tree::is_leaf(node) {
                codes[node as usize] = code;
                continue;
            }
            let [zero, one] = children[node as usize];
            stack.push((
                zero,
                Code {
                    bits: code.bits,
                    len: code.len + 1,
                },
            ));
            stack.push((
                one,
                Code {
                    bits: code.bits | 1 << code.len,
                    len: code.len + 1,
                },
            ));
        }
        Tree {
            children,
            root,
            codes,
        }
    }

    /// The tree of the reference frequency table, built once.
    pub fn reference() -> &'static Tree {
        static TREE: OnceLock<Tree> = OnceLock::new();
        TREE.get_or_init(|| Tree::build(&FREQUENCIES))
    }
}

/// The reference's bubble sort: passes over a shrinking prefix, swapping
/// neighbours whose frequency is strictly smaller than the next one's, until
/// a pass changes nothing. Equal frequencies keep their order.
fn bubble_sort_descending<T: Copy>(list: &mut [T], key: impl Fn(&T) -> u64) {
    let mut size = list.len();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..size.saturating_sub(1) {
            if key(&list[i]) < key(&list[i + 1]) {
                list.swap(i, i + 1);
                changed = true;
            }
        }
        size = size.saturating_sub(1);
    }
}

/// Moves the last entry of `list`, whose other entries are sorted by
/// descending key, to after the last entry whose key is not smaller: where
/// [`bubble_sort_descending`] (stable) would put it.
fn insert_last_descending<T: Copy>(list: &mut [T], key: impl Fn(&T) -> u64) {
    let Some((last, rest)) = list.split_last() else {
        return;
    };
    let k = key(last);
    let at = rest.partition_point(|e| key(e) >= k);
    list[at..].rotate_right(1);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserting the merged node gives the reference's tree, for its table
    /// and for tables with many equal frequencies (all non-zero and within
    /// a small ratio, so that every code fits [`Code`]).
    #[test]
    fn inserting_equals_resorting() {
        let mut tables = vec![FREQUENCIES];
        let mut flat = [0u32; NUM_SYMBOLS];
        for (i, f) in flat.iter_mut().enumerate() {
            *f = 1 + (i % 7) as u32 * 3;
        }
        tables.push(flat);
        tables.push([1; NUM_SYMBOLS]);
        #[cfg(feature = "synth")]
        {
            let mut rng = crate::synth::Rng::new(0x7eeb);
            for _ in 0..20 {
                let mut t = [0u32; NUM_SYMBOLS];
                for f in &mut t {
                    *f = 32 + rng.below(32);
                }
                tables.push(t);
            }
        }
        for t in &tables {
            let (a, b) = (Tree::build(t), Tree::build_resorting(t));
            assert_eq!(a.root, b.root);
            assert_eq!(a.children, b.children);
            assert_eq!(a.codes, b.codes);
        }
    }

    #[test]
    fn longest_code_and_kraft_equality() {
        let tree = Tree::reference();
        let max = tree.codes.iter().map(|c| c.len).max();
        assert_eq!(max, Some(MAX_CODE_LEN));
        // A full binary tree: sum of 2^-len is exactly 1.
        let sum: u64 = tree
            .codes
            .iter()
            .map(|c| 1u64 << (MAX_CODE_LEN - c.len))
            .sum();
        assert_eq!(sum, 1 << MAX_CODE_LEN);
        assert_eq!(tree.codes[0], Code { bits: 1, len: 1 });
        assert_eq!(tree.codes[EOF as usize].to_bit_string(), "010100011101100");
    }
}

//! Adjacency lists in one array (compressed sparse rows): the graphs of the analysis have 10^5
//! nodes, and a vector per node would make allocation the main cost of `pws wcet`.

/// The lists of `n` nodes, node v's list at `items[start[v]..start[v + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    start: Vec<usize>,
    items: Vec<usize>,
}

impl Csr {
    /// Lists of `n` nodes from `(node, item)` pairs; each list keeps the pairs' order.
    pub fn new(n: usize, pairs: &[(usize, usize)]) -> Csr {
        let mut start = vec![0usize; n + 1];
        for &(u, _) in pairs {
            start[u + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0; pairs.len()];
        for &(u, v) in pairs {
            items[fill[u]] = v;
            fill[u] += 1;
        }
        Csr { start, items }
    }

    /// The same edges the other way round.
    pub fn transpose(&self) -> Csr {
        let mut pairs = Vec::with_capacity(self.items.len());
        for u in 0..self.len() {
            pairs.extend(self[u].iter().map(|&v| (v, u)));
        }
        Csr::new(self.len(), &pairs)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of items over all lists.
    pub fn edges(&self) -> usize {
        self.items.len()
    }
}

impl std::ops::Index<usize> for Csr {
    type Output = [usize];

    fn index(&self, v: usize) -> &[usize] {
        &self.items[self.start[v]..self.start[v + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_their_order_and_transpose() {
        let g = Csr::new(3, &[(0, 2), (2, 1), (0, 1)]);
        assert_eq!((&g[0], &g[1], &g[2]), (&[2, 1][..], &[][..], &[1][..]));
        let t = g.transpose();
        assert_eq!((&t[0], &t[1], &t[2]), (&[][..], &[0, 2][..], &[0][..]));
        assert_eq!((g.len(), g.edges()), (3, 3));
    }
}

//! The answer to one query: the motions that take part and their weights.

/// Which rule produced a set of weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapRegion {
    /// Inside the hull, in triangle `index` of [`MotionMap::triangles`](super::MotionMap::triangles).
    Triangle(usize),
    /// Outside the hull, in the wedge of hull edge `index`: between hull vertices
    /// `hull[index]` and `hull[index + 1]` (cyclically) of [`MotionMap::hull`](super::MotionMap::hull).
    Outside(usize),
}

/// The weights of one query in sparse form: at most three motions, weights summing to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionBlend {
    pub(super) points: [u16; 3],
    pub(super) weights: [f64; 3],
    pub(super) len: u8,
    pub(super) region: MapRegion,
}

impl MotionBlend {
    /// `(point index, weight)` for the motions of the triangle (three) or hull edge (two)
    /// the query fell in; some weights may be 0.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let n = self.len as usize;
        self.points[..n]
            .iter()
            .zip(&self.weights[..n])
            .map(|(&p, &w)| (p as usize, w))
    }

    /// Which rule produced the weights.
    pub fn region(&self) -> MapRegion {
        self.region
    }

    /// The weight of point `index` (0 if it does not take part).
    pub fn weight(&self, index: usize) -> f64 {
        self.iter()
            .find(|&(p, _)| p == index)
            .map_or(0.0, |(_, w)| w)
    }
}

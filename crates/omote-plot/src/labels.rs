//! Placing marker labels so that none overlaps another: each goes into the first lane
//! (row) where it keeps clear of the labels already there; one with no free lane is
//! dropped and counted, never drawn over another.

/// A marker label where it was drawn, in image pixels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelBox {
    /// Index of the panel the marker is on.
    pub panel: usize,
    /// The label's text.
    pub text: String,
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width of the text as the bundled font sets it.
    pub width: i32,
    /// Height of a lane's text.
    pub height: i32,
}

impl LabelBox {
    /// Whether the two boxes share any pixel (boxes that only touch do not).
    pub fn intersects(&self, other: &LabelBox) -> bool {
        self.x < other.x + other.width
            && other.x < self.x + self.width
            && self.y < other.y + other.height
            && other.y < self.y + self.height
    }
}

/// Where [`crate::TimePlot::render_png`] put the marker labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelLayout {
    /// The labels drawn.
    pub placed: Vec<LabelBox>,
    /// Labels left out for want of room (panel index, text); their marker lines are
    /// still drawn.
    pub dropped: Vec<(usize, String)>,
}

impl LabelLayout {
    /// Pairs of placed labels (indices into [`LabelLayout::placed`]) that overlap: none,
    /// by construction.
    pub fn overlaps(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, a) in self.placed.iter().enumerate() {
            for (j, b) in self.placed.iter().enumerate().skip(i + 1) {
                if a.intersects(b) {
                    out.push((i, j));
                }
            }
        }
        out
    }
}

/// Horizontal room kept between two labels in one lane, in pixels.
pub(crate) const GAP: i32 = 12;

/// For each label (`anchor` x, `width`), in input order: its lane and left edge, or
/// `None` when no lane of `lanes` has room. A label starts just right of its anchor,
/// or ends just left of it where it would run past `right`; it never starts left of
/// `left`. Labels are placed in order of their anchors, each in the first lane where it
/// keeps [`GAP`] from every label there. An empty label (width 0) takes no room and
/// gets `None`.
pub(crate) fn place(
    labels: &[(i32, i32)],
    (left, right): (i32, i32),
    lanes: usize,
) -> Vec<Option<(usize, i32)>> {
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by_key(|&i| labels[i].0);
    // Each lane's occupied spans, [from, to).
    let mut taken: Vec<Vec<(i32, i32)>> = vec![Vec::new(); lanes];
    let mut out = vec![None; labels.len()];
    for i in order {
        let (anchor, width) = labels[i];
        if width <= 0 {
            continue;
        }
        let mut x = anchor + 2;
        if x + width > right {
            x = anchor - 2 - width;
        }
        let x = x.max(left);
        let free = |spans: &Vec<(i32, i32)>| {
            spans
                .iter()
                .all(|&(a, b)| x + width + GAP <= a || b + GAP <= x)
        };
        if let Some(lane) = taken.iter().position(free) {
            taken[lane].push((x, x + width));
            out[i] = Some((lane, x));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_apart_labels_share_the_first_lane_and_close_ones_stack() {
        let placed = place(&[(0, 50), (100, 50), (300, 50)], (0, 1000), 3);
        assert_eq!(placed, [Some((0, 2)), Some((0, 102)), Some((0, 302))]);
        // 10 px apart: each needs a lane of its own; the fourth finds none.
        let placed = place(&[(30, 50), (0, 50), (10, 50), (20, 50)], (0, 1000), 3);
        assert_eq!(placed, [None, Some((0, 2)), Some((1, 12)), Some((2, 22))]);
        // An empty label is not placed and takes no room.
        let placed = place(&[(0, 0), (0, 50)], (0, 1000), 1);
        assert_eq!(placed, [None, Some((0, 2))]);
    }

    #[test]
    fn a_label_at_the_right_edge_ends_at_its_marker() {
        assert_eq!(place(&[(990, 50)], (0, 1000), 1), [Some((0, 938))]);
        // Wider than the room: kept inside on the left.
        assert_eq!(place(&[(5, 50)], (0, 40), 1), [Some((0, 0))]);
    }

    #[test]
    fn boxes_that_touch_do_not_intersect() {
        let b = |x, y| LabelBox {
            panel: 0,
            text: String::new(),
            x,
            y,
            width: 10,
            height: 10,
        };
        assert!(b(0, 0).intersects(&b(9, 9)));
        assert!(!b(0, 0).intersects(&b(10, 0)));
        assert!(!b(0, 0).intersects(&b(0, 10)));
        let layout = LabelLayout {
            placed: vec![b(0, 0), b(20, 0), b(5, 5)],
            dropped: Vec::new(),
        };
        assert_eq!(layout.overlaps(), [(0, 2)]);
    }
}

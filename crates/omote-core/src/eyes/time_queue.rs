//! `TimeQueue`: a few future times, earliest first, in a fixed-size array.

/// A fixed-capacity set of times (seconds), kept sorted, earliest first. Pushing never
/// allocates; a full queue refuses new times.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TimeQueue<const N: usize> {
    times: [f64; N],
    len: usize,
}

impl<const N: usize> Default for TimeQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> TimeQueue<N> {
    /// An empty queue.
    pub const fn new() -> Self {
        Self {
            times: [0.0; N],
            len: 0,
        }
    }

    /// Insert `t` in order. `false` if the queue is full or `t` is not finite.
    pub fn push(&mut self, t: f64) -> bool {
        if self.len == N || !t.is_finite() {
            return false;
        }
        let at = self.times[..self.len].partition_point(|&x| x <= t);
        self.times.copy_within(at..self.len, at + 1);
        self.times[at] = t;
        self.len += 1;
        true
    }

    /// The earliest time.
    pub fn peek(&self) -> Option<f64> {
        (self.len > 0).then(|| self.times[0])
    }

    /// Remove and return the earliest time.
    pub fn pop(&mut self) -> Option<f64> {
        let t = self.peek()?;
        self.times.copy_within(1..self.len, 0);
        self.len -= 1;
        Some(t)
    }

    /// Remove every time before `t`.
    pub fn drop_before(&mut self, t: f64) {
        let n = self.times[..self.len].partition_point(|&x| x < t);
        if n > 0 {
            self.times.copy_within(n..self.len, 0);
            self.len -= n;
        }
    }

    /// Whether some time lies in `[lo, hi]`.
    pub fn any_in(&self, lo: f64, hi: f64) -> bool {
        let i = self.times[..self.len].partition_point(|&x| x < lo);
        i < self.len && self.times[i] <= hi
    }

    /// Remove everything.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The times, earliest first.
    pub fn as_slice(&self) -> &[f64] {
        &self.times[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_refuses_when_full_and_drops_past_times() {
        let mut q = TimeQueue::<3>::new();
        assert!(q.push(2.0) && q.push(1.0) && q.push(3.0));
        assert!(!q.push(0.5));
        assert!(!TimeQueue::<3>::new().push(f64::NAN));
        assert_eq!(q.as_slice(), [1.0, 2.0, 3.0]);
        assert!(q.any_in(1.5, 2.0) && !q.any_in(2.1, 2.9));
        q.drop_before(2.0);
        assert_eq!(q.as_slice(), [2.0, 3.0]);
        assert_eq!(q.pop(), Some(2.0));
        assert_eq!(q.peek(), Some(3.0));
        q.clear();
        assert_eq!(q.pop(), None);
    }
}

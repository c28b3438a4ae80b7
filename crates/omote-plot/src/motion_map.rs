//! A picture of a camera motion map: the points, their triangles and hull rays, and a
//! heat map of each motion's weight over the whole (α, β) plane, one small panel each.
//!
//! Takes plain data so this crate needs nothing from `omote-core`: the caller samples the
//! weights into a [`WeightGrid`].

use std::path::Path;

use plotters::prelude::*;

use crate::{PlotError, register_fonts};

/// Weights sampled on a regular grid of cell centres over an (α, β) rectangle.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightGrid {
    /// α range (degrees) the grid covers, left to right.
    pub alpha: (f64, f64),
    /// β range (degrees) the grid covers, bottom to top.
    pub beta: (f64, f64),
    /// Cells along α.
    pub cols: usize,
    /// Cells along β.
    pub rows: usize,
    /// Motions per cell.
    pub motions: usize,
    /// `weights[(row * cols + col) * motions + k]`: weight of motion `k` at the centre of
    /// cell (`col`, `row`), row 0 at the lowest β.
    pub weights: Vec<f64>,
    /// The correction's fade factor per cell (`row * cols + col`), if the map has one.
    pub fade: Option<Vec<f64>>,
}

impl WeightGrid {
    /// Sample `weights_into(alpha, beta, out)` at every cell centre of a `cols` × `rows`
    /// grid over the given ranges; `out` has `motions` entries.
    ///
    /// ```
    /// use omote_plot::WeightGrid;
    /// let g = WeightGrid::sample((-180.0, 180.0), (-90.0, 90.0), 4, 2, 2, |a, _b, out| {
    ///     out[0] = if a < 0.0 { 1.0 } else { 0.0 };
    ///     out[1] = 1.0 - out[0];
    /// });
    /// assert_eq!(g.weight(0, 0, 0), 1.0);
    /// assert_eq!(g.weight(3, 1, 1), 1.0);
    /// ```
    pub fn sample(
        alpha: (f64, f64),
        beta: (f64, f64),
        cols: usize,
        rows: usize,
        motions: usize,
        mut weights_into: impl FnMut(f64, f64, &mut [f64]),
    ) -> Self {
        let mut weights = vec![0.0; cols * rows * motions];
        for row in 0..rows {
            for col in 0..cols {
                let (a, b) = cell_centre(alpha, beta, cols, rows, col, row);
                let i = (row * cols + col) * motions;
                weights_into(a, b, &mut weights[i..i + motions]);
            }
        }
        Self {
            alpha,
            beta,
            cols,
            rows,
            motions,
            weights,
            fade: None,
        }
    }

    /// Builder-style: sample a fade factor per cell too.
    pub fn with_fade(mut self, mut fade: impl FnMut(f64, f64) -> f64) -> Self {
        let mut out = Vec::with_capacity(self.cols * self.rows);
        for row in 0..self.rows {
            for col in 0..self.cols {
                let (a, b) = cell_centre(self.alpha, self.beta, self.cols, self.rows, col, row);
                out.push(fade(a, b));
            }
        }
        self.fade = Some(out);
        self
    }

    /// The weight of motion `k` in cell (`col`, `row`).
    pub fn weight(&self, col: usize, row: usize, k: usize) -> f64 {
        self.weights[(row * self.cols + col) * self.motions + k]
    }

    fn cell(&self, col: usize, row: usize) -> [(f64, f64); 2] {
        let da = (self.alpha.1 - self.alpha.0) / self.cols as f64;
        let db = (self.beta.1 - self.beta.0) / self.rows as f64;
        let a = self.alpha.0 + da * col as f64;
        let b = self.beta.0 + db * row as f64;
        [(a, b), (a + da, b + db)]
    }
}

fn cell_centre(
    alpha: (f64, f64),
    beta: (f64, f64),
    cols: usize,
    rows: usize,
    col: usize,
    row: usize,
) -> (f64, f64) {
    (
        alpha.0 + (alpha.1 - alpha.0) * (col as f64 + 0.5) / cols as f64,
        beta.0 + (beta.1 - beta.0) * (row as f64 + 0.5) / rows as f64,
    )
}

/// Everything a motion map plot shows.
#[derive(Clone, Debug, PartialEq)]
pub struct MotionMapPlot {
    /// Title at the top.
    pub title: String,
    /// Motion names, one per point.
    pub names: Vec<String>,
    /// Point positions (α, β) in degrees.
    pub points: Vec<[f64; 2]>,
    /// Where the hull rays start.
    pub center: [f64; 2],
    /// Triangles as point indices.
    pub triangles: Vec<[usize; 3]>,
    /// Hull vertices in order (the rays pass through these).
    pub hull: Vec<usize>,
    /// Fade radii (start, end) around the centre, drawn as circles.
    pub fade: Option<(f64, f64)>,
    /// The sampled weights; its ranges are the plotted area.
    pub grid: WeightGrid,
    /// Panels per row.
    pub columns: usize,
    /// Size of one panel in pixels.
    pub panel_size: (u32, u32),
}

impl MotionMapPlot {
    /// A plot with 4 panels per row of 520 × 300 pixels.
    pub fn new(
        title: impl Into<String>,
        names: Vec<String>,
        points: Vec<[f64; 2]>,
        center: [f64; 2],
        grid: WeightGrid,
    ) -> Self {
        Self {
            title: title.into(),
            names,
            points,
            center,
            triangles: Vec::new(),
            hull: Vec::new(),
            fade: None,
            grid,
            columns: 4,
            panel_size: (520, 300),
        }
    }

    /// Draw to a PNG file: an overview panel (points, triangles, hull, rays, fade circles),
    /// a panel per motion with its weight as a heat map (white 0 … dark blue 1), and a
    /// fade panel if the grid has fade factors.
    pub fn render_png(&self, path: &Path) -> Result<(), PlotError> {
        register_fonts();
        let err = |e: &dyn std::fmt::Display| PlotError::Draw {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        if self.grid.motions != self.names.len()
            || self.points.len() != self.names.len()
            || self.grid.weights.len() != self.grid.cols * self.grid.rows * self.grid.motions
        {
            return Err(err(&"names, points and grid disagree in size"));
        }
        let panels = 1 + self.names.len() + usize::from(self.grid.fade.is_some());
        let cols = self.columns.clamp(1, panels);
        let rows = panels.div_ceil(cols);
        let (pw, ph) = self.panel_size;
        let size = (pw * cols as u32, 50 + ph * rows as u32);
        let root = BitMapBackend::new(path, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(&self.title, ("sans-serif", 26))
            .map_err(|e| err(&e))?;
        let areas = root.split_evenly((rows, cols));
        self.draw_overview(&areas[0]).map_err(|e| err(&e))?;
        for k in 0..self.names.len() {
            let title = format!("weight of `{}`", self.names[k]);
            let value = |col, row| self.grid.weight(col, row, k);
            self.draw_heat(&areas[1 + k], &title, value, Some(k))
                .map_err(|e| err(&e))?;
        }
        if let Some(fade) = &self.grid.fade {
            let value = |col: usize, row: usize| fade[row * self.grid.cols + col];
            self.draw_heat(&areas[1 + self.names.len()], "fade", value, None)
                .map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }

    fn chart<'a, 'b>(
        &self,
        area: &'a Area<'b>,
        title: &str,
    ) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
        let (a, b) = (self.grid.alpha, self.grid.beta);
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(6)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(a.0..a.1, b.0..b.1)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("α (°, + avatar's left)")
            .y_desc("β (°, + above)")
            .x_labels(9)
            .y_labels(7)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style(("sans-serif", 11))
            .axis_desc_style(("sans-serif", 12))
            .draw()?;
        Ok(chart)
    }

    fn draw_overview(&self, area: &Area<'_>) -> Result<(), Box<dyn std::error::Error>> {
        let mut chart = self.chart(area, "points, triangles, hull rays")?;
        self.draw_structure(&mut chart, RGBColor(150, 150, 150), RGBColor(70, 110, 200))?;
        if let Some((start, end)) = self.fade {
            for (r, color) in [
                (start, RGBColor(230, 150, 40)),
                (end, RGBColor(200, 60, 40)),
            ] {
                let pieces = self.inside_pieces(circle(self.center, r));
                chart.draw_series(
                    pieces
                        .into_iter()
                        .map(|piece| PathElement::new(piece, color.stroke_width(1))),
                )?;
            }
        }
        let black = RGBColor(20, 20, 20);
        let font = ("sans-serif", 12).into_font().color(&black);
        chart.draw_series(self.points.iter().zip(&self.names).map(|(p, name)| {
            EmptyElement::at((p[0], p[1]))
                + Circle::new((0, 0), 4, black.filled())
                + Text::new(name.clone(), (5, -15), font.clone())
        }))?;
        let c = (self.center[0], self.center[1]);
        chart.draw_series(std::iter::once(Cross::new(
            c,
            5,
            RGBColor(200, 30, 30).stroke_width(2),
        )))?;
        Ok(())
    }

    fn draw_heat(
        &self,
        area: &Area<'_>,
        title: &str,
        value: impl Fn(usize, usize) -> f64,
        point: Option<usize>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let mut chart = self.chart(area, title)?;
        let g = &self.grid;
        chart.draw_series(
            (0..g.rows)
                .flat_map(|row| (0..g.cols).map(move |col| (col, row)))
                .map(|(col, row)| {
                    let [p0, p1] = g.cell(col, row);
                    Rectangle::new([p0, p1], ramp(value(col, row)).filled())
                }),
        )?;
        self.draw_structure(
            &mut chart,
            RGBColor(120, 120, 120).mix(0.5),
            RGBColor(60, 90, 170).mix(0.6),
        )?;
        if let Some(k) = point {
            let p = self.points[k];
            chart.draw_series(std::iter::once(Circle::new(
                (p[0], p[1]),
                5,
                RGBColor(220, 40, 40).filled(),
            )))?;
        }
        Ok(())
    }

    /// Triangle edges, the hull, and the rays from the hull vertices out to the border.
    fn draw_structure<C: Color>(
        &self,
        chart: &mut Chart<'_, '_>,
        mesh: C,
        rays: C,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let at = |i: usize| (self.points[i][0], self.points[i][1]);
        chart.draw_series(self.triangles.iter().map(|t| {
            PathElement::new(
                vec![at(t[0]), at(t[1]), at(t[2]), at(t[0])],
                mesh.stroke_width(1),
            )
        }))?;
        if !self.hull.is_empty() {
            let mut ring: Vec<(f64, f64)> = self.hull.iter().map(|&i| at(i)).collect();
            ring.push(ring[0]);
            chart.draw_series(std::iter::once(PathElement::new(
                ring,
                rays.stroke_width(2),
            )))?;
        }
        chart.draw_series(self.hull.iter().map(|&i| {
            let p = self.points[i];
            let end = self.ray_exit(p);
            PathElement::new(vec![(p[0], p[1]), (end[0], end[1])], rays.stroke_width(1))
        }))?;
        Ok(())
    }

    /// Where the ray from the centre through `p` leaves the plotted rectangle.
    fn ray_exit(&self, p: [f64; 2]) -> [f64; 2] {
        let c = self.center;
        let d = [p[0] - c[0], p[1] - c[1]];
        let (a, b) = (self.grid.alpha, self.grid.beta);
        let mut s = f64::INFINITY;
        for (dk, ck, lo, hi) in [(d[0], c[0], a.0, a.1), (d[1], c[1], b.0, b.1)] {
            if dk > 0.0 {
                s = s.min((hi - ck) / dk);
            } else if dk < 0.0 {
                s = s.min((lo - ck) / dk);
            }
        }
        if !s.is_finite() || s < 1.0 {
            return p;
        }
        [c[0] + d[0] * s, c[1] + d[1] * s]
    }

    /// The runs of a polyline that lie inside the plotted rectangle.
    fn inside_pieces(&self, pts: Vec<(f64, f64)>) -> Vec<Vec<(f64, f64)>> {
        let (a, b) = (self.grid.alpha, self.grid.beta);
        let inside = |&(x, y): &(f64, f64)| (a.0..=a.1).contains(&x) && (b.0..=b.1).contains(&y);
        let mut pieces = vec![Vec::new()];
        for p in pts {
            if inside(&p) {
                pieces.last_mut().expect("never empty").push(p);
            } else if !pieces.last().expect("never empty").is_empty() {
                pieces.push(Vec::new());
            }
        }
        pieces.retain(|p| p.len() > 1);
        pieces
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type Chart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn circle(c: [f64; 2], r: f64) -> Vec<(f64, f64)> {
    (0..=180)
        .map(|i| {
            let t = f64::from(i) / 180.0 * std::f64::consts::TAU;
            (c[0] + r * t.cos(), c[1] + r * t.sin())
        })
        .collect()
}

/// White (0) through light blue to dark blue (1); values are clamped to [0, 1].
fn ramp(w: f64) -> RGBColor {
    const STOPS: [(f64, [f64; 3]); 3] = [
        (0.0, [255.0, 255.0, 255.0]),
        (0.5, [107.0, 174.0, 214.0]),
        (1.0, [8.0, 48.0, 107.0]),
    ];
    let w = if w.is_nan() { 0.0 } else { w.clamp(0.0, 1.0) };
    let (lo, hi) = if w <= STOPS[1].0 {
        (STOPS[0], STOPS[1])
    } else {
        (STOPS[1], STOPS[2])
    };
    let f = (w - lo.0) / (hi.0 - lo.0);
    let c = |k: usize| (lo.1[k] + (hi.1[k] - lo.1[k]) * f).round() as u8;
    RGBColor(c(0), c(1), c(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> MotionMapPlot {
        // Three motions on a triangle around the origin; weights: nearest point wins.
        let points = vec![[0.0, 60.0], [80.0, -40.0], [-80.0, -40.0]];
        let pts = points.clone();
        let grid = WeightGrid::sample((-180.0, 180.0), (-90.0, 90.0), 90, 45, 3, |a, b, out| {
            let d: Vec<f64> = pts.iter().map(|p| (p[0] - a).hypot(p[1] - b)).collect();
            let best = (0..3).min_by(|&i, &j| d[i].total_cmp(&d[j])).unwrap();
            out.fill(0.0);
            out[best] = 1.0;
        })
        .with_fade(|a, b| if a.hypot(b) < 150.0 { 1.0 } else { 0.0 });
        MotionMapPlot {
            triangles: vec![[0, 1, 2]],
            hull: vec![0, 2, 1],
            fade: Some((120.0, 150.0)),
            ..MotionMapPlot::new(
                "test map",
                vec!["high".into(), "left".into(), "right".into()],
                points,
                [0.0, 0.0],
                grid,
            )
        }
    }

    #[test]
    fn renders_a_png_with_one_panel_per_motion() {
        let dir = std::env::temp_dir().join(format!("omote-plot-mm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("map.png");
        demo().render_png(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 10_000, "a drawn plot is not a blank image");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn mismatched_sizes_are_an_error_not_a_panic() {
        let mut plot = demo();
        plot.names.pop();
        let e = plot.render_png(Path::new("never-written.png")).unwrap_err();
        assert!(e.to_string().contains("disagree"), "{e}");
    }

    #[test]
    fn ramp_ends_and_rays_reach_the_border() {
        assert_eq!(ramp(0.0), RGBColor(255, 255, 255));
        assert_eq!(ramp(1.0), RGBColor(8, 48, 107));
        assert_eq!(ramp(f64::NAN), ramp(0.0));
        let plot = demo();
        assert_eq!(plot.ray_exit([0.0, 60.0]), [0.0, 90.0]);
        assert_eq!(plot.ray_exit([80.0, -40.0]), [180.0, -90.0]);
    }
}

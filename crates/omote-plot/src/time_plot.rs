//! Stacked panels of time series sharing one time axis.

use std::path::Path;

use plotters::prelude::*;

use crate::{PALETTE, PlotError, register_fonts};

/// One line: a label and (time, value) points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points in time order.
    pub points: Vec<(f32, f32)>,
    /// RGB colour; `None` takes the next palette colour.
    pub color: Option<[u8; 3]>,
}

impl Series {
    /// A series with a palette colour.
    pub fn new(label: impl Into<String>, points: Vec<(f32, f32)>) -> Self {
        Self {
            label: label.into(),
            points,
            color: None,
        }
    }

    /// Builder-style: a fixed colour.
    pub fn color(mut self, rgb: [u8; 3]) -> Self {
        self.color = Some(rgb);
        self
    }
}

/// One panel: series over time, shaded spans and labelled event markers.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Panel {
    /// Title drawn above the panel.
    pub title: String,
    /// Fixed value range; `None` fits the data.
    pub y_range: Option<(f32, f32)>,
    /// The lines.
    pub series: Vec<Series>,
    /// Time spans shaded grey (e.g. tracking loss, silence).
    pub spans: Vec<(f32, f32)>,
    /// Vertical markers (time, short label).
    pub markers: Vec<(f32, String)>,
}

impl Panel {
    /// An empty panel.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            ..Self::default()
        }
    }

    /// Builder-style: add a series.
    pub fn series(mut self, s: Series) -> Self {
        self.series.push(s);
        self
    }

    /// Builder-style: fix the value range.
    pub fn y_range(mut self, lo: f32, hi: f32) -> Self {
        self.y_range = Some((lo, hi));
        self
    }

    /// Builder-style: shade a span.
    pub fn span(mut self, from: f32, to: f32) -> Self {
        self.spans.push((from, to));
        self
    }

    /// Builder-style: add a marker.
    pub fn marker(mut self, t: f32, label: impl Into<String>) -> Self {
        self.markers.push((t, label.into()));
        self
    }

    fn value_range(&self) -> (f32, f32) {
        if let Some(r) = self.y_range {
            return r;
        }
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for p in self.series.iter().flat_map(|s| &s.points) {
            if p.1.is_finite() {
                lo = lo.min(p.1);
                hi = hi.max(p.1);
            }
        }
        if !lo.is_finite() {
            return (0.0, 1.0);
        }
        if hi - lo < 1e-6 {
            return (lo - 0.5, hi + 0.5);
        }
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    }
}

/// Panels stacked vertically over a shared time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct TimePlot {
    /// Title at the top.
    pub title: String,
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
    /// Image width in pixels.
    pub width: u32,
    /// Height of each panel in pixels.
    pub panel_height: u32,
}

impl TimePlot {
    /// An empty plot, 1400 px wide, 220 px per panel.
    pub fn new(title: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            panels: Vec::new(),
            width: 1400,
            panel_height: 220,
        }
    }

    /// Builder-style: add a panel.
    pub fn panel(mut self, p: Panel) -> Self {
        self.panels.push(p);
        self
    }

    fn time_range(&self) -> (f32, f32) {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for p in &self.panels {
            for s in &p.series {
                for pt in &s.points {
                    if pt.0.is_finite() {
                        lo = lo.min(pt.0);
                        hi = hi.max(pt.0);
                    }
                }
            }
        }
        if !lo.is_finite() || hi <= lo {
            (0.0, 1.0)
        } else {
            (lo, hi)
        }
    }

    /// Draw to a PNG file.
    pub fn render_png(&self, path: &Path) -> Result<(), PlotError> {
        register_fonts();
        let err = |e: &dyn std::fmt::Display| PlotError::Draw {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let n = self.panels.len().max(1) as u32;
        let height = 60 + n * self.panel_height;
        let root = BitMapBackend::new(path, (self.width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(&self.title, ("sans-serif", 26))
            .map_err(|e| err(&e))?;
        let areas = root.split_evenly((n as usize, 1));
        let (t0, t1) = self.time_range();
        for (panel, area) in self.panels.iter().zip(areas) {
            draw_panel(panel, &area, (t0, t1)).map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw_panel(
    panel: &Panel,
    area: &Area<'_>,
    (t0, t1): (f32, f32),
) -> Result<(), Box<dyn std::error::Error>> {
    let (y0, y1) = panel.value_range();
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 18))
        .margin(8)
        .x_label_area_size(28)
        .y_label_area_size(52)
        .build_cartesian_2d(t0..t1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 13))
        .draw()?;
    let shade = RGBColor(200, 200, 200).mix(0.45);
    for &(a, b) in &panel.spans {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(a, y0), (b, y1)],
            shade.filled(),
        )))?;
    }
    for (t, label) in &panel.markers {
        let grey = RGBColor(120, 120, 120);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(*t, y0), (*t, y1)],
            grey,
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            label.clone(),
            (*t, y1),
            ("sans-serif", 12).into_font().color(&grey),
        )))?;
    }
    for (i, s) in panel.series.iter().enumerate() {
        let [r, g, b] = s.color.unwrap_or(PALETTE[i % PALETTE.len()]);
        let color = RGBColor(r, g, b);
        let points = s
            .points
            .iter()
            .copied()
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
            });
    }
    if !panel.series.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(("sans-serif", 13))
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_png_with_text_and_lines() {
        let dir = std::env::temp_dir().join(format!("omote-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.png");
        let pts: Vec<(f32, f32)> = (0..100)
            .map(|i| (i as f32 * 0.05, (i as f32 * 0.1).sin()))
            .collect();
        TimePlot::new("test")
            .panel(
                Panel::new("a")
                    .series(Series::new("sin", pts))
                    .span(1.0, 2.0)
                    .marker(3.0, "blink"),
            )
            .panel(Panel::new("empty"))
            .render_png(&path)
            .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        assert!(bytes.len() > 5_000, "a drawn plot is not a blank image");
        std::fs::remove_dir_all(&dir).ok();
    }
}

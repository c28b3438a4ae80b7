//! Stacked panels of time series sharing one time axis.

use std::path::Path;

use plotters::coord::CoordTranslate;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::types::RangedCoordf32;
use plotters::prelude::*;
use plotters::style::FontError;

use crate::labels::{LabelBox, LabelLayout, place};
use crate::{PALETTE, PlotError, register_fonts};

/// Most lanes of marker labels above a panel; a label with no room in them is dropped.
pub const MAX_LABEL_LANES: usize = 4;
/// Font size of marker labels.
const LABEL_FONT: f64 = 12.0;
/// Margin around a panel's chart, and the width of its value labels, in pixels.
const MARGIN: i32 = 8;
const Y_LABEL_AREA: i32 = 52;

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
    /// Vertical markers (time, short label). The labels go in lanes above the panel,
    /// none over another ([`TimePlot::render_png`]).
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

    /// Draw to a PNG file; where the marker labels went. Each panel with markers gets a
    /// band of label lanes above it (as many as its labels need, at most
    /// [`MAX_LABEL_LANES`], added to its height): no label overlaps another or the data.
    pub fn render_png(&self, path: &Path) -> Result<LabelLayout, PlotError> {
        register_fonts();
        let err = |e: &dyn std::fmt::Display| PlotError::Draw {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let (t0, t1) = self.time_range();
        let lane_height = label_size("Ag").map_err(|e| err(&e))?.1 + 3;
        // The labels placed on the time axis every chart has (the same pixels across:
        // checked when drawn), before the panels' heights are known.
        let xs = MARGIN + Y_LABEL_AREA..self.width as i32 - MARGIN;
        let axis: Cartesian2d<RangedCoordf32, RangedCoordf32> =
            Cartesian2d::new(t0..t1, 0.0..1.0, (xs.clone(), 0..1));
        let mut bands = Vec::with_capacity(self.panels.len());
        for (i, panel) in self.panels.iter().enumerate() {
            let anchors =
                label_anchors(panel, |t| axis.translate(&(t, 0.0)).0).map_err(|e| err(&e))?;
            let spots = place(&anchors, (xs.start, xs.end), MAX_LABEL_LANES);
            bands.push(Band {
                panel: i,
                lanes: spots.iter().flatten().map(|p| p.0 + 1).max().unwrap_or(0),
                lane_height,
                xs: xs.clone(),
                widths: anchors.iter().map(|a| a.1).collect(),
                spots,
            });
        }
        let heights: Vec<i32> = bands
            .iter()
            .map(|b| self.panel_height as i32 + b.lanes as i32 * lane_height)
            .collect();
        let height = 60 + heights.iter().sum::<i32>().max(self.panel_height as i32);
        let root = BitMapBackend::new(path, (self.width, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let root = root
            .titled(&self.title, ("sans-serif", 26))
            .map_err(|e| err(&e))?;
        let breaks: Vec<i32> = heights
            .iter()
            .scan(0, |y, h| {
                *y += h;
                Some(*y)
            })
            .take(heights.len().saturating_sub(1))
            .collect();
        let areas = root.split_by_breakpoints::<i32, i32, _, _>([], breaks);
        let mut layout = LabelLayout::default();
        for ((panel, area), band) in self.panels.iter().zip(areas).zip(&bands) {
            draw_panel(panel, &area, (t0, t1), band, &mut layout).map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
        Ok(layout)
    }
}

/// The size of `text` in the label font.
fn label_size(text: &str) -> Result<(i32, i32), FontError> {
    let (w, h) = ("sans-serif", LABEL_FONT).into_font().box_size(text)?;
    Ok((w as i32, h as i32))
}

/// Each marker's (x, label width), `to_x` mapping time to pixels.
fn label_anchors(panel: &Panel, to_x: impl Fn(f32) -> i32) -> Result<Vec<(i32, i32)>, FontError> {
    panel
        .markers
        .iter()
        .map(|(t, label)| Ok((to_x(*t), label_size(label)?.0)))
        .collect()
}

/// The label lanes above one panel and where its labels go.
struct Band {
    /// The panel's index.
    panel: usize,
    /// Lanes used.
    lanes: usize,
    lane_height: i32,
    /// The chart's pixels across.
    xs: std::ops::Range<i32>,
    /// Each marker's label width.
    widths: Vec<i32>,
    /// Each marker's label lane and left edge; `None` when left out.
    spots: Vec<Option<(usize, i32)>>,
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;

fn draw_panel(
    panel: &Panel,
    area: &Area<'_>,
    (t0, t1): (f32, f32),
    band: &Band,
    layout: &mut LabelLayout,
) -> Result<(), Box<dyn std::error::Error>> {
    let (y0, y1) = panel.value_range();
    let band_height = band.lanes as i32 * band.lane_height;
    // The title drawn here, not by the chart (which puts it below its top margin), so
    // that the label band lies between the title and the plot.
    let left_out = band
        .spots
        .iter()
        .zip(&panel.markers)
        .filter(|(spot, (_, text))| spot.is_none() && !text.is_empty())
        .count();
    let title = match left_out {
        0 => panel.title.clone(),
        n => format!("{} ({n} marker label(s) left out for room)", panel.title),
    };
    let titled = area
        .margin(MARGIN, 0, 0, 0)
        .titled(&title, ("sans-serif", 18))?;
    let mut chart = ChartBuilder::on(&titled)
        .margin(MARGIN)
        .margin_top(band_height + 2)
        .x_label_area_size(28)
        .y_label_area_size(Y_LABEL_AREA)
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
    let grey = RGBColor(120, 120, 120);
    for (t, _) in &panel.markers {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(*t, y0), (*t, y1)],
            grey,
        )))?;
    }
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    debug_assert_eq!(xs, band.xs, "labels placed on another time axis");
    let (base_x, base_y) = area.get_base_pixel();
    let style = ("sans-serif", LABEL_FONT).into_font().color(&grey);
    for (((_, text), width), spot) in panel.markers.iter().zip(&band.widths).zip(&band.spots) {
        let &Some((lane, x)) = spot else {
            // A marker without a label (e.g. an ordinary blink) is not left out.
            if !text.is_empty() {
                layout.dropped.push((band.panel, text.clone()));
            }
            continue;
        };
        // Lane 0 sits just above the plot, the others above it.
        let y = ys.start - 2 - (lane as i32 + 1) * band.lane_height;
        area.draw(&Text::new(
            text.clone(),
            (x - base_x, y - base_y),
            style.clone(),
        ))?;
        layout.placed.push(LabelBox {
            panel: band.panel,
            text: text.clone(),
            x,
            y,
            width: *width,
            height: band.lane_height - 3,
        });
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

    /// Labels 0.05 s apart (about 3 px on this axis, each some 60 px wide) never
    /// overlap: they stack in lanes, the rest are dropped and counted; far apart ones
    /// share the first lane; all stay inside the image.
    #[test]
    fn marker_labels_0_05_s_apart_never_overlap() {
        let dir = std::env::temp_dir().join(format!("omote-plot-labels-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("labels.png");
        let pts: Vec<(f32, f32)> = (0..=200).map(|i| (i as f32 * 0.1, 0.5)).collect();
        let mut dense = Panel::new("dense").series(Series::new("s", pts.clone()));
        for k in 0..12 {
            dense = dense.marker(5.0 + k as f32 * 0.05, format!("happy 0.{k}"));
        }
        let sparse = Panel::new("sparse")
            .series(Series::new("s", pts))
            .marker(2.0, "wait 0")
            .marker(10.0, "advance")
            .marker(20.0, "at the end")
            .marker(10.05, "");
        let plot = TimePlot::new("labels").panel(dense).panel(sparse);
        let layout = plot.render_png(&path).unwrap();

        assert_eq!(layout.overlaps(), [], "{:#?}", layout.placed);
        let on = |p: usize| layout.placed.iter().filter(move |b| b.panel == p);
        assert_eq!(on(0).count(), MAX_LABEL_LANES, "one label per lane");
        assert_eq!(layout.dropped.len(), 12 - MAX_LABEL_LANES);
        assert!(layout.dropped.iter().all(|(p, _)| *p == 0));
        // Close labels really were in each other's way: they are in different lanes.
        let lanes: std::collections::BTreeSet<i32> = on(0).map(|b| b.y).collect();
        assert_eq!(lanes.len(), MAX_LABEL_LANES);
        // Far apart: one lane, in time order, the last one ending at its marker.
        let sparse: Vec<&LabelBox> = on(1).collect();
        assert_eq!(sparse.len(), 3, "the empty label takes no room");
        assert!(sparse.iter().all(|b| b.y == sparse[0].y));
        assert!(sparse[0].x < sparse[1].x && sparse[1].x < sparse[2].x);
        assert!(sparse[2].x + sparse[2].width <= plot.width as i32);
        // The dense panel's band makes it taller; boxes are drawn text sizes.
        let img_h = u32::from_be_bytes(std::fs::read(&path).unwrap()[20..24].try_into().unwrap());
        assert!(img_h > 60 + 2 * plot.panel_height, "{img_h}");
        for b in &layout.placed {
            assert!(
                b.width > 20 && b.height > 5 && b.x >= 0 && b.y >= 0,
                "{b:?}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

//! The timeline plot of `omote simulate`: blink weight, gaze yaw/pitch, and the events.

use std::path::Path;
use std::sync::Once;

use anyhow::{Context, Result};
use omote_core::{Anim, AnimEvent, BlinkCause};
use plotters::prelude::*;
use plotters::style::FontStyle;

const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!("../../../../omote-plot/assets/DejaVuSans.ttf");

fn register_font() -> Result<()> {
    static ONCE: Once = Once::new();
    let mut ok = true;
    ONCE.call_once(|| {
        ok = plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok();
    });
    anyhow::ensure!(ok, "the bundled font could not be read");
    Ok(())
}

/// Colour of a blink marker by cause.
fn cause_colour(cause: BlinkCause) -> RGBColor {
    match cause {
        BlinkCause::Spontaneous => RGBColor(40, 40, 40),
        BlinkCause::Double => RGBColor(230, 120, 0),
        BlinkCause::Gaze => RGBColor(200, 0, 0),
        BlinkCause::Requested => RGBColor(0, 150, 60),
    }
}

/// Draw `anim` as two stacked time series (blink weight; gaze yaw and pitch) with a
/// marker per blink and saccade, into a PNG at `path`.
pub fn timeline(anim: &Anim, title: &str, path: &Path) -> Result<()> {
    register_font()?;
    let duration = anim.duration.max(1e-3);
    let dt = 1.0 / anim.fps;
    let blink: Vec<f32> = match anim.expressions.get("blink") {
        Some(track) => track.to_vec(),
        None => {
            let left = anim.expressions.get("blinkLeft").unwrap_or(&[]);
            let right = anim.expressions.get("blinkRight").unwrap_or(&[]);
            (0..anim.frames())
                .map(|i| {
                    let l = left.get(i).copied().unwrap_or(0.0);
                    l.max(right.get(i).copied().unwrap_or(0.0))
                })
                .collect()
        }
    };
    let gaze_range = anim
        .look_at
        .iter()
        .flat_map(|g| g.iter().map(|v| v.abs()))
        .fold(5.0f32, f32::max)
        * 1.15;

    let root = BitMapBackend::new(path, (1600, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, (FONT, 24))?;
    let (top, bottom) = root.split_vertically(400);

    let mut chart = ChartBuilder::on(&top)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0f32..duration, -0.05f32..1.6f32)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("blink weight")
        .y_labels(8)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            blink.iter().enumerate().map(|(i, &w)| (i as f32 * dt, w)),
            BLUE.stroke_width(2),
        ))?
        .label("blink channel (after overrides)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], BLUE.stroke_width(2)));
    for cause in [
        BlinkCause::Spontaneous,
        BlinkCause::Double,
        BlinkCause::Gaze,
        BlinkCause::Requested,
    ] {
        let colour = cause_colour(cause);
        let starts: Vec<(f32, f32)> = anim
            .events
            .iter()
            .filter_map(|e| match e {
                AnimEvent::Blink { t, cause: c, .. } if *c == cause => Some((*t, 1.08)),
                _ => None,
            })
            .collect();
        if starts.is_empty() {
            continue;
        }
        chart
            .draw_series(
                starts
                    .into_iter()
                    .map(|p| TriangleMarker::new(p, 6, colour.filled())),
            )?
            .label(format!("blink start: {}", cause.name()))
            .legend(move |(x, y)| TriangleMarker::new((x + 12, y), 6, colour.filled()));
    }
    chart
        .configure_series_labels()
        .label_font((FONT, 15))
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;

    let mut chart = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0f32..duration, -gaze_range..gaze_range * 1.6)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("gaze (deg)")
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    let yaw_colour = RGBColor(200, 30, 30);
    let pitch_colour = RGBColor(30, 110, 200);
    chart
        .draw_series(LineSeries::new(
            anim.look_at
                .iter()
                .enumerate()
                .map(|(i, g)| (i as f32 * dt, g[0])),
            yaw_colour.stroke_width(2),
        ))?
        .label("yaw (> 0 left)")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 24, y)], yaw_colour.stroke_width(2))
        });
    chart
        .draw_series(LineSeries::new(
            anim.look_at
                .iter()
                .enumerate()
                .map(|(i, g)| (i as f32 * dt, g[1])),
            pitch_colour.stroke_width(2),
        ))?
        .label("pitch (> 0 down)")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 24, y)], pitch_colour.stroke_width(2))
        });
    let marker_y = -gaze_range * 0.93;
    chart
        .draw_series(anim.events.iter().filter_map(|e| match e {
            AnimEvent::Saccade { t, .. } => Some(Circle::new((*t, marker_y), 3, BLACK.filled())),
            _ => None,
        }))?
        .label("saccade start")
        .legend(|(x, y)| Circle::new((x + 12, y), 3, BLACK.filled()));
    chart
        .configure_series_labels()
        .label_font((FONT, 15))
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present().context("cannot write the PNG")?;
    Ok(())
}

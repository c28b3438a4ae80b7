//! # omote-plot
//!
//! PNG plots of omote's outputs, for results people would rather look at than read:
//! channels over time (demo, simulate, retarget, lip sync) and maps.
//!
//! Marker labels never overlap: each goes into the first lane above its panel where it
//! keeps clear of the others, and one with no room is left out and counted
//! ([`TimePlot::render_png`] returns where each went, [`LabelLayout`]).
//!
//! Text is drawn with a bundled DejaVu Sans (`assets/`, Bitstream Vera licence), so
//! plots need no system fonts.
//!
//! ```no_run
//! use omote_plot::{Panel, Series, TimePlot};
//! let plot = TimePlot::new("demo").panel(
//!     Panel::new("mouth").series(Series::new("aa", vec![(0.0, 0.0), (1.0, 1.0)])),
//! );
//! plot.render_png(std::path::Path::new("out.png")).unwrap();
//! ```

mod font;
mod labels;
mod motion_map;
mod time_plot;

pub use font::register_fonts;
pub use labels::{LabelBox, LabelLayout};
pub use motion_map::{MotionMapPlot, WeightGrid};
pub use time_plot::{MAX_LABEL_LANES, Panel, Series, TimePlot};

use std::path::PathBuf;

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// Drawing or encoding failed.
    #[error("{path}: could not draw the plot: {message}")]
    Draw {
        /// The output file.
        path: PathBuf,
        /// What the backend said.
        message: String,
    },
}

/// A qualitative palette (Tableau 10), cycled by series index.
pub const PALETTE: [[u8; 3]; 10] = [
    [31, 119, 180],
    [255, 127, 14],
    [44, 160, 44],
    [214, 39, 40],
    [148, 103, 189],
    [140, 86, 75],
    [227, 119, 194],
    [127, 127, 127],
    [188, 189, 34],
    [23, 190, 207],
];

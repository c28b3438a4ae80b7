//! The bundled font.

use std::sync::Once;

use plotters::style::FontStyle;

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Register the bundled DejaVu Sans as `sans-serif` (idempotent). Every drawing
/// function here calls it; call it yourself before drawing with plotters directly.
pub fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            // The font is compiled in and known to parse; a failure would show as
            // missing text, never a panic.
            let _ = plotters::style::register_font("sans-serif", style, FONT);
        }
    });
}

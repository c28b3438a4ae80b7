//! `omote motion-map`: inspect a camera motion map: weights at an angle, a table of
//! weights for a list of angles, or a picture of the map.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use omote_core::{CameraCorrection, MotionMap};
use omote_plot::{MotionMapPlot, WeightGrid};

/// Arguments of `omote motion-map`.
#[derive(clap::Args, Debug)]
#[command(
    about = "Weights of a camera motion map at camera angles, or a plot of the map",
    long_about = "Weights of a camera motion map (camera-angle face correction) at camera \
angles, or a plot of the map.\n\nα is the horizontal angle of the camera around the face \
(0 in front, > 0 toward the avatar's left, ±180 behind), β the vertical angle (> 0 from \
above), both in degrees. Weights are ≥ 0, sum to 1 and are printed rounded to 12 decimals.",
    after_help = "Examples:\n  omote motion-map examples/maps/anime-face.toml --alpha 40 --beta 20\n  \
omote motion-map examples/maps/anime-face.toml --query angles.tsv > weights.tsv\n  \
omote motion-map examples/maps/anime-face.toml --plot anime-face.png"
)]
pub struct MotionMapArgs {
    /// The motion map file (TOML or JSON).
    #[arg(value_name = "MAP.toml")]
    pub map: PathBuf,
    /// Camera α in degrees; prints `{"weights":{NAME:WEIGHT,…}}` (with --beta).
    #[arg(
        long,
        allow_negative_numbers = true,
        requires = "beta",
        conflicts_with = "query"
    )]
    pub alpha: Option<f64>,
    /// Camera β in degrees (with --alpha).
    #[arg(long, allow_negative_numbers = true, requires = "alpha")]
    pub beta: Option<f64>,
    /// A file of lines `alpha<TAB>beta` (`-` for standard input; blank lines, `#`
    /// comments and an `alpha beta` header are skipped); prints a TSV with the header
    /// `alpha beta NAME1 NAME2 …` (point names in file order) and one row per angle.
    #[arg(long, value_name = "ANGLES.tsv")]
    pub query: Option<PathBuf>,
    /// Draw the map to this PNG: points, triangles, hull rays, and a heat map of each
    /// motion's weight.
    #[arg(long, value_name = "OUT.png")]
    pub plot: Option<PathBuf>,
    /// Also check that every expression name is a channel of this rig file.
    #[arg(long, value_name = "RIG")]
    pub rig: Option<PathBuf>,
}

/// Run `omote motion-map`.
pub fn run(args: MotionMapArgs) -> anyhow::Result<()> {
    if let Some(out) = &args.plot {
        crate::output::check_png_name(out)?;
    }
    let map = omote_config::read_motion_map(&args.map)?;
    if let Some(rig_path) = &args.rig {
        let rig = omote_config::load_rig(rig_path)?;
        CameraCorrection::new(map.clone(), &rig)
            .map_err(|e| omote_config::motion_map_error(&args.map, &e))?;
    }
    let mut did = false;
    if let (Some(alpha), Some(beta)) = (args.alpha, args.beta) {
        println!("{}", weights_json(&map, alpha, beta)?);
        did = true;
    }
    if let Some(query) = &args.query {
        let text = if query.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("cannot read angles from standard input")?;
            s
        } else {
            omote_fs::read_to_string(query, omote_fs::Limit::DATA)
                .with_context(|| format!("cannot read {}", query.display()))?
        };
        print!("{}", query_tsv(&map, &text, query)?);
        did = true;
    }
    if let Some(out) = &args.plot {
        plot(&map, &args.map, out)?;
        eprintln!("wrote {}", out.display());
        did = true;
    }
    if !did {
        bail!("nothing to do: give --alpha and --beta, --query ANGLES.tsv, or --plot OUT.png");
    }
    Ok(())
}

fn round(w: f64) -> f64 {
    (w * 1e12).round() / 1e12 + 0.0 // + 0.0: never print "-0"
}

/// `{"weights":{"front":0.2,…}}` in point order, plus `"fade"` if the map fades out; the
/// angles as `--query` takes them (α wrapped round, β refused beyond ±90°).
fn weights_json(map: &MotionMap, alpha: f64, beta: f64) -> anyhow::Result<String> {
    let (alpha, beta) = MotionMap::check_angles(alpha, beta)
        .with_context(|| format!("--alpha {alpha} --beta {beta}"))?;
    let w = map.weights(alpha, beta);
    let mut s = String::from("{\"weights\":{");
    for (i, w) in w.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s += &serde_json::to_string(map.name(i))?;
        s.push(':');
        s += &serde_json::to_string(&round(*w))?;
    }
    s.push('}');
    if map.desc().fade.is_some() {
        s += ",\"fade\":";
        s += &serde_json::to_string(&round(map.fade(alpha, beta)))?;
    }
    s.push('}');
    Ok(s)
}

/// The TSV answer to a file of `alpha<TAB>beta` lines; `source` names it in errors.
fn query_tsv(map: &MotionMap, text: &str, source: &Path) -> anyhow::Result<String> {
    let mut out = String::from("alpha\tbeta");
    for i in 0..map.len() {
        out.push('\t');
        out += map.name(i);
    }
    out.push('\n');
    let mut w = vec![0.0; map.len()];
    let mut seen_data = false;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", source.display(), n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if !seen_data
            && fields.len() == 2
            && fields[0].eq_ignore_ascii_case("alpha")
            && fields[1].eq_ignore_ascii_case("beta")
        {
            continue;
        }
        let [a, b] = fields[..] else {
            bail!("{}: expected `alpha<TAB>beta`, found `{line}`", at());
        };
        let number = |name: &str, v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .with_context(|| format!("{}: {name} `{v}` is not a finite number", at()))
        };
        let (alpha, beta) = (number("alpha", a)?, number("beta", b)?);
        // α wraps (360° is 0°); β past the poles is refused, naming the field.
        let (alpha, beta) =
            MotionMap::check_angles(alpha, beta).with_context(|| format!("{}: `{line}`", at()))?;
        seen_data = true;
        map.weights_into(alpha, beta, &mut w);
        write!(out, "{a}\t{b}")?;
        for x in &w {
            write!(out, "\t{}", round(*x))?;
        }
        out.push('\n');
    }
    Ok(out)
}

/// Sample the map on a 2° grid over the whole plane and draw it.
fn plot(map: &MotionMap, map_path: &Path, out: &Path) -> anyhow::Result<()> {
    let n = map.len();
    let grid = WeightGrid::sample((-180.0, 180.0), (-90.0, 90.0), 180, 90, n, |a, b, w| {
        map.weights_into(a, b, w)
    });
    let fade = map.desc().fade;
    let grid = match fade {
        Some(_) => grid.with_fade(|a, b| map.fade(a, b)),
        None => grid,
    };
    let title = format!(
        "motion map {} — {} motions, centre ({}, {}); weight: white 0 → dark blue 1",
        map_path.display(),
        n,
        map.center()[0],
        map.center()[1]
    );
    let plot = MotionMapPlot {
        triangles: map.triangles().to_vec(),
        hull: map.hull().to_vec(),
        fade: fade.map(|f| (f.start, f.end)),
        ..MotionMapPlot::new(
            title,
            (0..n).map(|i| map.name(i).to_owned()).collect(),
            map.points().iter().map(|p| [p.alpha, p.beta]).collect(),
            map.center(),
            grid,
        )
    };
    crate::output::write_with(out, |tmp| Ok(plot.render_png(tmp)?))
        .with_context(|| format!("drawing the map of {}", map_path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> MotionMap {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/maps/anime-face.toml");
        omote_config::read_motion_map(&path).unwrap()
    }

    #[test]
    fn json_lists_weights_in_file_order() {
        let map = example();
        let s = weights_json(&map, 0.0, 0.0).unwrap();
        assert!(
            s.starts_with(r#"{"weights":{"front":1.0,"left":0.0,"#),
            "{s}"
        );
        assert!(s.ends_with(r#","fade":1.0}"#), "{s}");
        let v: serde_json::Value =
            serde_json::from_str(&weights_json(&map, 40.0, 20.0).unwrap()).unwrap();
        let sum: f64 = v["weights"]
            .as_object()
            .unwrap()
            .values()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-9);
        assert!(weights_json(&map, f64::NAN, 0.0).is_err());
    }

    #[test]
    fn tsv_has_a_header_and_a_row_per_angle() {
        let map = example();
        let text = "# camera orbit\nalpha\tbeta\n0\t0\n\n-75\t0\n180\t10\n";
        let out = query_tsv(&map, text, Path::new("a.tsv")).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "alpha\tbeta\tfront\tleft\tright\thigh\tlow\thigh-left\thigh-right\tlow-left\tlow-right"
        );
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1], "0\t0\t1\t0\t0\t0\t0\t0\t0\t0\t0");
        assert_eq!(lines[2], "-75\t0\t0\t0\t1\t0\t0\t0\t0\t0\t0");
        let e = query_tsv(&map, "0\t0\n1 2 3\n", Path::new("a.tsv")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.tsv:2: expected `alpha<TAB>beta`, found `1 2 3`"
        );
        let e = query_tsv(&map, "0\tnan\n", Path::new("a.tsv")).unwrap_err();
        assert_eq!(e.to_string(), "a.tsv:1: beta `nan` is not a finite number");
    }
}

//! Parsers for command-line values shared by several commands.

/// `NAME=WEIGHT` with the weight in 0..=1 (command-line expression values).
pub fn parse_expression(s: &str) -> Result<(String, f32), String> {
    let (name, weight) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=WEIGHT"))?;
    let weight: f32 = weight
        .parse()
        .map_err(|_| format!("`{weight}` is not a number"))?;
    if !(0.0..=1.0).contains(&weight) {
        return Err(format!("weight {weight} is not between 0 and 1"));
    }
    Ok((name.to_string(), weight))
}

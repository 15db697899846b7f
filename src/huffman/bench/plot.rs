//! Throughput plot of the Huffman benchmark (`parvlc bench --plot`, `parvlc plot`).

use super::{human, Record};
use crate::Result;

/// Throughput against entropy (at the largest size) and against size (at the entropy
/// nearest 4.5), one line per encoder, as the text of an SVG file.
pub fn plot_svg(records: &[Record]) -> Result<String> {
    use plotters::prelude::*;
    let err = |e: String| crate::Error::InvalidArgument(format!("plot: {e}"));
    let rows: Vec<&Record> = records
        .iter()
        .filter(|r| r.scope == "encode" && r.input.starts_with("synthetic"))
        .collect();
    if rows.is_empty() {
        return Err(err("no synthetic encode records to plot".into()));
    }
    let mut variants: Vec<&str> = Vec::new();
    for r in &rows {
        if !variants.contains(&r.variant.as_str()) {
            variants.push(&r.variant);
        }
    }
    let largest = rows.iter().map(|r| r.bytes).max().unwrap_or(0);
    let mid = rows
        .iter()
        .map(|r| r.entropy_bits)
        .min_by(|a, b| (a - 4.5).abs().total_cmp(&(b - 4.5).abs()))
        .unwrap_or(4.5);
    let gbps = |r: &Record| r.bytes as f64 / r.seconds() / 1e9;
    let top = rows.iter().map(|r| gbps(r)).fold(0.0f64, f64::max) * 1.3;
    // Room below the lowest line for the legend.
    let bottom = rows.iter().map(|r| gbps(r)).fold(f64::INFINITY, f64::min) / 60.0;
    let y_range = bottom.min(top / 10.0)..top;
    // Sizes on a log2 axis, labelled in KiB/MiB/GiB.
    let log2 = |b: u64| (b.max(1) as f64).log2();
    let smallest = rows.iter().map(|r| r.bytes).min().unwrap_or(1);
    // Drawn into memory: the caller writes the file (all or nothing).
    let mut svg = String::new();
    let root = SVGBackend::with_string(&mut svg, (1100, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (left, right) = root.split_horizontally(550);
    let adapter = rows[0].adapter.clone();
    let mut entropy_chart = ChartBuilder::on(&left)
        .caption(
            format!("GB/s vs entropy, {} ({})", human(largest), adapter),
            ("sans-serif", 15),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(0f64..8.5f64, y_range.clone().log_scale())
        .map_err(|e| err(e.to_string()))?;
    entropy_chart
        .configure_mesh()
        .x_desc("entropy, bits per byte")
        .y_desc("GB/s of input")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let mut size_chart = ChartBuilder::on(&right)
        .caption(format!("GB/s vs size, {mid} bits/byte"), ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(52)
        .build_cartesian_2d(
            (log2(smallest) - 0.5)..(log2(largest) + 0.5),
            y_range.log_scale(),
        )
        .map_err(|e| err(e.to_string()))?;
    size_chart
        .configure_mesh()
        .x_desc("input bytes")
        .y_desc("GB/s of input")
        .x_label_formatter(&|v| {
            if (v - v.round()).abs() < 0.01 {
                human(2f64.powf(v.round()) as u64)
            } else {
                String::new()
            }
        })
        .draw()
        .map_err(|e| err(e.to_string()))?;
    for (i, v) in variants.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mut by_entropy: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *v && r.bytes == largest)
            .map(|r| (r.entropy_bits, gbps(r)))
            .collect();
        by_entropy.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut by_size: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.variant == *v && r.entropy_bits == mid)
            .map(|r| (log2(r.bytes), gbps(r)))
            .collect();
        by_size.sort_by(|a, b| a.0.total_cmp(&b.0));
        entropy_chart
            .draw_series(LineSeries::new(by_entropy.clone(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(v.to_string())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        entropy_chart
            .draw_series(
                by_entropy
                    .iter()
                    .map(|&p| Circle::new(p, 3, color.filled())),
            )
            .map_err(|e| err(e.to_string()))?;
        size_chart
            .draw_series(LineSeries::new(by_size.clone(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?;
        size_chart
            .draw_series(by_size.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(e.to_string()))?;
    }
    entropy_chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    drop((entropy_chart, size_chart, left, right, root));
    Ok(svg)
}
